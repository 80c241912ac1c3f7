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
from numpy.lib.stride_tricks import as_strided

from bellum.errors import InputError
from bellum.formulas import (
    JITTER_CHOICES,
    WINDOW_CHOICES,
    WINDOW_MAX,
    WINDOW_MIN,
    window_survival,
)
from bellum.odds import _kernels
from bellum.odds._common import (
    FloatArray,
    binomial_table,
    jittered_probabilities,
    numba_importable,
    numba_wanted,
)
from bellum.odds.result import FightEndStates
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
#: ``_ABSORB`` with each row reversed: ``_ABSORB_REV[t, k] = _ABSORB[t, t - k]``.
_ABSORB_REV = np.zeros_like(_ABSORB)
for _t in range(_RING):
    _ABSORB_REV[_t, : _t + 1] = _ABSORB[_t, _t::-1]
#: States per numpy step of the server solver: big enough to amortise numpy's
#: per-call cost, small enough that a chunk's triangles stay in cache.
_CHUNK = 256


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
    """The algorithm of :func:`bellum.odds._kernels.server_loops`, in whole-array steps.

    Diagonals live in a buffer of 104 rows (diagonals ``base`` .. ``base + 103``,
    shifted by 52 rows when needed), so the 43 diagonals a window can end on
    are consecutive rows and one window's deposits are one 2-D slice.  Each
    chunk of a diagonal's states is handled by :func:`_server_chunk`.
    """
    ka = sa.size - 1
    kd = sd.size - 1
    buf = np.zeros((2 * _RING, ka + WINDOW_MAX + 1))
    buf[0, 0] = 1.0
    base = 0
    pruned = 0.0
    scratch: dict[int, FloatArray] = {}
    for n0 in range(ka + kd - 1):
        if n0 - base == _RING:
            buf[:_RING] = buf[_RING:]
            buf[_RING:] = 0.0
            base = n0
        rows = buf[n0 - base :]
        lo = max(0, n0 - kd + 1)
        seg = rows[0, lo : min(n0, ka - 1) + 1]
        small = seg < tau
        if small.any():
            pruned += float(seg[small].sum())
            seg[small] = 0.0
        live = np.flatnonzero(seg)
        if live.size:
            first, last = lo + int(live[0]), lo + int(live[-1]) + 1
            for c0 in range(first, last, _CHUNK):
                _server_chunk(sa, sd, n0, c0, min(c0 + _CHUNK, last), rows, att_w, def_w, scratch)
        rows[0] = 0.0
    return pruned


def _server_chunk(
    sa: FloatArray,
    sd: FloatArray,
    n0: int,
    c0: int,
    c1: int,
    rows: FloatArray,
    att_w: FloatArray,
    def_w: FloatArray,
    scratch: dict[int, FloatArray],
) -> None:
    """Windows starting at the states ``c0 .. c1 - 1`` of diagonal ``n0`` (``rows[0]``).

    The triangles of all these states are stored *skewed*: ``tri[t, k, k + s]``
    is row ``t`` of state ``s``'s triangle, so column ``x`` holds what lands
    on cell ``c0 + x``, and everything outside a state's own cells is 0.
    Then one step of the recursion is one contiguous addition over the
    flattened rows (``tri[t][k][x] = tri[t+1][k][x] + tri[t+1][k+1][x+1]``;
    the one read that wraps into the next row lands on a 0), a whole
    diagonal's deposits are one matrix product, and the fights that end
    inside the window are read from a single column per round.
    """
    ka = sa.size - 1
    kd = sd.size - 1
    size = c1 - c0
    a = np.arange(c0, c1)
    p = jittered_probabilities(sa[a] / (sa[a] + sd[n0 - a])).T
    powers = _powers(np.stack([p, 1.0 - p]), _RING)
    pitch = -(-(size + _RING) // 32) * 32
    # One zeroed buffer per pitch: the recursion rewrites rows 0..t of every
    # row t it uses and leaves 0 everywhere outside the states' cells.
    tri = scratch.get(pitch)
    if tri is None:
        scratch.clear()
        tri = scratch[pitch] = np.zeros((_RING, _RING + 1, pitch))
    tri[WINDOW_MAX] = 0.0
    st = tri.strides
    top = as_strided(tri[WINDOW_MAX], shape=(_RING, size), strides=(st[1] + st[2], st[2]))
    # top[k, s] = sum_j p_j**(51-k) * q_j**k, times the state's mass / 11.
    np.einsum("kjs,kjs->ks", powers[::-1, 0], powers[:, 1], out=top)
    top *= rows[0, c0:c1] / JITTER_CHOICES
    hh0 = kd - n0 + c0  # rounds the first state's defender can still lose
    low = min(WINDOW_MIN, hh0, ka - c1 + 1)
    flat = tri.reshape(_RING, -1)
    for t in range(WINDOW_MAX - 1, low - 1, -1):
        n = (t + 1) * pitch
        np.add(flat[t + 1, :n], flat[t + 1, pitch + 1 : n + pitch + 1], out=flat[t, :n])
    # The defender's last round is round t: column t - hh0 of row t; the
    # attacker, who has lost n0 + t - kd rounds, must not be beaten before.
    ts = np.arange(max(low, hh0), min(_RING, hh0 + pitch, hh0 + ka - c0))
    if ts.size:
        att_w[n0 + ts - kd] += np.einsum("tk,tk->t", _ABSORB[ts], tri[ts, :_RING, ts - hh0])
    # The attacker's last round is round t: column ka - c0 (row k = its rounds
    # left), i = t - k defender hits before; the defender ends at n0 + t - ka.
    x = ka - c0
    if x < pitch:
        ts = np.arange(max(low, ka - n0), min(_RING, hh0 + x))
        if ts.size:
            def_w[n0 + ts - ka] += np.einsum("tk,tk->t", _ABSORB_REV[ts], tri[ts, :_RING, x])
    # Windows ending after t = 9..51 rounds: one matrix-vector product per t.
    out = np.matmul(_DEPOSIT[WINDOW_MIN:, None, :], tri[WINDOW_MIN:, :_RING, :])[:, 0, :]
    span = min(pitch, rows.shape[1] - c0)
    rows[WINDOW_MIN:_RING, c0 : c0 + span] += out[:, :span]


def _powers(x: FloatArray, n: int) -> FloatArray:
    """``x**h`` for ``h = 0 .. n-1`` along a new first axis, by doubling blocks."""
    out = np.empty((n, *x.shape))
    out[0] = 1.0
    done = 1
    while done < n:
        step = min(done, n - done)
        np.multiply(out[:step], out[done - 1] * x, out=out[done : done + step])
        done += step
    return out
