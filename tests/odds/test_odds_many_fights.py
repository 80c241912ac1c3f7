"""Many small fights simulated together give each fight's own end states (as the exact
solvers have them): P(attacker wins) and the mean rounds each side loses within 4.5
standard errors of the exact values (about 1 in 150,000 per figure; fixed seeds, so
never flaky)."""

from __future__ import annotations

import numpy as np
import pytest

from bellum.odds import Side
from bellum.odds.exact import per_casualty_exact, server_exact
from bellum.odds.montecarlo import many_fights

RUNS = 20_000


@pytest.mark.parametrize("server", [True, False])
def test_many_fights_at_once_match_each_fight_solved_alone(server: bool) -> None:
    sides = [
        (Side.troops(30), Side.troops(20, 1.5)),
        (Side.troops(5), Side.troops(60)),
        (Side.troops(80), Side.troops(3)),
        (Side.from_arrays([9.0, 7.0, 0.0]), Side.troops(12, 2.0)),
    ]
    got = many_fights(
        [(a.strength, d.strength) for a, d in sides], RUNS, np.random.default_rng(7), server
    )
    for (a, d), (won, lost) in zip(sides, got, strict=True):
        exact, _ = (server_exact if server else per_casualty_exact)(a, d, backend="numpy")
        assert won.shape == exact.attacker_wins.shape and lost.shape == exact.defender_wins.shape
        assert won.sum() + lost.sum() == pytest.approx(1.0)
        ref = (exact.attacker_wins, exact.defender_wins)
        p = ref[0].sum()
        assert abs(won.sum() - p) <= 4.5 * np.sqrt(p * (1 - p) / RUNS)
        # Rounds each side lost: the attacker k where it won and all of its rounds where it
        # lost; the defender all of its rounds where it lost and k where it won.
        for rounds in (
            (np.arange(won.size), np.full(lost.size, a.rounds)),
            (np.full(won.size, d.rounds), np.arange(lost.size)),
        ):
            mean = sum(float(v @ w) for v, w in zip(rounds, ref, strict=True))
            square = sum(float((v**2) @ w) for v, w in zip(rounds, ref, strict=True))
            se = np.sqrt(max(square - mean**2, 1e-12) / RUNS)
            got_mean = sum(float(v @ w) for v, w in zip(rounds, (won, lost), strict=True))
            assert abs(got_mean - mean) <= 4.5 * se
