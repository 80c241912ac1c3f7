"""The allocation core: HiGHS's plan against brute force and against greedy.

Instances are generated from fixed seeds: targets with a few force levels each,
sources shared between neighbouring targets (mil and mobility), land units that
can join several targets but are used once, and a BTU budget.
"""

from __future__ import annotations

import itertools

import numpy as np
import pytest

from bellum.empire.plan.allocate import Option, Problem, greedy, solve
from bellum.errors import InputError


def generated(seed: int, targets: int, levels: int) -> Problem:
    """A random instance shaped like a turn: sources between targets, units, BTUs."""
    rng = np.random.default_rng(seed)
    sources = max(1, targets // 2 + 1)
    capacity: dict[str, float] = {"btu": float(rng.integers(3, 3 * targets + 4))}
    for s in range(sources):
        capacity[f"mil:{s}"] = float(rng.integers(10, 200))
        capacity[f"mob:{s}"] = float(rng.integers(5, 128))
    options = []
    for t in range(targets):
        near = rng.choice(sources, size=min(sources, 2), replace=False)
        prize = float(rng.integers(50, 2000))
        for k in range(levels):
            uses: dict[str, float] = {"btu": 3.0}
            for s in near:
                if rng.random() < 0.7:
                    mil = float(rng.integers(1, 120))
                    uses[f"mil:{s}"] = mil
                    uses[f"mob:{s}"] = float(max(1, int(mil * 0.3)))
            if rng.random() < 0.3:
                uses[f"unit:{rng.integers(0, 4)}"] = 1.0
            strength = sum(v for r, v in uses.items() if r.startswith("mil:"))
            p = float(1 - np.exp(-strength / (40 + 30 * rng.random())))
            value = prize * p - 1.5 * strength * (1 - p) - float(rng.integers(0, 30))
            options.append(Option(f"t{t}", value, uses, p, f"t{t}/{k}"))
    return Problem(options, capacity)


def brute_force(problem: Problem, min_p: float | None = None) -> tuple[float, int]:
    """The best value (or, with ``min_p``, the most targets, then the best value)."""
    by_target: dict[str, list[int]] = {}
    for i, o in enumerate(problem.options):
        if min_p is None or o.p >= min_p:
            by_target.setdefault(o.target, []).append(i)
    best = (0, 0.0)
    for combo in itertools.product(*([None, *opts] for opts in by_target.values())):
        chosen = [i for i in combo if i is not None]
        if not problem.feasible(chosen):
            continue
        score = (
            (len(chosen), problem.value(chosen))
            if min_p is not None
            else (0, problem.value(chosen))
        )
        best = max(best, score)
    return best[1], best[0]


@pytest.mark.parametrize("seed", range(40))
def test_equals_brute_force_on_enumerable_instances(seed: int) -> None:
    problem = generated(seed, targets=4, levels=3)
    plan = solve(problem, gap=0.0)
    best, _ = brute_force(problem)
    assert problem.feasible(plan.chosen)
    assert plan.value == pytest.approx(best, abs=1e-6)
    assert plan.status == "optimal" and plan.gap == pytest.approx(0.0, abs=1e-9)


@pytest.mark.parametrize("seed", range(20))
def test_count_objective_equals_brute_force(seed: int) -> None:
    problem = generated(100 + seed, targets=4, levels=3)
    plan = solve(problem, "count", 0.6, gap=0.0)
    value, count = brute_force(problem, min_p=0.6)
    assert problem.feasible(plan.chosen)
    assert all(problem.options[i].p >= 0.6 for i in plan.chosen)
    assert len(plan.chosen) == count
    assert plan.value == pytest.approx(value, abs=1e-6)


@pytest.mark.parametrize("seed", range(30))
def test_never_worse_than_greedy(seed: int) -> None:
    problem = generated(1000 + seed, targets=25, levels=6)
    plan = solve(problem)
    base = greedy(problem)
    assert problem.feasible(plan.chosen) and problem.feasible(base.chosen)
    assert plan.value >= base.value - 1e-9
    assert plan.gap is not None and plan.gap <= 0.01
    counted = solve(problem, "count", 0.5)
    assert len(counted.chosen) >= len(greedy(problem, "count", 0.5).chosen)


def test_greedy_can_be_beaten() -> None:
    """One big attack uses the mil two smaller ones need: greedy takes the big one."""
    problem = Problem(
        [
            Option("a", 100.0, {"mil:s": 100}),
            Option("b", 60.0, {"mil:s": 50}),
            Option("c", 60.0, {"mil:s": 50}),
        ],
        {"mil:s": 100},
    )
    assert greedy(problem).value == 100.0
    plan = solve(problem)
    assert plan.value == 120.0 and plan.chosen == (1, 2)


def test_units_ships_and_planes_are_used_once() -> None:
    problem = Problem([Option("a", 10.0, {"unit:7": 1}), Option("b", 9.0, {"unit:7": 1})])
    assert solve(problem).chosen == (0,)


def test_nothing_worth_doing_is_an_empty_plan() -> None:
    problem = Problem([Option("a", -5.0, {}), Option("b", 0.0, {})])
    plan = solve(problem)
    assert plan.chosen == () and plan.value == 0.0


def test_bad_settings_are_refused() -> None:
    with pytest.raises(InputError):
        solve(Problem([]), gap=1.5)


def test_the_solver_prints_nothing_on_standard_output(capfd: pytest.CaptureFixture[str]) -> None:
    """HiGHS's MIP solver writes a debug line to the process's standard output now and then
    (from C++, past Python's sys.stdout); `bellum empire plan --json` must stay JSON."""
    import os

    from bellum.empire.plan.allocate import _quiet_stdout

    with _quiet_stdout():
        os.write(1, b"HighsMipSolverData::transformNewIntegerFeasibleSolution\n")
    print("after")
    assert capfd.readouterr().out == "after\n"
