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
  is a ring of 52 diagonals: O(A + D).  Small fights (up to
  :data:`STATES_AT_ONCE`) are solved in numpy with every state at once instead
  (:func:`_server_states`): numpy's cost per call, once per diagonal, was most
  of their time.

Both report the probability they dropped (``pruned_mass``); by default it is
at most :data:`MAX_PRUNED` = 1e-12, and ``tau=0`` solves without pruning.
Both have a numpy implementation (always available) and a numba one (the
``[fast]`` extra); ``backend`` chooses, ``"auto"`` prefers numba when it is
installed (:func:`bellum.odds.fight_odds` refines that by problem size).
"""

from __future__ import annotations

import math
import threading
from collections import OrderedDict
from typing import Literal, NamedTuple

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
from bellum.odds.side import IntArray, Side

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
#: The largest fight the numpy server solver takes all states at once
#: (:func:`_server_states`), as the size of its matrix product: ``A·D`` states times
#: ``min(A, 51) + 1`` times ``min(D, 51) + 1`` hits.  Up to there it costs less than
#: the diagonal sweep (:func:`_server_numpy`) even when its layout is built for the
#: fight alone (24 x 17 rounds: 3 ms against 7, then 0.5 ms a fight; 39 x 22: 9.5
#: against 12, then 3.3; 35 x 35, past the limit: 24 against 16).
STATES_AT_ONCE = 1.4e6


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
    elif states_at_once(att.rounds, dfd.rounds):
        pruned = _server_states(sa, sd, tau, att_w, def_w)
    else:
        pruned = _server_numpy(sa, sd, tau, att_w, def_w)
    return FightEndStates(att_w, def_w), pruned


def states_at_once(ka: int, kd: int) -> bool:
    """Whether the numpy server solver takes an ``A = ka`` by ``D = kd`` fight with
    every state at once (:data:`STATES_AT_ONCE`)."""
    return ka * kd * (min(ka, WINDOW_MAX) + 1) * (min(kd, WINDOW_MAX) + 1) <= STATES_AT_ONCE


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


def _window_coefficients() -> tuple[FloatArray, FloatArray]:
    """The chances of a window's ends, by hits, for :func:`_server_states` (each over 11
    jitters, so that a state's ``M[k, i] = Σ_j q_j**k p_j**i`` needs no division).

    ``stay[i, k]``: the window ends normally after ``t = i + k`` rounds, ``i`` of them
    defender hits: ``C(t, k) / 43`` for ``9 <= t <= 51``.  ``beat[h, o]``: a side with
    ``h`` rounds left loses the last of them in round ``t = h + o``, after ``o`` hits on
    the other side: ``C(t - 1, o) · P(window >= t)``.
    """
    n = _RING
    stay = np.zeros((n, n))
    beat = np.zeros((n, n))
    for i in range(n):
        for k in range(n - i):
            t = i + k
            if t >= WINDOW_MIN:
                stay[i, k] = math.comb(t, k) / WINDOW_CHOICES / JITTER_CHOICES
            if i >= 1:
                beat[i, k] = math.comb(t - 1, k) * _SURVIVAL[t] / JITTER_CHOICES
    return stay, beat


_STAY, _BEAT = _window_coefficients()


class _Layout(NamedTuple):
    """Where every number of :func:`_server_states` goes, for one size of fight.

    A state ``(a, d)`` (rounds lost by attacker, defender) is cell ``a * D + d`` of the
    masses; ``order`` lists the cells in order of diagonal ``a + d``, so that each block
    of :data:`WINDOW_MIN` diagonals is a run of it.  A state's ``M[k, i]`` is entry
    ``(n * cols + k) * rows + i`` of the flattened ``M``, ``n`` its place in ``order``.
    Each move (a window from one state to a later one) is an entry of ``move_m`` and
    ``move_to``, the moves of each state after each other, in ``order``.
    """

    order: IntArray  #: the states' cells, by diagonal
    att: IntArray  #: ``a`` of each state, in ``order``
    dfd: IntArray  #: ``d`` of each state, in ``order``
    rows: int  #: ``M``'s defender hits ``i``: ``0 .. min(D, 51)``
    cols: int  #: ``M``'s attacker hits ``k``: ``0 .. min(A, 51)``
    blocks: IntArray  #: the place in ``order`` of each block's first state, and the end
    moves: IntArray  #: each state's number of moves, in ``order``
    move_blocks: IntArray  #: first move of each block, and the end
    move_m: IntArray  #: the entry of ``M`` a move takes
    move_c: FloatArray  #: and its coefficient (``_STAY``)
    move_to: IntArray  #: the cell it ends at
    win_from: IntArray  #: the state (place in ``order``) of a window that beats the defender
    win_m: IntArray
    win_c: FloatArray
    win_to: IntArray  #: the attacker's rounds lost at the end
    loss_from: IntArray  #: likewise, the attacker beaten
    loss_m: IntArray
    loss_c: FloatArray
    loss_to: IntArray  #: the defender's rounds lost at the end


#: The most moves the layouts kept take together (24 bytes each): a planner's worker
#: meets a few dozen sizes of fight, 2.6 to 5.7 million moves in all on w96x48.
LAYOUT_MOVES = 1_500_000
_LAYOUTS: OrderedDict[tuple[int, int], _Layout] = OrderedDict()
_LAYOUTS_LOCK = threading.Lock()


def _layout(ka: int, kd: int) -> _Layout:
    """The :class:`_Layout` of an ``A = ka`` by ``D = kd`` fight, kept while the layouts
    kept take at most :data:`LAYOUT_MOVES` moves (the least recently used go first):
    most fights of a plan come in a few sizes."""
    key = (ka, kd)
    with _LAYOUTS_LOCK:
        lay = _LAYOUTS.get(key)
        if lay is not None:
            _LAYOUTS.move_to_end(key)
            return lay
    lay = _new_layout(ka, kd)
    with _LAYOUTS_LOCK:
        _LAYOUTS[key] = lay
        total = sum(kept.move_to.size for kept in _LAYOUTS.values())
        while total > LAYOUT_MOVES and len(_LAYOUTS) > 1:
            _, dropped = _LAYOUTS.popitem(last=False)
            total -= dropped.move_to.size
    return lay


def _new_layout(ka: int, kd: int) -> _Layout:
    """The :class:`_Layout` of an ``A = ka`` by ``D = kd`` fight, worked out."""
    size = ka * kd
    grid_a, grid_d = np.divmod(np.arange(size), kd)
    order = np.argsort((grid_a + grid_d) * ka + grid_a, kind="stable")
    pa, pd = grid_a[order], grid_d[order]
    rows = min(kd, WINDOW_MAX) + 1
    cols = min(ka, WINDOW_MAX) + 1
    ks = np.arange(min(ka - 1, WINDOW_MAX) + 1)
    hs = np.arange(min(kd - 1, WINDOW_MAX) + 1)
    # Windows that end normally inside the lattice: k < A - a attacker hits, i < D - d.
    cells = ks.size * hs.size
    k, i = np.divmod(np.arange(cells), hs.size)
    inside = (ks[None, :, None] < (ka - pa)[:, None, None]) & (
        hs[None, None, :] < (kd - pd)[:, None, None]
    )
    inside &= (_STAY[: hs.size, : ks.size].T > 0.0)[None]
    flat = np.flatnonzero(inside)
    moves = np.count_nonzero(inside.reshape(size, cells), axis=1)
    place = np.repeat(np.arange(size), moves)
    cell = flat - place * cells
    blocks = np.searchsorted(pa + pd, np.arange(0, ka + kd - 1 + WINDOW_MIN, WINDOW_MIN))
    ends = np.concatenate([[0], np.cumsum(moves)])
    # The defender beaten at its hh-th loss after k < A - a attacker hits, hh + k <= 51.
    hh = kd - pd
    ws, wk = np.nonzero((ks[None, :] < (ka - pa)[:, None]) & (hh[:, None] + ks <= WINDOW_MAX))
    # The attacker beaten at its kk-th loss after i < D - d defender hits.
    kk = ka - pa
    ls, li = np.nonzero((hs[None, :] < (kd - pd)[:, None]) & (kk[:, None] + hs <= WINDOW_MAX))
    return _Layout(
        order=order,
        att=pa,
        dfd=pd,
        rows=rows,
        cols=cols,
        blocks=blocks,
        moves=moves,
        move_blocks=ends[blocks],
        move_m=place * (rows * cols) + (k * rows + i)[cell],
        move_c=_STAY[i, k][cell],
        # In cells (a * D + d), a window's end is its start plus k * D + i.
        move_to=np.repeat(order, moves) + (k * kd + i)[cell],
        win_from=ws,
        win_m=(ws * cols + wk) * rows + hh[ws],
        win_c=_BEAT[hh[ws], wk],
        win_to=pa[ws] + wk,
        loss_from=ls,
        loss_m=(ls * cols + kk[ls]) * rows + li,
        loss_c=_BEAT[kk[ls], li],
        loss_to=pd[ls] + li,
    )


def _server_states(
    sa: FloatArray, sd: FloatArray, tau: float, att_w: FloatArray, def_w: FloatArray
) -> float:
    """The server model of a small fight, every window-start state at once.

    The same mathematics as :func:`_server_numpy`, arranged by state rather than by
    diagonal: each state's ``M[k, i] = Σ_j q_j**k p_j**i`` for the hits that keep the
    fight inside the lattice (one batched matrix product), then the chance of every
    window's end, from each state to each later one or to the end of the fight
    (:class:`_Layout`).  A window lasts at least 9 rounds, so the states of 9 diagonals
    in a row take nothing from one another: once the blocks before have been added
    up, a block's states are final; they are pruned below ``tau`` (as the diagonal
    solver prunes them) and their windows added to the later states in one pass.  The
    fights that end inside a window are added up at the end, from the final masses.
    About 10 numpy calls per block of 9 diagonals, instead of about 60 per diagonal;
    the doubles differ from :func:`_server_numpy`'s in their last bits (the
    products are summed in another order).
    """
    ka = sa.size - 1
    kd = sd.size - 1
    lay = _layout(ka, kd)
    x = sa[lay.att]
    p = jittered_probabilities(x / (x + sd[lay.dfd]))
    # M[n, k, i] = Σ_j q_nj**k p_nj**i: one small product per state (on strided views,
    # which BLAS takes as they are: faster than copying the powers into place).
    qpow = _powers(1.0 - p, lay.cols).transpose(1, 0, 2)
    ppow = _powers(p, lay.rows).transpose(1, 2, 0)
    m = np.matmul(qpow, ppow)
    m = m.ravel()
    stay = m[lay.move_m] * lay.move_c
    mass = np.zeros(ka * kd)
    mass[0] = 1.0
    final = np.empty(ka * kd)  # the masses in order
    pruned = 0.0
    for b in range(lay.blocks.size - 1):
        b0, b1 = lay.blocks[b], lay.blocks[b + 1]
        seg = final[b0:b1]
        np.take(mass, lay.order[b0:b1], out=seg)
        small = seg < tau
        if small.any():
            pruned += float(seg[small].sum())
            seg[small] = 0.0
        e0, e1 = lay.move_blocks[b], lay.move_blocks[b + 1]
        if e1 > e0:
            w = stay[e0:e1] * np.repeat(seg, lay.moves[b0:b1])
            mass += np.bincount(lay.move_to[e0:e1], weights=w, minlength=mass.size)
    won = m[lay.win_m] * lay.win_c * final[lay.win_from]
    att_w += np.bincount(lay.win_to, weights=won, minlength=ka)
    lost = m[lay.loss_m] * lay.loss_c * final[lay.loss_from]
    def_w += np.bincount(lay.loss_to, weights=lost, minlength=kd)
    return pruned
