"""The compiled kernel of fights with morale draws, held to the numpy sweep it replaces
for big fights (:func:`bellum.empire.odds._solver.server_ends`), and the engine's use of it.

The kernel's loops run as plain Python on small graphs whatever is installed; compiled,
on bigger ones and on a plan, when numba is installed (those tests skip without it).
"""

from __future__ import annotations

from collections import defaultdict
from pathlib import Path

import numpy as np
import pytest

from bellum.empire.io.toml import load_world
from bellum.empire.odds import engine, make_plan, plan_odds
from bellum.empire.odds._sides import SideGraph
from bellum.empire.odds._solver import GraphEnds, _Cones, _simple, kernel_ends, server_ends
from bellum.empire.orders import Order
from bellum.formulas import (
    JITTER_CHOICES,
    WINDOW_CHOICES,
    WINDOW_MAX,
    WINDOW_MIN,
    chance_probability,
    jitter,
    jitter_offset,
)
from bellum.formulas import odds as share
from bellum.odds import _kernels
from bellum.odds._common import numba_importable, numba_wanted

EXAMPLES = Path(__file__).resolve().parents[2] / "examples" / "empire"
NUMBA = numba_wanted() and numba_importable() is None
needs_numba = pytest.mark.skipif(
    not NUMBA, reason="numba is not installed (the [fast] extra) or BELLUM_NO_NUMBA is set"
)


def morale_graph(rng: np.random.Generator, depths: int, most: int) -> SideGraph:
    """A side whose states branch at random, as morale checks make them: 1 to ``most``
    states per round lost, each reached from the round before (one or two successors per
    state, chances drawn), some beaten early (strength 0, the round's first state never);
    every state of the last round is beaten.  Numbered round by round, as the explorer
    numbers them."""
    layers: list[list[int]] = [[0]]
    for _ in range(depths):
        first = layers[-1][-1] + 1
        layers.append(list(range(first, first + int(rng.integers(1, most + 1)))))
    n = layers[-1][-1] + 1
    depth = np.zeros(n, dtype=np.int64)
    strength = np.zeros(n)
    for k, layer in enumerate(layers):
        for i, node in enumerate(layer):
            depth[node] = k
            early = i > 0 and rng.random() < 0.2
            if k < depths and not early:
                strength[node] = float(rng.integers(1, 5) * (depths - k))
    succ: dict[int, set[int]] = {}
    for k in range(depths):
        alive = [x for x in layers[k] if strength[x] > 0]
        for x in alive:
            succ[x] = {int(rng.choice(layers[k + 1]))}
        for y in layers[k + 1]:  # every state is reached
            succ[int(rng.choice(alive))].add(y)
    ptr = [0]
    to: list[int] = []
    p: list[float] = []
    for x in range(n):
        targets = sorted(succ.get(x, ()))
        w = rng.random(len(targets)) + 0.1
        to += targets
        p += list(w / w.sum())
        ptr.append(len(to))
    return SideGraph(
        depth=depth,
        total=strength.copy(),
        casualties=depth + rng.integers(0, 3, size=n),
        ptr=np.asarray(ptr, dtype=np.int64),
        to=np.asarray(to, dtype=np.int64),
        p=np.asarray(p, dtype=np.float64),
        occupies=np.ones(n, dtype=bool),
        strength=strength,
    )


def brute_force(a: SideGraph, d: SideGraph) -> GraphEnds:
    """The server's fight round by round (§6.2): a window's jitter and length drawn at
    its start, each round lost moving the loser along its graph."""
    state: dict[tuple[int, int, float, int], float] = {(0, 0, 0.0, 0): 1.0}
    wins_a, wins_d = np.zeros((a.size, d.size)), np.zeros((a.size, d.size))
    while state:
        nxt: dict[tuple[int, int, float, int], float] = defaultdict(float)
        for (x, y, p, left), m in state.items():
            if left == 0:
                o = share(a.strength[x], d.strength[y])
                for j in range(JITTER_CHOICES):
                    pj = chance_probability(jitter(o, jitter_offset(j + 1)))
                    for n in range(WINDOW_MIN, WINDOW_MAX + 1):
                        nxt[(x, y, pj, n)] += m / JITTER_CHOICES / WINDOW_CHOICES
                continue
            for e in range(d.ptr[y], d.ptr[y + 1]):
                y2, w = int(d.to[e]), m * p * d.p[e]
                if d.strength[y2] <= 0:
                    wins_a[x, y2] += w
                else:
                    nxt[(x, y2, p, left - 1)] += w
            for e in range(a.ptr[x], a.ptr[x + 1]):
                x2, w = int(a.to[e]), m * (1 - p) * a.p[e]
                if a.strength[x2] <= 0:
                    wins_d[x2, y] += w
                else:
                    nxt[(x2, y, p, left - 1)] += w
        state = nxt
    return GraphEnds(a, d, wins_a, wins_d, 0.0)


def _same(got: GraphEnds | None, ref: GraphEnds, tol: float = 1e-12) -> None:
    assert got is not None
    assert np.abs(got.attacker_wins - ref.attacker_wins).max() < tol
    assert np.abs(got.defender_wins - ref.defender_wins).max() < tol
    assert got.pruned_mass == pytest.approx(ref.pruned_mass, rel=1e-6, abs=1e-15)
    total = got.attacker_wins.sum() + got.defender_wins.sum() + got.pruned_mass
    assert total == pytest.approx(1.0, abs=1e-12)


@pytest.mark.parametrize("seed", range(4))
def test_the_kernel_s_loops_as_plain_python_match_the_numpy_sweep(seed: int) -> None:
    """Small fights, both sides branching (and one a chain): the end states of the fight
    played round by round, and of the numpy sweep."""
    rng = np.random.default_rng(seed)
    a = morale_graph(rng, 7 + seed, 1 if seed == 3 else 2)
    d = morale_graph(rng, 5 + seed, 2)
    got = kernel_ends(a, d, kernel=_kernels.graph_server_loops)
    _same(got, brute_force(a, d))
    _same(got, server_ends(a, d, backend="numpy"))


def test_a_defender_chain_takes_the_kernel_s_contiguous_runs() -> None:
    """A defender without morale draws: every node it has alive reaches node + h after h
    steps, so the kernel deposits along a run of the pairs' array; the ends are still
    the fight played round by round.  A branching defender has nodes of both kinds."""
    rng = np.random.default_rng(7)
    a = morale_graph(rng, 9, 2)
    d = morale_graph(rng, 8, 1)
    assert _simple(*_Cones(d, WINDOW_MAX).by_node()[:4])[~d.beaten].all()
    _same(kernel_ends(a, d, kernel=_kernels.graph_server_loops), brute_force(a, d))
    simple = _simple(*_Cones(a, WINDOW_MAX).by_node()[:4])[~a.beaten]
    assert simple.any() and not simple.all()


def test_a_state_no_path_reaches_does_not_make_a_side_look_like_a_chain() -> None:
    """Every state with at most one successor, but one of them unreached: the numpy sweep
    once took it for a chain (node n + k, k steps on) and lost a third of the fight."""
    strength = np.array([7.0, 9.0, 6.0, 5.0, 0.0])
    a = SideGraph(
        depth=np.array([0, 1, 1, 2, 3]),
        total=strength.copy(),
        casualties=np.array([0, 1, 1, 2, 3]),
        ptr=np.array([0, 1, 2, 3, 4, 4]),
        to=np.array([2, 3, 3, 4]),
        p=np.ones(4),
        occupies=np.ones(5, dtype=bool),
        strength=strength,
    )
    d = morale_graph(np.random.default_rng(1), 4, 1)
    _same(server_ends(a, d, backend="numpy"), brute_force(a, d))


@needs_numba
@pytest.mark.parametrize("seed", range(3))
def test_the_compiled_kernel_matches_the_numpy_sweep_on_longer_fights(seed: int) -> None:
    """Fights longer than a window (9-51 rounds), where window-start pairs feed later
    ones and sides are beaten inside windows, with pruning."""
    rng = np.random.default_rng(100 + seed)
    a = morale_graph(rng, 70, 3)
    d = morale_graph(rng, 40 + 20 * seed, 3)
    for tau in (0.0, 1e-12):
        _same(server_ends(a, d, backend="numba", tau=tau), server_ends(a, d, tau=tau))


@needs_numba
def test_a_plan_with_one_fight_too_big_for_numpy_is_solved_by_the_kernel() -> None:
    """Vector B's fight has morale draws (the defender's infantry): with the numpy limit
    set below its pairs, the one fight is solved by the compiled kernel, exactly, with
    the numpy sweep's answer."""
    world = load_world(EXAMPLES / "vector-b.toml")
    plan = make_plan(world, 1, Order.parse("attack 2,0"), ["0,0=150"], [])
    engine._WORLDS.clear()
    ref = plan_odds(world, 1, plan)
    engine._WORLDS.clear()
    big = plan_odds(world, 1, plan, exact_pairs=1_000)
    assert ref.method == big.method == "exact"
    for k, v in ref.odds.outcomes.items():
        assert big.odds.outcomes[k] == pytest.approx(v, abs=1e-12)
    for side in ("attacker", "defender"):
        assert big.expected(side) == pytest.approx(ref.expected(side), abs=1e-9)


@needs_numba
def test_a_big_fight_the_kernel_gives_up_on_is_sampled(monkeypatch: pytest.MonkeyPatch) -> None:
    """Past ``BIG_WORK`` cone products the kernel stops and the plan is sampled, as it was
    before the kernel (a wide morale graph can cost twenty times more per pair)."""
    world = load_world(EXAMPLES / "vector-b.toml")
    plan = make_plan(world, 1, Order.parse("attack 2,0"), ["0,0=150"], [])
    monkeypatch.setattr(engine, "BIG_WORK", 1_000.0)
    engine._WORLDS.clear()
    odds = plan_odds(world, 1, plan, exact_pairs=1_000, seed=3)
    assert odds.method.startswith("mixture (20 samples: ")
    assert "morale histories drawn in 20 of the 20 fights" in odds.method
