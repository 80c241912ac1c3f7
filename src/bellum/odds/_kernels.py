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

from collections.abc import Callable
from functools import cache
from typing import Any

import numpy as np

from bellum.formulas import JITTER_CHOICES, WINDOW_MAX, WINDOW_MIN, chance_probability, jitter
from bellum.formulas import jitter_offset as offset_of
from bellum.formulas import odds as share
from bellum.odds._common import numba_importable, numba_wanted

Array = np.ndarray[Any, Any]

_W_MIN = WINDOW_MIN
_W_MAX = WINDOW_MAX
_RING = _W_MAX + 1
_UNDERFLOW = 1e-280
#: States per vectorised block of the server kernel: long inner loops, rows in L2.
_CHUNK = 256
#: Where the chains of the top row start (see server_loops).
_MID = 26


def per_casualty_loops(sa: Array, sdr: Array, tau: float, att_w: Array, def_w: Array) -> float:
    """Anti-diagonal sweep of the per-casualty lattice in O(A + D) memory.

    ``cur[a]`` is the probability of the interior state (a, n - a) of diagonal
    ``n``; a diagonal depends only on the previous one.  ``sdr`` is the
    defender's strength array *reversed*, so that the defender strengths along
    a diagonal are a forward slice: with every operand a contiguous view, the
    two inner loops compile to SIMD code (10,000 x 10,000 in ~0.06 s instead of
    ~0.23 s for the same loops indexing ``sd[n - a]``).

    Only the band ``[band_lo, band_hi]`` of each diagonal is swept: cells at
    either end of it with less than ``tau`` (or exactly 0) are dropped, and the
    dropped mass is returned (see :func:`bellum.odds.exact.per_casualty_tau`).
    """
    ka = sa.size - 1
    kd = sdr.size - 1
    cur = np.zeros(ka + 1)
    nxt = np.zeros(ka + 1)
    miss = np.zeros(ka + 1)
    cur[0] = 1.0
    band_lo = 0
    band_hi = 0
    pruned = 0.0
    for n in range(ka + kd - 1):
        lo = max(n - kd + 1, band_lo)
        hi = min(n, ka - 1, band_hi) + 1
        if lo >= hi:
            break
        c_in = cur[lo:hi]
        s_in = sa[lo:hi]
        t_in = sdr[kd - n + lo : kd - n + hi]
        h_out = nxt[lo:hi]
        m_out = miss[lo:hi]
        for i in range(c_in.size):
            s = s_in[i]
            m = c_in[i]
            h = m * (s / (s + t_in[i]))
            h_out[i] = h
            m_out[i] = m - h
        nxt[hi] = 0.0
        shifted = nxt[lo + 1 : hi + 1]
        for i in range(m_out.size):
            shifted[i] += m_out[i]
        if n - lo == kd - 1:
            # The defender's last round: a hit out of (lo, kd - 1) ends the fight.
            att_w[lo] += cur[lo] - miss[lo]
            nxt[lo] = 0.0
        if hi == ka:
            def_w[n - ka + 1] += nxt[ka]
            nxt[ka] = 0.0
        band_lo = lo
        band_hi = hi
        while band_lo <= band_hi and (nxt[band_lo] < tau or nxt[band_lo] == 0.0):
            pruned += nxt[band_lo]
            band_lo += 1
        while band_hi >= band_lo and (nxt[band_hi] < tau or nxt[band_hi] == 0.0):
            pruned += nxt[band_hi]
            band_hi -= 1
        cur, nxt = nxt, cur
    return pruned


# The exact server model's loop nest (spec §6.2), compiled by numba when it is installed
# and run as Python otherwise: kept whole, so no call sits in its innermost loop.
def window_middle(p: float) -> float:
    """``p**25 * (1 - p)**26``, the middle of a 51-round window's row, by squarings."""
    q = 1.0 - p
    p2 = p * p
    p8 = p2 * p2
    p8 = p8 * p8
    q2 = q * q
    q8 = q2 * q2
    q8 = q8 * q8
    return (p8 * p8 * p8 * p) * (q8 * q8 * q8 * q2)


def server_loops(  # noqa: C901
    sa: Array, sd: Array, dep_w: Array, abs_w: Array, tau: float, att_w: Array, def_w: Array
) -> float:
    """Exact server model by window transition kernels; returns the pruned mass.

    ``ring[n % 52][a]`` holds the probability that a window of frozen odds
    starts at (a, n - a).  From such a state, with the 11 jittered
    probabilities ``p_j``, the chance of ``h`` defender and ``k`` attacker hits
    in the first ``h + k`` rounds is ``C(h+k, k) * M[h][k]`` with
    ``M[h][k] = mean_j p_j**h * q_j**k``.  Because ``p_j + q_j = 1``,
    ``M[h][k] = M[h+1][k] + M[h][k+1]``: the row ``t = h + k = 51`` gives the
    whole triangle by additions of positive numbers (stable), one row ``t`` at
    a time (``row_t[k] = row_{t+1}[k] + row_{t+1}[k+1]``).

    A window ends after t rounds (9..51, each 1/43): ``dep_w[t, k]`` is
    ``C(t, k) / 43``, deposited on diagonal ``n + t`` at ``a + k``.  Paths that
    beat a side at round t inside the window are absorbed: ``abs_w[t, k]`` is
    ``C(t-1, k) * P(window >= t)``.  States with less mass than ``tau`` are
    dropped and their mass returned.

    Vectorised across the states of a diagonal (in chunks of ``_CHUNK``): every
    inner loop runs over states, so it is long and SIMD-friendly, and the
    deposit of row ``t`` at offset ``k`` is one contiguous run of the ring.
    Deposits are not masked at the edges of the lattice: paths that beat a
    side inside a window also land in cells past that side's end (``a >= A``,
    or ``d >= D`` which is ``a`` below the diagonal's first cell), which are
    never read and are cleared with the ring row.
    """
    ka = sa.size - 1
    kd = sd.size - 1
    ring = np.zeros((_RING, ka + _W_MAX + 1))
    ring[0, 0] = 1.0
    # tri[t % 2][k, s]: row t of the triangle for state s of the chunk.
    tri = np.zeros((2, _W_MAX + 2, _CHUNK))
    odds = np.zeros(_CHUNK)
    scale = np.zeros(_CHUNK)
    p_j = np.zeros(_CHUNK)
    mid = np.zeros(_CHUNK)
    up_r = np.zeros(_CHUNK)
    down_r = np.zeros(_CHUNK)
    chain = np.zeros(_CHUNK)
    pruned = 0.0
    for n0 in range(ka + kd - 1):
        row = ring[n0 % _RING]
        lo = max(0, n0 - kd + 1)
        hi = min(n0, ka - 1)
        for a in range(lo, hi + 1):
            if row[a] < tau:
                pruned += row[a]
                row[a] = 0.0
        while lo <= hi and row[lo] == 0.0:
            lo += 1
        while hi >= lo and row[hi] == 0.0:
            hi -= 1
        for c0 in range(lo, hi + 1, _CHUNK):
            size = min(_CHUNK, hi + 1 - c0)
            for s in range(size):
                a = c0 + s
                odds[s] = share(sa[a], sd[n0 - a])
                scale[s] = row[a] / 11.0
            # Row 51: top[k] = sum_j p_j**(51-k) * q_j**k, each term by a chain
            # of ratios from k = 26 (p**25 q**26 >= 1e-250 for any 0 < p < 1,
            # so neither direction starts from an underflow).
            top = tri[_W_MAX % 2]
            for k in range(_W_MAX + 1):
                tk = top[k]
                for s in range(size):
                    tk[s] = 0.0
            for j in range(JITTER_CHOICES):
                offset = offset_of(j + 1)
                for s in range(size):
                    p = chance_probability(jitter(odds[s], offset))
                    q = 1.0 - p
                    mid[s] = window_middle(p)
                    p_j[s] = p
                    up_r[s] = q / p if p > 0.0 else 0.0
                    down_r[s] = p / q if q > 0.0 else 0.0
                t_mid = top[_MID]
                for s in range(size):
                    chain[s] = mid[s]
                    t_mid[s] += mid[s]
                for k in range(_MID + 1, _W_MAX + 1):
                    tk = top[k]
                    for s in range(size):
                        v = chain[s] * up_r[s]
                        v = v if v > _UNDERFLOW else 0.0
                        chain[s] = v
                        tk[s] += v
                for s in range(size):
                    chain[s] = mid[s]
                for k in range(_MID - 1, -1, -1):
                    tk = top[k]
                    for s in range(size):
                        v = chain[s] * down_r[s]
                        v = v if v > _UNDERFLOW else 0.0
                        chain[s] = v
                        tk[s] += v
                # p = 1 or p = 0 exactly: every round goes one way.
                for s in range(size):
                    if p_j[s] == 1.0:
                        top[0, s] += 1.0
                    elif p_j[s] == 0.0:
                        top[_W_MAX, s] += 1.0
            for k in range(_W_MAX + 1):
                tk = top[k]
                for s in range(size):
                    tk[s] *= scale[s]
            # hh, kk: rounds the defender / attacker can still lose; the first
            # state of the chunk is nearest the defender's end, the last the
            # attacker's.  Rows below 9 are only needed for absorption there.
            hh0 = kd - (n0 - c0)
            kk1 = ka - (c0 + size - 1)
            for t in range(_W_MAX, min(_W_MIN, hh0, kk1) - 1, -1):
                cur = tri[t % 2]
                up = tri[(t + 1) % 2]
                dest_row = ring[(n0 + t) % _RING]
                if _W_MIN <= t < _W_MAX:
                    for k in range(t + 1):
                        ck = cur[k]
                        u0 = up[k]
                        u1 = up[k + 1]
                        w = dep_w[t, k]
                        dest = dest_row[c0 + k : c0 + k + size]
                        for s in range(size):
                            v = u0[s] + u1[s]
                            ck[s] = v
                            dest[s] += w * v
                elif t < _W_MAX:
                    for k in range(t + 1):
                        ck = cur[k]
                        u0 = up[k]
                        u1 = up[k + 1]
                        for s in range(size):
                            ck[s] = u0[s] + u1[s]
                else:
                    for k in range(t + 1):
                        ck = cur[k]
                        w = dep_w[t, k]
                        dest = dest_row[c0 + k : c0 + k + size]
                        for s in range(size):
                            dest[s] += w * ck[s]
                # The defender's last round is round t: state s has hh0 + s
                # rounds left to beat, k = t - hh0 - s attacker hits before, k < kk;
                # the attacker then has lost n0 + t - kd rounds in all.
                if hh0 <= t and n0 + t - kd < ka:
                    acc = 0.0
                    for s in range(min(size, t - hh0 + 1)):
                        k = t - hh0 - s
                        if k < ka - c0 - s:
                            acc += abs_w[t, k] * cur[k, s]
                    att_w[n0 + t - kd] += acc
                # The attacker's last round is round t: i = t - kk defender hits.
                if kk1 <= t and n0 + t - ka < kd:
                    acc = 0.0
                    for s in range(max(0, size - 1 - (t - kk1)), size):
                        kk = ka - c0 - s
                        i = t - kk
                        if i < hh0 + s:
                            acc += abs_w[t, i] * cur[kk, s]
                    def_w[n0 + t - ka] += acc
        row[:] = 0.0
    return pruned


def spread(
    out: Array,
    nd: int,
    coef: Array,
    ap: Array,
    ato: Array,
    a0: int,
    a1: int,
    dp: Array,
    dto: Array,
    dstep: Array,
    e0: int,
    e1: int,
) -> None:
    """Add each pair of cone entries' chances, times ``coef`` at the defender entry's step,
    to their cell of ``out``: the attacker's entries ``a0 .. a1`` by the defender's
    ``e0 .. e1``."""
    for i in range(a0, a1):
        c = ap[i]
        row = ato[i] * nd
        for e in range(e0, e1):
            out[row + dto[e]] += (coef[dstep[e]] * c) * dp[e]


def graph_server_loops(  # noqa: C901, PLR0913
    sa: Array,
    sd: Array,
    a_first: Array,
    a_nodes: Array,
    d_first: Array,
    d_nodes: Array,
    a_cones: tuple[Array, Array, Array, Array, Array, Array, Array, Array],
    d_cones: tuple[Array, Array, Array, Array, Array, Array, Array, Array],
    d_simple: Array,
    dep_w: Array,
    abs_w: Array,
    tau: float,
    budget: float,
    mass: Array,
    wins_a: Array,
    wins_d: Array,
) -> tuple[float, float]:
    """The server model between two side graphs (morale draws): :func:`server_loops`
    with each side's k-th step a set of nodes instead of one.

    ``sa[x]``/``sd[y]`` are the nodes' strengths; ``a_nodes[a_first[n]:a_first[n+1]]``
    the attacker's nodes after ``n`` lost rounds (likewise the defender).  A side's
    cones (:meth:`bellum.empire.odds._solver._Cones.by_node`) are ``(hs, to, p, step,
    bhs, bto, bp, bstep)``, one node's entries after each other in order of steps: the
    nodes ``h`` steps on from node ``n``, alive, are ``to[hs[n, h]:hs[n, h + 1]]`` with
    chances ``p`` (``step`` is each entry's ``h``), and those reached beaten at step
    ``h`` likewise from ``bhs``/``bto``/``bp``/``bstep``.  ``d_simple[y]``: the
    defender's node ``y`` reaches node ``y + h`` after ``h`` steps, for sure, while it
    lives (a chain from there: its deposits are one contiguous run of ``mass``).

    ``mass[x * nd + y]`` (``nd`` the defender's nodes; ``wins_a`` and ``wins_d`` are
    flat alike) holds the chance that a window starts at the pair ``(x, y)``
    (``mass[0] = 1`` on entry); pairs are taken in order of their rounds lost, so a
    window's deposits (9 rounds on at least) never land on the depth sum being swept.
    Each pair's triangle ``M[t, k] = sum_j p_j**(t-k) * q_j**k`` comes from its top row
    by additions, as in :func:`server_loops`; a window ending normally after ``t``
    rounds with ``k`` attacker hits puts ``M[t, k] * dep_w[t, k] / 11`` times each
    pair of cone nodes' chances on ``mass``, and a side beaten at its last step in
    round ``t`` puts ``abs_w`` times the same on ``wins_a``/``wins_d`` at the ending
    pair of nodes.  For one attacker step ``k`` the window's coefficients over the
    defender's steps are formed once, then each attacker node of the step runs down
    the defender's entries in one loop (no test per cell).  Pairs below ``tau`` are
    dropped.  Returns the dropped mass and the number of cone products made; past
    ``budget`` products it stops and returns -1 for them (the caller samples instead:
    the arrays are then partial).
    """
    a_hs, a_to, a_p, _, a_bhs, a_bto, a_bp, _ = a_cones
    d_hs, d_to, d_p, d_step, d_bhs, d_bto, d_bp, d_bstep = d_cones
    depths_a = a_first.size - 1
    depths_d = d_first.size - 1
    nd = sd.size
    tri = np.zeros((_W_MAX + 2, _W_MAX + 2))
    coef = np.zeros(_W_MAX + 1)
    pruned = 0.0
    work = 0.0
    for n0 in range(depths_a + depths_d - 1):
        for da in range(max(0, n0 - depths_d + 1), min(n0, depths_a - 1) + 1):
            db = n0 - da
            for ix in range(a_first[da], a_first[da + 1]):
                x = a_nodes[ix]
                for iy in range(d_first[db], d_first[db + 1]):
                    y = d_nodes[iy]
                    m = mass[x * nd + y]
                    if m == 0.0:
                        continue
                    mass[x * nd + y] = 0.0
                    if m < tau:
                        pruned += m
                        continue
                    # The top row t = 51, by chains of ratios from k = 26 (server_loops).
                    o = share(sa[x], sd[y])
                    top = tri[_W_MAX]
                    for k in range(_W_MAX + 1):
                        top[k] = 0.0
                    for j in range(JITTER_CHOICES):
                        p = chance_probability(jitter(o, offset_of(j + 1)))
                        q = 1.0 - p
                        mid = window_middle(p)
                        top[_MID] += mid
                        up_r = q / p if p > 0.0 else 0.0
                        down_r = p / q if q > 0.0 else 0.0
                        v = mid
                        for k in range(_MID + 1, _W_MAX + 1):
                            v = v * up_r
                            v = v if v > _UNDERFLOW else 0.0
                            top[k] += v
                        v = mid
                        for k in range(_MID - 1, -1, -1):
                            v = v * down_r
                            v = v if v > _UNDERFLOW else 0.0
                            top[k] += v
                        if p == 1.0:
                            top[0] += 1.0
                        elif p == 0.0:
                            top[_W_MAX] += 1.0
                    for t in range(_W_MAX - 1, 0, -1):
                        for k in range(t + 1):
                            tri[t, k] = tri[t + 1, k] + tri[t + 1, k + 1]
                    w0 = m / JITTER_CHOICES
                    for k in range(_W_MAX + 1):
                        a0 = a_hs[x, k]
                        a1 = a_hs[x, k + 1]
                        last = _W_MAX - k + 1  # the defender's steps h < last
                        if a1 > a0:
                            # Windows that end normally: t = h + k >= 9 rounds.
                            hlo = max(0, _W_MIN - k)
                            e0 = d_hs[y, hlo]
                            e1 = d_hs[y, last]
                            if e1 > e0:
                                for h in range(hlo, last):
                                    coef[h] = (w0 * tri[h + k, k]) * dep_w[h + k, k]
                                if d_simple[y]:
                                    for i in range(a0, a1):
                                        c = a_p[i]
                                        base = a_to[i] * nd + y
                                        for h in range(hlo, hlo + e1 - e0):
                                            mass[base + h] += coef[h] * c
                                else:
                                    spread(
                                        mass, nd, coef, a_p, a_to, a0, a1, d_p, d_to, d_step, e0, e1
                                    )
                                work += (a1 - a0) * (e1 - e0)
                            # The defender beaten at its h-th step (few entries: each its own).
                            e0 = d_bhs[y, 1]
                            e1 = d_bhs[y, last]
                            if e1 > e0:
                                for i in range(a0, a1):
                                    c = a_p[i]
                                    row = a_to[i] * nd
                                    for e in range(e0, e1):
                                        t = d_bstep[e] + k
                                        v = (w0 * tri[t, k]) * abs_w[t, k]
                                        wins_a[row + d_bto[e]] += (v * c) * d_bp[e]
                                work += (a1 - a0) * (e1 - e0)
                        b0 = a_bhs[x, k]
                        b1 = a_bhs[x, k + 1]
                        if k >= 1 and b1 > b0:
                            # The attacker beaten at its k-th step, the defender h on.
                            e0 = d_hs[y, 0]
                            e1 = d_hs[y, last]
                            if e1 > e0:
                                for h in range(last):
                                    coef[h] = (w0 * tri[h + k, k]) * abs_w[h + k, h]
                                spread(
                                    wins_d, nd, coef, a_bp, a_bto, b0, b1, d_p, d_to, d_step, e0, e1
                                )
                                work += (b1 - b0) * (e1 - e0)
                    if work > budget:
                        return pruned, -1.0
    return pruned, work


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
                p = share(sa[a], sd[d])
            elif left == 0:
                offset = offset_of(rng.integers(0, JITTER_CHOICES) + 1)
                p = chance_probability(jitter(share(sa[a], sd[d]), offset))
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
def _formulas_jitable() -> None:
    """Let the kernels call :mod:`bellum.formulas` compiled: one copy of each formula."""
    from numba.extending import register_jitable

    for formula in (share, jitter, offset_of, chance_probability, spread, window_middle):
        register_jitable(formula)


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
    numba_importable()  # numba imported without its probe for SciPy's BLAS
    import numba

    _formulas_jitable()

    # error_model="numpy": no zero-division check per float division (the
    # denominators are strengths, always positive), which keeps loops SIMD.
    jitted: Callable[..., Any] = numba.njit(cache=True, error_model="numpy")(func)
    return jitted
