"""The exact outcome distribution: sums to 1, matches closed forms, matches the resolver's MC."""

from __future__ import annotations

import math
from collections.abc import Callable
from pathlib import Path

import pytest
from panzer_helpers import EXAMPLES, build, pairs, unit

from bellum.panzer import Scenario, load_scenario, plan_assault
from bellum.panzer._chance import rounded_uniform_pmf
from bellum.panzer.distribution import Distribution, compare, exact_distribution, monte_carlo


@pytest.mark.parametrize("path", sorted(EXAMPLES.glob("*.toml")), ids=lambda p: p.stem)
def test_exact_distribution_of_every_example_sums_to_one(path: Path) -> None:
    dist = exact_distribution(load_scenario(path))
    assert dist.total == pytest.approx(1.0, abs=1e-9)
    assert all(p >= 0 for p in dist.joint.values())
    assert sum(dist.outcomes.values()) == pytest.approx(1.0, abs=1e-9)


def test_single_defender_loss_law_is_the_rounded_uniform() -> None:
    """One personnel defender that can retreat: its loss is the §7.1 draw itself."""
    s = build(
        [unit("a", "3,3", strength=800, assault=6), unit("d", "4,4", "D", strength=400)],
        params=pairs(50, 90),
    )
    cr = plan_assault(s).breakdown.against_defenders
    expected = rounded_uniform_pmf(cr.low, cr.high)
    got = exact_distribution(s).losses(attacker=False)
    assert got == pytest.approx(expected)


# Equal 800-man battalions (assault = defense = 5): both combat values are 800.  The attackers'
# pair 125/125 makes them lose exactly 100 men; the defenders' 300/375 makes them lose 240-300,
# always more, so the assault fails exactly when every attacker ends Disrupted.
CERTAIN = {
    "assault_attacker_low": 125,
    "assault_attacker_high": 125,
    "assault_defender_low": 300,
    "assault_defender_high": 375,
}
REVISION_1_OUTCOME = {
    "morale.inferred.check_trigger": "any_loss",
    "unknowns.outcome.success_rule": "attacker_not_disrupted",
}


def test_attacker_morale_sets_the_failure_probability() -> None:
    """A C attacker (morale 4) losing 100 of 800 checks with probability 100/(100 + 80) (§16.2)
    and fails the d6 with 2/6; revision 1 checked after any loss: 2/6."""
    units = [unit("a", "3,3", strength=800), unit("d", "4,4", "D", strength=800)]
    dist = exact_distribution(build(units, params=CERTAIN))
    assert dist.outcome("failed") == pytest.approx(100 / 180 * 2 / 6)
    assert dist.outcome("retreated") == pytest.approx(1 - 100 / 180 * 2 / 6)
    old = exact_distribution(build(units, params=CERTAIN, rules=REVISION_1_OUTCOME))
    assert old.outcome("failed") == pytest.approx(2 / 6)


def test_two_attackers_fail_only_if_both_are_shaken() -> None:
    """§16.3: the assault fails when every attacker is Disrupted; revision 1: when any is."""
    units = [
        unit("a1", "3,3", strength=400, quality="B"),
        unit("a2", "3,4", strength=400, quality="D"),
        unit("d", "4,4", "D", strength=800),
    ]
    # each attacker loses 50 of 400 men: checks with probability 50 / (50 + 40)
    check = 50 / 90
    dist = exact_distribution(build(units, params=CERTAIN))
    assert dist.outcome("failed") == pytest.approx(check * 1 / 6 * check * 3 / 6)
    old = exact_distribution(build(units, params=CERTAIN, rules=REVISION_1_OUTCOME))
    assert old.outcome("failed") == pytest.approx(1 - (5 / 6) * (3 / 6))


# ------------------------------------------------------------------------ exact vs Monte Carlo


def chi_square_critical(dof: int, z: float = 4.753) -> float:
    """Upper quantile of chi-square by Wilson-Hilferty; z = 4.753 is the 1e-6 normal tail."""
    k = float(dof)
    return k * (1 - 2 / (9 * k) + z * math.sqrt(2 / (9 * k))) ** 3


def chi_square(exact: dict[int, float], sample: dict[int, float], runs: int) -> tuple[float, int]:
    """Pearson statistic over bins merged until each expects at least 5 counts."""
    bins: list[tuple[float, float]] = []
    e_acc = o_acc = 0.0
    for k in sorted(set(exact) | set(sample)):
        e_acc += exact.get(k, 0.0) * runs
        o_acc += sample.get(k, 0.0) * runs
        if e_acc >= 5:
            bins.append((e_acc, o_acc))
            e_acc = o_acc = 0.0
    if bins and (e_acc or o_acc):
        e, o = bins.pop()
        bins.append((e + e_acc, o + o_acc))
    stat = sum((o - e) ** 2 / e for e, o in bins)
    return stat, max(1, len(bins) - 1)


def surrounded_pair() -> Scenario:
    """Several defenders, some Broken, no retreat, optional surrender, random-unit losses."""
    return build(
        [
            unit("a1", "1,0", strength=600, quality="B", assault=7),
            unit("a2", "0,1", kind="vehicle", strength=12, assault=9, defense=9),
            unit("d1", "0,0", "D", strength=120, quality="D", state="broken", fatigue=300),
            unit("d2", "0,0", "D", kind="gun", strength=6, quality="C", defense=3),
            unit("d3", "0,0", "D", strength=80, quality="E", state="disrupted", fatigue=300),
        ],
        target="0,0",
        terrain={"0,0": "village"},
        params=pairs(40, 160),
        rules={
            "optional_rules.optional_surrender": True,
            "combat.distribution": "single_random_weighted",
        },
    )


CASES = [
    ("terrain-vehicles", lambda: load_scenario(EXAMPLES / "terrain-vehicles.toml"), 11),
    ("surrender", lambda: load_scenario(EXAMPLES / "surrender.toml"), 12),
    ("combined-arms", lambda: load_scenario(EXAMPLES / "combined-arms-unsupported.toml"), 13),
    ("surrounded-pair", surrounded_pair, 14),
    ("brigade", lambda: load_scenario(EXAMPLES / "brigade.toml"), 15),
]


@pytest.mark.parametrize(("name", "make", "seed"), CASES, ids=[c[0] for c in CASES])
def test_exact_law_matches_monte_carlo_of_the_resolver(
    name: str, make: Callable[[], Scenario], seed: int
) -> None:
    """20,000 resolutions (5,000 for the 12-unit brigade) with a fixed seed against the law.

    Tolerances: every outcome probability and both expected losses within 4.5 standard
    errors (two-sided 99.9993 % confidence each), and Pearson's chi-square of both loss
    marginals below its 1 - 1e-6 quantile.  The seed is fixed, so the test is deterministic
    and never flaky; a correct law would fail these bounds by chance with probability below
    about 1e-4 over all the comparisons of a run, a wrong one in any outcome by a couple of
    percentage points fails them.
    """
    scenario = make()
    plan = plan_assault(scenario)
    exact = exact_distribution(plan)
    runs = 5_000 if name == "brigade" else 20_000  # 12 units: the resolver is slower
    sample = monte_carlo(plan, runs, seed)
    agreement = compare(exact, sample)
    assert agreement.max_abs_z < 4.5, agreement.rows
    for attacker in (True, False):
        stat, dof = chi_square(exact.losses(attacker), sample.losses(attacker), runs)
        assert stat < chi_square_critical(dof), (attacker, stat, dof)


def test_the_check_detects_a_wrong_law() -> None:
    """The same comparison rejects a law with 3 points moved between outcomes."""
    plan = plan_assault(load_scenario(EXAMPLES / "terrain-vehicles.toml"))
    exact = exact_distribution(plan)
    shifted = {
        (a, d, "retreated" if o == "failed" and (a + d) % 11 == 0 else o): p
        for (a, d, o), p in exact.joint.items()
    }
    moved = exact.outcome("failed") - Distribution.from_joint(shifted).outcome("failed")
    assert 0.02 < moved < 0.2
    sample = monte_carlo(plan, 20_000, 11)
    assert compare(Distribution.from_joint(shifted), sample).max_abs_z > 4.5


def test_exact_work_is_estimated_and_refused_before_it_starts(
    monkeypatch: pytest.MonkeyPatch,
) -> None:
    from bellum.errors import CommandError
    from bellum.panzer import distribution

    plan = plan_assault(load_scenario(EXAMPLES / "quality-fatigue.toml"))
    assert 0 < distribution.exact_seconds(plan) < 1  # the example takes well under a second
    monkeypatch.setattr(distribution, "MAX_CELLS", 10)
    with pytest.raises(CommandError, match=r"limits 30 s, 8e-05 MB"):
        exact_distribution(plan)
    monkeypatch.setattr(distribution, "MAX_CELLS", 10**6)
    monkeypatch.setattr(distribution, "MAX_SECONDS", 1e-9)
    with pytest.raises(CommandError, match="would take about"):
        exact_distribution(plan)


def test_a_wide_loss_range_is_enumerated_in_linear_time() -> None:
    """The rounded-uniform pmf is built once per range, not once per enumerated value."""
    from bellum.panzer._chance import _live_rounded_uniform

    s = build(
        [unit("a", "3,3", strength=2000, assault=50), unit("d", "4,4", "D", strength=50)],
        params={"assault_defender_high": 500},
    )
    _live_rounded_uniform.cache_clear()
    dist = exact_distribution(s)
    assert dist.total == pytest.approx(1.0, abs=1e-9)
    info = _live_rounded_uniform.cache_info()
    assert info.misses == 2 and info.hits > 1000
