"""Curves: P(success) and expected losses of every option, from the odds engine.

Each option is one :class:`~bellum.empire.odds.Plan`, solved by
:func:`bellum.empire.odds.plan_odds` exactly as ``bellum empire odds`` solves
it (same engine, same seed), so a printed order's odds agree with the plan's
figures.  This module is the planner's only door into the odds engine.

The plans are independent, so they are solved in parallel: a process pool on
the local cores by default, or a Dask cluster (:class:`DaskPool`).  Results are
cached by the caller's store under the world's version (:class:`CurveCache`), so
a second plan of the same turn solves nothing again.
"""

from __future__ import annotations

import hashlib
import json
import os
import pickle
from collections.abc import Callable, Iterator, Sequence
from concurrent.futures import ProcessPoolExecutor, as_completed
from dataclasses import asdict, dataclass
from typing import Any, Protocol

from bellum.empire.odds import Plan, plan_odds
from bellum.empire.odds.engine import world_model
from bellum.empire.rules import Rules
from bellum.empire.world import World
from bellum.errors import BellumError, CommandError

Progress = Callable[[float], None]

#: Plans per task sent to a worker (fewer round trips, still an even spread).
CHUNK = 8
#: Bump when the figures for the same plan would change (the cache keys carry it).
CURVE_VERSION = "2"
#: Samples at most, where the odds engine samples: the bound on one option's time.  The
#: planner never passes ``samples`` or ``target_error`` (either makes the engine sample
#: even a fight it can solve exactly); it bounds the sampling the engine chooses, and its
#: printed odds lines repeat the bound (``--max-runs``) so they give the same figures.
MAX_SAMPLES = 500


@dataclass(frozen=True)
class Point:
    """The odds of one option: P(success), its standard error, expected losses."""

    p: float
    se: float
    attacker: float
    defender: float
    method: str

    @property
    def sampled(self) -> bool:
        """Whether the engine sampled (``mixture (N samples)``) rather than solved exactly."""
        return not self.method.startswith("exact")

    def to_json(self) -> str:
        return json.dumps(asdict(self), sort_keys=True)

    @classmethod
    def from_json(cls, text: str) -> Point:
        d = json.loads(text)
        return cls(float(d["p"]), float(d["se"]), float(d["attacker"]), float(d["defender"]),
                   str(d["method"]))  # fmt: skip


class CurveCache(Protocol):
    """Where solved points are kept between runs (the world database, for one)."""

    def get_curves(self, version: str, keys: Sequence[str]) -> dict[str, str]: ...

    def put_curves(self, version: str, items: dict[str, str]) -> None: ...


def plan_key(plan: Plan, seed: int) -> str:
    """The cache key of one plan solved with one seed."""
    mil = sorted((str(s), n) for s, n in (plan.mil or {}).items())
    units = sorted(plan.units or ())
    return f"{CURVE_VERSION}|{plan.order.text()}|{mil}|{units}|{seed}"


def rules_digest(rules: Rules) -> str:
    """The rules the odds depend on, for the cache's version."""
    text = json.dumps(
        {"rules": rules.to_dict(), "model": world_model(rules)}, sort_keys=True, default=str
    )
    return hashlib.sha256(text.encode()).hexdigest()[:16]


def solve_point(world: World, country: int, plan: Plan, seed: int) -> Point | None:
    """One plan's odds; ``None`` when the command refuses it (the option is dropped)."""
    try:
        o = plan_odds(world, country, plan, seed=seed, max_samples=MAX_SAMPLES)
    except BellumError:
        return None
    return Point(o.p_success, o.standard_error, o.expected("attacker"), o.expected("defender"),
                 o.method)  # fmt: skip


class _ReadOnlyWorld(World):
    """A world a worker only reads, so the odds engine need not freeze a copy of it.

    The engine's scratch worlds (:class:`~bellum.empire.scratch.WorldTemplate`) copy
    what a run may change - a sector on first touch, the nations, units, ships and
    planes per run - and read the rest from the template; the template itself is first
    frozen with :meth:`World.copy`, a pickle of every sector, so that the caller may
    change its world later.  Nothing changes a worker's world, so its copy is itself:
    on a 256×128 world that copy was 85 % of an option's time.
    """

    def copy(self) -> World:
        return self


_WORLDS: dict[str, World] = {}


def _world(blob: bytes) -> World:
    """The world of ``blob``, unpickled once per worker (and kept while it is the same)."""
    digest = hashlib.sha256(blob).hexdigest()
    if digest not in _WORLDS:
        _WORLDS.clear()
        world = pickle.loads(blob)
        world.__class__ = _ReadOnlyWorld
        _WORLDS[digest] = world
    return _WORLDS[digest]


def solve_chunk(
    blob: bytes, country: int, plans: list[Plan], seed: int
) -> list[Point | None]:  # run in a worker
    world = _world(blob)
    return [solve_point(world, country, p, seed) for p in plans]


class Pool(Protocol):
    """Runs chunks of plans somewhere and yields ``(index, points)`` as they finish."""

    def run(
        self, blob: bytes, country: int, chunks: list[list[Plan]], seed: int
    ) -> Iterator[tuple[int, list[Point | None]]]: ...


@dataclass
class LocalPool:
    """A process pool on this machine (``jobs`` 1: in this process)."""

    jobs: int = 0

    def run(
        self, blob: bytes, country: int, chunks: list[list[Plan]], seed: int
    ) -> Iterator[tuple[int, list[Point | None]]]:
        jobs = self.jobs or os.cpu_count() or 1
        if jobs == 1 or len(chunks) == 1:
            for i, chunk in enumerate(chunks):
                yield i, solve_chunk(blob, country, chunk, seed)
            return
        with ProcessPoolExecutor(max_workers=min(jobs, len(chunks))) as ex:
            futures = {
                ex.submit(solve_chunk, blob, country, chunk, seed): i
                for i, chunk in enumerate(chunks)
            }
            try:
                for f in as_completed(futures):
                    yield futures[f], f.result()
            except BaseException:
                for f in futures:
                    f.cancel()
                raise


@dataclass
class DaskPool:
    """A Dask distributed scheduler at ``address`` (``tcp://host:port``), or a client."""

    address: str | Any
    #: Seconds to wait for the scheduler to answer.
    timeout: float = 10.0

    def run(
        self, blob: bytes, country: int, chunks: list[list[Plan]], seed: int
    ) -> Iterator[tuple[int, list[Point | None]]]:
        import distributed

        client_of: Any = distributed.Client
        finished: Any = distributed.as_completed
        own = isinstance(self.address, str)
        try:
            client: Any = (
                client_of(self.address, timeout=f"{self.timeout}s") if own else self.address
            )
        except (OSError, TimeoutError) as exc:
            raise CommandError(
                f"--dask {self.address}: cannot reach the Dask scheduler ({exc})"
            ) from None
        try:
            world = client.scatter(blob, broadcast=True)
            futures = client.map(
                solve_chunk, [world] * len(chunks), [country] * len(chunks), chunks,
                [seed] * len(chunks), pure=False,
            )  # fmt: skip
            index = {f.key: i for i, f in enumerate(futures)}
            for f in finished(futures):
                yield index[f.key], f.result()
        finally:
            if own:
                client.close()


def solve_points(
    world: World,
    country: int,
    plans: Sequence[Plan],
    *,
    seed: int,
    pool: Pool | None = None,
    cache: CurveCache | None = None,
    version: str = "",
    progress: Progress | None = None,
) -> tuple[list[Point | None], int]:
    """Every plan's point, from ``cache`` where it has them; and how many were solved now."""
    keys = [plan_key(p, seed) for p in plans]
    rules = {p.rules_in(world) for p in plans}
    digest = "|".join(sorted(rules_digest(r) for r in rules))
    version = f"{version}|{digest}|{country}"
    known = cache.get_curves(version, keys) if cache is not None and version else {}
    points: list[Point | None] = [None] * len(plans)
    todo: list[int] = []
    for i, k in enumerate(keys):
        if k in known:
            points[i] = None if known[k] == "null" else Point.from_json(known[k])
        else:
            todo.append(i)
    if todo:
        blob = pickle.dumps(world, pickle.HIGHEST_PROTOCOL)
        chunks = [todo[i : i + CHUNK] for i in range(0, len(todo), CHUNK)]
        done = 0
        fresh: dict[str, str] = {}
        runner = pool or LocalPool()
        try:
            work = [[plans[i] for i in c] for c in chunks]
            for n, result in runner.run(blob, country, work, seed):
                for i, point in zip(chunks[n], result, strict=True):
                    points[i] = point
                    fresh[keys[i]] = "null" if point is None else point.to_json()
                done += len(chunks[n])
                if progress is not None:
                    progress(done / len(todo))
        finally:  # what was solved is kept, even when interrupted
            if cache is not None and version and fresh:
                cache.put_curves(version, fresh)
    return points, len(todo)


__all__ = [
    "MAX_SAMPLES",
    "CurveCache",
    "DaskPool",
    "LocalPool",
    "Point",
    "Pool",
    "plan_key",
    "solve_points",
]
