"""The server solver of small fights (every state at once) against the diagonal sweep.

The diagonal sweep (``_server_numpy``) is the reference: it is held to the
``fractions.Fraction`` references in test_odds_exact.py, and was the numpy solver of
every fight before the per-state one.  The two sum the same products in other orders, so
they agree to rounding, not bit for bit: every end-state chance within 1e-12 of its
value (relative; absolute below 1e-250, where the doubles are denormal).
"""

from __future__ import annotations

import json
from collections import OrderedDict
from pathlib import Path

import numpy as np
import pytest

from bellum.odds import Side, exact
from bellum.odds.exact import (
    _layout,
    _server_numpy,
    _server_states,
    server_exact,
    server_tau,
    states_at_once,
)

FIGHTS = Path(__file__).resolve().parent / "chain_fights.json"
RTOL = 1e-12


def both(sa: np.ndarray, sd: np.ndarray, tau: float) -> tuple[np.ndarray, np.ndarray, float, float]:
    """Each solver's end states (attacker's wins, then defender's) and pruned mass."""
    ka, kd = sa.size - 1, sd.size - 1
    old = [np.zeros(ka), np.zeros(kd)]
    new = [np.zeros(ka), np.zeros(kd)]
    p_old = _server_numpy(sa, sd, tau, *old)
    p_new = _server_states(sa, sd, tau, *new)
    return np.concatenate(old), np.concatenate(new), p_old, p_new


def assert_same(sa: np.ndarray, sd: np.ndarray, tau: float) -> None:
    old, new, p_old, p_new = both(sa, sd, tau)
    np.testing.assert_allclose(new, old, rtol=RTOL, atol=1e-250)
    assert p_new == pytest.approx(p_old, rel=RTOL, abs=1e-250)
    assert abs(new.sum() + p_new - 1.0) < 1e-12


def random_fight(rng: np.random.Generator) -> tuple[np.ndarray, np.ndarray]:
    """Strengths in any order (casualties need not lower them), from near-certain to
    hopeless odds, with sides longer than a window (51 rounds) among them."""
    while True:
        ka = int(rng.integers(1, 70))
        kd = int(rng.integers(1, 70))
        if states_at_once(ka, kd):
            break
    scale = float(rng.choice([1.0, 30.0, 1000.0]))
    lean = float(rng.choice([0.02, 1.0, 40.0]))
    sa = np.append(np.ceil(rng.random(ka) * scale * lean), 0.0)
    sd = np.append(np.ceil(rng.random(kd) * scale), 0.0)
    return sa, sd


def test_random_small_fights_agree_with_the_diagonal_sweep() -> None:
    rng = np.random.default_rng(20261203)
    for _ in range(60):
        sa, sd = random_fight(rng)
        tau = float(rng.choice([0.0, 1e-18, 1e-9, 1e-4]))
        assert_same(sa, sd, tau)


def test_the_realistic_suites_chain_fights_agree_with_the_diagonal_sweep() -> None:
    fights = json.loads(FIGHTS.read_text())["fights"]
    assert len(fights) > 80
    for fight in fights:
        sa = np.append(np.asarray(fight["attacker"], dtype=np.float64), 0.0)
        sd = np.append(np.asarray(fight["defender"], dtype=np.float64), 0.0)
        att, dfd = Side.from_arrays(sa), Side.from_arrays(sd)
        assert states_at_once(att.rounds, dfd.rounds)
        assert_same(sa, sd, server_tau(att, dfd))


@pytest.mark.parametrize(("ka", "kd"), [(1, 1), (1, 60), (60, 1), (8, 9), (9, 8), (7, 180)])
def test_edges_of_the_lattice_agree(ka: int, kd: int) -> None:
    # One-round sides, sides shorter than a window, and one longer than any window.
    sa = np.append(np.arange(ka, 0, -1, dtype=np.float64) * 3.0, 0.0)
    sd = np.append(np.arange(kd, 0, -1, dtype=np.float64) * 2.0, 0.0)
    assert_same(sa, sd, 0.0)


def test_a_coarse_threshold_prunes_the_same_states() -> None:
    # 1e-3 drops states that carry real mass: both solvers drop the same ones, since a
    # block's states are final when the sweep would reach their diagonal.
    sa = np.append(np.arange(30, 0, -1, dtype=np.float64), 0.0)
    sd = np.append(np.arange(25, 0, -1, dtype=np.float64) * 1.2, 0.0)
    old, new, p_old, p_new = both(sa, sd, 1e-3)
    assert p_old > 1e-3
    assert p_new == pytest.approx(p_old, rel=RTOL)
    np.testing.assert_allclose(new, old, rtol=RTOL, atol=1e-250)


def test_the_numpy_backend_takes_small_fights_all_at_once() -> None:
    att, dfd = Side.troops(24), Side.troops(17, 1.5)
    assert states_at_once(att.rounds, dfd.rounds)
    assert not states_at_once(50, 50)
    got, pruned = server_exact(att, dfd, backend="numpy")
    want = [np.zeros(att.rounds), np.zeros(dfd.rounds)]
    p = _server_states(att.strength, dfd.strength, server_tau(att, dfd), *want)
    assert got.attacker_wins.tolist() == want[0].tolist()
    assert got.defender_wins.tolist() == want[1].tolist()
    assert pruned == p


def test_a_layout_numbers_each_move_once_and_in_order_of_its_state() -> None:
    ka, kd = 24, 17
    lay = _layout(ka, kd)
    diagonal = lay.att + lay.dfd
    assert np.all(np.diff(diagonal) >= 0)
    assert lay.order.tolist() == (lay.att * kd + lay.dfd).tolist()
    start = np.repeat(lay.order, lay.moves)  # each move's first cell
    sa, sd = np.divmod(start, kd)
    ta, td = np.divmod(lay.move_to, kd)
    # Every window ends at least 9 diagonals on, inside the lattice, once per cell.
    assert np.all(ta + td - sa - sd >= 9)
    assert np.all((ta >= sa) & (td >= sd))
    pairs = start * (ka * kd) + lay.move_to
    assert np.unique(pairs).size == pairs.size
    # Blocks of 9 diagonals: no window ends in the block it starts in.
    place = np.empty(ka * kd, dtype=np.int64)
    place[lay.order] = np.arange(ka * kd)
    block_of = np.searchsorted(lay.blocks, np.arange(ka * kd), side="right")
    assert np.all(block_of[place[lay.move_to]] > block_of[place[start]])
    assert lay.move_blocks[-1] == lay.move_to.size == lay.moves.sum()


def test_the_layouts_kept_stay_within_their_budget(monkeypatch: pytest.MonkeyPatch) -> None:
    monkeypatch.setattr(exact, "LAYOUT_MOVES", 50_000)
    monkeypatch.setattr(exact, "_LAYOUTS", OrderedDict())
    sizes = [(24, 17), (16, 9), (30, 20), (24, 17), (8, 40)]
    for ka, kd in sizes:
        lay = _layout(ka, kd)
        assert lay.dfd.size == ka * kd
        kept = exact._LAYOUTS
        assert sum(k.move_to.size for k in kept.values()) <= 50_000 or len(kept) == 1
        assert next(reversed(kept)) == (ka, kd)  # the one just used is kept
    assert _layout(8, 40) is _layout(8, 40)


def test_an_answer_does_not_depend_on_the_layouts_kept(monkeypatch: pytest.MonkeyPatch) -> None:
    # A sweep's rows are held bit for bit to each plan alone: the same fight must give the
    # same doubles whether its layout was just built, kept, or built after others.
    att, dfd = Side.troops(24), Side.from_arrays([18, 16, 13, 10, 8, 5, 3, 0])
    first, _ = server_exact(att, dfd, backend="numpy")
    kept, _ = server_exact(att, dfd, backend="numpy")
    monkeypatch.setattr(exact, "_LAYOUTS", OrderedDict())
    for ka, kd in [(7, 24), (30, 20), (24, 8)]:
        _layout(ka, kd)
    again, _ = server_exact(att, dfd, backend="numpy")
    for other in (kept, again):
        assert other.attacker_wins.tolist() == first.attacker_wins.tolist()
        assert other.defender_wins.tolist() == first.defender_wins.tolist()
