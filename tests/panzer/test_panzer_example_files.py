"""Each example scenario shows the rule its header describes, with the numbers it states."""

from __future__ import annotations

import pytest
from panzer_helpers import EXAMPLES

from bellum.panzer import AssaultBreakdown, load_scenario, plan_assault


def bd_of(name: str) -> AssaultBreakdown:
    return plan_assault(load_scenario(EXAMPLES / f"{name}.toml")).breakdown


def modifier(bd: AssaultBreakdown, name: str) -> tuple[float, str]:
    m = next(m for m in bd.attackers.modifiers if m.name == name)
    return m.pct, m.reason


def test_terrain_with_vehicles() -> None:
    pct, reason = modifier(bd_of("terrain-vehicles"), "terrain")
    assert pct == -20 and "village" in reason and "us-tk" in reason


def test_hexsides() -> None:
    pct, reason = modifier(bd_of("hexsides"), "hexside")
    assert pct == -40 and "escarpment on hexside 3,4|4,4" in reason


def test_quality_and_fatigue() -> None:
    bd = bd_of("quality-fatigue")
    pct, reason = modifier(bd, "unit")
    assert pct == -30 and "ru-rif" in reason
    assert bd.defenders.modifiers[0].pct == 10 and "de-b" in bd.defenders.modifiers[0].reason


def test_combined_arms_without_support() -> None:
    ca = bd_of("combined-arms-unsupported").combined_arms
    assert (ca.defending_infantry, ca.supporting_infantry, ca.deficit) == (125, 60, 65)
    assert (ca.required, ca.penalised) == (7, 7)
    assert dict(ca.per_unit) == pytest.approx({"de-pz1": 3, "de-pz2": 4})


def test_combined_arms_with_exactly_enough_support() -> None:
    ca = bd_of("combined-arms-supported").combined_arms
    assert not ca.applies and ca.supporting_infantry == ca.defending_infantry == 100


def test_mixed_organizations() -> None:
    pct, reason = modifier(bd_of("mixed-organization"), "mixed organization")
    assert pct == -20 and "us-16" in reason and "us-116" in reason


def test_bocage() -> None:
    bd = bd_of("bocage")
    assert [t.defense_value for t in bd.attackers.units] == [4, 2, 7]
    assert modifier(bd, "terrain")[0] == -40
    assert bd.attackers.units[1].assault_value == 6 * 0.25  # travel mode (§16.4)


def test_alternative_assault_resolution() -> None:
    bd = bd_of("alternative-resolution")
    assert bd.hard_share is not None and bd.hard_share[0] == pytest.approx(1 / 3)
    assert bd.attackers.units[0].assault_value == pytest.approx(14 / 3 + 8 * 2 / 3)


def test_surrounded_defenders_have_no_retreat() -> None:
    from bellum.panzer import exact_distribution

    dist = exact_distribution(load_scenario(EXAMPLES / "surrender.toml"))
    assert dist.outcome("retreated") == 0 and dist.outcome("surrendered") > 0.5
    assert 0 < dist.outcome("failed") < 0.01 and 0.35 < dist.outcome("eliminated") < 0.45


def test_brigade() -> None:
    from bellum.panzer import exact_distribution

    s = load_scenario(EXAMPLES / "brigade.toml")
    bd = plan_assault(s).breakdown
    assert modifier(bd, "terrain")[0] == -20 and bd.defenders.modifiers[0].pct == 10
    assert bd.combined_arms.applies and bd.combined_arms.penalised == 0
    assert [h.exempt for h in bd.combined_arms.hexes if h.vehicles] == [True, True]
    assert bd.attackers.units[4].defense_value == 8  # deployed mot/mech: Infantry Defense
    assert round(bd.odds, 1) == 1.3
    assert 0.22 < exact_distribution(s).p_success < 0.24
