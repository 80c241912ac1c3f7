"""The search of ``--need`` (:func:`bellum.empire.odds.questions.least_total`) on chances
given as curves: the least total found, and how many plans it took to find it."""

from __future__ import annotations

import math
import random
from collections.abc import Callable, Sequence
from dataclasses import dataclass

import pytest

from bellum.empire.odds.questions import least_total


@dataclass(frozen=True)
class Answer:
    total: int
    p_success: float


def searched(
    chance: Callable[[int], float], most: int, target: float, width: int = 1
) -> tuple[int | None, list[int]]:
    """The total found and the totals solved, in order."""
    solved: list[int] = []

    def solve(totals: Sequence[int]) -> list[Answer]:
        solved.extend(totals)
        return [Answer(t, chance(t)) for t in totals]

    total, found, best = least_total(most, target, solve, (lambda: width) if width > 1 else None)
    assert best.total == most
    assert (found is None) == (total is None)
    assert found is None or found.total == total
    return total, solved


def logistic(centre: float, scale: float) -> Callable[[int], float]:
    return lambda t: 1 / (1 + math.exp(min(700.0, (centre - t) / scale)))


@pytest.mark.parametrize("target", [0.5, 0.9, 0.99])
@pytest.mark.parametrize(
    ("centre", "scale"), [(72, 12), (90, 8), (400, 60), (30, 3), (500, 5), (700, 40)]
)
def test_a_logistic_chance_takes_few_uncertain_plans(
    centre: float, scale: float, target: float
) -> None:
    """Chances that rise with the force as the realistic suite's do (w32x16-attack-2:
    0.085 at 54 mil, 0.51 at 72, 0.91 at 90): the least total of 0..1000.  A plan whose
    chance is nearly sure is cheap (20 samples, or exact), one in between is not (100
    to 500 samples): at most 6 of those, where halving the range solved up to 10 (8 to 10 on
    the first three curves at 0.5 and 0.9), and at most 13 plans in all (halving: 11)."""
    chance = logistic(centre, scale)
    total, solved = searched(chance, 1000, target)
    assert total == next(t for t in range(1001) if chance(t) >= target)
    uncertain = [t for t in solved if 0.01 < chance(t) < 0.99]
    assert len(uncertain) <= 6 and len(solved) <= 13, solved


@pytest.mark.parametrize("width", [1, 2, 3])
def test_every_search_ends_on_a_total_whose_neighbour_falls_short(width: int) -> None:
    """Whatever the chances (a jump from 0 to 1, noise that breaks the order, flat
    stretches), the total found reaches the target, the one below it was solved and falls
    short, and the steps stay within three times halving's.  With a worker (``width``
    above 1) the search solves more totals a step but finds the same total as alone,
    even where sampled chances wobble and several totals have that property."""
    rng = random.Random(7)
    for _ in range(400):
        most = rng.choice([1, 2, 5, 40, 300, 3000])
        target = rng.choice([0.1, 0.5, 0.9, 0.999])
        kind = rng.randrange(3)
        centre = rng.uniform(-0.2, 1.2) * most
        table = []
        for t in range(most + 1):
            if kind == 0:
                p = 1.0 if t >= centre else 0.0
            elif kind == 1:
                p = rng.random()
            else:
                p = logistic(centre, rng.choice([0.5, 0.05 * most + 0.1]))(t)
                p = min(1.0, max(0.0, p + rng.gauss(0.0, 0.03)))
            table.append(p)
        total, solved = searched(table.__getitem__, most, target, width)
        alone, steps = searched(table.__getitem__, most, target) if width > 1 else (total, solved)
        assert total == alone
        assert len(steps) <= 3 * math.log2(most + 1) + 3
        if total is None:
            assert steps == [most] and table[most] < target
            continue
        assert table[total] >= target
        assert total == 0 or (total - 1 in solved and table[total - 1] < target)


def test_the_search_reports_rising_progress_that_ends_at_one() -> None:
    seen: list[float] = []

    def solve(totals: Sequence[int]) -> list[Answer]:
        return [Answer(t, logistic(300, 40)(t)) for t in totals]

    least_total(1000, 0.9, solve, progress=seen.append)
    assert seen == sorted(seen) and seen[-1] == 1.0 and seen[0] < 0.5
