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
import time
from collections import OrderedDict
from collections.abc import Callable, Iterator, Sequence
from concurrent.futures import ProcessPoolExecutor, as_completed
from dataclasses import asdict, dataclass, field
from pathlib import Path
from typing import Any, Protocol

from bellum.collector import fewer_collections
from bellum.empire.odds import Plan, plan_odds
from bellum.empire.odds.engine import world_model
from bellum.empire.plan.precision import FULL, PLANNING, SCREENING, Precision
from bellum.empire.rules import Rules
from bellum.empire.scratch import WorldTemplate
from bellum.empire.world import World
from bellum.errors import BellumError, CommandError

Progress = Callable[[float], None]

#: Plans per task sent to a worker at most: few, so that one slow fight does not hold back
#: others queued behind it (a task costs a path and its plans to send, not its world).
CHUNK = 4
#: Tasks a run is cut into at least, where it has that many plans: a refining batch of 8
#: options of two targets went as two tasks of four, one worker waiting for the other
#: whenever one target's fights were the longer.
MIN_TASKS = 8
#: Bump when the figures for the same plan would change (the cache keys carry it).
CURVE_VERSION = "5"


@dataclass(frozen=True)
class Point:
    """The odds of one option: P(success), its standard error, expected losses (and the
    attacker's standard error)."""

    p: float
    se: float
    attacker: float
    defender: float
    method: str
    attacker_se: float = 0.0
    #: A screening figure (:data:`SCREENING`), not one at the planning precision.
    screened: bool = False

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
                   str(d["method"]), float(d["attacker_se"]), bool(d["screened"]))  # fmt: skip


class CurveCache(Protocol):
    """Where solved points are kept between runs (the world database, for one)."""

    def get_curves(self, version: str, keys: Sequence[str]) -> dict[str, str]: ...

    def put_curves(self, version: str, items: dict[str, str]) -> None: ...


def plan_key(plan: Plan, seed: int, precision: Precision = PLANNING) -> str:
    """The cache key of one plan solved with one seed at one precision."""
    mil = sorted((str(s), n) for s, n in (plan.mil or {}).items())
    units = sorted(plan.units or ())
    how = f"{precision.max_runs}|{precision.max_memory:g}|{precision.samples}"
    return f"{CURVE_VERSION}|{plan.order.text()}|{mil}|{units}|{seed}|{how}"


def rules_digest(rules: Rules) -> str:
    """The rules the odds depend on, for the cache's version."""
    text = json.dumps(
        {"rules": rules.to_dict(), "model": world_model(rules)}, sort_keys=True, default=str
    )
    return hashlib.sha256(text.encode()).hexdigest()[:16]


def solve_point(
    world: World,
    country: int,
    plan: Plan,
    seed: int,
    precision: Precision = PLANNING,
    template: WorldTemplate | None = None,
) -> Point | None:
    """One plan's odds; ``None`` when the command refuses it (the option is dropped).
    ``template``: ``world`` frozen, to run the command on (else the engine freezes it)."""
    screen = precision.samples is not None
    try:
        # A screen of a plan with one path to the fight is its planning figure at once
        # (its 8 samples were solved and thrown away for it: 2,508 of 256x128's options).
        o = plan_odds(world, country, plan, seed=seed, samples=precision.samples,
                      max_samples=precision.max_runs, max_memory=precision.memory_bytes,
                      template=template, branching_only=screen)  # fmt: skip
    except BellumError:
        return None
    return Point(o.p_success, o.standard_error, o.expected("attacker"), o.expected("defender"),
                 o.method, o.expected_errors.get("attacker", 0.0),
                 screen and not o.one_path)  # fmt: skip


class _ReadOnlyWorld(World):
    """A world a worker only reads, so the odds engine need not freeze a copy of it.

    The engine's scratch worlds (:class:`~bellum.empire.scratch.WorldTemplate`) copy
    what a run may change - a sector on first touch, the nations per run, a unit, ship
    or plane when the run takes it - and read the rest from the template; the template
    itself is first frozen with :meth:`World.copy`, a pickle of every sector, so that
    the caller may change its world later.  Nothing changes a worker's world, so its copy is itself:
    on a 256×128 world that copy was 85 % of an option's time.
    """

    def copy(self) -> World:
        return self


#: Worlds unpickled in this process, by their pickle's digest (the latest few), each with
#: the template its runs start from.
_WORLDS: OrderedDict[str, tuple[World, WorldTemplate]] = OrderedDict()
_KEEP = 4


@dataclass(frozen=True)
class WorldPickle:
    """A world as the workers get it: its pickle, and the pickle's digest that names it.

    A worker unpickles each world once and keeps it under its digest, whichever round
    or run sends it again; the odds engine's cache of side graphs and fights belongs to
    that one copy, so every option a worker solves for that world shares it.
    """

    digest: str
    data: bytes

    @classmethod
    def of(cls, world: World) -> WorldPickle:
        data = pickle.dumps(world, pickle.HIGHEST_PROTOCOL)
        return cls(hashlib.sha256(data).hexdigest(), data)


def world_of(digest: str, source: bytes | str) -> tuple[World, WorldTemplate]:
    """The world named ``digest`` - from ``source``, its pickle or the path of a file
    holding it - unpickled once per process and kept while among the last few used;
    and its template, made once: the runs of every option start from it, where each
    answer made its own (a freeze of the world per option)."""
    if digest in _WORLDS:
        _WORLDS.move_to_end(digest)
        return _WORLDS[digest]
    data = Path(source).read_bytes() if isinstance(source, str) else source
    world: World = pickle.loads(data)
    world.__class__ = _ReadOnlyWorld
    _WORLDS[digest] = (world, WorldTemplate(world))
    while len(_WORLDS) > _KEEP:
        _WORLDS.popitem(last=False)
    return _WORLDS[digest]


@fewer_collections()
def solve_chunk(
    digest: str,
    source: bytes | str,
    country: int,
    plans: list[Plan],
    seed: int,
    precision: Precision,
) -> list[Point | None]:  # run in a worker
    world, template = world_of(digest, source)
    return [solve_point(world, country, p, seed, precision, template) for p in plans]


#: One piece of work: the index of its world, the country that gives the orders, the plans.
Task = tuple[int, int, list[Any]]
#: What a worker runs for a task: :func:`solve_chunk`, or another function of the same
#: arguments (its world's digest and pickle or file, the country, the task's items, the
#: seed and precision), returning one result per item.
Job = Callable[[str, bytes | str, int, list[Any], int, Precision], list[Any]]


class Pool(Protocol):
    """Runs tasks somewhere and yields ``(index, results)`` as they finish; each task's
    world is one of ``worlds``, given by its index.  ``job`` is what runs each task
    (:func:`solve_chunk`: its plans' points)."""

    def run(
        self,
        worlds: Sequence[WorldPickle],
        tasks: Sequence[Task],
        seed: int,
        precision: Precision,
        job: Job = solve_chunk,
    ) -> Iterator[tuple[int, list[Any]]]: ...

    def workers(self) -> int:
        """How many tasks it runs at once."""
        ...


@dataclass
class LocalPool:
    """A process pool on this machine (``jobs`` 1: in this process).

    Its processes are started once and kept for every run until :meth:`close` (or the
    end of a ``with`` block): a plan solves its options in several rounds, and a
    worker keeps the worlds it has unpickled.  A world reaches the workers as a file,
    written once for the pool's life, rather than with every task.
    """

    jobs: int = 0
    _executor: ProcessPoolExecutor | None = field(default=None, init=False, repr=False)
    _files: tempfile.TemporaryDirectory[str] | None = field(default=None, init=False, repr=False)

    def __enter__(self) -> LocalPool:
        return self

    def __exit__(self, *exc: object) -> None:
        self.close()

    def close(self) -> None:
        if self._executor is not None:
            self._executor.shutdown(wait=True, cancel_futures=True)
            self._executor = None
        if self._files is not None:
            self._files.cleanup()
            self._files = None

    def workers(self) -> int:
        return self.jobs or os.cpu_count() or 1

    def _path(self, world: WorldPickle) -> str:
        if self._files is None:
            self._files = tempfile.TemporaryDirectory(prefix="bellum-plan-")
        path = Path(self._files.name) / f"{world.digest}.pickle"
        if not path.exists():
            path.write_bytes(world.data)
        return str(path)

    def run(
        self,
        worlds: Sequence[WorldPickle],
        tasks: Sequence[Task],
        seed: int,
        precision: Precision,
        job: Job = solve_chunk,
    ) -> Iterator[tuple[int, list[Any]]]:
        jobs = self.jobs or os.cpu_count() or 1
        if jobs == 1 or len(tasks) == 1:
            for i, (w, country, plans) in enumerate(tasks):
                world = worlds[w]
                yield i, job(world.digest, world.data, country, plans, seed, precision)
            return
        if self._executor is None:
            self._executor = ProcessPoolExecutor(max_workers=jobs)
        ex = self._executor
        paths = [self._path(w) for w in worlds]
        futures = {
            ex.submit(job, worlds[w].digest, paths[w], country, plans, seed, precision): i
            for i, (w, country, plans) in enumerate(tasks)
        }  # fmt: skip
        try:
            for f in as_completed(futures):
                yield futures[f], f.result()
        except BaseException:
            # Ctrl-C, a failure, or a caller that stops reading (out of time): the tasks
            # still running are nobody's, so their workers end now rather than compete
            # with the next run for the cores and hold up the process's exit.
            self._executor = None
            _stop(ex)
            raise


def _stop(ex: ProcessPoolExecutor) -> None:
    """End ``ex`` and its workers now, running tasks included (Python 3.14 has
    ``terminate_workers``; before it the processes are only reachable privately)."""
    for process in list((getattr(ex, "_processes", None) or {}).values()):
        process.terminate()
    ex.shutdown(wait=True, cancel_futures=True)


@dataclass
class DaskPool:
    """A Dask distributed scheduler at ``address`` (``tcp://host:port``), or a client.

    Each world is scattered to every worker once, the first time a run needs it, and
    kept there until :meth:`close`: a plan's rounds (and a second wave, or threats after
    a plan) send only their tasks.  A client made from an address is also kept until
    then.
    """

    address: str | Any
    #: Seconds to wait for the scheduler to answer.
    timeout: float = 10.0
    _client: Any = field(default=None, init=False, repr=False)
    _scattered: dict[str, Any] = field(default_factory=dict, init=False, repr=False)

    def __enter__(self) -> DaskPool:
        return self

    def __exit__(self, *exc: object) -> None:
        self.close()

    def close(self) -> None:
        """Forget the scattered worlds, and close the client this pool made."""
        self._scattered.clear()
        if self._client is not None and isinstance(self.address, str):
            self._client.close()
        self._client = None

    def _connect(self) -> Any:
        if self._client is None:
            if not isinstance(self.address, str):
                self._client = self.address
            else:
                import distributed

                client_of: Any = distributed.Client
                try:
                    self._client = client_of(self.address, timeout=f"{self.timeout}s")
                except (OSError, TimeoutError) as exc:
                    raise CommandError(
                        f"--dask {self.address}: cannot reach the Dask scheduler ({exc})"
                    ) from None
        return self._client

    def workers(self) -> int:
        return max(1, sum(int(n) for n in self._connect().nthreads().values()))

    def run(
        self,
        worlds: Sequence[WorldPickle],
        tasks: Sequence[Task],
        seed: int,
        precision: Precision,
        job: Job = solve_chunk,
    ) -> Iterator[tuple[int, list[Any]]]:
        import distributed

        finished: Any = distributed.as_completed
        client = self._connect()
        for w in worlds:
            if w.digest not in self._scattered:
                self._scattered[w.digest] = client.scatter(w.data, broadcast=True)
        sources = [self._scattered[w.digest] for w in worlds]
        futures = client.map(
            job, [worlds[w].digest for w, _, _ in tasks], [sources[w] for w, _, _ in tasks],
            [c for _, c, _ in tasks], [plans for _, _, plans in tasks], [seed] * len(tasks),
            [precision] * len(tasks), pure=False,
        )  # fmt: skip
        index = {f.key: i for i, f in enumerate(futures)}
        try:
            for f in finished(futures):
                yield index[f.key], f.result()
        except BaseException:
            client.cancel(futures)
            raise


def workers_of(pool: Pool | None) -> int:
    """How many tasks ``pool`` runs at once (``None``: the local pool a run makes)."""
    return (pool or LocalPool()).workers()


def _chunks(plans: Sequence[Plan]) -> Iterator[tuple[int, list[Plan]]]:
    """The plans in tasks of at most :data:`CHUNK`, each of one order (one target): the
    options of a target share their defender, so a worker's engine cache serves them all.
    Fewer plans go in smaller tasks (at least :data:`MIN_TASKS` where there are as many
    plans), so that the workers end together."""
    size = max(1, min(CHUNK, len(plans) // MIN_TASKS))
    start = 0
    for i in range(1, len(plans) + 1):
        if i == len(plans) or i - start == size or plans[i].order != plans[start].order:
            yield start, list(plans[start:i])
            start = i


def solve_batches(
    batches: Sequence[tuple[World, int, Sequence[Plan]]],
    *,
    seed: int,
    precision: Precision = PLANNING,
    pool: Pool | None = None,
    progress: Progress | None = None,
    found: Callable[[int, int, Point | None], None] | None = None,
    deadline: float | None = None,
) -> list[list[Point | None]]:
    """The points of every plan of every batch (a world, the country giving the orders,
    its plans), solved together in ``pool``: one run, however many worlds.  ``found``
    hears each point as it comes (batch, plan, point), so an interrupted run keeps them.
    Past ``deadline`` (a :func:`time.monotonic` time) the run stops at the next task that
    ends, the others cancelled, and raises :class:`OutOfTime`."""
    worlds = [WorldPickle.of(w) for w, _, plans in batches if plans]
    tasks: list[Task] = []
    where: list[tuple[int, int]] = []  # (batch, first plan) of each task
    n = 0
    for b, (_, country, plans) in enumerate(batches):
        if not plans:
            continue
        for i, chunk in _chunks(plans):
            tasks.append((n, country, chunk))
            where.append((b, i))
        n += 1
    out: list[list[Point | None]] = [[None] * len(plans) for _, _, plans in batches]
    total = sum(len(t[2]) for t in tasks)
    done = 0
    own: LocalPool | None = None  # a pool made for this run ends with it, workers and files
    if pool is None:
        pool = own = LocalPool()
    run = pool.run(worlds, tasks, seed, precision)
    try:
        for k, points in run:
            b, first = where[k]
            out[b][first : first + len(points)] = points
            if found is not None:
                for j, point in enumerate(points):
                    found(b, first + j, point)
            done += len(points)
            if progress is not None:
                progress(done / total)
            if deadline is not None and done < total and time.monotonic() > deadline:
                raise OutOfTime
    finally:
        close = getattr(run, "close", None)  # a pool's generator cancels what has not run
        if close is not None:
            close()
        if own is not None:
            own.close()
    return out


class OutOfTime(Exception):
    """The time given ran out before every plan was solved; ``points`` are those that were
    (by index), ``solved`` how many of them were solved now rather than cached."""

    def __init__(self, points: dict[int, Point | None] | None = None, solved: int = 0) -> None:
        super().__init__("out of time")
        self.points = points or {}
        self.solved = solved


def solve_points(
    world: World,
    country: int,
    plans: Sequence[Plan],
    *,
    seed: int,
    precision: Precision = PLANNING,
    pool: Pool | None = None,
    cache: CurveCache | None = None,
    version: str = "",
    progress: Progress | None = None,
    deadline: float | None = None,
) -> tuple[list[Point | None], int]:
    """Every plan's point, from ``cache`` where it has them; and how many were solved now.
    Past ``deadline``: :class:`OutOfTime`, with the points it has."""
    keys = [plan_key(p, seed, precision) for p in plans]
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
            solve_batches([(world, country, [plans[i] for i in todo])], seed=seed,
                          precision=precision, pool=pool, progress=progress,
                          found=keep, deadline=deadline)  # fmt: skip
        except OutOfTime:
            have = {i: points[i] for i, k in enumerate(keys) if k in known or k in fresh}
            raise OutOfTime(have, len(fresh)) from None
        finally:  # what was solved is kept, even when interrupted
            if cache is not None and version and fresh:
                cache.put_curves(version, fresh)
    return points, len(todo)


__all__ = [
    "FULL",
    "PLANNING",
    "SCREENING",
    "CurveCache",
    "DaskPool",
    "Job",
    "LocalPool",
    "OutOfTime",
    "Point",
    "Pool",
    "Precision",
    "Task",
    "WorldPickle",
    "plan_key",
    "solve_batches",
    "solve_points",
    "world_of",
]
