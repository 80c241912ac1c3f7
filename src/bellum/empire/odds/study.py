"""One study of a planned command: what the command line and the web page ask of the odds.

A :class:`Request` says what to study: one plan, several plans side by side (a source
given several values, or swept), the force a chance needs, the defense as seen, and a
check against plays of the real command.  :func:`study` answers it with one
:class:`Study`, a document with :meth:`Study.to_json` (``bellum empire odds --json``);
the edges only fill the request and show the document::

    from bellum.empire.odds import Request, study
    doc = study(world, 1, Request(Order.parse("attack 2,0"), mil=("0,0=150",), seed=1))
    doc.p_success, doc.to_json()["method"]

:func:`prepare` checks a request before any work (every refusal, worded as the command
words it) and :meth:`Prepared.run` does the work; :func:`study` is the two in one.
"""

from __future__ import annotations

import itertools
import math
import os
import threading
import time
from collections.abc import Callable, Mapping, Sequence
from contextlib import ExitStack
from dataclasses import dataclass, field, replace
from typing import TYPE_CHECKING, Any

from bellum.budget import check_repeats
from bellum.collector import fewer_collections
from bellum.dice import new_seed
from bellum.empire.odds.engine import EmpireOdds, MoreThanAsked, check_plan, plan_odds
from bellum.empire.odds.plan import MilSource, Plan, parse_mil, parse_units
from bellum.empire.odds.questions import (
    UNIFORM,
    as_seen,
    need_sources,
    part_progress,
    sources_in_order,
)
from bellum.empire.odds.questions import need as find_need
from bellum.empire.odds.report import to_json
from bellum.empire.odds.resolver import ResolverRuns, resolver_runs, seconds_per_run
from bellum.empire.orders import Order
from bellum.empire.rules import Rules
from bellum.empire.scratch import WorldTemplate
from bellum.empire.world import World
from bellum.errors import CommandError, InputError
from bellum.numbers import shown

if TYPE_CHECKING:
    # A player's view only: a whole world's odds do without the model of beliefs.
    from bellum.empire.odds.fog import FogOdds

#: Called with the stage (``"odds"``, ``"need"``, ``"resolver runs"``) and the share of
#: it done, 0 to 1.
Progress = Callable[[str, float], None]
#: The most plans one study compares (each is solved in turn, and each is a row).
MAX_PLANS = 100
#: The document of one plan (docs/schemas/empire-odds.schema.json).
ODDS_SCHEMA = "bellum.empire.odds"
#: The document of several plans (docs/schemas/empire-comparison.schema.json).
COMPARISON_SCHEMA = "bellum.empire.comparison"


@dataclass(frozen=True)
class Sweep:
    """Plans with each of ``values`` mil from one source (``SECT``, ``ship`` or the ship's
    number, as ``mil`` names it)."""

    source: str
    values: tuple[int, ...]


@dataclass(frozen=True)
class Request:
    """What to study about ``order``.

    The answers are the command's own (docs/empire-cli.md, "Answers"): ``mil`` as
    ``SECT=N``, ``ship=N`` or ``SHIP=N`` (a source given several values compares the
    plans), ``units`` that join, ``no_units``, ``yes``.  With neither mil nor units
    every prompt is answered with all it allows.  The move-in answers end nowhere in
    the odds (they end with the fight); an edge checks them as the command does.

    ``need``: the least mil from the ``mil`` sources (else every source) that succeeds
    with that chance.  ``defense_as_seen``: average over every garrison the
    "approximately M" allows, weighted by ``prior`` (ten weights for M-5..M+4;
    uniform by default).  ``resolver_runs``: also play the real command that many
    times, over ``jobs`` processes.  ``assume`` and ``fog_draws`` go with a player's
    view (docs/fog.md).  ``max_samples`` ``None``: the engine's own bound (on a view, a
    share of the fog's sample budget per world drawn).  ``max_memory`` is in bytes.
    """

    order: Order
    mil: tuple[str, ...] = ()
    units: tuple[int, ...] = ()
    no_units: bool = False
    yes: bool = False
    sweep: Sweep | None = None
    need: float | None = None
    defense_as_seen: bool = False
    prior: tuple[float, ...] | None = None
    rules: Rules | None = None
    seed: int | None = None
    target_error: float | None = None
    max_samples: int | None = None
    max_memory: int = 1 << 30
    resolver_runs: int | None = None
    jobs: int = 1
    assume: tuple[str, ...] = ()
    fog_draws: int | None = None


@dataclass(frozen=True)
class Row:
    """One plan studied: its label (``everything``, ``0,0=60``, ``80 mil``) and odds; on a
    player's view, the fog's odds too (``odds`` is then their mixture)."""

    label: str
    odds: EmpireOdds
    fog: FogOdds | None = None


@dataclass(frozen=True)
class NeedFound:
    """What the force-needed search found: the ``total`` mil (``None`` when even
    everything falls short; the study's plan is then everything) and whether the
    answer's odds were sampled."""

    target: float
    total: int | None
    sampled: bool


@dataclass(frozen=True)
class Study:
    """The answer to a :class:`Request`: one row per plan, what ``need`` found, the plays
    of the real command, and the wall and processor time of the whole study."""

    rows: tuple[Row, ...]
    seed: int
    seconds: float
    cpu_seconds: float
    world: World = field(repr=False, compare=False)
    country: int = 0
    need: NeedFound | None = None
    resolver: ResolverRuns | None = None
    #: Said before the work, not an error (a sweep capped at the most a source gives).
    warnings: tuple[str, ...] = ()
    #: On a player's view: its viewer and turn.
    fog: tuple[int, int] | None = None

    @property
    def odds(self) -> EmpireOdds:
        """The odds of the one plan (of the first, when several are compared)."""
        return self.rows[0].odds

    @property
    def p_success(self) -> float:
        return self.odds.p_success

    @property
    def schema(self) -> str:
        return ODDS_SCHEMA if len(self.rows) == 1 else COMPARISON_SCHEMA

    def to_json(self) -> dict[str, Any]:
        """The ``--json`` document: ``bellum.empire.odds`` for one plan (timed as the
        whole study), ``bellum.empire.comparison`` for several (each plan timed alone)."""
        if len(self.rows) == 1:
            row = self.rows[0]
            timed = replace(
                row.odds,
                odds=replace(row.odds.odds, seconds=self.seconds),
                cpu_seconds=self.cpu_seconds,
            )
            doc = self._row_json(replace(row, odds=timed), self.resolver)
            if self.need is not None:
                doc["need"] = {
                    "target": self.need.target,
                    "mil": self.need.total,
                    "sampled": self.need.sampled,
                }
            return {"schema": ODDS_SCHEMA, **doc}
        plans = []
        for row in self.rows:
            doc = self._row_json(row)
            del doc["schema_version"]  # the comparison's own is enough
            plans.append(dict(doc, label=row.label))
        return {
            "schema": COMPARISON_SCHEMA,
            "schema_version": 1,
            "plans": plans,
            "seconds": self.seconds,
            "cpu_seconds": self.cpu_seconds,
        }

    def _row_json(self, row: Row, resolver: ResolverRuns | None = None) -> dict[str, Any]:
        doc = to_json(row.odds, self.world, self.country, resolver)
        if row.fog is not None and self.fog is not None:
            viewer, turn = self.fog
            doc["fog"] = {
                "viewer": viewer,
                "turn": turn,
                "draws": row.fog.draws,
                "every_combination": row.fog.exhaustive,
            }
            doc["inputs"] = row.fog.inputs_json()
        return doc

    def inputs_text(self) -> str | None:
        """On a player's view: the inputs the odds rest on, as the report lists them."""
        fog = self.rows[0].fog
        if fog is None or self.fog is None:
            return None
        from bellum.empire.odds.fog import inputs_text

        return inputs_text(fog.inputs, self.fog[1])


class Clock:
    """Wall and processor time since it was made (finished worker processes' included)."""

    def __init__(self) -> None:
        self.start = time.perf_counter()
        self.start_cpu = _cpu()

    def wall(self) -> float:
        return time.perf_counter() - self.start

    def cpu(self) -> float:
        return _cpu() - self.start_cpu


def _cpu() -> float:
    """Processor seconds of this process and its finished children."""
    try:
        import resource
    except ImportError:  # not on Windows: this process only
        return time.process_time()
    own = resource.getrusage(resource.RUSAGE_SELF)
    kids = resource.getrusage(resource.RUSAGE_CHILDREN)
    return own.ru_utime + own.ru_stime + kids.ru_utime + kids.ru_stime


@dataclass(frozen=True)
class Prepared:
    """A request checked and its plans made: nothing solved yet."""

    world: World
    country: int
    request: Request
    #: The plans, labelled; checked on ``world`` (on a view: its likeliest complete world).
    plans: tuple[tuple[str, Plan], ...]
    seed: int
    warnings: tuple[str, ...]
    clock: Clock = field(repr=False, compare=False)
    view: World | None = field(default=None, repr=False)
    #: ``world`` frozen once for every run of the command the study makes on it.
    template: WorldTemplate | None = field(default=None, repr=False, compare=False)

    @fewer_collections()
    def run(self, progress: Progress | None = None) -> Study:
        """Solve the plans (or search the force needed), then play the real command."""
        r = self.request
        if r.need is not None:
            rows, found = self._need(r.need, progress)
        else:
            if len(self.plans) == 1:
                self._check_runs(self.plans[0][1])
            rows, found = self._rows(progress), None
        resolver = None
        if r.resolver_runs is not None and (found is None or found.total is not None):
            resolver = resolver_runs(
                self.world,
                self.country,
                rows[0].odds.plan,
                r.resolver_runs,
                self.seed,
                jobs=r.jobs,
                progress=_stage(progress, "resolver runs"),
            )
        fog = None if self.view is None else _fog_of(self.view)
        return Study(
            tuple(rows),
            self.seed,
            self.clock.wall(),
            self.clock.cpu(),
            self.view or self.world,
            self.country,
            found,
            resolver,
            self.warnings,
            fog,
        )

    def _rows(self, progress: Progress | None) -> list[Row]:
        """The plans' rows, in order: one after the other or, once the first plan shows
        that the rest are worth it, shared with worker processes (:class:`_Workers`)."""
        n = len(self.plans)
        started = time.perf_counter()
        rows = [self._row(*self.plans[0], _stage(progress, "odds", 0, n))]
        rest = self.plans[1:]
        workers = _workers_for(time.perf_counter() - started, len(rest))
        if not workers:
            for i, (label, plan) in enumerate(rest, 1):
                rows.append(self._row(label, plan, _stage(progress, "odds", i, n)))
            return rows

        def done(k: int) -> None:
            if progress is not None:
                progress("odds", (1 + k) / n)

        with _Workers(self, workers) as pool:
            return rows + pool.rows(rest, done)

    def _settings(self) -> dict[str, Any]:
        r = self.request
        settings: dict[str, Any] = {
            "seed": self.seed,
            "target_error": r.target_error,
            "max_samples": r.max_samples,
            "max_memory": r.max_memory,
        }
        return {k: v for k, v in settings.items() if v is not None}

    def _row(self, label: str, plan: Plan, progress: Callable[[float], None] | None) -> Row:
        r = self.request
        if self.view is not None:
            from bellum.empire.odds.fog import DRAWS, fog_odds

            fog = fog_odds(
                self.view,
                self.country,
                plan,
                assume=_assumptions(r.assume),
                draws=r.fog_draws or DRAWS,
                progress=progress,
                **self._settings(),
            )
            return Row(label, fog.odds, fog)
        if r.defense_as_seen:
            odds = as_seen(
                self.world,
                self.country,
                plan,
                weights=r.prior or UNIFORM,
                progress=progress,
                template=self.template,
                **self._settings(),
            )
        else:
            odds = plan_odds(
                self.world,
                self.country,
                plan,
                progress=progress,
                template=self.template,
                **self._settings(),
            )
        return Row(label, odds)

    def _need(self, target: float, progress: Progress | None) -> tuple[list[Row], NeedFound]:
        (_, plan), *_ = self.plans
        sources = list(plan.mil) if plan.mil else None
        rows: dict[int, Row] = {}
        with ExitStack() as stack:
            pool: _Workers | None = None
            took = 0.0

            def odds_of(plans: Sequence[Plan]) -> list[EmpireOdds]:
                nonlocal took
                started = time.perf_counter()
                if pool is None:
                    got = [self._row("", p, None) for p in plans]
                else:
                    got = pool.rows([("", p) for p in plans])
                took = time.perf_counter() - started
                rows.update((id(row.odds), row) for row in got)
                return [row.odds for row in got]

            def width() -> int:
                """Two plans a step once a worker pays for itself (the steps left
                taking the last step's time each)."""
                nonlocal pool
                if pool is None and _workers_for(took, 2 * NEED_STEPS):
                    pool = stack.enter_context(_Workers(self, 1))
                return 1 if pool is None else 2

            found = find_need(
                self.world,
                self.country,
                plan,
                target,
                odds_of,
                sources,
                _stage(progress, "need"),
                width,
                self.template,
            )
        if found.odds is None or found.plan is None:
            best = rows[id(found.best)]
            sampled = best.odds.samples is not None
            return [replace(best, label="everything")], NeedFound(target, None, sampled)
        self._check_runs(found.plan)
        row = replace(rows[id(found.odds)], label=f"{found.total} mil")
        return [row], NeedFound(target, found.total, found.odds.samples is not None)

    def _check_runs(self, plan: Plan) -> None:
        """Refuse at once, in one line, resolver runs that would take minutes."""
        r = self.request
        if r.resolver_runs is None:
            return
        each = seconds_per_run(self.world, self.country, plan, self.seed)
        parallel = min(r.jobs, os.cpu_count() or 1)
        check_repeats(
            "--resolver-runs", r.resolver_runs, each / parallel, f"play the {plan.order.name}"
        )


#: Seconds of plans to solve that make a worker process worth forking (a fork and its
#: first plan cost about 0.05 s; a plan on a realistic world 0.05-1.5 s).
SHARE_FROM = 0.5
#: Steps of a force-needed search, about (it weighs a worker by them).
NEED_STEPS = 6


def _workers_for(each: float, plans: int) -> int:
    """How many worker processes pay for ``plans`` more plans of ``each`` seconds: one
    per spare processor (not kept busy by this process or others, as the load average
    counts them), none when their work is too short to pay for a fork, where
    processes cannot fork, or in a process running other threads (a web server's:
    a lock another thread holds at the fork stays held in the child for good)."""
    if plans < 2 or each * plans <= SHARE_FROM or threading.active_count() > 1:
        return 0
    try:
        busy = max(1.0, os.getloadavg()[0])
    except (AttributeError, OSError):  # no load average here: this process only
        busy = 1.0
    workers = min(int((os.cpu_count() or 1) - busy + 0.5), plans - 1)
    if workers < 1:
        return 0
    # The process pool's imports are paid only by a study that may use it.
    import multiprocessing

    return workers if "fork" in multiprocessing.get_all_start_methods() else 0


class _Workers:
    """Plans of a study solved by this process and ``n`` worker processes forked from
    it: the world, its freeze and the work cached so far come with the fork, and the
    answers are this process's own.  Of the plans given, the workers take them from
    the front and this process from the back, until they meet."""

    def __init__(self, prepared: Prepared, n: int) -> None:
        import multiprocessing
        from concurrent.futures import ProcessPoolExecutor

        ctx = multiprocessing.get_context("fork")
        self.prepared = prepared
        self.n = n
        #: The plans not taken yet: from ``todo[0]`` up to ``todo[1]``.
        self.todo = ctx.Array("i", 2)
        self.pool = ProcessPoolExecutor(
            n, mp_context=ctx, initializer=_adopt, initargs=(prepared, self.todo)
        )

    def __enter__(self) -> _Workers:
        return self

    def __exit__(self, kind: object, *_: object) -> None:
        # On an error or Ctrl-C, the plans not started are dropped.
        self.pool.shutdown(wait=kind is None, cancel_futures=True)

    def rows(
        self, plans: Sequence[tuple[str, Plan]], done: Callable[[int], None] | None = None
    ) -> list[Row]:
        """The plans' rows, in order; ``done`` hears how many this process has solved."""
        with self.todo.get_lock():
            self.todo[0], self.todo[1] = 0, len(plans)
        work = list(plans)
        futures = [self.pool.submit(_solve_front, work) for _ in range(self.n)]
        rows: list[Row | None] = [None] * len(plans)
        mine = 0
        while (i := _take(self.todo, back=True)) is not None:
            rows[i] = self.prepared._row(*plans[i], None)
            mine += 1
            if done is not None:
                done(mine)
        for fut in futures:
            for i, row in fut.result():
                rows[i] = row
        if done is not None:
            done(len(plans))
        return [row for row in rows if row is not None]


def _take(todo: Any, *, back: bool) -> int | None:
    """The index of a plan not taken yet, from the back or the front; ``None``: none left."""
    with todo.get_lock():
        if todo[0] >= todo[1]:
            return None
        if back:
            todo[1] -= 1
            return int(todo[1])
        todo[0] += 1
        return int(todo[0] - 1)


#: In a worker: the study it solves plans of, and the plans not taken yet.
_ADOPTED: list[tuple[Prepared, Any]] = []


def _adopt(prepared: Prepared, todo: Any) -> None:
    """In a worker (forked, so nothing was copied but the pages written since)."""
    _ADOPTED[:] = [(prepared, todo)]


def _solve_front(plans: list[tuple[str, Plan]]) -> list[tuple[int, Row]]:
    prepared, todo = _ADOPTED[0]
    out = []
    while (i := _take(todo, back=False)) is not None:
        out.append((i, prepared._row(*plans[i], None)))
    return out


def _stage(
    progress: Progress | None, stage: str, i: int = 0, n: int = 1
) -> Callable[[float], None] | None:
    """``progress`` for part ``i`` of ``n`` of ``stage``."""
    if progress is None:
        return None
    report = progress
    return part_progress(lambda f: report(stage, f), i, n)


def _assumptions(assume: tuple[str, ...]) -> Any:
    from bellum.empire.intel.belief import parse_assumptions

    return parse_assumptions(assume)


def _fog_of(view: World) -> tuple[int, int]:
    assert view.fog is not None
    return view.fog.viewer, view.fog.turn


def prepare(
    world: World, country: int, request: Request, *, clock: Clock | None = None
) -> Prepared:
    """``request`` checked against ``world`` and its plans made, before any work: the
    command's own refusals raise as the command words them
    (:class:`~bellum.empire.odds.engine.CommandUsage` for its ``Usage:`` line), and so do
    answers it never asks for.  ``clock`` times the study (by default, from now)."""
    clock = clock or Clock()
    r = request
    view = None
    check_world = world
    if world.fog is None:
        if r.assume or r.fog_draws is not None:
            raise InputError(
                "goes with a player's view of a game: this world is the whole game",
                field="assume" if r.assume else "draws",
            )
    else:
        if r.defense_as_seen:
            raise InputError(
                "is for a whole world: on a player's view the odds already come"
                " from what the country saw",
                field="defense_as_seen",
            )
        if r.resolver_runs is not None:
            raise InputError(
                "plays the command on the whole world; a player's view has only"
                " what the country saw",
                field="resolver_runs",
            )
        from bellum.empire.intel.belief import believe
        from bellum.empire.odds.fog import target_of

        view = world
        target = target_of(world, country, Plan(r.order))
        belief = believe(world, country, target, assume=_assumptions(r.assume))
        check_world = belief.world([u.dist.quantile(0.5) for u in belief.open])
    warnings: list[str] = []
    template = WorldTemplate(check_world)
    plans = [
        (label, replace(plan, yes=r.yes, units=frozenset() if r.no_units else plan.units))
        for label, plan in _plans(check_world, country, r, warnings, template)
    ]
    if r.need is not None and len(plans) > 1:
        raise InputError("finds one plan: give each mil source once and no sweep", field="need")
    if len(plans) > 1 and r.resolver_runs is not None:
        raise InputError(
            "goes with one plan: give each mil source once and no sweep",
            field="resolver_runs",
        )
    _check(check_world, country, plans, r, template)
    seed = r.seed if r.seed is not None else new_seed()
    return Prepared(
        check_world, country, r, tuple(plans), seed, tuple(warnings), clock, view, template
    )


def study(
    world: World, country: int, request: Request, *, progress: Progress | None = None
) -> Study:
    """The answer to ``request`` by ``country`` in ``world`` (unchanged): :func:`prepare`,
    then :meth:`Prepared.run`."""
    return prepare(world, country, request).run(progress)


def _plans(
    world: World, cnum: int, r: Request, warnings: list[str], template: WorldTemplate
) -> list[tuple[str, Plan]]:
    """One plan, or several when a source is given several values (or swept)."""
    order, rules = r.order, r.rules
    by_source: dict[MilSource, list[tuple[str, int]]] = {}
    for item in r.mil:
        ((source, n),) = parse_mil(world, cnum, [item], order).items()
        values = by_source.setdefault(source, [])
        if any(v == n for _, v in values):
            raise InputError("is given twice", field="mil", value=shown(item))
        values.append((item.partition("=")[0].strip(), n))
    chosen = parse_units(list(r.units))
    if r.sweep is not None:
        where, values_ = r.sweep.source.strip(), list(r.sweep.values)
        ((source, _),) = parse_mil(world, cnum, [f"{where}=0"], order).items()
        if source in by_source:
            raise InputError("that source is also given with mil", field="sweep", value=where)
        most = sources_in_order(
            world, cnum, Plan(order, None, chosen if r.units else None, rules), template
        )
        if source not in most:
            raise CommandError(
                f"{order} never asks for mil from {where}", field="sweep", value=where
            )
        if values_ and values_[-1] > most[source]:
            values_ = [n for n in values_ if n < most[source]] + [most[source]]
            warnings.append(
                f"--sweep {where}: capped at {most[source]}, the most {order} can take from {where}"
            )
        by_source[source] = [(where, n) for n in values_]
    if not by_source and not r.units:
        return [("everything", Plan(order, rules=rules))]
    sources = list(by_source)
    count = math.prod(len(by_source[s]) for s in sources)
    if count > MAX_PLANS:
        raise InputError(f"{count:,} plans; compare at most {MAX_PLANS} at once", field="mil")
    plans = []
    for combo in itertools.product(*(by_source[s] for s in sources)):
        label = " ".join(f"{name}={n}" for name, n in combo) or "units only"
        mil = {s: n for s, (_, n) in zip(sources, combo, strict=True)}
        plans.append((label, Plan(order, mil, chosen, rules)))
    return plans


def _check(
    world: World, cnum: int, plans: list[tuple[str, Plan]], r: Request, template: WorldTemplate
) -> None:
    """Refuse what the odds would refuse: the command's own refusals, more mil than it
    asks for (:class:`MoreThanAsked`, its ``value`` the source as given) and answers it
    never asks for."""
    try:
        if r.need is not None:
            (_, plan), *_ = plans
            # The search sets the counts itself: check the command and the sources named.
            check_plan(world, cnum, replace(plan, mil=None), template)
            need_sources(world, cnum, plan, list(plan.mil) if plan.mil else None, template)
            return
        for _, plan in plans:
            check_plan(world, cnum, plan, template)
    except MoreThanAsked as exc:
        order = plans[0][1].order
        typed: Mapping[object, str] = {
            next(iter(parse_mil(world, cnum, [m], order))): m.partition("=")[0] for m in r.mil
        }
        key = shown(typed.get(exc.source, str(exc.value)).strip())
        raise MoreThanAsked(exc.source, exc.n, exc.most, exc.where, key) from None


__all__ = [
    "COMPARISON_SCHEMA",
    "MAX_PLANS",
    "ODDS_SCHEMA",
    "Clock",
    "NeedFound",
    "Prepared",
    "Progress",
    "Request",
    "Row",
    "Study",
    "Sweep",
    "prepare",
    "study",
]
