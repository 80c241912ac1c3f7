"""The turn plan: candidates → curves → one integer program → ranked attacks (issue 27).

:func:`plan_turn` lists every target the country can fight for
(:mod:`.candidates`), solves each option's odds (:mod:`.curves`), prices
prizes and losses (:mod:`.value`) and lets HiGHS choose (:mod:`.allocate`),
with greedy's plan beside it.  The plan's assumptions (docs/plan.md):

* every attack's odds are those of the world at the start of its wave;
* no source is used twice: the mil and mobility a sector sends add up to at
  most what it has, and each land unit and ship joins one attack;
* a sector captured in a wave is not a source in that wave; ``waves=2`` plans
  a second wave on the world the first wave's printed orders leave (played
  with their seeds; survivors move into what they took).
"""

from __future__ import annotations

import math
import shlex
import time
from collections.abc import Callable, Mapping
from dataclasses import dataclass, field
from typing import Any

from bellum.collector import fewer_collections
from bellum.dice import SEED_MAX, ServerRandom
from bellum.empire.combat.commands import spec_of
from bellum.empire.combat.dispatch import run_order
from bellum.empire.events import Prompt
from bellum.empire.odds import Plan, PlanPrompter
from bellum.empire.orders import Order
from bellum.empire.plan.allocate import (
    DEFAULT_GAP,
    DEFAULT_TIME_LIMIT,
    Allocation,
    Objective,
    Option,
    Problem,
    greedy,
    solve,
    warm,
)
from bellum.empire.plan.candidates import (
    DEFAULT_LEVELS,
    Force,
    candidates,
    capacities,
    forces,
    stronger,
)
from bellum.empire.plan.curves import (
    PLANNING,
    CurveCache,
    OutOfTime,
    Point,
    Pool,
    Precision,
    solve_points,
    workers_of,
)
from bellum.empire.plan.value import Weights, sector_value, ship_value, unit_value
from bellum.empire.rules import Rules
from bellum.empire.world import World
from bellum.errors import InputError

Progress = Callable[[str, float], None]

#: The JSON document's name and version (docs/schemas/empire-plan.schema.json).
SCHEMA = "bellum.empire.plan"
SCHEMA_VERSION = 1


@dataclass(frozen=True)
class Settings:
    """What the player asks of the plan (the ``bellum empire plan`` options)."""

    objective: Objective = "value"
    #: With ``count``: the least P(success) an attack may have.
    min_p: float = 0.5
    weights: Weights = field(default_factory=Weights)
    #: Prize overrides in dollars, by target key (``sector:x,y`` absolute).
    values: Mapping[str, float] = field(default_factory=dict)
    levels: int = DEFAULT_LEVELS
    seed: int = 1
    waves: int = 1
    gap: float = DEFAULT_GAP
    time_limit: float = DEFAULT_TIME_LIMIT
    #: The rules the attacks run under; ``None``: the world's own.
    rules: Rules | None = None
    #: How closely each option's odds are solved (``--max-runs``, ``--max-memory``).
    precision: Precision = PLANNING
    #: Seconds the odds of a wave may take (``--budget``); ``None``: until all are solved.
    budget: float | None = None


@dataclass(frozen=True)
class Attack:
    """One order of the plan, with its figures."""

    wave: int
    order: Order
    target: str
    where: str
    plan: Plan
    point: Point
    prize: float
    cost: float
    uses: Mapping[str, float]
    #: The seed the printed order plays with.
    seed: int

    @property
    def value(self) -> float:
        return self.prize * self.point.p - self.cost

    @property
    def planes(self) -> list[int]:
        """The transport planes that fly it (a paradrop), by number."""
        return sorted(int(r.partition(":")[2]) for r in self.uses if r.startswith("plane:"))


@dataclass(frozen=True)
class Wave:
    number: int
    attacks: tuple[Attack, ...]
    allocation: Allocation
    greedy: Allocation
    greedy_attacks: tuple[Attack, ...]
    candidates: int
    options: int
    #: Odds solved in this run, and taken from the cache.
    solved: int
    cached: int
    curve_seconds: float
    #: Targets none of whose options can be chosen: none can pay (or reach the least
    #: P(success) asked for), by its odds or by what it spends before the fight.
    skipped: int = 0
    #: Options not solved: the odds of a stronger option of the same target show they
    #: cannot pay (or reach the least P(success) asked for).
    pruned: int = 0
    #: Options left unsolved when the time given (``--budget``) ran out: not in the plan.
    unsolved: int = 0
    #: Options solved at the planning precision (the others were only screened).
    refined: int = 0


@dataclass(frozen=True)
class TurnPlan:
    country: int
    settings: Settings
    waves: tuple[Wave, ...]
    seconds: float

    @property
    def attacks(self) -> tuple[Attack, ...]:
        return tuple(a for w in self.waves for a in w.attacks)


def value_se(attacks: tuple[Attack, ...]) -> float:
    """The standard error of ``attacks``' expected value from their sampled P(success):
    √Σ (prize × se)², each option's odds being solved on their own (the expected losses'
    own sampling error is left out; docs/plan.md)."""
    return math.sqrt(sum((a.prize * a.point.se) ** 2 for a in attacks))


def prize(world: World, target: str, values: Mapping[str, float]) -> float:
    """What taking ``target`` is worth: the override, else the formula (docs/plan.md)."""
    if target in values:
        return values[target]
    kind, _, ident = target.partition(":")
    if kind == "sector":
        x, y = (int(v) for v in ident.split(","))
        return sector_value(world, world.sector((x, y)))
    if kind == "ship":
        return ship_value(world.ships[int(ident)])
    return unit_value(world.units[int(ident)])


def shown_target(world: World, country: int, target: str) -> str:
    kind, _, ident = target.partition(":")
    if kind == "sector":
        x, y = (int(v) for v in ident.split(","))
        return world.fmt((x, y), country)
    return f"{kind} #{ident}"


def cost(f: Force, point: Point, w: Weights) -> float:
    """What an option spends and is expected to lose, in dollars."""
    units = sum(1 for r in f.uses if r.startswith("unit:"))
    mob = sum(n for r, n in f.uses.items() if r.startswith("mob:"))
    return w.mil * point.attacker + w.unit * units + w.btu * f.uses.get("btu", 0) + w.mob * mob


def _known_cost(f: Force, w: Weights) -> float:
    """What an option costs before its odds are known: all but the soldiers it loses."""
    units = sum(1 for r in f.uses if r.startswith("unit:"))
    mob = sum(n for r, n in f.uses.items() if r.startswith("mob:"))
    return w.unit * units + w.btu * f.uses.get("btu", 0) + w.mob * mob


#: Options refined together at least (where that many could still be in the plan), and at
#: least one per worker of the pool, so that every worker has work.  A refining batch goes
#: one option a task (curves.MIN_TASKS); the extra ones are refined on speculation, and at
#: 8 on two workers most of them never made it into a plan (refinements at 8 and at 2, the
#: same plans: w48x24 54 and 33, w64x32 122 and 109, w96x48 170 and 163).
BATCH = 2
#: Standard errors either side of a screening figure that bound the planning figure: a
#: normal error is beyond one of them about one time in six, and an option is then only
#: lost where it also mattered to the plan (docs/plan.md: on the realistic worlds, none).
Z = 1.0


@dataclass(frozen=True)
class _Bounds:
    """What an option's figure allows: P(success) and the attacker's expected losses
    between these (the figure itself where it was solved at the planning precision), and
    ``p_cap``, the most P(success) it lets a weaker option of its target have."""

    p_lo: float
    p_hi: float
    att_lo: float
    att_hi: float
    p_cap: float

    @classmethod
    def exact(cls, pt: Point) -> _Bounds:
        return cls(pt.p, pt.p, pt.attacker, pt.attacker, pt.p)

    @classmethod
    def screened(cls, pt: Point, n: int) -> _Bounds:
        """:data:`Z` standard errors either side of a screening figure of ``n`` samples,
        and at least the Wilson score interval of ``n`` draws (eight paths that all lose
        still allow P 0.11: a rarer path that wins may not have been drawn).  A weaker
        option is capped at ``Z`` standard errors above the figure, as a planning figure
        caps it at itself (which option is screened rests on that assumption, not what
        the plan takes: docs/plan.md)."""
        z2 = Z * Z
        mid = (pt.p + z2 / (2 * n)) / (1 + z2 / n)
        half = Z * math.sqrt(max(0.0, pt.p * (1 - pt.p)) / n + z2 / (4 * n * n)) / (1 + z2 / n)
        return cls(max(0.0, min(pt.p - Z * pt.se, mid - half)),
                   min(1.0, max(pt.p + Z * pt.se, mid + half)),
                   max(0.0, pt.attacker - Z * pt.attacker_se),
                   pt.attacker + Z * pt.attacker_se,
                   min(1.0, pt.p + Z * pt.se))  # fmt: skip


def _may_count(p_most: float, most: float, s: Settings) -> bool:
    """Whether an option whose P(success) and value are at most these can be chosen at all
    (allocate's eligible options: positive value, or P ≥ ``min_p`` when counting)."""
    return p_most >= s.min_p if s.objective == "count" else most > 0


Solver = Callable[[str, list[Plan], Precision], tuple[list[Point | None], int]]


def _within(a: Force, b: Force) -> bool:
    """Whether ``a`` uses no more of anything than ``b`` does (mil, mobility, BTUs, land
    units, ships, planes): wherever ``b`` fits in a plan, ``a`` does."""
    return all(b.uses.get(r, 0.0) >= n for r, n in a.uses.items())


class _Search:
    """The odds of a wave's options, solved only as far as the plan needs them.

    Every option is first *screened* (:data:`~bellum.empire.plan.curves.SCREENING`: a
    few paths to the fight, a rough figure with its standard error), strongest options
    first, in rounds (:meth:`screen`); then the options that could be in the plan are
    *refined*, solved at the planning precision (:meth:`refine`).  What an option's
    figures allow so far (:meth:`bounds`, :meth:`value_most`) decides both: an option
    whose most cannot pay, or that a cheaper one beats, is never solved (``pruned``).
    """

    def __init__(
        self,
        options: list[Force],
        worth_of: Mapping[int, float],
        s: Settings,
        solve: Solver,
        batch: int = BATCH,
    ) -> None:
        self.options, self.worth_of, self.s, self._solve = options, worth_of, s, solve
        self.batch = batch
        self.screening = s.precision.screening()
        self.rough: dict[int, Point | None] = {}
        self.fine: dict[int, Point | None] = {}
        self.pruned: set[int] = set()
        self.solved = 0
        self.by_target: dict[int, list[int]] = {}
        for i, f in enumerate(options):
            self.by_target.setdefault(id(f.candidate), []).append(i)

    def bounds(self, i: int) -> _Bounds | None:
        """What option ``i``'s own figures allow (``None``: unsolved, or refused)."""
        if i in self.fine:
            pt = self.fine[i]
            return None if pt is None else _Bounds.exact(pt)
        pt = self.rough.get(i)
        n = self.screening.samples
        return None if pt is None or n is None else _Bounds.screened(pt, n)

    def refused(self, i: int) -> bool:
        """Whether the command refuses option ``i`` (at any precision)."""
        return (i in self.fine and self.fine[i] is None) or (
            i in self.rough and self.rough[i] is None
        )

    def p_most(self, i: int) -> float:
        """The most P(success) option ``i`` may have: its own bound once screened, else no
        more than any screened option :func:`stronger` than it (assuming that P never
        falls with more force: docs/plan.md says where it does)."""
        if (own := self.bounds(i)) is not None:
            return own.p_hi
        f = self.options[i]
        return min((b.p_cap for j in self.by_target[id(f.candidate)]
                    if stronger(self.options[j], f)
                    and (b := self.bounds(j)) is not None), default=1.0)  # fmt: skip

    def value_most(self, i: int) -> float:
        """The most option ``i`` may be worth: exactly its value once refined."""
        f, w = self.options[i], self.s.weights
        worth = self.worth_of[id(f.candidate)]
        if i in self.fine and (pt := self.fine[i]) is not None:
            return worth * pt.p - cost(f, pt, w)
        b = self.bounds(i)
        lost = 0.0 if b is None else b.att_lo
        return worth * self.p_most(i) - _known_cost(f, w) - w.mil * lost

    def _value_least(self, i: int) -> float | None:
        b = self.bounds(i)
        if b is None or (self.s.objective == "count" and b.p_lo < self.s.min_p):
            return None
        f, w = self.options[i], self.s.weights
        return self.worth_of[id(f.candidate)] * b.p_lo - _known_cost(f, w) - w.mil * b.att_hi

    def needless(self, i: int) -> bool:
        """Whether the plan can do without option ``i``: it cannot pay (nor reach
        ``min_p``) by what its target's figures allow, or an option of the same target
        that uses no more of anything (:func:`_within`) is surely worth at least as much
        (and reaches ``min_p``) - a plan with ``i`` is no better than one with it."""
        if self.refused(i):
            return True
        most = self.value_most(i)
        if not _may_count(self.p_most(i), most, self.s):
            return True
        f = self.options[i]
        return any(
            j != i and (least := self._value_least(j)) is not None and least >= most
            and _within(self.options[j], f)
            for j in self.by_target[id(f.candidate)]
        )  # fmt: skip

    def screen(self) -> None:
        """Screen the options in rounds, without those the plan can do without.

        The first round screens each target's strongest options (those no other option
        of the target is :func:`stronger` than: everything its command offers).  Each
        later round bisects every force ladder of every target (:meth:`_bisect`).
        Before each round, an option :meth:`needless` by what is screened so far is
        dropped.  Within a round the targets go most promising first, so that when the
        time given runs out (:class:`OutOfTime`) the options left are those of the least
        promising.
        """
        round_no = 0
        while True:
            batch: list[int] = []
            for group in sorted(self.by_target.values(), key=self._promise, reverse=True):
                todo = []
                for i in group:
                    if i in self.rough or i in self.pruned:
                        continue
                    if self.needless(i):
                        self.pruned.add(i)
                    else:
                        todo.append(i)
                if round_no:
                    batch += self._bisect(todo)
                    continue
                for i in todo:
                    f = self.options[i]
                    if not any(
                        j != i and stronger(g, f) and not stronger(f, g)
                        for j in todo if (g := self.options[j])
                    ):  # fmt: skip
                        batch.append(i)
            if not batch:
                return
            round_no += 1
            self._run(f"round {round_no}: {len(batch)} options", batch, self.rough,
                      self.screening)  # fmt: skip
            if round_no == 1:  # the pool's workers are started: import the solver meanwhile
                warm()

    def _bisect(self, todo: list[int]) -> list[int]:
        """Which of ``todo`` (a target's options to screen) to screen in this round: on
        each force ladder (:attr:`~bellum.empire.plan.candidates.Force.ladder`), every
        run of steps left to screen between screened (or dropped) ones gives one, the
        run's top where nothing above it is screened, else its middle step.  Where the
        middle cannot win, the steps below it are dropped unscreened (their P(success) is
        capped by it), which screening from the bottom up would have spent."""
        left = set(todo)
        ladders: dict[int, list[int]] = {}
        for i in self.by_target[id(self.options[todo[0]].candidate)] if todo else ():
            ladders.setdefault(self.options[i].ladder, []).append(i)
        out = []
        for steps in ladders.values():
            steps.sort(key=lambda i: self.options[i].level)
            run: list[int] = []
            for k, i in enumerate([*steps, -1]):
                if i in left:
                    run.append(i)
                    continue
                if run:
                    out.append(run[-1] if k == len(steps) else run[(len(run) - 1) // 2])
                run = []
        return out

    def _promise(self, group: list[int]) -> float:
        """A target's most promising value so far (its options' best bound)."""
        return max((self.value_most(i) for i in group if i in self.rough), default=-math.inf)

    def _run(self, what: str, batch: list[int], into: dict[int, Point | None],
             precision: Precision) -> None:  # fmt: skip
        try:
            points, n = self._solve(what, [self.options[i].plan for i in batch], precision)
        except OutOfTime as cut:
            self._keep(into, {batch[k]: pt for k, pt in cut.points.items()})
            self.solved += cut.solved
            raise
        self.solved += n
        self._keep(into, dict(zip(batch, points, strict=True)))

    def _keep(self, into: dict[int, Point | None], points: dict[int, Point | None]) -> None:
        into.update(points)
        # A screen that found one path to the fight came back at the planning precision.
        self.fine.update((i, pt) for i, pt in points.items() if pt is not None and not pt.screened)

    def problem(self, caps: Mapping[str, float], fine_only: bool) -> tuple[Problem, list[int]]:
        """The allocation over every option not dropped, each valued at its most (only
        refined ones with ``fine_only``), and the option behind each of its options."""
        solved = self.fine if fine_only else self.fine.keys() | self.rough.keys()
        rows = [i for i in range(len(self.options))
                if i in solved and i not in self.pruned and not self.refused(i)]  # fmt: skip
        opts = []
        for i in rows:
            f = self.options[i]
            pt = self.fine.get(i)
            p = pt.p if pt is not None else self.p_most(i)
            opts.append(Option(f.candidate.target, self.value_most(i), f.uses, p,
                               f.plan.order.text()))  # fmt: skip
        return Problem(opts, caps), rows

    def refine(self, caps: Mapping[str, float]) -> tuple[Problem, list[int]]:
        """Solve at the planning precision the options the plan could take, until it takes
        none that is not refined.

        The allocation (and greedy's) over every option at its most (refined ones at
        their figures) is solved; the unrefined options either chooses are refined, and
        the batch is filled up to ``batch`` with the unrefined options of highest
        most (so that the workers have work); again,
        until both choose only refined options.  Then no unrefined option could better
        either plan, unless its figure lies beyond its bounds.  Returns that last problem
        and the option behind each of its options.
        """
        s = self.s
        while True:
            problem, rows = self.problem(caps, fine_only=False)
            best = solve(problem, s.objective, s.min_p, gap=s.gap, time_limit=s.time_limit)
            base = greedy(problem, s.objective, s.min_p)
            todo = {rows[k] for k in (*best.chosen, *base.chosen)} - self.fine.keys()
            if not todo:
                return problem, rows
            rest = sorted((k for k, i in enumerate(rows) if i not in self.fine and i not in todo),
                          key=lambda k: -problem.options[k].value)  # fmt: skip
            todo.update(rows[k] for k in rest[: max(0, self.batch - len(todo))]
                        if problem.options[k].value > 0)  # fmt: skip
            self._run(f"refining {len(todo)} options", sorted(todo), self.fine, s.precision)


def _wave(
    world: World,
    country: int,
    s: Settings,
    number: int,
    first_seed: int,
    *,
    pool: Pool | None,
    cache: CurveCache | None,
    version: str,
    progress: Progress | None,
) -> Wave:
    budget_end = None if s.budget is None else time.monotonic() + s.budget

    def probed(f: float) -> None:
        if progress is not None:
            progress(f"wave {number}, the orders", f)

    cands = candidates(world, country, s.rules or Rules.of(world.options), pool=pool,
                       progress=probed)  # fmt: skip
    start = time.perf_counter()
    deadline = budget_end

    def solved_points(
        what: str, plans: list[Plan], precision: Precision
    ) -> tuple[list[Point | None], int]:
        def tick(f: float) -> None:
            if progress is not None:
                progress(f"wave {number}, {what}", f)

        return solve_points(world, country, plans, seed=s.seed, precision=precision,
                            pool=pool, cache=cache, version=version, progress=tick,
                            deadline=deadline)  # fmt: skip

    worth_of = {id(c): prize(world, c.target, s.values) for c in cands}
    options = forces(cands, s.levels)
    search = _Search(options, worth_of, s, solved_points, max(BATCH, workers_of(pool)))
    caps = capacities(world, country)
    out_of_time = False
    try:
        if budget_end is not None:  # screening may take 60 % of the budget, refining the rest
            deadline = time.monotonic() + 0.6 * s.budget  # type: ignore[operator]
        search.screen()
    except OutOfTime:
        out_of_time = True
    deadline = budget_end
    try:
        problem, rows = search.refine(caps)
    except OutOfTime:
        out_of_time = True
    if out_of_time:  # the plan is made of the options refined so far
        problem, rows = search.problem(caps, fine_only=True)
    curve_seconds = time.perf_counter() - start
    # Options not refined that could still pay: left unsolved by the budget.
    left = set()
    if out_of_time:
        left = {i for i in range(len(options)) if i not in search.fine
                and not search.refused(i) and i not in search.pruned
                and _may_count(search.p_most(i), search.value_most(i), s)}  # fmt: skip
    pruned = len(options) - len(search.fine) - len(left)
    open_ = {id(options[i].candidate) for i in left}
    chosen = {id(options[i].candidate) for o, i in zip(problem.options, rows, strict=True)
              if (o.p >= s.min_p if s.objective == "count" else o.value > 0)}  # fmt: skip
    skipped = len({id(c) for c in cands} - chosen - open_)
    best = solve(problem, s.objective, s.min_p, gap=s.gap, time_limit=s.time_limit)
    base = greedy(problem, s.objective, s.min_p)

    def attacks(chosen: tuple[int, ...]) -> tuple[Attack, ...]:
        ranked = sorted(chosen, key=lambda i: -problem.options[i].value)
        out = []
        for k, i in enumerate(ranked):
            f = options[rows[i]]
            pt = search.fine[rows[i]]
            assert pt is not None  # a plan takes refined options only (_Search.refine)
            worth = worth_of[id(f.candidate)]
            where = shown_target(world, country, f.candidate.target)
            seed = (first_seed + k) % (SEED_MAX + 1)
            out.append(Attack(number, f.plan.order, f.candidate.target, where, f.plan, pt,
                              worth, cost(f, pt, s.weights), f.uses, seed))  # fmt: skip
        return tuple(out)

    solved = search.solved
    cached = len(search.rough) + len(search.fine) - solved
    return Wave(number, attacks(best.chosen), best, base, attacks(base.chosen), len(cands),
                len(problem.options), solved, cached, curve_seconds, skipped, pruned,
                len(left), len(search.fine))  # fmt: skip


class _Player(PlanPrompter):
    """Answers as the printed order does: the plan's mil and units, survivors move in."""

    def move_in_mil(self, prompt: Prompt) -> str | None:
        if prompt.at is None:
            return "0"
        return str((self.plan.mil or {}).get(prompt.at, 0))


def play_wave(world: World, country: int, wave: Wave) -> None:
    """Play ``wave``'s orders on ``world`` as the printed script does, seed for seed."""
    for a in wave.attacks:
        rules = a.plan.rules_in(world)
        run_order(world, a.order, country, ServerRandom(a.seed), _Player(a.plan), rules=rules)


@fewer_collections()
def plan_turn(
    world: World,
    country: int,
    settings: Settings | None = None,
    *,
    pool: Pool | None = None,
    cache: CurveCache | None = None,
    version: str = "",
    progress: Progress | None = None,
) -> TurnPlan:
    """The best use of ``country``'s forces this turn (see the module notes).

    ``version`` names the world's state for ``cache`` (the store's digest of
    its objects); without it nothing is cached.  ``world`` is not changed.
    """
    s = settings or Settings()
    if s.waves not in (1, 2):
        raise InputError(f"a plan has 1 or 2 waves, not {s.waves}")
    if not 1 <= s.levels <= 20:
        raise InputError(f"force levels must be from 1 to 20, not {s.levels}")
    if s.budget is not None and not s.budget > 0:
        raise InputError(f"a time budget is a number of seconds above 0, not {s.budget}")
    start = time.perf_counter()
    waves = [_wave(world, country, s, 1, s.seed, pool=pool, cache=cache, version=version,
                   progress=progress)]  # fmt: skip
    if s.waves == 2:
        after = world.copy()
        play_wave(after, country, waves[0])
        waves.append(
            _wave(after, country, s, 2, s.seed + len(waves[0].attacks), pool=pool, cache=cache,
                  version=f"{version}|after wave 1" if version else "", progress=progress)
        )  # fmt: skip
    return TurnPlan(country, s, tuple(waves), time.perf_counter() - start)


def _round(x: float) -> float:
    return float(f"{x:.6g}")


def attack_json(world: World, country: int, a: Attack) -> dict[str, Any]:
    mil = {
        ("ship" if src == "ship" else world.fmt(src, country)): n
        for src, n in (a.plan.mil or {}).items()
    }
    return {
        "wave": a.wave,
        "order": a.order.text(),
        "target": a.where,
        "mil": mil,
        "units": sorted(a.plan.units or ()),
        "planes": a.planes,
        "p_success": _round(a.point.p),
        "standard_error": _round(a.point.se),
        "method": a.point.method,
        "expected_losses": {
            "attacker": _round(a.point.attacker),
            "defender": _round(a.point.defender),
        },
        "prize": _round(a.prize),
        "cost": _round(a.cost),
        "value": _round(a.value),
        "seed": a.seed,
        "uses": dict(sorted(a.uses.items())),
    }


def to_json(world: World, plan: TurnPlan) -> dict[str, Any]:
    """The plan as the JSON document of docs/schemas/empire-plan.schema.json."""
    s = plan.settings
    waves = []
    for w in plan.waves:
        waves.append(
            {
                "wave": w.number,
                "candidates": w.candidates,
                "options": w.options,
                "solved": w.solved,
                "cached": w.cached,
                "skipped": w.skipped,
                "pruned": w.pruned,
                "unsolved": w.unsolved,
                "refined": w.refined,
                "curve_seconds": _round(w.curve_seconds),
                "plan": {
                    "method": w.allocation.method,
                    "standard_error": _round(value_se(w.attacks)),
                    "status": w.allocation.status,
                    "expected_value": _round(w.allocation.value),
                    "bound": None if w.allocation.bound is None else _round(w.allocation.bound),
                    "gap": None if w.allocation.gap is None else _round(w.allocation.gap),
                    "solver_seconds": _round(w.allocation.seconds),
                },
                "greedy": {
                    "expected_value": _round(w.greedy.value),
                    "attacks": len(w.greedy.chosen),
                },
                "attacks": [attack_json(world, plan.country, a) for a in w.attacks],
            }
        )
    return {
        "schema": SCHEMA,
        "schema_version": SCHEMA_VERSION,
        "country": plan.country,
        "objective": s.objective,
        "min_p": s.min_p if s.objective == "count" else None,
        "weights": s.weights.as_dict(),
        "seed": s.seed,
        "levels": s.levels,
        "budget": s.budget,
        "precision": {"max_runs": s.precision.max_runs, "max_memory": s.precision.max_memory},
        "seconds": _round(plan.seconds),
        "expected_value": _round(sum(w.allocation.value for w in plan.waves)),
        "standard_error": _round(value_se(plan.attacks)),
        "waves": waves,
    }


def _mil_words(a: Attack, world: World, country: int) -> list[str]:
    words = []
    for src, n in (a.plan.mil or {}).items():
        words += ["--mil", f"{'ship' if src == 'ship' else world.fmt(src, country)}={n}"]
    return words


def order_command(
    a: Attack, world: World, country: int, where: list[str], live: str | None = None
) -> str:
    """The printed order: the command, ``where`` (``--db FILE --as C``), its named
    answers (every question the command asks), and its seed or ``--live HOST:PORT``."""
    words = [
        "bellum",
        "empire",
        a.order.name,
        *a.order.args,
        *where,
        *_mil_words(a, world, country),
    ]
    units = sorted(a.plan.units or ())
    if a.order.name in ("attack", "assault", "board"):
        words += [w for uid in units for w in ("--unit", str(uid))] or ["--no-units"]
    if a.order.name == "attack":
        for src, n in (a.plan.mil or {}).items():
            if src != "ship" and n:
                words += ["--move-in", f"{world.fmt(src, country)}={n}"]
        words.append("--no-move-in-units")
    if a.order.name in ("attack", "assault"):
        words.append("--yes")
    words += ["--live", live] if live is not None else ["--seed", str(a.seed)]
    return shlex.join(words)


def odds_command(
    a: Attack,
    world: World,
    country: int,
    where: list[str],
    seed: int,
    precision: Precision = PLANNING,
) -> str:
    """``bellum empire odds`` of the same plan, seed and precision: it gives the plan's
    figures."""
    words = ["bellum", "empire", "odds", a.order.name, *a.order.args, *where]
    words += _mil_words(a, world, country)
    words += [w for uid in sorted(a.plan.units or ()) for w in ("--unit", str(uid))]
    return shlex.join([*words, *precision.words(), "--seed", str(seed)])


def map_keys(world: World, country: int, a: Attack) -> tuple[str, list[str]]:
    """Where an attack goes and comes from, as the web map names places: ``x,y`` in the
    country's coordinates, ``ship:N`` and ``unit:N`` for ships and land units."""
    kind, _, ident = a.target.partition(":")
    target = a.where if kind == "sector" else f"{kind}:{ident}"
    sources = []
    for src, n in (a.plan.mil or {}).items():
        if n > 0:
            sources.append(f"ship:{a.order.ship}" if src == "ship" else world.fmt(src, country))
    sources += [f"unit:{uid}" for uid in sorted(a.plan.units or ())]
    if a.planes:  # the paratroopers' assembly point
        sources.append(a.order.args[spec_of(a.order.name).roles.index("source")])
    return target, sources


__all__ = [
    "SCHEMA",
    "SCHEMA_VERSION",
    "Attack",
    "Settings",
    "TurnPlan",
    "Wave",
    "map_keys",
    "odds_command",
    "order_command",
    "plan_turn",
    "play_wave",
    "prize",
    "to_json",
    "value_se",
]
