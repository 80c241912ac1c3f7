"""Scalar-loop kernels, compiled by numba when the ``[fast]`` extra is installed.

Each kernel here is plain Python that numba's ``njit`` accepts unchanged.  The
numpy implementations in :mod:`bellum.odds.exact` and
:mod:`bellum.odds.montecarlo` are the fallback when numba is absent; the tests
also run these loops uncompiled on small fights, so both paths are checked
against the same exact references whether or not numba is installed.

Conventions: ``sa``/``sd`` are the sides' strength arrays (length ``K + 1``),
``att_w[k]``/``def_w[k]`` accumulate P(attacker/defender wins having lost
``k`` rounds) - see :class:`bellum.odds.result.FightEndStates`.
"""

from __future__ import annotations

import math
from collections.abc import Callable
from functools import cache
from typing import Any

import numpy as np

from bellum.odds._common import numba_wanted

Array = np.ndarray[Any, Any]

_TWO32 = 4294967296.0
_W_MIN = 9
_W_MAX = 51
_W_N = 43
_RING = _W_MAX + 1
_UNDERFLOW = 1e-280


def per_casualty_loops(sa: Array, sd: Array, att_w: Array, def_w: Array) -> None:
    """Anti-diagonal sweep of the per-casualty lattice in O(A + D) memory.

    ``cur[a]`` is the probability of the interior state (a, n - a) of diagonal
    ``n``; a diagonal depends only on the previous one, so each pass below has
    no loop-carried dependency and compiles to SIMD code.
    """
    ka = sa.size - 1
    kd = sd.size - 1
    cur = np.zeros(ka + 1)
    nxt = np.zeros(ka + 1)
    miss = np.zeros(ka + 1)
    cur[0] = 1.0
    for n in range(ka + kd - 1):
        lo = max(0, n - kd + 1)
        hi = min(n, ka - 1)
        for a in range(lo, hi + 1):
            s = sa[a]
            h = cur[a] * (s / (s + sd[n - a]))
            nxt[a] = h
            miss[a] = cur[a] - h
        nxt[hi + 1] = 0.0
        for a in range(lo, hi + 1):
            nxt[a + 1] += miss[a]
        if n - lo == kd - 1:
            # The defender's last round: a hit out of (lo, kd - 1) ends the fight.
            att_w[lo] += cur[lo] - miss[lo]
            nxt[lo] = 0.0
        if hi == ka - 1:
            def_w[n - hi] += nxt[ka]
            nxt[ka] = 0.0
        cur, nxt = nxt, cur


def server_loops(
    sa: Array, sd: Array, dep_w: Array, abs_w: Array, tau: float, att_w: Array, def_w: Array
) -> float:
    """Exact server model by window transition kernels; returns the pruned mass.

    ``ring[n % 52][a]`` holds the probability that a window of frozen odds
    starts at (a, n - a).  From such a state, with the 11 jittered
    probabilities ``p_j``, the chance of ``h`` defender and ``k`` attacker hits
    in the first ``h + k`` rounds is ``C(h+k, k) * M[h][k]`` with
    ``M[h][k] = mean_j p_j**h * q_j**k``.  Because ``p_j + q_j = 1``,
    ``M[h][k] = M[h+1][k] + M[h][k+1]``: one row of powers gives the whole
    triangle by additions of positive numbers (stable), which is what makes
    the solver affordable.  ``mk[t, k]`` stores ``M[t-k][k]`` (times the
    state's mass) so that every scatter below is a forward, contiguous loop.

    A window ends after t rounds (9..51, each 1/43): ``dep_w[t, k]`` is
    ``C(t, k) / 43``.  Paths that beat a side at round t inside the window
    are absorbed: ``abs_w[t, k]`` is ``C(t-1, k) * P(window >= t)``.  States
    with less mass than ``tau`` are dropped and their mass returned.
    """
    ka = sa.size - 1
    kd = sd.size - 1
    ring = np.zeros((_RING, ka + 1))
    ring[0, 0] = 1.0
    mk = np.zeros((_W_MAX + 1, _W_MAX + 2))
    pw = np.zeros((_W_MAX + 1, 11))
    qw = np.zeros((_W_MAX + 1, 11))
    pj = np.zeros(11)
    qj = np.zeros(11)
    pruned = 0.0
    for n0 in range(ka + kd - 1):
        row = ring[n0 % _RING]
        lo = max(0, n0 - kd + 1)
        hi = min(n0, ka - 1)
        for a0 in range(lo, hi + 1):
            m = row[a0]
            if m == 0.0:
                continue
            row[a0] = 0.0
            if m < tau:
                pruned += m
                continue
            d0 = n0 - a0
            hh = kd - d0
            kk = ka - a0
            tmax = min(_W_MAX, hh + kk - 1)
            odds = sa[a0] / (sa[a0] + sd[d0])
            for j in range(11):
                x = odds + (j - 5) / 100.0
                if x < 0.0:
                    x = 0.1
                if x > 1.0:
                    x = 1.0
                p = math.ceil(x * _TWO32) / _TWO32 if x > 0.0 else 0.0
                pj[j] = p
                qj[j] = 1.0 - p
                pw[0, j] = 1.0
                qw[0, j] = 1.0
            # Eleven independent power chains side by side, not one after another.
            for i in range(1, tmax + 1):
                for j in range(11):
                    v = pw[i - 1, j] * pj[j]
                    pw[i, j] = v if v > _UNDERFLOW else 0.0
                    v = qw[i - 1, j] * qj[j]
                    qw[i, j] = v if v > _UNDERFLOW else 0.0
            scale = m / 11.0
            for k in range(tmax + 1):
                acc = 0.0
                for j in range(11):
                    acc += pw[tmax - k, j] * qw[k, j]
                mk[tmax, k] = acc * scale
            for t in range(tmax - 1, -1, -1):
                for k in range(t + 1):
                    mk[t, k] = mk[t + 1, k] + mk[t + 1, k + 1]
            # Windows that end after t rounds with neither side beaten.
            for t in range(_W_MIN, tmax + 1):
                dest = ring[(n0 + t) % _RING]
                k_lo = max(0, t - hh + 1)
                k_hi = min(kk - 1, t)
                for k in range(k_lo, k_hi + 1):
                    dest[a0 + k] += dep_w[t, k] * mk[t, k]
            # The defender's last round falls inside the window.
            if hh <= tmax:
                for k in range(min(kk - 1, _W_MAX - hh) + 1):
                    att_w[a0 + k] += abs_w[hh + k, k] * mk[hh + k, k]
            # The attacker's last round falls inside the window.
            if kk <= tmax:
                for i in range(min(hh - 1, _W_MAX - kk) + 1):
                    def_w[d0 + i] += abs_w[kk + i, i] * mk[kk + i, kk]
    return pruned


def mc_loops(
    sa: Array, sd: Array, runs: int, rng: Any, att_c: Array, def_c: Array, server: bool
) -> int:
    """``runs`` fights of either model; counts end states, returns casualty-steps made.

    ``server=False``: the per-casualty model.  ``server=True``: spec §6.2, with
    the exact ``chance`` probability (a multiple of 2**-32), which a 53-bit
    uniform reproduces exactly.
    """
    ka = sa.size - 1
    kd = sd.size - 1
    steps = 0
    for _ in range(runs):
        a = 0
        d = 0
        left = 0
        p = 0.0
        while a < ka and d < kd:
            if not server:
                p = sa[a] / (sa[a] + sd[d])
            elif left == 0:
                x = sa[a] / (sa[a] + sd[d]) + (rng.integers(0, 11) - 5) / 100.0
                if x < 0.0:
                    x = 0.1
                if x > 1.0:
                    x = 1.0
                p = math.ceil(x * _TWO32) / _TWO32 if x > 0.0 else 0.0
                left = rng.integers(_W_MIN, _W_MAX + 1)
            if rng.random() < p:
                d += 1
            else:
                a += 1
            left -= 1
        steps += a + d
        if d == kd:
            att_c[a] += 1
        else:
            def_c[d] += 1
    return steps


@cache
def compiled(name: str) -> Callable[..., Any]:
    """The kernel ``name``, compiled with numba (cached on disk) when wanted.

    Falls back to the plain-Python function when numba is missing or
    disabled; callers that need speed check :func:`numba_wanted` and use the
    numpy implementations instead of the slow uncompiled loops.
    """
    func: Callable[..., Any] = globals()[name]
    if not numba_wanted():
        return func
    import numba

    jitted: Callable[..., Any] = numba.njit(cache=True, fastmath=False)(func)
    return jitted
