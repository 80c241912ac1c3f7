"""Where the resolver's randomness comes from.

The resolver asks for chance through the small :class:`Chance` protocol.  Two
implementations answer it:

* :class:`DiceChance` draws from :class:`bellum.dice.ServerRandom` (one seeded MT19937
  source: ``--seed N`` replays bit for bit);
* :func:`enumerate_outcomes` re-runs a step of the resolver once per combination of
  choices and weighs each by its exact probability, so the exact outcome distribution is
  computed by the very rules code that resolves a real assault, not by a second copy.
"""

from __future__ import annotations

import math
from collections.abc import Callable, Sequence
from functools import lru_cache
from typing import Protocol, TypeVar

from bellum.dice import ServerRandom

T = TypeVar("T")


class Chance(Protocol):
    def uniform_rounded(self, low: float, high: float) -> tuple[float, int]:
        """A uniform draw in [low, high] and its probabilistic rounding (§7.1)."""

    def roundavg(self, x: float) -> int:
        """``x`` rounded up with probability equal to its fraction (§7.1, §7.3)."""

    def chance(self, p: float) -> bool:
        """True with probability ``p`` (the morale-check trigger, §16.2)."""

    def die(self, sides: int, pass_at_most: int) -> int:
        """A die roll 1..sides; ``pass_at_most`` tells an enumerator which rolls are alike."""

    def pick(self, weights: Sequence[float]) -> int:
        """An index chosen with probability proportional to its weight."""

    def uniform(self, low: float, high: float) -> float:
        """A uniform draw in [low, high] that no tracked outcome depends on (fatigue)."""


class DiceChance:
    """Chance drawn from the one seeded source; every call's draws are fixed (§7.1 order)."""

    def __init__(self, rng: ServerRandom) -> None:
        self.rng = rng

    def uniform(self, low: float, high: float) -> float:
        return low + (high - low) * self.rng.real()

    def uniform_rounded(self, low: float, high: float) -> tuple[float, int]:
        x = self.uniform(low, high)
        return x, self.rng.roundavg(x)

    def roundavg(self, x: float) -> int:
        return self.rng.roundavg(x)

    def chance(self, p: float) -> bool:
        return self.rng.chance(p)

    def die(self, sides: int, pass_at_most: int) -> int:
        return self.rng.roll(sides)

    def pick(self, weights: Sequence[float]) -> int:
        total = sum(weights)
        r = self.rng.real() * total
        last = 0
        for i, w in enumerate(weights):
            if w <= 0:
                continue
            last = i
            r -= w
            if r < 0:
                return i
        return last


def _tri_cdf(t: float) -> float:
    """Integral from -inf to t of the triangle kernel max(0, 1 - |s|)."""
    if t <= -1:
        return 0.0
    if t <= 0:
        return (t + 1) ** 2 / 2
    if t <= 1:
        return 1 - (1 - t) ** 2 / 2
    return 1.0


def rounded_uniform_pmf(low: float, high: float) -> dict[int, float]:
    """Exact law of ``roundavg(uniform(low, high))``.

    Rounding ``x`` gives ``k`` with probability ``max(0, 1 - |x - k|)``, so
    P(k) is that triangle averaged over [low, high] (EX-1: 3.7 -> 3 at 30 %, 4 at 70 %).
    """
    if high < low:
        low, high = high, low
    if high - low < 1e-12:
        f = math.floor(low)
        frac = low - f
        return {k: p for k, p in ((f, 1 - frac), (f + 1, frac)) if p > 0}
    out: dict[int, float] = {}
    for k in range(math.floor(low), math.floor(high) + 2):
        p = (_tri_cdf(high - k) - _tri_cdf(low - k)) / (high - low)
        if p > 0:
            out[k] = p
    return out


@lru_cache(maxsize=4)  # one range per side; the defenders' is read twice
def _live_rounded_uniform(low: float, high: float) -> tuple[tuple[int, float], ...]:
    """:func:`rounded_uniform_pmf` as sorted ``(k, p)`` pairs, computed once per range.

    The enumerator replays a step once per loss value, and each replay asks for the same
    range: without the cache every replay would rebuild the whole pmf, which makes a wide
    loss range quadratic instead of linear.
    """
    return tuple(sorted(rounded_uniform_pmf(low, high).items()))


def _live(options: Sequence[tuple[T, float]]) -> list[tuple[T, float]]:
    return [(v, p) for v, p in options if p > 0]


class _Replay:
    """One run of a step with the choices fixed by ``path`` (first option past its end)."""

    def __init__(self, path: list[int]) -> None:
        self.path = path
        self.widths: list[int] = []
        self.prob = 1.0

    def _choose(self, live: Sequence[tuple[T, float]]) -> T:
        """The option this replay's path picks among ``live`` (all of positive probability)."""
        i = len(self.widths)
        if i == len(self.path):
            self.path.append(0)
        self.widths.append(len(live))
        value, p = live[self.path[i]]
        self.prob *= p
        return value

    def uniform_rounded(self, low: float, high: float) -> tuple[float, int]:
        k = self._choose(_live_rounded_uniform(low, high))
        return float(k), k

    def roundavg(self, x: float) -> int:
        f = math.floor(x)
        return self._choose(_live([(f, 1 - (x - f)), (f + 1, x - f)]))

    def chance(self, p: float) -> bool:
        p = min(max(p, 0.0), 1.0)
        return self._choose(_live([(True, p), (False, 1 - p)]))

    def die(self, sides: int, pass_at_most: int) -> int:
        # Only roll <= pass_at_most matters, so one representative roll per verdict.
        passing = min(max(pass_at_most, 0), sides)
        return self._choose(_live([(1, passing / sides), (sides, (sides - passing) / sides)]))

    def pick(self, weights: Sequence[float]) -> int:
        total = sum(weights)
        return self._choose(_live([(i, w / total) for i, w in enumerate(weights)]))

    def uniform(self, low: float, high: float) -> float:
        raise NotImplementedError("exact enumeration does not track continuous draws")


def enumerate_outcomes(step: Callable[[Chance], T]) -> list[tuple[T, float]]:
    """Every outcome of ``step`` with its probability, by re-running it per choice path.

    ``step`` must be deterministic given its chance answers; the probabilities sum to 1.
    """
    results: list[tuple[T, float]] = []
    path: list[int] = []
    while True:
        replay = _Replay(path)
        results.append((step(replay), replay.prob))
        path = replay.path[: len(replay.widths)]
        while path and path[-1] + 1 >= replay.widths[len(path) - 1]:
            path.pop()
        if not path:
            return results
        path[-1] += 1
