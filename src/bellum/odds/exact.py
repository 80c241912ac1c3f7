"""Exact end-state distributions of a fight, for both models.

* ``per-casualty`` (the info page): every round the defender loses with
  ``p = off / (off + def)`` of the current strengths.  Dynamic programming over
  the lattice of (attacker rounds lost, defender rounds lost), swept one
  anti-diagonal at a time, O(A + D) memory.  Only the band of a diagonal that
  holds mass is swept; cells at its ends below ``tau`` are dropped, so the
  work is O((A + D) · band width) rather than O(A·D).
* ``server`` (spec §6.2): the probability is jittered and frozen for windows
  of 9..51 rounds.  The state at a window boundary is (a, d); each window is a
  mixture over 11 jitters and 43 lengths of truncated binomial moves.  See
  :func:`bellum.odds._kernels.server_loops` for the moment trick that keeps a
  window's kernel cheap.  Window-start states with less than ``tau`` mass are
  dropped; the dropped mass is summed and reported as ``pruned_mass``.  Memory
  is a ring of 52 diagonals: O(A + D).

Both report the probability they dropped (``pruned_mass``); by default it is
at most :data:`MAX_PRUNED` = 1e-12, and ``tau=0`` solves without pruning.
Both have a numpy implementation (always available) and a numba one (the
``[fast]`` extra); ``backend`` chooses, ``"auto"`` prefers numba when it is
installed (:func:`bellum.odds.fight_odds` refines that by problem size).
"""

from __future__ import annotations

from typing import Literal

import numpy as np

from bellum.errors import InputError
from bellum.odds import _kernels
from bellum.odds._common import (
    JITTER_CHOICES,
    WINDOW_CHOICES,
    WINDOW_MAX,
    WINDOW_MIN,
    FloatArray,
    binomial_table,
    jittered_probabilities,
    numba_importable,
    numba_wanted,
    window_survival,
)
from bellum.odds.result import FightEndStates, IntArray
from bellum.odds.side import Side

Backend = Literal["auto", "numpy", "numba"]

#: The most probability an exact solver drops by default (the sum over dropped states).
MAX_PRUNED = 1e-12
#: The largest default threshold: states below it may be dropped.
DEFAULT_TAU = 1e-18

_RING = WINDOW_MAX + 1
_BINOM = binomial_table(WINDOW_MAX)
_SURVIVAL = np.array([0.0] + [window_survival(t) for t in range(1, WINDOW_MAX + 1)])


def _kernel_tables() -> tuple[FloatArray, FloatArray]:
    """``C(t, k) / 43`` for windows ending at t, ``C(t-1, k) * P(L >= t)`` for absorption."""
    dep = _BINOM / WINDOW_CHOICES
    absorb = np.zeros_like(_BINOM)
    absorb[1:, :] = _BINOM[:-1, :] * _SURVIVAL[1:, None]
    return dep, absorb


_DEPOSIT, _ABSORB = _kernel_tables()


def resolve_backend(backend: Backend) -> Literal["numpy", "numba"]:
    """``auto`` -> numba if installed, importable and not disabled, else numpy."""
    if backend == "auto":
        return "numba" if numba_wanted() and numba_importable() is None else "numpy"
    if backend == "numba":
        if not numba_wanted():
            raise InputError("numba is not installed: pip install 'bellum[fast]'")
        problem = numba_importable()
        if problem is not None:
            raise InputError(f"numba cannot be loaded ({problem}); set BELLUM_NO_NUMBA=1")
    return backend


def per_casualty_tau(att: Side, dfd: Side) -> float:
    """The default threshold of the per-casualty solver.

    The sweep drops cells only at the two ends of a diagonal's band, and the
    band gains at most one cell per diagonal, so at most ``A + D`` cells are
    ever dropped: a threshold of ``MAX_PRUNED / (A + D)`` bounds the dropped
    mass by :data:`MAX_PRUNED` whatever the fight (and never above ``DEFAULT_TAU``).
    """
    return min(DEFAULT_TAU, MAX_PRUNED / (att.rounds + dfd.rounds))


def server_tau(att: Side, dfd: Side) -> float:
    """The default threshold of the server solver.

    Each of the ``A·D`` window-start states is dropped at most once, so a
    threshold of ``MAX_PRUNED / (A·D)`` bounds the dropped mass by
    :data:`MAX_PRUNED` (and never above ``DEFAULT_TAU``).
    """
    return min(DEFAULT_TAU, MAX_PRUNED / (att.rounds * dfd.rounds))


def per_casualty_exact(
    att: Side, dfd: Side, *, tau: float | None = None, backend: Backend = "auto"
) -> tuple[FightEndStates, float]:
    """The exact end-state distribution of the per-casualty model and the pruned mass.

    ``tau=None`` prunes with :func:`per_casualty_tau` (dropped mass at most
    :data:`MAX_PRUNED`); ``tau=0`` drops nothing but cells that underflowed to 0.
    """
    sa, sd = att.strength, dfd.strength
    cut = per_casualty_tau(att, dfd) if tau is None else tau
    att_w = np.zeros(att.rounds)
    def_w = np.zeros(dfd.rounds)
    sdr = np.ascontiguousarray(sd[::-1])
    if resolve_backend(backend) == "numba":
        kernel = _kernels.compiled("per_casualty_loops")
        pruned = float(kernel(sa, sdr, cut, att_w, def_w))
    else:
        pruned = _per_casualty_numpy(sa, sdr, cut, att_w, def_w)
    return FightEndStates(att_w, def_w), pruned


def _per_casualty_numpy(
    sa: FloatArray, sdr: FloatArray, tau: float, att_w: FloatArray, def_w: FloatArray
) -> float:
    """Vectorised anti-diagonal sweep; one diagonal per numpy pass.

    ``sdr`` is the defender's strength array reversed, so that the defender
    strengths along a diagonal are a slice.  The same band and pruning as
    :func:`bellum.odds._kernels.per_casualty_loops`.
    """
    ka = sa.size - 1
    kd = sdr.size - 1
    cur = np.zeros(ka + 1)
    nxt = np.zeros(ka + 1)
    hit = np.empty(ka + 1)
    cur[0] = 1.0
    band_lo = band_hi = 0
    pruned = 0.0
    for n in range(ka + kd - 1):
        lo = max(n - kd + 1, band_lo)
        hi = min(n, ka - 1, band_hi) + 1
        if lo >= hi:
            break
        s = sa[lo:hi]
        # sd[n - a] for a in lo..hi-1 == sdr[kd - n + a]
        p = s / (s + sdr[kd - n + lo : kd - n + hi])
        h = np.multiply(cur[lo:hi], p, out=hit[lo:hi])
        nxt[lo:hi] = h
        nxt[hi] = 0.0
        nxt[lo + 1 : hi + 1] += cur[lo:hi] - h
        if n - lo == kd - 1:
            att_w[lo] += nxt[lo]
            nxt[lo] = 0.0
        if hi == ka:
            def_w[n - ka + 1] += nxt[ka]
            nxt[ka] = 0.0
        band_lo, band_hi, dropped = _trim(nxt, lo, hi, tau)
        pruned += dropped
        cur, nxt = nxt, cur
    return pruned


def _trim(values: FloatArray, lo: int, hi: int, tau: float) -> tuple[int, int, float]:
    """Shrink ``[lo, hi]`` (inclusive) past end cells below ``tau`` or 0; their sum."""
    dropped = 0.0
    while lo <= hi and (values[lo] < tau or values[lo] == 0.0):
        dropped += float(values[lo])
        lo += 1
    while hi >= lo and (values[hi] < tau or values[hi] == 0.0):
        dropped += float(values[hi])
        hi -= 1
    return lo, hi, dropped


def server_exact(
    att: Side, dfd: Side, *, tau: float | None = None, backend: Backend = "auto"
) -> tuple[FightEndStates, float]:
    """The exact end-state distribution of the server model and the pruned mass.

    ``tau=None`` prunes with :func:`server_tau` (dropped mass at most
    :data:`MAX_PRUNED`); ``tau=0`` drops nothing.
    """
    sa, sd = att.strength, dfd.strength
    tau = server_tau(att, dfd) if tau is None else tau
    att_w = np.zeros(att.rounds)
    def_w = np.zeros(dfd.rounds)
    if resolve_backend(backend) == "numba":
        pruned = float(
            _kernels.compiled("server_loops")(sa, sd, _DEPOSIT, _ABSORB, tau, att_w, def_w)
        )
    else:
        pruned = _server_numpy(sa, sd, tau, att_w, def_w)
    return FightEndStates(att_w, def_w), pruned


def _server_numpy(
    sa: FloatArray, sd: FloatArray, tau: float, att_w: FloatArray, def_w: FloatArray
) -> float:
    """Vectorised over the live window-start states of one diagonal at a time.

    The same algorithm as :func:`bellum.odds._kernels.server_loops`: the
    moment triangle ``M`` is built per state from one row of powers, then
    windows ending after t rounds are scattered with ``bincount`` onto the
    diagonal ``n0 + t`` of the ring, and absorptions onto the result vectors.
    """
    ka = sa.size - 1
    kd = sd.size - 1
    ring = np.zeros((_RING, ka))
    ring[0, 0] = 1.0
    pruned = 0.0
    for n0 in range(ka + kd - 1):
        row = ring[n0 % _RING]
        lo = max(0, n0 - kd + 1)
        hi = min(n0, ka - 1) + 1
        seg = row[lo:hi]
        live = np.flatnonzero(seg)
        if live.size == 0:
            continue
        mass = seg[live].copy()
        seg[:] = 0.0
        small = mass < tau
        if small.any():
            pruned += float(mass[small].sum())
            keep = ~small
            live, mass = live[keep], mass[keep]
            if live.size == 0:
                continue
        a0 = lo + live
        d0 = n0 - a0
        hh = kd - d0
        kk = ka - a0
        tmax = int(min(WINDOW_MAX, int((hh + kk).max()) - 1))
        mt = _moment_triangle(sa[a0] / (sa[a0] + sd[d0]), tmax)
        scale = mass / WINDOW_CHOICES
        # Far from both edges no path is absorbed within a window: no masks.
        interior = int(hh.min()) > tmax and int(kk.min()) > tmax
        span = int(a0[-1] - a0[0])
        for t in range(WINDOW_MIN, tmax + 1):
            h = np.arange(t + 1)
            k = t - h
            w = (scale[:, None] * _BINOM[t, : t + 1][None, :]) * mt[t]
            dest = (a0 - a0[0])[:, None] + k[None, :]
            if interior:
                sums = np.bincount(dest.ravel(), weights=w.ravel(), minlength=span + t + 1)
            else:
                ok = (h[None, :] < hh[:, None]) & (k[None, :] < kk[:, None])
                if not ok.any():
                    continue
                sums = np.bincount(dest[ok], weights=w[ok], minlength=span + t + 1)
            stop = min(int(a0[0]) + span + t + 1, ka)
            ring[(n0 + t) % _RING, int(a0[0]) : stop] += sums[: stop - int(a0[0])]
        _absorb(mt, mass, a0, hh, kk, att_w, side="attacker")
        _absorb(mt, mass, d0, kk, hh, def_w, side="defender")
    return pruned


def _moment_triangle(odds: FloatArray, tmax: int) -> list[FloatArray]:
    """``mt[t][:, h] = mean_j p_j**h * q_j**(t-h)`` for every state, ``t <= tmax``."""
    p = jittered_probabilities(odds)
    # Powers along the first axis, so that each cumulative product step is
    # one vectorised multiplication over all states and jitters.
    pw = np.empty((tmax + 1, *p.shape))
    qw = np.empty((tmax + 1, *p.shape))
    pw[0] = 1.0
    qw[0] = 1.0
    if tmax:
        np.cumprod(np.broadcast_to(p, (tmax, *p.shape)), axis=0, out=pw[1:])
        np.cumprod(np.broadcast_to(1.0 - p, (tmax, *p.shape)), axis=0, out=qw[1:])
    mt: list[FloatArray] = [np.empty(0)] * (tmax + 1)
    # mt[tmax][:, h] = mean_j p_j**h * q_j**(tmax-h)
    mt[tmax] = np.einsum("hsj,hsj->sh", pw, qw[::-1]) / JITTER_CHOICES
    for t in range(tmax - 1, -1, -1):
        mt[t] = mt[t + 1][:, 1:] + mt[t + 1][:, :-1]
    return mt


def _absorb(
    mt: list[FloatArray],
    mass: FloatArray,
    base: IntArray,
    need: IntArray,
    other: IntArray,
    out: FloatArray,
    *,
    side: Literal["attacker", "defender"],
) -> None:
    """Add the fights that end inside the window to ``out``.

    For ``side="attacker"`` (the attacker wins): the defender's ``need``-th
    loss comes at round ``t = need + k`` after ``k < other`` attacker losses,
    with probability ``C(t-1, k) * M[need][k] * P(window >= t)``; ``out`` is
    indexed by ``base + k``.  The defender's case is the mirror image.
    """
    tmax = len(mt) - 1
    cand = np.flatnonzero(need <= tmax)
    if cand.size == 0:
        return
    for t in range(int(need[cand].min()), tmax + 1):
        sel = cand[(need[cand] <= t) & (t - need[cand] < other[cand])]
        if sel.size == 0:
            continue
        k = t - need[sel]
        hits = need[sel] if side == "attacker" else k
        moments = mt[t][sel, hits]
        w = mass[sel] * _ABSORB[t, k] * moments
        np.add.at(out, base[sel] + k, w)
