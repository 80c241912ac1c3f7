"""Screen, then refine (docs/plan.md): the plan is the plan of every option solved at the
planning precision, with far fewer of them solved so.

The odds here are made up (a solver of stated figures, :func:`_solver`), so that the
rule is checked exactly: where every screened figure's bounds hold its planning figure,
the plan must equal the plan of every option (and greedy's, greedy's), whatever the
figures; and a stronger option with lower odds must not hide a weaker one.
"""

from __future__ import annotations

import itertools
import math
import zlib
from collections.abc import Callable

import numpy as np
import pytest
from planworlds import front

from bellum.empire.odds import Plan
from bellum.empire.plan.allocate import Option, Problem, greedy, solve
from bellum.empire.plan.candidates import Force, candidates, capacities, forces, stronger
from bellum.empire.plan.curves import LocalPool, Point, workers_of
from bellum.empire.plan.planner import BATCH, Settings, _Bounds, _Search, cost, prize
from bellum.empire.plan.precision import Precision
from bellum.empire.rules import Rules

Figures = Callable[[Plan], tuple[float, float]]  # P(success), attacker's losses


def _solver(
    figures: Figures, noise: float, log: list[int]
) -> Callable[[str, list[Plan], Precision], tuple[list[Point | None], int]]:
    """Points from ``figures``: exact at the planning precision, off by ``noise`` standard
    errors (never beyond what a screen allows) when screened; ``log`` counts refinements."""

    def run(_what: str, plans: list[Plan], precision: Precision) -> tuple[list[Point | None], int]:
        out: list[Point | None] = []
        for plan in plans:
            p, lost = figures(plan)
            if precision.samples is None:
                log.append(1)
                out.append(Point(p, 0.0, lost, 0.0, "exact"))
            else:
                se = max(0.02, math.sqrt(p * (1 - p) / precision.samples))
                out.append(Point(min(1.0, max(0.0, p + noise * se)), se, lost, 0.0,
                                 "mixture (8 samples)", 1.0, True))  # fmt: skip
        return out, len(plans)

    return run


def _every(world_seed: int, s: Settings, figures: Figures) -> tuple[float, float, int]:
    """The plan's and greedy's value over every option at its planning figure, and how
    many options there are."""
    world = front(world_seed)
    every = forces(candidates(world, 1, Rules.of(world.options)), s.levels)
    options = []
    for f in every:
        p, lost = figures(f.plan)
        pt = Point(p, 0.0, lost, 0.0, "exact")
        worth = prize(world, f.candidate.target, s.values)
        options.append(Option(f.candidate.target, worth * p - cost(f, pt, s.weights), f.uses, p))
    problem = Problem(options, capacities(world, 1))
    best = solve(problem, s.objective, s.min_p)
    return best.value, greedy(problem, s.objective, s.min_p).value, len(every)


def _lazy(
    world_seed: int, s: Settings, figures: Figures, noise: float
) -> tuple[float, float, int, _Search]:
    world = front(world_seed)
    every = forces(candidates(world, 1, Rules.of(world.options)), s.levels)
    worth = {id(f.candidate): prize(world, f.candidate.target, s.values) for f in every}
    log: list[int] = []
    search = _Search(every, worth, s, _solver(figures, noise, log))
    search.screen()
    problem, rows = search.refine(capacities(world, 1))
    best = solve(problem, s.objective, s.min_p)
    base = greedy(problem, s.objective, s.min_p)
    assert all(rows[i] in search.fine for i in (*best.chosen, *base.chosen))
    return best.value, base.value, len(log), search


def _mil(plan: Plan) -> int:
    return sum((plan.mil or {}).values()) + 10 * len(plan.units or ())


def _logistic(seed: int) -> Figures:
    """P(success) rising with the mil sent, at a threshold drawn per target (from ``seed``
    and the order); losses a drawn share of the mil sent."""

    def figures(plan: Plan) -> tuple[float, float]:
        rng = np.random.default_rng([seed, zlib.crc32(plan.order.text().encode())])
        mid, share = float(rng.uniform(5, 120)), float(rng.uniform(0.05, 0.5))
        n = _mil(plan)
        return 1 / (1 + math.exp(-(n - mid) / 8)), share * n

    return figures


@pytest.mark.parametrize(
    ("world_seed", "objective", "noise"),
    [(0, "value", 0.9), (1, "value", -0.9), (2, "value", 0.5), (3, "count", -0.5)],
)
def test_the_plan_is_the_plan_of_every_option(
    world_seed: int, objective: str, noise: float
) -> None:
    """Screened figures off by up to 0.9 of a standard error, either way: the plan and
    greedy's are those of every option at its planning figure, and not every option is
    refined."""
    s = Settings(levels=3, objective="count" if objective == "count" else "value", min_p=0.8)
    figures = _logistic(world_seed)
    value, base, refined, _ = _lazy(world_seed, s, figures, noise)
    full, full_greedy, n = _every(world_seed, s, _logistic(world_seed))
    assert value == pytest.approx(full, abs=1e-6)
    assert base == pytest.approx(full_greedy, abs=1e-6)
    assert value >= base - 1e-9
    assert 0 < refined < n


def test_a_stronger_option_with_lower_odds_hides_nothing() -> None:
    """P(success) need not grow with force (docs/plan.md: the w48x24 case).  Here every
    target is won only by a force of at most 40 mil from one sector, a stronger one wins
    0.3 of the time and loses every mil sent; every prize is $300.  A screened option is
    judged by its own figure: the plan finds each weak winner, as the plan of every
    option does (capped by its stronger options' odds, none would pay)."""
    world = front(0)
    targets = {c.target for c in candidates(world, 1, Rules.of(world.options))}
    s = Settings(levels=3, values=dict.fromkeys(targets, 300.0))

    def weakest_wins(plan: Plan) -> tuple[float, float]:
        mil = plan.mil or {}
        n = sum(mil.values())
        one = len([m for m in mil.values() if m]) == 1
        return (1.0 if one and not plan.units and n <= 40 else 0.3), float(n)

    value, _, _, search = _lazy(0, s, weakest_wins, 0.0)
    full, _, _ = _every(0, s, weakest_wins)
    assert value == pytest.approx(full, abs=1e-6)
    assert sum(pt is not None and pt.p == 1.0 for pt in search.fine.values()) >= 2


def test_what_a_screen_allows() -> None:
    """A screen of 8 paths that all lose still allows P 0.11 (z = 1: the Wilson score
    bound), one that all win allows down to 0.89; the attacker's losses within z standard
    errors."""
    lost = _Bounds.screened(Point(0.0, 0.0, 50.0, 0.0, "mixture", 4.0), 8)
    assert lost.p_lo == 0.0 and lost.p_hi == pytest.approx(1 / 9)
    assert (lost.att_lo, lost.att_hi) == (46.0, 54.0)
    won = _Bounds.screened(Point(1.0, 0.0, 0.0, 0.0, "mixture"), 8)
    assert won.p_hi == 1.0 and won.p_lo == pytest.approx(8 / 9)
    mid = _Bounds.screened(Point(0.5, 0.3, 0.0, 0.0, "mixture"), 8)
    assert (mid.p_lo, mid.p_hi) == pytest.approx((0.2, 0.8))


def test_options_never_refined_are_pruned_not_lost() -> None:
    """Every option is screened, pruned unscreened, or refined; counts add up."""
    s = Settings(levels=3)
    _, _, _, search = _lazy(2, s, _logistic(2), 0.0)
    n = len(search.options)
    assert search.fine.keys() <= search.rough.keys()
    assert len(search.rough) + len(search.pruned - search.rough.keys()) <= n
    assert all(isinstance(f, Force) for f in search.options)


def test_force_ladders_climb() -> None:
    """Every option is a step of one force ladder of its target, and a higher step of a
    ladder sends at least what a lower one does (the screen bisects ladders)."""
    world = front(1)
    every = forces(candidates(world, 1, Rules.of(world.options)), 4)
    ladders: dict[tuple[int, int], list[Force]] = {}
    for f in every:
        assert 1 <= f.level <= 4
        ladders.setdefault((id(f.candidate), f.ladder), []).append(f)
    assert any(len(steps) == 4 for steps in ladders.values())
    for steps in ladders.values():
        levels = [f.level for f in steps]
        assert levels == sorted(set(levels))
        assert all(stronger(b, a) for a, b in itertools.pairwise(steps))


def test_the_screen_bisects_each_ladder() -> None:
    """After each target's strongest option, a ladder's middle step is screened before
    its lowest, and where the middle cannot win (here only a ladder's top step wins), the
    steps below it are never screened; the plan is still the plan of every option."""
    world = front(0)
    every = forces(candidates(world, 1, Rules.of(world.options)), 4)
    level = {_label(f.plan): f.level for f in every}

    def only_the_top_wins(plan: Plan) -> tuple[float, float]:
        return (1.0 if level[_label(plan)] == 4 else 0.0), float(_mil(plan))

    s = Settings(levels=4)
    value, _, _, search = _lazy(0, s, only_the_top_wins, 0.0)
    full, _, _ = _every(0, s, only_the_top_wins)
    assert value == pytest.approx(full, abs=1e-6)
    screened = [search.options[i].level for i in search.rough]
    assert 2 in screened and 1 not in screened


def _label(plan: Plan) -> str:
    return f"{plan.order.text()} {sorted((plan.mil or {}).items())} {sorted(plan.units or ())}"


def test_a_screen_with_one_path_solves_once(monkeypatch: pytest.MonkeyPatch) -> None:
    """A plan with one path to its fight (every option of :func:`front`: no fort, ship or
    plane fires) is screened at the planning precision at once: the same point as its
    refinement, from one run of the odds engine, where the screen of 8 samples used to be
    solved and then thrown away."""
    from bellum.empire.odds import plan_odds
    from bellum.empire.plan import curves
    from bellum.empire.plan.precision import PLANNING, SCREENING

    world = front(0)
    f = forces(candidates(world, 1, Rules.of(world.options)), 4)[0]
    calls: list[int | None] = []
    real = plan_odds

    def counted(*args: object, **kw: object) -> object:
        calls.append(kw.get("samples"))  # type: ignore[arg-type]
        return real(*args, **kw)  # type: ignore[arg-type]

    monkeypatch.setattr("bellum.empire.plan.curves.plan_odds", counted)
    screened = curves.solve_point(world, 1, f.plan, 7, SCREENING)
    assert calls == [SCREENING.samples]
    refined = curves.solve_point(world, 1, f.plan, 7, PLANNING)
    assert screened is not None and not screened.screened
    assert screened == refined


@pytest.mark.parametrize("world_seed", [0, 1, 2])
def test_a_refining_round_adds_one_option_at_most_to_what_the_plans_want(
    world_seed: int, monkeypatch: pytest.MonkeyPatch
) -> None:
    """Each refining round solves the options the allocation or greedy's want, filled up
    to two (one per worker of a local pool) with the likeliest next ones; filled up to
    eight, a late round that wanted one or two refined six on speculation (w48x24: 54
    refinements where 33 make the same plan)."""
    world = front(world_seed)
    s = Settings(levels=3)
    every = forces(candidates(world, 1, Rules.of(world.options)), s.levels)
    worth = {id(f.candidate): prize(world, f.candidate.target, s.values) for f in every}
    search = _Search(every, worth, s, _solver(_logistic(world_seed), 0.9, []))
    search.screen()
    caps = capacities(world, 1)
    rounds: list[tuple[int, int]] = []
    real = search._run

    def run(
        what: str, batch: list[int], into: dict[int, Point | None], precision: Precision
    ) -> None:
        problem, rows = search.problem(caps, fine_only=False)
        chosen = (*solve(problem, s.objective, s.min_p).chosen,
                  *greedy(problem, s.objective, s.min_p).chosen)  # fmt: skip
        rounds.append((len({rows[k] for k in chosen} - search.fine.keys()), len(batch)))
        real(what, batch, into, precision)

    monkeypatch.setattr(search, "_run", run)
    search.refine(caps)
    assert rounds
    assert all(wanted <= size <= max(wanted, 2) for wanted, size in rounds)


def test_a_refining_round_gives_every_worker_an_option() -> None:
    """With more workers than :data:`BATCH` a refining round is topped up to one option
    per worker (else the extra workers idle), and the plan is the same."""
    world = front(2)
    s = Settings()
    every = forces(candidates(world, 1, Rules.of(world.options)), s.levels)
    worth = {id(f.candidate): prize(world, f.candidate.target, s.values) for f in every}
    values, rounds = [], []
    solve_figures = _solver(_logistic(2), 0.5, [])
    for batch in (BATCH, 6):

        def logged(  # type: ignore[no-untyped-def]
            what: str, plans: list[Plan], precision: Precision, batch: int = batch
        ):
            if precision.samples is None:
                rounds.append((batch, len(plans)))
            return solve_figures(what, plans, precision)

        search = _Search(every, worth, s, logged, batch)
        search.screen()
        problem, _ = search.refine(capacities(world, 1))
        values.append(solve(problem, s.objective, s.min_p).value)
    assert values[0] == pytest.approx(values[1])
    sizes = {b: [n for bb, n in rounds if bb == b] for b in (BATCH, 6)}
    assert min(sizes[6]) >= 6 and min(sizes[BATCH]) < 6  # here: 6 3 2 2 2 2 2 and 6 6 6 6 6
    with LocalPool(3) as pool:
        assert workers_of(pool) == 3
