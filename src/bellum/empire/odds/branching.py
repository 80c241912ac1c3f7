"""Dice that branch: the real command, run once per combination of draws (spec §0.1).

The odds engine runs a command's own code up to its fight with a
:class:`BranchingDice` instead of the server's generator.  Every draw the
rules make (``chance``, ``roll``, ``pct_chance``, ``roundavg``, ``damage``)
becomes a choice among its outcomes, each with its exact probability (the
server's ``chance(p)`` is true with ``p`` rounded up to a multiple of 2⁻³²).
Two ways to use it, as Panzer's :mod:`bellum.panzer._chance` does:

* :func:`enumerate_runs` re-runs the command once per path through the tree
  of choices and weighs each end by the product of its choices' probabilities;
* :func:`sample_runs` follows one random path per run (each choice drawn with
  its probability), for trees too big to walk.

:func:`tree_size` estimates the number of ends from a few random probes
(Knuth's estimator), so the caller can choose before doing the work.  Draws
made under :meth:`~bellum.dice.ServerRandom.text_only` change only the text:
they take their likeliest outcome and do not branch.  The odds engine stops
the command where its fight begins (``run_order(..., stop_at="fight")``).

A :class:`~bellum.dice.Block` of draws (a fire function's volleys) is one choice
among its distinct results, each with its exact probability
(:meth:`BranchingDice.block`), and a sum of rolls one choice among its sums: a
volley of forts or ships is tens of branches where its draws are millions of
paths.  ``collapse=False`` branches on every draw instead, as the server makes
them: the brute force the tests check the blocks against.
"""

from __future__ import annotations

import functools
import math
from collections.abc import Callable, Hashable, Iterator, Sequence
from typing import TypeVar

import numpy as np

from bellum.dice import Block, ServerRandom
from bellum.errors import InputError
from bellum.formulas import chance_probability

T = TypeVar("T")


class BranchingDice(ServerRandom):
    """A :class:`~bellum.dice.ServerRandom` whose draws follow a path of choices.

    ``path`` fixes the choices made so far (the first option past its end);
    with ``rng`` the choices past the path are drawn at random instead, each
    with its probability, and ``prob`` stays the probability of the forced
    part only.  ``widths`` records how many options each choice had.
    """

    def __init__(
        self,
        path: Sequence[int] = (),
        rng: np.random.Generator | None = None,
        *,
        uniform: bool = False,
        collapse: bool = True,
    ) -> None:
        # No generator state: every draw is a choice (ServerRandom.__init__ is not needed).
        self.seed = 0
        self.draws = 0
        self.path = list(path)
        self.widths: list[int] = []
        self.prob = 1.0
        self.rng = rng
        self.uniform = uniform
        self.collapse = collapse
        self._text = 0

    def _choose(self, options: Sequence[tuple[T, float]]) -> T:
        self.draws += 1
        live = [(v, p) for v, p in options if p > 0]
        if len(live) == 1:
            return live[0][0]
        if self._text:
            return max(live, key=lambda o: o[1])[0]
        i = len(self.widths)
        self.widths.append(len(live))
        if i < len(self.path):
            value, p = live[self.path[i]]
            self.prob *= p
            return value
        if self.rng is None:
            self.path.append(0)
            value, p = live[0]
            self.prob *= p
            return value
        if self.uniform:
            j = int(self.rng.integers(len(live)))
        else:
            j = pick([p for _, p in live], float(self.rng.random()))
        self.path.append(j)
        return live[j][0]

    # -- the server's helpers, as choices ------------------------------------------

    def u32(self) -> int:
        raise InputError("the odds engine cannot branch on a raw 32-bit draw")

    def real(self) -> float:
        raise InputError("the odds engine cannot branch on a continuous draw")

    def chance(self, p: float) -> bool:
        q = chance_probability(p)
        return self._choose([(True, q), (False, 1.0 - q)])

    def roll0(self, n: int) -> int:
        if n <= 0:
            raise ValueError(f"roll0 needs n >= 1, not {n}")
        return self._choose([(v, 1.0 / n) for v in range(n)])

    def pct_chance(self, p: float) -> bool:
        # roll(100) <= p: the rolls 1..floor(p) (clamped to 0..100) pass.
        passing = min(100, max(0, math.floor(p)))
        return self._choose([(True, passing / 100), (False, (100 - passing) / 100)])

    def roll_sum(self, k: int, n: int) -> int:
        if not self.collapse or k <= 1:
            return super().roll_sum(k, n)
        counts = _sum_counts(k, n)
        total = float(n) ** k
        return self._choose([(k + i, c / total) for i, c in enumerate(counts)])

    def block(self, block: Block[T]) -> T:
        """One choice among the block's distinct results (one branch each, with its exact
        probability), then the side effects of a path to it; draw by draw when the block
        cannot say its outcomes or ``collapse`` is off.  The block keeps the outcomes of
        equal keys (:mod:`bellum.empire.combat.volleys`): every path and sample meets them
        again."""
        if block.key is None or not self.collapse:
            return block.run(self)
        outs = block.outcomes(outcomes)
        value, _, path = outs[self._choose([(i, p) for i, (_, p, _) in enumerate(outs)])]
        block.replay(path)
        return value


@functools.cache
def _sum_counts(k: int, n: int) -> tuple[int, ...]:
    """How many of the ``n**k`` sequences of ``k`` rolls of ``n`` sum to ``k``, ``k+1``, …"""
    if k == 0:
        return (1,)
    fewer = _sum_counts(k - 1, n)
    return tuple(sum(fewer[max(0, i - n + 1) : i + 1]) for i in range(len(fewer) + n - 1))


def outcomes(run: Callable[[ServerRandom], Hashable]) -> list[tuple[Hashable, float]]:
    """Every value of ``run`` (a few draws, no side effects) with its exact probability."""
    merged: dict[Hashable, float] = {}
    for value, p in enumerate_runs(run) or ():
        merged[value] = merged.get(value, 0.0) + p
    return list(merged.items())


def pick(weights: Sequence[float], u: float) -> int:
    """The option a uniform draw ``u`` in [0, 1) picks, each option with its weight's
    share: the first whose cumulative weight exceeds ``u`` times the total.  One draw of
    the generator per choice, in plain Python (``Generator.choice`` with probabilities
    costs 50 times more for the few options a die has)."""
    total = sum(weights)
    acc = 0.0
    for j, w in enumerate(weights):
        acc += w
        if u * total < acc:
            return j
    return len(weights) - 1


def enumerate_runs(
    run: Callable[[BranchingDice], T],
    limit: int | None = None,
    *,
    dice_of: Callable[[list[int]], BranchingDice] = BranchingDice,
) -> list[tuple[T, float]] | None:
    """Every end of ``run`` with its probability; ``None`` once more than ``limit`` ends.

    ``run`` must be deterministic given the dice's choices; ``dice_of`` makes the dice
    of each path (a :class:`BranchingDice` that also records what it met, say).
    """
    results: list[tuple[T, float]] = []
    path: list[int] = []
    while True:
        dice = dice_of(path)
        results.append((run(dice), dice.prob))
        if limit is not None and len(results) > limit:
            return None
        path = dice.path[: len(dice.widths)]
        while path and path[-1] + 1 >= dice.widths[len(path) - 1]:
            path.pop()
        if not path:
            return results
        path[-1] += 1


def sample_runs(run: Callable[[BranchingDice], T], n: int, rng: np.random.Generator) -> Iterator[T]:
    """``n`` ends of ``run``, each on a path drawn with the draws' own probabilities."""
    for _ in range(n):
        yield run(BranchingDice(rng=rng))


def tree_size(
    run: Callable[[BranchingDice], object],
    rng: np.random.Generator,
    probes: int,
    limit: float = math.inf,
) -> float:
    """Knuth's estimate of the number of ends: the mean product of widths on uniform paths.

    Every product is at least 1, so once the products so far (the rest counted as 1)
    make a mean above ``limit``, the estimate is above it whatever the rest: the probing
    stops there and returns that lower bound (one probe of a dogfight says 10⁸⁰).
    """
    total = 0.0
    for i in range(probes):
        dice = BranchingDice(rng=rng, uniform=True)
        run(dice)
        total += math.prod(dice.widths)
        bound = (total + probes - i - 1) / probes
        if bound > limit:
            return bound
    return total / probes


__all__ = ["BranchingDice", "enumerate_runs", "outcomes", "pick", "sample_runs", "tree_size"]
