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
import tempfile
from collections import OrderedDict
from collections.abc import Callable, Iterator, Sequence
from concurrent.futures import ProcessPoolExecutor, as_completed
from dataclasses import asdict, dataclass, field
from pathlib import Path
from typing import Any, Protocol

from bellum.empire.odds import Plan, plan_odds
from bellum.empire.odds.engine import world_model
from bellum.empire.rules import Rules
from bellum.empire.world import World
from bellum.errors import BellumError, CommandError

Progress = Callable[[float], None]

#: Plans per task sent to a worker: few, so that one slow fight does not hold back others
#: queued behind it (a task costs a path and its plans to send, not its world).
CHUNK = 2
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


#: Worlds unpickled in this process, by where they came from (the latest few).
_WORLDS: OrderedDict[str, World] = OrderedDict()
_KEEP = 4


def _world(ref: bytes | str) -> World:
    """The world ``ref`` names - a pickle, or the path of a file holding one - unpickled
    once per process and kept while it is among the last few used."""
    key = ref if isinstance(ref, str) else hashlib.sha256(ref).hexdigest()
    if key in _WORLDS:
        _WORLDS.move_to_end(key)
        return _WORLDS[key]
    blob = Path(ref).read_bytes() if isinstance(ref, str) else ref
    world: World = pickle.loads(blob)
    world.__class__ = _ReadOnlyWorld
    _WORLDS[key] = world
    while len(_WORLDS) > _KEEP:
        _WORLDS.popitem(last=False)
    return world


def solve_chunk(
    ref: bytes | str, country: int, plans: list[Plan], seed: int
) -> list[Point | None]:  # run in a worker
    world = _world(ref)
    return [solve_point(world, country, p, seed) for p in plans]


#: One piece of work: the index of its world, the country that gives the orders, the plans.
Task = tuple[int, int, list[Plan]]


class Pool(Protocol):
    """Runs tasks somewhere and yields ``(index, points)`` as they finish; each task's
    world is one of ``worlds`` (pickles), given by its index."""

    def run(
        self, worlds: Sequence[bytes], tasks: Sequence[Task], seed: int
    ) -> Iterator[tuple[int, list[Point | None]]]: ...


@dataclass
class LocalPool:
    """A process pool on this machine (``jobs`` 1: in this process).

    Its processes are started once and kept for every run until :meth:`close` (or the
    end of a ``with`` block): a plan solves its options in several rounds, and a
    worker keeps the worlds it has unpickled.  A world reaches the workers as a file,
    written once per run, rather than with every task.
    """

    jobs: int = 0
    _executor: ProcessPoolExecutor | None = field(default=None, init=False, repr=False)

    def __enter__(self) -> LocalPool:
        return self

    def __exit__(self, *exc: object) -> None:
        self.close()

    def close(self) -> None:
        if self._executor is not None:
            self._executor.shutdown(wait=True, cancel_futures=True)
            self._executor = None

    def run(
        self, worlds: Sequence[bytes], tasks: Sequence[Task], seed: int
    ) -> Iterator[tuple[int, list[Point | None]]]:
        jobs = self.jobs or os.cpu_count() or 1
        if jobs == 1 or len(tasks) == 1:
            for i, (w, country, plans) in enumerate(tasks):
                yield i, solve_chunk(worlds[w], country, plans, seed)
            return
        if self._executor is None:
            self._executor = ProcessPoolExecutor(max_workers=jobs)
        ex = self._executor
        with tempfile.TemporaryDirectory(prefix="bellum-plan-") as tmp:
            paths = []
            for i, blob in enumerate(worlds):
                path = Path(tmp) / f"world-{i}.pickle"
                path.write_bytes(blob)
                paths.append(str(path))
            futures = {
                ex.submit(solve_chunk, paths[w], country, plans, seed): i
                for i, (w, country, plans) in enumerate(tasks)
            }
            try:
                for f in as_completed(futures):
                    yield futures[f], f.result()
            except BaseException:
                for f in futures:
                    f.cancel()
                self._executor = None  # Ctrl-C or a failure: the running tasks are dropped
                ex.shutdown(wait=False, cancel_futures=True)
                raise


@dataclass
class DaskPool:
    """A Dask distributed scheduler at ``address`` (``tcp://host:port``), or a client."""

    address: str | Any
    #: Seconds to wait for the scheduler to answer.
    timeout: float = 10.0

    def run(
        self, worlds: Sequence[bytes], tasks: Sequence[Task], seed: int
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
            scattered = [client.scatter(blob, broadcast=True) for blob in worlds]
            futures = client.map(
                solve_chunk, [scattered[w] for w, _, _ in tasks], [c for _, c, _ in tasks],
                [plans for _, _, plans in tasks], [seed] * len(tasks), pure=False,
            )  # fmt: skip
            index = {f.key: i for i, f in enumerate(futures)}
            for f in finished(futures):
                yield index[f.key], f.result()
        finally:
            if own:
                client.close()


def solve_batches(
    batches: Sequence[tuple[World, int, Sequence[Plan]]],
    *,
    seed: int,
    pool: Pool | None = None,
    progress: Progress | None = None,
    found: Callable[[int, int, Point | None], None] | None = None,
) -> list[list[Point | None]]:
    """The points of every plan of every batch (a world, the country giving the orders,
    its plans), solved together in ``pool``: one run, however many worlds.  ``found``
    hears each point as it comes (batch, plan, point), so an interrupted run keeps them."""
    worlds = [pickle.dumps(w, pickle.HIGHEST_PROTOCOL) for w, _, plans in batches if plans]
    tasks: list[Task] = []
    where: list[tuple[int, int]] = []  # (batch, first plan) of each task
    n = 0
    for b, (_, country, plans) in enumerate(batches):
        if not plans:
            continue
        for i in range(0, len(plans), CHUNK):
            tasks.append((n, country, list(plans[i : i + CHUNK])))
            where.append((b, i))
        n += 1
    out: list[list[Point | None]] = [[None] * len(plans) for _, _, plans in batches]
    total = sum(len(t[2]) for t in tasks)
    done = 0
    for k, points in (pool or LocalPool()).run(worlds, tasks, seed):
        b, first = where[k]
        out[b][first : first + len(points)] = points
        if found is not None:
            for j, point in enumerate(points):
                found(b, first + j, point)
        done += len(points)
        if progress is not None:
            progress(done / total)
    return out


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
        fresh: dict[str, str] = {}

        def keep(_batch: int, j: int, point: Point | None) -> None:
            points[todo[j]] = point
            fresh[keys[todo[j]]] = "null" if point is None else point.to_json()

        try:
            solve_batches([(world, country, [plans[i] for i in todo])], seed=seed, pool=pool,
                          progress=progress, found=keep)  # fmt: skip
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
    "solve_batches",
    "solve_points",
]
