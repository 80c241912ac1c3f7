"""Exact fights between two side graphs: morale folded into the dynamic program.

The plain solvers of :mod:`bellum.odds.exact` take each side as a chain (its
strength after k lost rounds).  Here a side is a :class:`SideGraph`: a state
may branch at a morale check (spec §6.4).  Because each side's morale draws
depend only on its own losses, a window of the server's fight (spec §6.2:
odds jittered and frozen for 9-51 rounds) still factors: the chance of ending
a window after ``h`` defender and ``k`` attacker losses is
``C(h+k, h) · mean_j p_j^h q_j^k`` whatever the order of the rounds, and the
two sides then move ``h`` and ``k`` steps in their own graphs
independently.  The state at a window boundary is a pair of graph nodes
``(x, y)``; from each, one stencil of the 1,333 (h, k) pairs with
``9 <= h + k <= 51`` spreads its mass to the pairs of ``h``/``k``-step
successors ("cones"), and paths on which one side is beaten inside the
window are absorbed into the end states, exactly as in
:mod:`bellum.odds.exact` (``_absorb``), with ``P(window >= t)``.

Window-start pairs are processed in blocks of nine consecutive depth sums
(a window lasts at least nine rounds, so no pair in a block feeds another in
the same block), vectorised over the whole block.  Pairs below ``tau`` are
dropped and their mass reported, as the plain server solver does.

The per-casualty model (the info page) recomputes the odds after every
round: a plain dynamic program over the pairs, one depth sum at a time.

Both return the joint distribution of the end: which side won, and the two
graph nodes where the fight ended (hence each side's casualties and whether
the target is taken).
"""

from __future__ import annotations

import math
from collections.abc import Callable
from dataclasses import dataclass
from typing import Literal

import numpy as np
import numpy.typing as npt

from bellum.empire.odds._blas import one_thread
from bellum.empire.odds._sides import SideGraph
from bellum.formulas import (
    JITTER_CHOICES,
    WINDOW_CHOICES,
    WINDOW_MAX,
    WINDOW_MIN,
    window_survival,
)
from bellum.odds import _kernels
from bellum.odds._common import jittered_probabilities, numba_importable, numba_wanted
from bellum.odds.exact import _ABSORB, _DEPOSIT, Backend, resolve_backend

FloatArray = npt.NDArray[np.float64]
IntArray = npt.NDArray[np.int64]

#: Window-start pairs below this probability are dropped (as in :mod:`bellum.odds.exact`).
DEFAULT_TAU = 1e-18
#: Most pairs of states solved exactly (each pair costs three doubles of memory).
MAX_PAIRS = 4_000_000
#: With ``backend="auto"``, fights with at least this many pairs of states run on numba
#: when it is installed: importing it and loading the kernel cost 0.5-1 s, what the
#: numpy sweep takes for about 10,000 pairs.
NUMBA_FROM_PAIRS = 10_000
#: Most window-start pairs handled in one vectorised pass (bounds the memory of a pass).
_CHUNK = 512

_T = WINDOW_MAX + 1
_BINOM = np.array([[math.comb(t, h) if h <= t else 0 for h in range(_T)] for t in range(_T)], float)
_SURV = np.array([0.0] + [window_survival(t) for t in range(1, _T)])


def _pairs(lo: int, hi: int, first: int) -> tuple[IntArray, IntArray]:
    h, k = np.meshgrid(np.arange(first, _T), np.arange(_T), indexing="ij")
    keep = (h + k >= lo) & (h + k <= hi)
    return h[keep].astype(np.int64), k[keep].astype(np.int64)


# Windows that end normally after t = h + k rounds (1/43 each).
_NH, _NK = _pairs(WINDOW_MIN, WINDOW_MAX, 0)
_NCOEF = _BINOM[_NH + _NK, _NH] / WINDOW_CHOICES
# The defender beaten at its h-th loss, in round t = h + k of the window.
_DH, _DK = _pairs(1, WINDOW_MAX, 1)
_DCOEF = _BINOM[_DH + _DK - 1, _DK] * _SURV[_DH + _DK]
# The attacker beaten at its k-th loss (h and k swapped).
_AK, _AH = _pairs(1, WINDOW_MAX, 1)
_ACOEF = _BINOM[_AH + _AK - 1, _AH] * _SURV[_AH + _AK]


@dataclass(frozen=True, eq=False)
class GraphEnds:
    """Where fights end: ``attacker_wins[x, y]`` is P(the attacker wins, ending in states
    ``x`` and ``y``), likewise ``defender_wins``; ``pruned_mass`` was dropped."""

    attacker: SideGraph
    defender: SideGraph
    attacker_wins: FloatArray
    defender_wins: FloatArray
    pruned_mass: float


#: A side's cones laid by node (:meth:`_Cones.by_node`): alive, then beaten.
_ByNode = tuple[IntArray, IntArray, FloatArray, IntArray, IntArray, IntArray, FloatArray, IntArray]


class _Cones:
    """For every node and every ``h <= 51``: the nodes ``h`` steps on, alive or just beaten.

    Stored flat: the alive successors of node ``n`` after ``h`` steps are
    ``to[start[h, n] : start[h, n] + count[h, n]]`` with probabilities ``p``;
    ``bstart``/``bcount`` likewise for nodes reached beaten at exactly step ``h``.
    """

    def __init__(self, g: SideGraph, steps: int) -> None:
        n = g.size
        beaten = g.beaten
        deg = np.diff(g.ptr)
        rows = np.arange(n, dtype=np.int64)
        cols = rows.copy()
        vals = np.ones(n)
        alive_parts: list[tuple[IntArray, IntArray, FloatArray]] = []
        beaten_parts: list[tuple[IntArray, IntArray, FloatArray]] = []
        live = ~beaten[cols]
        alive_parts.append((rows[live], cols[live], vals[live]))
        beaten_parts.append((rows[:0], cols[:0], vals[:0]))
        rows, cols, vals = rows[live], cols[live], vals[live]
        for _ in range(steps):
            d = deg[cols]
            r = np.repeat(rows, d)
            first = np.repeat(g.ptr[cols], d)
            offset = np.arange(int(d.sum())) - np.repeat(np.cumsum(d) - d, d)
            edge = first + offset
            c = g.to[edge]
            v = np.repeat(vals, d) * g.p[edge]
            key = r * n + c
            uniq, inv = np.unique(key, return_inverse=True)
            v = np.bincount(inv, weights=v, minlength=uniq.size)
            r, c = uniq // n, uniq % n
            b = beaten[c]
            alive_parts.append((r[~b], c[~b], v[~b]))
            beaten_parts.append((r[b], c[b], v[b]))
            rows, cols, vals = r[~b], c[~b], v[~b]
        #: A chain (no morale draw): node n + k is the only one k steps on, the last one beaten
        #: (every node but the last moves to the next: a node no path reaches is no chain).
        self.chain = (
            g.is_chain
            and bool(beaten[-1])
            and int(beaten.sum()) == 1
            and np.array_equal(g.to, np.arange(1, n))
        )
        self.last = n - 1
        self.start, self.count, self.to, self.p = _flatten(alive_parts, n)
        self.bstart, self.bcount, self.bto, self.bp = _flatten(beaten_parts, n)

    def by_node(
        self,
    ) -> tuple[IntArray, IntArray, FloatArray, IntArray, IntArray, IntArray, FloatArray, IntArray]:
        """The cones as :func:`bellum.odds._kernels.graph_server_loops` takes them: one
        node's entries after each other in order of steps, ``hs[n, h]:hs[n, h + 1]``
        those ``h`` steps on, and each entry's step; alive, then beaten."""
        return (
            *_node_major(self.start, self.count, self.to, self.p),
            *_node_major(self.bstart, self.bcount, self.bto, self.bp),
        )


def _node_major(
    start: IntArray, count: IntArray, to: IntArray, p: FloatArray
) -> tuple[IntArray, IntArray, FloatArray, IntArray]:
    """Cones stored by step (``start[h, n]``) re-laid by node: ``(hs, to, p, step)``."""
    steps, n = count.shape
    counts = np.zeros((n, _T), dtype=np.int64)
    counts[:, :steps] = count.T
    hs = np.zeros((n, _T + 1), dtype=np.int64)
    hs[:, 1:] = np.cumsum(counts, axis=1)
    hs += (np.cumsum(hs[:, -1]) - hs[:, -1])[:, None]
    node, step = np.nonzero(counts)
    size = counts[node, step]
    rep = np.repeat(np.arange(node.size), size)
    offset = np.arange(int(size.sum())) - np.repeat(np.cumsum(size) - size, size)
    source = start[step, node][rep] + offset
    return hs, to[source], p[source], step[rep]


def _simple(hs: IntArray, to: IntArray, p: FloatArray, step: IntArray) -> npt.NDArray[np.bool_]:
    """Nodes ``y`` that reach ``y + h`` after ``h`` steps for sure while they live (a chain
    from there on), from :meth:`_Cones.by_node`'s alive arrays."""
    n = hs.shape[0]
    node = np.repeat(np.arange(n), np.diff(hs[:, [0, -1]], axis=1)[:, 0])
    ok = (to == node + step) & (p == 1.0) & (step == np.arange(to.size) - hs[node, 0])
    simple: npt.NDArray[np.bool_] = np.bincount(node[~ok], minlength=n) == 0
    return simple


def _flatten(
    parts: list[tuple[IntArray, IntArray, FloatArray]], n: int
) -> tuple[IntArray, IntArray, IntArray, FloatArray]:
    start = np.zeros((len(parts), n), dtype=np.int64)
    count = np.zeros((len(parts), n), dtype=np.int64)
    tos, ps = [], []
    base = 0
    for h, (r, c, v) in enumerate(parts):
        order = np.argsort(r, kind="stable")
        r, c, v = r[order], c[order], v[order]
        count[h] = np.bincount(r, minlength=n)
        start[h] = base + np.cumsum(count[h]) - count[h]
        base += r.size
        tos.append(c)
        ps.append(v)
    return start, count, np.concatenate(tos), np.concatenate(ps)


def _spread(
    weights: FloatArray,
    a_start: IntArray,
    a_count: IntArray,
    a_to: IntArray,
    a_p: FloatArray,
    d_start: IntArray,
    d_count: IntArray,
    d_to: IntArray,
    d_p: FloatArray,
    nd: int,
    out: FloatArray,
) -> None:
    """Add ``weights[i]`` times every (attacker cone × defender cone) pair to ``out``."""
    tot = a_count * d_count
    keep = (tot > 0) & (weights > 0)
    if not keep.any():
        return
    w, tot = weights[keep], tot[keep]
    a_start, a_count, d_start, d_count = a_start[keep], a_count[keep], d_start[keep], d_count[keep]
    if int(tot.max()) == 1:
        ta, pa = a_to[a_start], a_p[a_start]
        td, pd = d_to[d_start], d_p[d_start]
        _add(out, ta * nd + td, w * pa * pd)
        return
    rep = np.repeat(np.arange(w.size), tot)
    offset = np.arange(int(tot.sum())) - np.repeat(np.cumsum(tot) - tot, tot)
    ia = a_start[rep] + offset // d_count[rep]
    id_ = d_start[rep] + offset % d_count[rep]
    _add(out, a_to[ia] * nd + d_to[id_], w[rep] * a_p[ia] * d_p[id_])


def _add(out: FloatArray, index: IntArray, weights: FloatArray) -> None:
    """``out[index] += weights`` with repeated indices summed."""
    if 8 * index.size < out.size:
        np.add.at(out, index, weights)
    else:
        out += np.bincount(index, weights=weights, minlength=out.size)


def _order(a: SideGraph, d: SideGraph) -> tuple[IntArray, IntArray]:
    """Pairs sorted by depth sum, and where each depth sum starts in that order."""
    ds = (a.depth[:, None] + d.depth[None, :]).ravel()
    order = np.argsort(ds, kind="stable")
    bounds = np.searchsorted(ds[order], np.arange(int(ds.max()) + 2))
    return order, bounds


def _check_size(a: SideGraph, d: SideGraph) -> None:
    if a.size * d.size > MAX_PAIRS:
        raise MemoryError(f"{a.size} x {d.size} pairs of states is more than {MAX_PAIRS}")


def server_ends(
    a: SideGraph,
    d: SideGraph,
    *,
    tau: float = DEFAULT_TAU,
    progress: Callable[[float], None] | None = None,
    backend: Backend = "auto",
) -> GraphEnds:
    """The exact end of the server's fight (§6.2) between two side graphs.

    ``backend``: ``numba`` runs the compiled kernel
    (:func:`bellum.odds._kernels.graph_server_loops`, one pair of states at a time),
    ``numpy`` the matrix products below; ``auto`` takes numba when it is installed
    and the fight has at least :data:`NUMBA_FROM_PAIRS` pairs of states.
    """
    _check_size(a, d)
    if graph_backend(backend, a.size * d.size) == "numba":
        ends = kernel_ends(a, d, tau=tau)
        assert ends is not None  # no budget
        return ends
    na, nd = a.size, d.size
    ca, cd = _Cones(a, WINDOW_MAX), _Cones(d, WINDOW_MAX)
    mass = np.zeros((na, nd))
    mass[0, 0] = 1.0
    wins_a = np.zeros((na, nd))
    wins_d = np.zeros((na, nd))
    with one_thread():
        pruned = _sweep(a, d, ca, cd, mass, wins_a, wins_d, tau, progress)
    return GraphEnds(a, d, wins_a, wins_d, pruned)


def kernel_ends(
    a: SideGraph,
    d: SideGraph,
    *,
    tau: float = DEFAULT_TAU,
    budget: float = math.inf,
    kernel: Callable[..., tuple[float, float]] | None = None,
) -> GraphEnds | None:
    """:func:`server_ends` by :func:`bellum.odds._kernels.graph_server_loops`, compiled;
    ``None`` when it gives up past ``budget`` cone products (``kernel`` runs other loops:
    the tests pass the plain Python ones)."""
    na, nd = a.size, d.size
    ca, cd = _Cones(a, WINDOW_MAX).by_node(), _Cones(d, WINDOW_MAX).by_node()
    flat = np.zeros((3, na * nd))
    flat[0, 0] = 1.0
    run = kernel if kernel is not None else _kernels.compiled("graph_server_loops")
    pruned, work = run(
        a.strength, d.strength, *_by_depth(a), *_by_depth(d), ca, cd, _simple(*cd[:4]),
        _DEPOSIT, _ABSORB, tau, budget, flat[0], flat[1], flat[2],
    )  # fmt: skip
    if work < 0:
        return None
    return GraphEnds(a, d, flat[1].reshape(na, nd), flat[2].reshape(na, nd), float(pruned))


def graph_backend(backend: Backend, pairs: int) -> Literal["numpy", "numba"]:
    """The backend :func:`server_ends` runs on (``auto``: numba from
    :data:`NUMBA_FROM_PAIRS` pairs, when it imports)."""
    if backend != "auto":
        return resolve_backend(backend)
    if pairs < NUMBA_FROM_PAIRS or not numba_wanted() or numba_importable() is not None:
        return "numpy"
    return "numba"


def _by_depth(g: SideGraph) -> tuple[IntArray, IntArray]:
    """The side's nodes grouped by rounds lost: ``nodes[first[n]:first[n + 1]]``."""
    nodes = np.argsort(g.depth, kind="stable").astype(np.int64)
    first = np.searchsorted(g.depth[nodes], np.arange(int(g.depth.max()) + 2)).astype(np.int64)
    return first, nodes


def _sweep(
    a: SideGraph,
    d: SideGraph,
    ca: _Cones,
    cd: _Cones,
    mass: FloatArray,
    wins_a: FloatArray,
    wins_d: FloatArray,
    tau: float,
    progress: Callable[[float], None] | None,
) -> float:
    """Every window, in order of the depth sum where it starts; returns the pruned mass."""
    flat = mass.ravel()
    order, bounds = _order(a, d)
    depth_sum = (a.depth[:, None] + d.depth[None, :]).ravel()
    top = bounds.size - 1
    pruned = 0.0
    for n0 in range(top):
        states = order[bounds[n0] : bounds[n0 + 1]]
        m = flat[states]
        live = m > 0
        if not live.any():
            continue
        states, m = states[live], m[live]
        flat[states] = 0.0
        small = m < tau
        if small.any():
            pruned += float(m[small].sum())
            states, m = states[~small], m[~small]
        for i in range(0, states.size, _GROUP):
            group = slice(i, i + _GROUP)
            chunk = states[group]
            _windows(depth_sum[chunk], chunk, m[group], a, d, ca, cd, mass, wins_a, wins_d)
        if progress is not None and n0 % 16 == 0:
            progress(n0 / top)
    return pruned


#: Window-start pairs of one depth sum handled together (one matrix product each).
_GROUP = 48
_FACT = np.array([float(math.factorial(k)) for k in range(2 * _T)])
_INV_FACT = 1.0 / _FACT
_ROUNDS = np.arange(2 * _T)
# A window that ends normally after t rounds: C(t, h) / 43 = t! / 43 · 1 / (h! k!).
_END = np.where((_ROUNDS >= WINDOW_MIN) & (_ROUNDS <= WINDOW_MAX), _FACT / WINDOW_CHOICES, 0.0)
# A side beaten by its last loss in round t: C(t-1, ...) · P(L >= t) = (t-1)! · S(t) / (...).
_ABS = np.zeros(2 * _T)
_ABS[1:_T] = _FACT[: _T - 1] * _SURV[1:_T]


def _powers(probs: FloatArray) -> FloatArray:
    """``probs ** k`` for k = 0..51, shape (states, 52, jitters)."""
    n, jit = probs.shape
    out = np.empty((n, _T, jit))
    out[:, 0, :] = 1.0
    np.cumprod(np.broadcast_to(probs[:, None, :], (n, _T - 1, jit)), axis=1, out=out[:, 1:, :])
    return out


def _factors(
    cones: _Cones, beaten: bool, nodes: IntArray, powers: FloatArray, weights: FloatArray
) -> tuple[IntArray, FloatArray]:
    """The nodes reached from ``nodes`` in 0..51 steps, each with ``P(path) · p^k / k!``.

    One column per (state, jitter); ``p`` is that column's probability of a
    loss for this side, ``k`` the steps; a node reached beaten at step ``k``
    gets ``p^k / (k-1)!`` instead (its last loss ends the fight).
    """
    if cones.chain:
        return _chain_factors(cones.last, beaten, nodes, powers, weights)
    start, count = (cones.bstart, cones.bcount) if beaten else (cones.start, cones.count)
    to, p = (cones.bto, cones.bp) if beaten else (cones.to, cones.p)
    s_idx, k_idx = np.nonzero(count[:, nodes].T)
    c = count[k_idx, nodes[s_idx]]
    first = start[k_idx, nodes[s_idx]]
    rep = np.repeat(np.arange(c.size), c)
    edge = np.repeat(first, c) + np.arange(int(c.sum())) - np.repeat(np.cumsum(c) - c, c)
    s_e, k_e = s_idx[rep], k_idx[rep]
    target, prob = to[edge], p[edge]
    if target.size == 0:
        return target, np.zeros((0, nodes.size * powers.shape[2]))
    # Nodes are numbered by depth, so the targets of one depth sum span a short range.
    first_node = int(target.min())
    local = np.arange(first_node, int(target.max()) + 1)
    inverse = target - first_node
    jit = powers.shape[2]
    scale = prob * _INV_FACT[np.maximum(k_e - (1 if beaten else 0), 0)] * weights[s_e]
    mat = np.zeros((local.size, nodes.size, jit))
    mat[inverse, s_e, :] = powers[s_e, k_e, :] * scale[:, None]
    return local, mat.reshape(local.size, nodes.size * jit)


def _chain_factors(
    last: int, beaten: bool, nodes: IntArray, powers: FloatArray, weights: FloatArray
) -> tuple[IntArray, FloatArray]:
    """:func:`_factors` for a chain, whose node ``n + k`` is the only one ``k`` steps on."""
    jit = powers.shape[2]
    if beaten:
        k = last - nodes
        ok = (k >= 1) & (k < _T)
        if not ok.any():
            return nodes[:0], np.zeros((0, nodes.size * jit))
        s = np.flatnonzero(ok)
        mat = np.zeros((1, nodes.size, jit))
        mat[0, s, :] = powers[s, k[s], :] * (_INV_FACT[k[s] - 1] * weights[s])[:, None]
        return np.array([last]), mat.reshape(1, -1)
    lo = int(nodes.min())
    hi = min(int(nodes.max()) + _T, last)
    if hi <= lo:
        return nodes[:0], np.zeros((0, nodes.size * jit))
    k = np.arange(_T)
    rows = nodes[:, None] - lo + k[None, :]  # (S, 52)
    keep = nodes[:, None] + k[None, :] < last
    s_idx = np.broadcast_to(np.arange(nodes.size)[:, None], rows.shape)
    scale = _INV_FACT[:_T][None, :] * weights[:, None]  # (S, 52)
    mat = np.zeros((hi - lo, nodes.size, jit))
    mat[rows[keep], s_idx[keep], :] = powers[keep] * scale[keep][:, None]
    return np.arange(lo, hi), mat.reshape(hi - lo, -1)


def _windows(
    sums: IntArray,
    states: IntArray,
    m: FloatArray,
    a: SideGraph,
    d: SideGraph,
    ca: _Cones,
    cd: _Cones,
    mass: FloatArray,
    wins_a: FloatArray,
    wins_d: FloatArray,
) -> None:
    """Every window that starts in ``states`` (depth sums ``sums``, sorted), by matrix products.

    A window of t rounds with h defender and k attacker losses has the chance
    ``t! · (p^h / h!) · (q^k / k!)`` (averaged over the 11 jitters), and t is
    fixed by the depths of the two end states, so for the states of one depth
    sum the sum over (state, jitter) is one product of a matrix over the
    attacker's reachable nodes with one over the defender's.
    """
    nd = d.size
    x, y = states // nd, states % nd
    sa, sd = a.strength[x], d.strength[y]
    p = jittered_probabilities(sa / (sa + sd))
    pp, qp = _powers(p), _powers(1.0 - p)
    w = m / JITTER_CHOICES
    one = np.ones_like(w)
    jit = p.shape[1]
    xa, va = _factors(ca, False, x, qp, w)
    yd, ud = _factors(cd, False, y, pp, one)
    yb, ub = _factors(cd, True, y, pp, one)
    xb, vb = _factors(ca, True, x, qp, w)
    da, dd, dbd, dba = a.depth[xa], d.depth[yd], d.depth[yb], a.depth[xb]
    edges = np.flatnonzero(np.diff(sums)) + 1
    for lo, hi in zip(np.r_[0, edges], np.r_[edges, sums.size], strict=True):
        n0 = int(sums[lo])
        cols = slice(lo * jit, hi * jit)
        if xa.size and yd.size:
            t = (da[:, None] + dd[None, :] - n0).clip(0, 2 * _T - 1)
            mass[np.ix_(xa, yd)] += (va[:, cols] @ ud[:, cols].T) * _END[t]
        if xa.size and yb.size:
            t = (da[:, None] + dbd[None, :] - n0).clip(0, 2 * _T - 1)
            wins_a[np.ix_(xa, yb)] += (va[:, cols] @ ub[:, cols].T) * _ABS[t]
        if xb.size and yd.size:
            t = (dba[:, None] + dd[None, :] - n0).clip(0, 2 * _T - 1)
            wins_d[np.ix_(xb, yd)] += (vb[:, cols] @ ud[:, cols].T) * _ABS[t]


def per_casualty_ends(
    a: SideGraph, d: SideGraph, *, progress: Callable[[float], None] | None = None
) -> GraphEnds:
    """The exact end of the info page's fight: the odds recomputed after every round."""
    _check_size(a, d)
    na, nd = a.size, d.size
    ca, cd = _Cones(a, 1), _Cones(d, 1)
    mass = np.zeros(na * nd)
    mass[0] = 1.0
    wins_a = np.zeros(na * nd)
    wins_d = np.zeros(na * nd)
    order, bounds = _order(a, d)
    top = bounds.size - 1
    for n in range(top):
        states = order[bounds[n] : bounds[n + 1]]
        m = mass[states]
        live = m > 0
        states, m = states[live], m[live]
        if states.size == 0:
            continue
        mass[states] = 0.0
        x, y = states // nd, states % nd
        sa, sd = a.strength[x], d.strength[y]
        p = jittered_probabilities(sa / (sa + sd))[:, 5]  # offset 0: chance(odds) exactly
        zero, one = np.zeros_like(x), np.ones_like(x)
        stay_a = (zero + ca.start[0, x], one)
        stay_d = (zero + cd.start[0, y], one)
        for w, (a_s, a_c, a_to, a_p), (d_s, d_c, d_to, d_p), out in (
            (m * p, (*stay_a, ca.to, ca.p), (cd.start[1, y], cd.count[1, y], cd.to, cd.p), mass),
            (
                m * p,
                (*stay_a, ca.to, ca.p),
                (cd.bstart[1, y], cd.bcount[1, y], cd.bto, cd.bp),
                wins_a,
            ),
            (
                m * (1 - p),
                (ca.start[1, x], ca.count[1, x], ca.to, ca.p),
                (*stay_d, cd.to, cd.p),
                mass,
            ),
            (
                m * (1 - p),
                (ca.bstart[1, x], ca.bcount[1, x], ca.bto, ca.bp),
                (*stay_d, cd.to, cd.p),
                wins_d,
            ),
        ):
            _spread(w, a_s, a_c, a_to, a_p, d_s, d_c, d_to, d_p, nd, out)
        if progress is not None and n % 64 == 0:
            progress(n / top)
    return GraphEnds(a, d, wins_a.reshape(na, nd), wins_d.reshape(na, nd), 0.0)


__all__ = [
    "DEFAULT_TAU",
    "MAX_PAIRS",
    "GraphEnds",
    "graph_backend",
    "kernel_ends",
    "per_casualty_ends",
    "server_ends",
]
