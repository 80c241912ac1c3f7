"""Monte Carlo against the exact solvers, and the server draw stream against B.1.

Every statistical check uses fixed seeds and a band of 4 standard errors: for
a correct sampler a single check fails with probability about 6e-5 (two-sided
normal tail), and with the seeds fixed the outcome is deterministic, so the
suite is never flaky; a wrong model shifts the estimate by far more than 4
standard errors at these run counts.
"""

from __future__ import annotations

import numpy as np
import pytest

from bellum.dice import ServerRandom
from bellum.errors import InputError
from bellum.odds import Side, _kernels, fight_odds, server_fight
from bellum.odds._common import numba_wanted
from bellum.odds.engine import MAX_MC_SECONDS, expected_steps, mc_seconds
from bellum.odds.montecarlo import monte_carlo, server_reference

B1_LINE = "!@!!!!!!!!!@!@!!@!!!!!@!!!!!@!!@!@@!!!@@!@!!!!@!!!@!!!"


def test_server_fight_reproduces_b1_vector_a() -> None:
    rng = ServerRandom(1)
    rng.roundavg(-1.0)
    rng.roundavg(-1.0)
    line, a, d = server_fight(rng, Side.troops(150), Side.troops(40, 2.0))
    assert line == B1_LINE
    assert (a, d) == (14, 40)  # "Yours: 14, Theirs: 40"


def within(estimate: float, exact: float, se: float) -> bool:
    return abs(estimate - exact) <= 4 * se + 1e-12


def test_exact_server_solver_agrees_with_the_server_draw_stream() -> None:
    att, dfd = Side.troops(30), Side.troops(25, 1.2)
    exact = fight_odds(att, dfd, "server", "exact")
    ref = server_reference(att, dfd, runs=3000, seed=7)
    assert within(
        float(ref.end_states.attacker_wins.sum()), exact.p_attacker_wins, ref.standard_error
    )
    # Expected attacker rounds lost, standard error from the sample itself.
    k = np.arange(att.rounds + 1)
    pmf = np.append(ref.end_states.attacker_wins, ref.end_states.defender_wins.sum())
    mean = float(k @ pmf)
    sd = float(np.sqrt(((k - mean) ** 2) @ pmf))
    assert within(mean, exact.losses["attacker"].mean(), sd / np.sqrt(ref.runs))


BACKENDS = ["numpy"] + (["numba"] if numba_wanted() else [])


@pytest.mark.parametrize("backend", BACKENDS)
@pytest.mark.parametrize("model", ["server", "per-casualty"])
def test_vectorised_monte_carlo_agrees_with_exact(model: str, backend: str) -> None:
    att, dfd = Side.troops(60), Side.troops(40, 2.5)
    exact = fight_odds(att, dfd, model, "exact")  # type: ignore[arg-type]
    assert 0.2 < exact.p_attacker_wins < 0.8  # a fight that tests something
    mc = fight_odds(att, dfd, model, "monte-carlo", runs=40_000, seed=11, backend=backend)  # type: ignore[arg-type]
    assert mc.method == "monte-carlo" and mc.runs == 40_000 and mc.seed == 11
    assert mc.standard_error is not None
    assert within(mc.p_attacker_wins, exact.p_attacker_wins, mc.standard_error)
    for side in ("attacker", "defender"):
        e, m = exact.losses[side], mc.losses[side]
        var = float(((e.values - e.mean()) ** 2) @ e.probs)
        assert within(m.mean(), e.mean(), np.sqrt(var / 40_000))


@pytest.mark.parametrize("model", ["server", "per-casualty"])
def test_uncompiled_loop_kernels_agree_with_exact(model: str) -> None:
    """The numba kernels' source, run as plain Python on a small fight."""
    att, dfd = Side.troops(12), Side.troops(10, 1.1)
    exact = fight_odds(att, dfd, model, "exact")  # type: ignore[arg-type]
    aw = np.zeros(att.rounds, dtype=np.int64)
    dw = np.zeros(dfd.rounds, dtype=np.int64)
    runs = 4000
    rng = np.random.default_rng(5)
    _kernels.mc_loops(att.strength, dfd.strength, runs, rng, aw, dw, model == "server")
    assert aw.sum() + dw.sum() == runs
    p = aw.sum() / runs
    se = np.sqrt(exact.p_attacker_wins * (1 - exact.p_attacker_wins) / runs)
    assert within(p, exact.p_attacker_wins, se)


def test_same_seed_same_numbers() -> None:
    att, dfd = Side.troops(60), Side.troops(60)
    a = monte_carlo(att, dfd, runs=30_000, seed=99, backend="numpy")
    assert 0.05 < a.end_states.attacker_wins.sum() < 0.95
    b = monte_carlo(att, dfd, runs=30_000, seed=99, backend="numpy")
    c = monte_carlo(att, dfd, runs=30_000, seed=100, backend="numpy")
    assert np.array_equal(a.end_states.attacker_wins, b.end_states.attacker_wins)
    assert not np.array_equal(a.end_states.attacker_wins, c.end_states.attacker_wins)


def test_target_error_stops_when_reached() -> None:
    run = monte_carlo(Side.troops(40), Side.troops(40), target_error=0.003, seed=1, backend="numpy")
    assert run.standard_error <= 0.003
    assert not run.cap_reached
    assert run.runs < 100_000


def test_run_cap_is_reported() -> None:
    result = fight_odds(
        Side.troops(40),
        Side.troops(40),
        target_error=1e-5,
        max_runs=30_000,
        seed=1,
        backend="numpy",
    )
    assert result.runs == 30_000
    assert result.notes and "--max-runs" in result.notes[0]


@pytest.mark.parametrize(
    "kwargs",
    [{"runs": 0}, {"target_error": 0.0}, {"target_error": -1.0}, {"runs": 10, "target_error": 0.1}],
)
def test_bad_monte_carlo_options_are_usage_errors(kwargs: dict[str, float]) -> None:
    with pytest.raises(InputError) as refused:
        monte_carlo(Side.troops(3), Side.troops(3), **kwargs)  # type: ignore[arg-type]
    assert refused.value.field in ("runs", "target_error")


def test_auto_switches_to_monte_carlo_above_the_threshold(monkeypatch: pytest.MonkeyPatch) -> None:
    from bellum.odds import engine

    monkeypatch.setitem(engine.EXACT_LIMITS, "server", (100.0, 100.0))
    big = fight_odds(Side.troops(20), Side.troops(20), seed=2, backend="numpy")
    small = fight_odds(Side.troops(5), Side.troops(5), backend="numpy")
    assert big.method == "monte-carlo" and big.seed == 2
    assert small.method == "exact" and small.pruned_mass is not None


def test_auto_backend_keeps_small_jobs_in_numpy() -> None:
    from bellum.odds.engine import choose_backend

    tiny, huge = Side.troops(10), Side.troops(5000)
    assert choose_backend("auto", "server", tiny, tiny, True, 0) == "numpy"
    assert choose_backend("auto", "per-casualty", huge, huge, True, 0) == "numpy"  # 2.5e7 states
    expected = "numba" if numba_wanted() else "numpy"
    assert choose_backend("auto", "server", huge, huge, True, 0) == expected
    assert choose_backend("auto", "server", huge, huge, False, 10**6) == expected


def test_a_numba_that_cannot_load_is_skipped_or_explained(monkeypatch: pytest.MonkeyPatch) -> None:
    from bellum.errors import InputError
    from bellum.odds import engine, exact

    monkeypatch.setattr(engine, "numba_wanted", lambda: True)
    monkeypatch.setattr(engine, "numba_importable", lambda: "Numba needs NumPy 2.0 or less")
    monkeypatch.setattr(exact, "numba_wanted", lambda: True)
    monkeypatch.setattr(exact, "numba_importable", lambda: "Numba needs NumPy 2.0 or less")
    huge = Side.troops(5000)
    assert engine.choose_backend("auto", "server", huge, huge, True, 0) == "numpy"
    with pytest.raises(InputError, match="cannot be loaded"):
        exact.resolve_backend("numba")


def test_monte_carlo_time_is_estimated_before_it_runs() -> None:
    even = Side.troops(1000)
    assert 1000 <= expected_steps(even, even) <= 2000  # a race: about 1.8 x 1000 measured
    lopsided = expected_steps(Side.troops(1000, 9.0), Side.troops(1000))
    assert 1000 <= lopsided < 1200
    assert mc_seconds(even, even, 100_000, "numpy") < MAX_MC_SECONDS
    huge = Side.troops(10_000_000)
    assert mc_seconds(huge, huge, 1000, "numba") > MAX_MC_SECONDS
    with pytest.raises(InputError, match=r"would take about .* fewer troops"):
        fight_odds(huge, huge, method="monte-carlo", runs=1000, backend="numpy")


def _clock(monkeypatch: pytest.MonkeyPatch, readings: list[float]) -> None:
    """Monte Carlo's clock reads ``readings`` in turn: the start, then after each batch."""
    from types import SimpleNamespace

    from bellum.odds import montecarlo

    ticks = iter(readings)
    monkeypatch.setattr(montecarlo, "time", SimpleNamespace(perf_counter=lambda: next(ticks)))


def test_a_machine_slower_than_the_estimate_is_caught_after_the_first_batch(
    monkeypatch: pytest.MonkeyPatch,
) -> None:
    """The estimate before the start assumes the project's machine; the first batch
    measures this one, and 5 batches at 20 s each do not fit in the 60 s."""
    _clock(monkeypatch, [0.0, 20.0])
    small = Side.troops(10)
    with pytest.raises(InputError) as err:
        fight_odds(small, small, method="monte-carlo", runs=100_000, seed=1)
    assert str(err.value) == (
        "Monte Carlo of this fight would take about 100 s at the speed of its first 20000 runs"
        " (20 s) on this machine (limit 60 s): lower --runs (about 60000 runs fit)"
    )


def test_the_target_error_is_timed_with_the_odds_seen_in_the_first_batch(
    monkeypatch: pytest.MonkeyPatch,
) -> None:
    """A lopsided fight needs far fewer runs than the worst case p = 1/2 (250,000 runs,
    313 s at this speed): P(attacker wins) is 1 - 1.5e-9, so two batches do."""
    _clock(monkeypatch, [0.0, 25.0, 50.0])
    r = fight_odds(Side.troops(20, 3.0), Side.troops(10), target_error=0.001, seed=1)
    assert r.runs == 40_000 and not r.notes


def test_runs_that_slow_down_later_stop_at_the_limit_with_a_warning(
    monkeypatch: pytest.MonkeyPatch,
) -> None:
    _clock(monkeypatch, [0.0, 1.0, 70.0])
    small = Side.troops(10)
    r = fight_odds(small, small, method="monte-carlo", runs=100_000, seed=1)
    assert r.runs == 40_000 and r.standard_error is not None
    assert r.notes == (
        f"stopped at the 60 s limit after 40000 runs (standard error {r.standard_error:.2g}):"
        " the machine ran slower than its first runs promised",
    )
