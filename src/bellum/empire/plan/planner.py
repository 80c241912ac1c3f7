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

from bellum.dice import SEED_MAX, ServerRandom
from bellum.empire.combat.commands import spec_of
from bellum.empire.combat.dispatch import run_order
from bellum.empire.combat.result import COMMAND_BTU
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
)
from bellum.empire.plan.candidates import (
    DEFAULT_LEVELS,
    Force,
    candidates,
    capacities,
    forces,
    stronger,
    strongest,
)
from bellum.empire.plan.curves import (
    PLANNING,
    CurveCache,
    Point,
    Pool,
    Precision,
    plan_key,
    solve_points,
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
    #: Targets not solved past their strongest option: even it cannot pay (or reach
    #: the least P(success) asked for).
    skipped: int = 0
    #: Options not solved: the odds of a stronger option of the same target show they
    #: cannot pay (or reach the least P(success) asked for).
    pruned: int = 0


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


def _hopeful(strongest: Point | None, worth: float, s: Settings) -> bool:
    """Whether any option of a target can be chosen, judged by its strongest: no smaller
    force has a higher P(success), and every option spends the order's BTUs."""
    if strongest is None:
        return False
    if s.objective == "count":
        return strongest.p >= s.min_p
    return worth * strongest.p > s.weights.btu * COMMAND_BTU


def _known_cost(f: Force, w: Weights) -> float:
    """What an option costs before its odds are known: all but the soldiers it loses."""
    units = sum(1 for r in f.uses if r.startswith("unit:"))
    mob = sum(n for r, n in f.uses.items() if r.startswith("mob:"))
    return w.unit * units + w.btu * f.uses.get("btu", 0) + w.mob * mob


def _may_count(p_most: float, worth: float, f: Force, s: Settings) -> bool:
    """Whether an option whose P(success) is at most ``p_most`` can be chosen at all
    (allocate's eligible options: positive value, or P ≥ ``min_p`` when counting)."""
    if s.objective == "count":
        return p_most >= s.min_p
    return worth * p_most - _known_cost(f, s.weights) > 0


Solver = Callable[[str, list[Plan]], tuple[list[Point | None], int]]


def _within(a: Force, b: Force) -> bool:
    """Whether ``a`` uses no more of anything than ``b`` does (mil, mobility, BTUs, land
    units, ships, planes): wherever ``b`` fits in a plan, ``a`` does."""
    return all(b.uses.get(r, 0.0) >= n for r, n in a.uses.items())


def _needless(
    f: Force, solved: list[tuple[Force, Point | None]], worth: float, s: Settings
) -> bool:
    """Whether the allocation can do without ``f``, judged by its target's solved options.

    P(success) never falls with more force, so ``f`` is worth at most the prize times the
    lowest P(success) of a solved option :func:`stronger` than it (1 before any is solved),
    minus what it spends before any fight.  It is needless where that cannot pay (nor reach
    ``min_p`` when counting): a prize worth less than the order's BTUs, mobility and land
    units needs no odds at all.  It is also needless where a solved option that uses no
    more of anything (:func:`_within`) is worth at least that much (and reaches ``min_p``
    when counting): a plan with ``f`` is no better than the same plan with that option
    instead.
    """
    above = [pt for g, pt in solved if stronger(g, f)]
    p_most = min((pt.p for pt in above if pt is not None), default=1.0)
    if not _may_count(p_most, worth, f, s):
        return True
    most = worth * p_most - _known_cost(f, s.weights)
    return any(
        pt is not None
        and (s.objective != "count" or pt.p >= s.min_p)
        and worth * pt.p - cost(g, pt, s.weights) >= most
        and _within(g, f)
        for g, pt in solved
    )


def _rounds(
    options: list[Force], worth_of: Mapping[int, float], s: Settings, solve_plans: Solver
) -> tuple[dict[str, Point | None], int, int]:
    """Solve ``options`` in rounds, without those the allocation can do without.

    For every target, odd rounds solve the strongest options left (those no unsolved
    option of the target is :func:`stronger` than; the first round: everything its
    command offers), even rounds the weakest left.  Before each round, an option
    :func:`_needless` by what is solved so far (a stronger option shows it cannot pay, or
    a cheaper one is worth at least as much as it could be) is dropped.  Returns the points
    by plan key, how many were solved now, and how many options were dropped.
    """
    by_target: dict[int, list[Force]] = {}
    for f in options:
        by_target.setdefault(id(f.candidate), []).append(f)
    known: dict[str, Point | None] = {}
    solved = round_no = 0
    pruned: set[str] = set()
    while True:
        batch: dict[str, Plan] = {}
        strongest_first = round_no % 2 == 0
        for group in by_target.values():
            done = [(g, known[k]) for g in group if (k := plan_key(g.plan, s.seed)) in known]
            todo = []
            for f in group:
                k = plan_key(f.plan, s.seed)
                if k in known or k in pruned:
                    continue
                if _needless(f, done, worth_of[id(f.candidate)], s):
                    pruned.add(k)
                else:
                    todo.append(f)
            for f in todo:
                if not any(
                    g is not f
                    and (stronger(g, f) and not stronger(f, g) if strongest_first
                         else stronger(f, g) and not stronger(g, f))
                    for g in todo
                ):  # fmt: skip
                    batch.setdefault(plan_key(f.plan, s.seed), f.plan)
        if not batch:
            return known, solved, len(pruned)
        round_no += 1
        points, n = solve_plans(f"round {round_no}: {len(batch)} options", list(batch.values()))
        solved += n
        known.update(zip(batch, points, strict=True))


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
    cands = candidates(world, country, s.rules or Rules.of(world.options))
    start = time.perf_counter()

    def solved_points(what: str, plans: list[Plan]) -> tuple[list[Point | None], int]:
        def tick(f: float) -> None:
            if progress is not None:
                progress(f"wave {number}, {what}", f)

        return solve_points(world, country, plans, seed=s.seed, precision=s.precision,
                            pool=pool, cache=cache,
                            version=version, progress=tick)  # fmt: skip

    # Strongest options first, round by round: an option whose stronger options' odds
    # show it cannot pay (or reach --min-p) is not solved (_rounds).
    worth_of = {id(c): prize(world, c.target, s.values) for c in cands}
    firsts = {id(c): strongest(c) for c in cands}
    options = forces(cands, s.levels)
    known, solved, pruned = _rounds(options, worth_of, s, solved_points)
    live = {i for i, f in firsts.items() if _hopeful(known.get(plan_key(f.plan, s.seed)),
                                                     worth_of[i], s)}  # fmt: skip
    options = [f for f in options if plan_key(f.plan, s.seed) in known]
    curve_seconds = time.perf_counter() - start
    kept: list[tuple[Force, Point, float, float]] = []
    for f in options:
        pt = known[plan_key(f.plan, s.seed)]
        if pt is not None:
            worth = worth_of[id(f.candidate)]
            kept.append((f, pt, worth, cost(f, pt, s.weights)))
    problem = Problem(
        [
            Option(f.candidate.target, worth * pt.p - c, f.uses, pt.p, f.plan.order.text())
            for f, pt, worth, c in kept
        ],
        capacities(world, country),
    )
    best = solve(problem, s.objective, s.min_p, gap=s.gap, time_limit=s.time_limit)
    base = greedy(problem, s.objective, s.min_p)

    def attacks(chosen: tuple[int, ...]) -> tuple[Attack, ...]:
        ranked = sorted(chosen, key=lambda i: -problem.options[i].value)
        out = []
        for k, i in enumerate(ranked):
            f, pt, worth, c = kept[i]
            where = shown_target(world, country, f.candidate.target)
            seed = (first_seed + k) % (SEED_MAX + 1)
            out.append(Attack(number, f.plan.order, f.candidate.target, where, f.plan, pt,
                              worth, c, f.uses, seed))  # fmt: skip
        return tuple(out)

    cached = len(known) - solved
    return Wave(number, attacks(best.chosen), best, base, attacks(base.chosen), len(cands),
                len(kept), solved, cached, curve_seconds, len(cands) - len(live),
                pruned)  # fmt: skip


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
