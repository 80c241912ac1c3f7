"""Constants and small helpers shared by the exact solvers and Monte Carlo.

The server model's numbers come from spec §6.2: a window of fixed probability
lasts ``countdown + 1`` rounds with ``countdown = 7 + roll(43)``, i.e. 9..51
rounds, each length with probability 1/43; the jitter adds
``(roll(11) - 6) / 100``, each of the 11 values with probability 1/11.
"""

from __future__ import annotations

import importlib.util
import math
import os
from functools import cache

import numpy as np
import numpy.typing as npt

FloatArray = npt.NDArray[np.float64]

#: Shortest and longest window of frozen odds, in rounds.
WINDOW_MIN = 9
WINDOW_MAX = 51
#: Number of equiprobable window lengths (``roll(43)``).
WINDOW_CHOICES = WINDOW_MAX - WINDOW_MIN + 1
#: Number of equiprobable jitter values (``roll(11)``).
JITTER_CHOICES = 11
#: The jitter offsets in the order of ``roll(11) = 1..11``, computed as the
#: server does: ``(roll(11) - 6) / 100.0``.
JITTERS: tuple[float, ...] = tuple((r - 6) / 100.0 for r in range(1, JITTER_CHOICES + 1))

_TWO32 = 4294967296.0


def numba_wanted() -> bool:
    """Whether numba may be used: installed and not disabled by ``BELLUM_NO_NUMBA``."""
    if os.environ.get("BELLUM_NO_NUMBA", "") not in ("", "0"):
        return False
    # find_spec does not import numba, which alone takes a noticeable fraction of a second.
    return importlib.util.find_spec("numba") is not None


@cache
def numba_importable() -> str | None:
    """``None`` if numba imports, else why not (an old numba rejects a new numpy)."""
    try:
        import numba  # noqa: F401
    except ImportError as exc:
        return str(exc).splitlines()[0] if str(exc) else type(exc).__name__
    return None


def server_odds(o: float, d: float) -> float:
    """``odds(o, d)`` of spec §6.1 in double precision."""
    if o <= 0:
        return 0.0
    if d <= 0:
        return 1.0
    return o / (o + d)


def jitter_value(odds: float, offset: float) -> float:
    """The server's ``jitter``: add the offset, negative -> 0.1 (sic), above 1 -> 1."""
    p = odds + offset
    if p < 0.0:
        return 0.1
    return min(p, 1.0)


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
    return min(math.ceil(p * _TWO32), _TWO32) / _TWO32


def jittered_probabilities(odds: FloatArray) -> FloatArray:
    """Vectorised ``chance_probability(jitter_value(odds, j))`` for all 11 jitters.

    Returns an array of shape ``odds.shape + (11,)``; element-for-element the
    same doubles as the scalar helpers (the operations are identical).
    """
    x = odds[..., None] + np.asarray(JITTERS, dtype=np.float64)
    x = np.where(x < 0.0, 0.1, np.minimum(x, 1.0))
    q = np.ceil(np.maximum(x, 0.0) * _TWO32)
    return np.minimum(q, _TWO32) / _TWO32


def binomial_table(n: int) -> FloatArray:
    """``C(t, h)`` for ``0 <= h <= t <= n`` as doubles (zeros elsewhere)."""
    table = np.zeros((n + 1, n + 1), dtype=np.float64)
    for t in range(n + 1):
        for h in range(t + 1):
            table[t, h] = float(math.comb(t, h))
    return table


def window_survival(t: int) -> float:
    """P(a window lasts at least ``t`` rounds), for ``1 <= t <= 51``."""
    if t <= WINDOW_MIN:
        return 1.0
    return (WINDOW_MAX + 1 - t) / WINDOW_CHOICES
