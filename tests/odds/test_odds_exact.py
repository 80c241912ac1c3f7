"""Exact solvers against slow ``fractions.Fraction`` references (both models).

The references are deliberately naive and independent of the solvers: the
per-casualty one walks the lattice state by state, the server one is a literal
Markov chain of the §6.2 loop over (a, d, countdown, p) - no window kernels,
no moment trick - with the server's ``chance`` probability rounded up to a
multiple of 2**-32 as the real generator does.
"""

from __future__ import annotations

import math
from collections import defaultdict
from collections.abc import Callable
from fractions import Fraction

import numpy as np
import pytest
from hypothesis import given, settings
from hypothesis import strategies as st

from bellum.formulas import JITTERS, chance_probability, jitter
from bellum.odds import Side, _kernels, fight_odds
from bellum.odds._common import jittered_probabilities, jittered_probability, numba_wanted
from bellum.odds.exact import _ABSORB, _DEPOSIT, per_casualty_exact, server_exact
from bellum.odds.result import FightEndStates

Ref = tuple[list[Fraction], list[Fraction]]


def per_casualty_reference(att: Side, dfd: Side) -> Ref:
    sa = [Fraction(float(x)) for x in att.strength]
    sd = [Fraction(float(x)) for x in dfd.strength]
    ka, kd = att.rounds, dfd.rounds
    aw, dw = [Fraction(0)] * ka, [Fraction(0)] * kd
    states = {(0, 0): Fraction(1)}
    while states:
        new: defaultdict[tuple[int, int], Fraction] = defaultdict(Fraction)
        for (a, d), w in states.items():
            p = sa[a] / (sa[a] + sd[d])
            if d + 1 == kd:
                aw[a] += w * p
            else:
                new[(a, d + 1)] += w * p
            if a + 1 == ka:
                dw[d] += w * (1 - p)
            else:
                new[(a + 1, d)] += w * (1 - p)
        states = new
    return aw, dw


def server_p(o: float, d: float, r11: int) -> Fraction:
    """The exact probability of ``chance(jitter(odds(o, d)))`` with ``roll(11) = r11``."""
    odds = 0.0 if o <= 0 else 1.0 if d <= 0 else o / (o + d)
    x = odds + (r11 - 6) / 100.0
    if x < 0:
        x = 0.1
    x = min(x, 1.0)
    if x <= 0:
        return Fraction(0)
    return Fraction(math.ceil(Fraction(x) * 2**32), 2**32)


def server_reference(att: Side, dfd: Side) -> Ref:
    sa = [float(x) for x in att.strength]
    sd = [float(x) for x in dfd.strength]
    ka, kd = att.rounds, dfd.rounds
    aw, dw = [Fraction(0)] * ka, [Fraction(0)] * kd
    draw = Fraction(1, 11 * 43)
    states: defaultdict[tuple[int, int, int, Fraction], Fraction] = defaultdict(Fraction)

    def evaluate(
        a: int, d: int, w: Fraction, into: dict[tuple[int, int, int, Fraction], Fraction]
    ) -> None:
        for r11 in range(1, 12):
            p = server_p(sa[a], sd[d], r11)
            for r43 in range(1, 44):
                into[(a, d, 7 + r43, p)] += w * draw

    evaluate(0, 0, Fraction(1), states)
    while states:
        new: defaultdict[tuple[int, int, int, Fraction], Fraction] = defaultdict(Fraction)
        for (a, d, countdown, p), w in states.items():
            for hit, pr in ((True, p), (False, 1 - p)):
                if pr == 0:
                    continue
                a2, d2 = (a, d + 1) if hit else (a + 1, d)
                if d2 == kd:
                    aw[a2] += w * pr
                elif a2 == ka:
                    dw[d2] += w * pr
                elif countdown <= 0:
                    evaluate(a2, d2, w * pr, new)
                else:
                    new[(a2, d2, countdown - 1, p)] += w * pr
        states = new
    return aw, dw


def assert_matches(got: FightEndStates, ref: Ref, tol: float = 1e-12) -> None:
    aw = np.array([float(x) for x in ref[0]])
    dw = np.array([float(x) for x in ref[1]])
    assert got.attacker_wins.shape == aw.shape
    assert got.defender_wins.shape == dw.shape
    assert np.max(np.abs(got.attacker_wins - aw)) <= tol
    assert np.max(np.abs(got.defender_wins - dw)) <= tol


def loops_per_casualty(att: Side, dfd: Side) -> FightEndStates:
    aw, dw = np.zeros(att.rounds), np.zeros(dfd.rounds)
    _kernels.per_casualty_loops(att.strength, dfd.strength[::-1].copy(), 0.0, aw, dw)
    return FightEndStates(aw, dw)


def loops_server(att: Side, dfd: Side) -> FightEndStates:
    aw, dw = np.zeros(att.rounds), np.zeros(dfd.rounds)
    _kernels.server_loops(att.strength, dfd.strength, _DEPOSIT, _ABSORB, 1e-18, aw, dw)
    return FightEndStates(aw, dw)


BACKENDS = ["numpy", "loops"] + (["numba"] if numba_wanted() else [])

PER_CASUALTY_FIGHTS = [
    (Side.troops(12), Side.troops(8, 1.3)),
    (Side.troops(5, 0.4), Side.troops(9, 2.0)),
    (Side.troops(1), Side.troops(1)),
    (Side.troops(1), Side.troops(7)),
    (Side.from_groups([(6, 1.0), (4, 2.0)]), Side.troops(10, 1.5)),
    (Side.from_arrays([30, 12, 11, 0], [0, 1, 20, 21]), Side.troops(6, 2.0)),
]

# Chosen to exercise: several windows (fights longer than 9 rounds), a side
# beaten before its last soldier (0.4 multiplier), the 0.1 quirk for odds
# below 0.05 (1 vs 25), the clamp at 1 (odds above 0.95) and jumping casualties.
SERVER_FIGHTS = [
    (Side.troops(9), Side.troops(6, 1.3)),
    (Side.troops(1), Side.troops(25)),
    (Side.troops(20), Side.troops(1)),
    (Side.troops(7, 0.4), Side.troops(5)),
    (Side.troops(10), Side.troops(5)),
]


def solve(model: str, backend: str, att: Side, dfd: Side) -> FightEndStates:
    if backend == "loops":
        return (loops_server if model == "server" else loops_per_casualty)(att, dfd)
    solver: Callable[..., tuple[FightEndStates, float]] = (
        server_exact if model == "server" else per_casualty_exact
    )
    states, pruned = solver(att, dfd, backend=backend)
    assert pruned <= 1e-15
    return states


@pytest.mark.parametrize("backend", BACKENDS)
@pytest.mark.parametrize(("att", "dfd"), PER_CASUALTY_FIGHTS)
def test_per_casualty_matches_fraction_reference(att: Side, dfd: Side, backend: str) -> None:
    assert_matches(solve("per-casualty", backend, att, dfd), per_casualty_reference(att, dfd))


@pytest.fixture(scope="module")
def server_refs() -> list[Ref]:
    return [server_reference(att, dfd) for att, dfd in SERVER_FIGHTS]


@pytest.mark.parametrize("backend", BACKENDS)
@pytest.mark.parametrize("case", range(len(SERVER_FIGHTS)))
def test_server_matches_fraction_reference(case: int, backend: str, server_refs: list[Ref]) -> None:
    att, dfd = SERVER_FIGHTS[case]
    assert_matches(solve("server", backend, att, dfd), server_refs[case])


def test_the_quirk_makes_a_hopeless_attack_less_hopeless(server_refs: list[Ref]) -> None:
    # 1 vs 25: odds 1/26 < 0.05, so two jitters of 11 give p = 0.1 instead of ~0.
    aw, _ = server_refs[1]
    assert float(sum(aw)) > (1 / 26) ** 25


@pytest.mark.parametrize("model", ["server", "per-casualty"])
@pytest.mark.parametrize("backend", BACKENDS[:1] + BACKENDS[2:])
def test_mass_sums_to_one(model: str, backend: str) -> None:
    att, dfd = Side.troops(300), Side.troops(120, 2.2)
    solver = server_exact if model == "server" else per_casualty_exact
    states, pruned = solver(att, dfd, backend=backend)  # type: ignore[operator]
    total = states.attacker_wins.sum() + states.defender_wins.sum() + pruned
    assert abs(total - 1.0) < 1e-12
    assert pruned < 1e-12


@pytest.mark.parametrize("backend", BACKENDS[:1] + BACKENDS[2:])
@pytest.mark.parametrize(("n", "mult"), [(1, 1.0), (50, 1.0), (333, 1.7), (64, 0.6)])
def test_symmetric_per_casualty_fight_is_even(n: int, mult: float, backend: str) -> None:
    side = Side.troops(n, mult)
    states, _ = per_casualty_exact(side, side, backend=backend)  # type: ignore[arg-type]
    assert abs(states.attacker_wins.sum() - 0.5) < 1e-12
    np.testing.assert_allclose(states.attacker_wins, states.defender_wins, rtol=0, atol=1e-14)


@pytest.mark.skipif(
    not numba_wanted(),
    reason="numba is not installed (pip install 'bellum[fast]') or BELLUM_NO_NUMBA is set",
)
@pytest.mark.parametrize(
    ("att", "dfd", "tau"),
    [
        (Side.troops(150), Side.troops(70, 2.0), None),
        # Diagonals of more than 256 live states: several chunks per diagonal.
        (Side.troops(420), Side.troops(400), None),
        (Side.troops(420), Side.troops(400), 0.0),
        # Lopsided: every window starts within 51 rounds of an edge.
        (Side.troops(40, 0.4), Side.troops(700), None),
        (Side.from_groups([(30, 1.0), (20, 3.0)]), Side.troops(25, 0.6), 0.0),
    ],
)
def test_numba_and_numpy_agree_on_larger_server_fights(
    att: Side, dfd: Side, tau: float | None
) -> None:
    a, pa = server_exact(att, dfd, tau=tau, backend="numpy")
    b, pb = server_exact(att, dfd, tau=tau, backend="numba")
    assert abs(pa - pb) < 1e-15
    np.testing.assert_allclose(a.attacker_wins, b.attacker_wins, rtol=0, atol=1e-14)
    np.testing.assert_allclose(a.defender_wins, b.defender_wins, rtol=0, atol=1e-14)


EXACT_BACKENDS = BACKENDS[:1] + BACKENDS[2:]

# Long enough that the default threshold drops cells far from the likely path.
PRUNED_FIGHTS = [
    ("per-casualty", Side.troops(3000), Side.troops(2800, 1.1)),
    ("per-casualty", Side.from_groups([(900, 1.0), (700, 2.0)]), Side.troops(1500, 1.6)),
    ("server", Side.troops(240), Side.troops(150, 1.5)),
]


@pytest.mark.parametrize("backend", EXACT_BACKENDS)
@pytest.mark.parametrize(("model", "att", "dfd"), PRUNED_FIGHTS)
def test_pruning_drops_no_more_than_it_reports(
    model: str, att: Side, dfd: Side, backend: str
) -> None:
    solver: Callable[..., tuple[FightEndStates, float]] = (
        server_exact if model == "server" else per_casualty_exact
    )
    full, nothing = solver(att, dfd, tau=0.0, backend=backend)
    cut, pruned = solver(att, dfd, backend=backend)
    assert nothing == 0.0
    assert 0.0 < pruned <= 1e-12
    # Pruning only removes paths: every end state keeps at most what it had, and
    # what is missing adds up to the reported mass (up to rounding).
    lost = np.concatenate(
        [full.attacker_wins - cut.attacker_wins, full.defender_wins - cut.defender_wins]
    )
    assert lost.min() >= -1e-16
    assert abs(lost.sum() - pruned) <= 1e-14


@pytest.mark.parametrize("tau", [1e-6, 1e-9])
@pytest.mark.parametrize("backend", BACKENDS)
def test_a_coarse_per_casualty_threshold_is_accounted_for(tau: float, backend: str) -> None:
    att, dfd = Side.troops(400), Side.troops(300, 1.4)
    full, _ = per_casualty_exact(att, dfd, tau=0.0, backend="numpy")
    if backend == "loops":
        aw, dw = np.zeros(att.rounds), np.zeros(dfd.rounds)
        sdr = dfd.strength[::-1].copy()
        pruned = _kernels.per_casualty_loops(att.strength, sdr, tau, aw, dw)
        cut = FightEndStates(aw, dw)
    else:
        cut, pruned = per_casualty_exact(att, dfd, tau=tau, backend=backend)  # type: ignore[arg-type]
    assert pruned > tau
    kept = cut.attacker_wins.sum() + cut.defender_wins.sum()
    assert abs(kept + pruned - 1.0) < 1e-13
    assert np.all(cut.attacker_wins <= full.attacker_wins + 1e-16)
    assert np.all(cut.defender_wins <= full.defender_wins + 1e-16)


def test_the_default_thresholds_bound_the_dropped_mass() -> None:
    from bellum.odds.exact import MAX_PRUNED, per_casualty_tau, server_tau

    small, big = Side.troops(10), Side.troops(10**6)
    assert per_casualty_tau(small, small) == server_tau(small, small) == 1e-18
    assert per_casualty_tau(big, big) * (2 * 10**6) <= MAX_PRUNED
    assert server_tau(big, small) * (10**7) <= MAX_PRUNED


@pytest.mark.skipif(
    not numba_wanted(),
    reason="numba is not installed (pip install 'bellum[fast]') or BELLUM_NO_NUMBA is set",
)
@pytest.mark.parametrize("tau", [None, 0.0, 1e-9])
def test_numba_and_numpy_agree_on_a_larger_per_casualty_fight(tau: float | None) -> None:
    att, dfd = Side.troops(2500, 1.3), Side.from_groups([(1200, 1.0), (1000, 1.8)])
    a, pa = per_casualty_exact(att, dfd, tau=tau, backend="numpy")
    b, pb = per_casualty_exact(att, dfd, tau=tau, backend="numba")
    assert abs(pa - pb) < 1e-15
    np.testing.assert_allclose(a.attacker_wins, b.attacker_wins, rtol=0, atol=1e-15)
    np.testing.assert_allclose(a.defender_wins, b.defender_wins, rtol=0, atol=1e-15)


def test_pruning_is_reported() -> None:
    att, dfd = Side.troops(60), Side.troops(60)
    exact, none = server_exact(att, dfd, tau=0.0, backend="numpy")
    cut, pruned = server_exact(att, dfd, tau=1e-9, backend="numpy")
    assert none == 0.0
    assert 0 < pruned < 1e-5
    lost = exact.attacker_wins.sum() + exact.defender_wins.sum()
    kept = cut.attacker_wins.sum() + cut.defender_wins.sum()
    assert abs(lost - kept - pruned) < 1e-13


@settings(deadline=None, max_examples=40, derandomize=True)
@given(
    att=st.integers(1, 40),
    extra=st.integers(1, 10),
    dfd=st.integers(1, 40),
    mult=st.sampled_from([0.5, 1.0, 1.5, 2.0]),
    model=st.sampled_from(["server", "per-casualty"]),
)
def test_more_attackers_never_lower_the_odds(
    att: int, extra: int, dfd: int, mult: float, model: str
) -> None:
    defender = Side.troops(dfd, mult)
    weak = fight_odds(Side.troops(att), defender, model, "exact")  # type: ignore[arg-type]
    strong = fight_odds(Side.troops(att + extra), defender, model, "exact")  # type: ignore[arg-type]
    assert strong.p_attacker_wins >= weak.p_attacker_wins - 1e-12


def test_vectorised_jitter_matches_the_scalar_server_helpers() -> None:
    odds = np.array([0.0, 0.01, 0.04, 0.045, 0.05, 0.3, 1 / 3, 0.95, 0.96, 1.0])
    table = jittered_probabilities(odds)
    for i, o in enumerate(odds):
        for j, offset in enumerate(JITTERS):
            assert table[i, j] == chance_probability(jitter(float(o), offset))
            assert table[i, j] == float(server_p(float(o), 1.0 - float(o), j + 1)) or o in (0, 1)
    for j in range(len(JITTERS)):
        at = jittered_probability(odds, np.full(odds.size, j, dtype=np.int64))
        assert at.tolist() == table[:, j].tolist()
    mixed = np.arange(odds.size, dtype=np.int64) % len(JITTERS)
    assert jittered_probability(odds, mixed).tolist() == table[np.arange(odds.size), mixed].tolist()
    # Odds near 0 and 1, where a jitter takes the chance below 0 or above 1.
    rng = np.random.default_rng(5)
    many = np.concatenate([rng.random(2000), rng.random(2000) * 0.06, 1 - rng.random(2000) * 0.06])
    picks = rng.integers(0, len(JITTERS), size=many.size)
    got = jittered_probability(many, picks).tolist()
    want = [chance_probability(jitter(float(o), JITTERS[int(j)]))
            for o, j in zip(many.tolist(), picks.tolist(), strict=True)]  # fmt: skip
    assert got == want


@pytest.mark.parametrize("backend", BACKENDS)
def test_a_hopeless_giant_is_solved_without_sweeping_every_diagonal(backend: str) -> None:
    # 10**6 vs 3: past a few hundred diagonals every state has underflowed to
    # exactly 0, and the sweep stops there; the answer still sums to 1.
    if backend == "loops":
        states = loops_per_casualty(Side.troops(10**6), Side.troops(3))
    else:
        states, _ = per_casualty_exact(Side.troops(10**6), Side.troops(3), backend=backend)  # type: ignore[arg-type]
    assert abs(states.attacker_wins.sum() + states.defender_wins.sum() - 1) < 1e-12
    assert states.attacker_wins[:3].sum() > 0.99999


@pytest.mark.parametrize("backend", BACKENDS)
def test_constant_odds_are_a_negative_binomial_race(backend: str) -> None:
    # Strengths that never change: every round is the same coin, and the attacker
    # wins having lost k rounds with probability C(D-1+k, k) p**D q**k.
    ka, kd = 45, 30
    att, dfd = Side.from_arrays([3.0] * ka + [0.0]), Side.from_arrays([2.0] * kd + [0.0])
    if backend == "loops":
        got = loops_per_casualty(att, dfd)
    else:
        got, _ = per_casualty_exact(att, dfd, backend=backend)  # type: ignore[arg-type]
    p = Fraction(3.0 / 5.0)
    q = 1 - p
    aw = [math.comb(kd - 1 + k, k) * p**kd * q**k for k in range(ka)]
    dw = [math.comb(ka - 1 + k, k) * q**ka * p**k for k in range(kd)]
    assert_matches(got, (aw, dw), tol=1e-15)
