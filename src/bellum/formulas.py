"""The fight's formulas, in one place (spec §6.1, §6.2).

The server's fight redraws its odds at the start of each window: the attacker's
share of the strength (:func:`odds`), moved by a jitter of ``(roll(11) - 6) / 100``
(:func:`jitter`), then frozen for ``countdown + 1`` rounds with ``countdown = 7 +
roll(43)``, i.e. 9..51 rounds.  Each round the attacker wins with ``chance(p)``,
whose exact probability is :func:`chance_probability`.

The rules (:mod:`bellum.empire.combat.fight`), the exact solvers and Monte Carlo
(:mod:`bellum.odds`) and their compiled kernels all use these, so there is one copy
of each.  Plain functions of floats, with no imports, so numba compiles them into
the kernels unchanged.
"""

from __future__ import annotations

import math

#: The jitter's draw: ``roll(11)``, each of the 11 values equally likely.
JITTER_CHOICES = 11
#: The window's draw: ``countdown = WINDOW_BASE + roll(WINDOW_CHOICES)``.
WINDOW_BASE = 7
WINDOW_CHOICES = 43
#: Shortest and longest window of frozen odds, in rounds (``countdown + 1``).
WINDOW_MIN = WINDOW_BASE + 2
WINDOW_MAX = WINDOW_BASE + 1 + WINDOW_CHOICES

#: ``2**32``: ``chance`` compares with a 32-bit draw.
TWO32 = 4294967296.0


def odds(o: float, d: float) -> float:
    """The attacker's chance per round before jitter (§6.1): its share of the strength."""
    if o <= 0:
        return 0.0
    if d <= 0:
        return 1.0
    return o / (o + d)


def jitter_offset(roll: int) -> float:
    """The jitter for ``roll(11) = roll``, computed as the server does."""
    return (roll - 6) / 100.0


def jitter(p: float, offset: float) -> float:
    """The server's ``jitter``: add the offset; below 0 becomes 0.1 (sic), above 1 is 1."""
    x = p + offset
    if x < 0.0:
        return 0.1
    return min(x, 1.0)


def chance_probability(p: float) -> float:
    """The exact probability that the server's ``chance(p)`` is true.

    ``chance(p)`` compares ``p > u32 / 2**32``; the number of the 2**32 equally
    likely draws below ``p`` is ``ceil(p * 2**32)`` (0 for ``p <= 0``, all of them
    for ``p >= 1``), so the true probability is ``p`` rounded *up* to a multiple
    of 2**-32.  The difference is below 2.4e-10 but the model is meant to be
    exact.
    """
    if p <= 0.0:
        return 0.0
    return min(math.ceil(p * TWO32), TWO32) / TWO32


def window_survival(t: int) -> float:
    """P(a window lasts at least ``t`` rounds), for ``1 <= t <= WINDOW_MAX``."""
    if t <= WINDOW_MIN:
        return 1.0
    return (WINDOW_MAX + 1 - t) / WINDOW_CHOICES


#: The jitter offsets in the order of ``roll(11) = 1..11``.
JITTERS: tuple[float, ...] = tuple(jitter_offset(r) for r in range(1, JITTER_CHOICES + 1))

__all__ = [
    "JITTERS",
    "JITTER_CHOICES",
    "TWO32",
    "WINDOW_BASE",
    "WINDOW_CHOICES",
    "WINDOW_MAX",
    "WINDOW_MIN",
    "chance_probability",
    "jitter",
    "jitter_offset",
    "odds",
    "window_survival",
]
