"""The numeric examples of panzer-examples.md: EX-1, EX-2, EX-4, EX-5, EX-6 and EX-8."""

from __future__ import annotations

import pytest
from panzer_helpers import build, unit

from bellum.panzer import plan_assault
from bellum.panzer._chance import enumerate_outcomes, rounded_uniform_pmf
from bellum.panzer.assault import LossPair, combat_range, hard_share
from bellum.panzer.battlefield import Hex
from bellum.panzer.results import failed_state, morale_check, unit_loss
from bellum.panzer.rules import Rules
from bellum.panzer.tables import tables
from bellum.panzer.units import Kind, State, Unit


def _unit(**kw: object) -> Unit:
    base: dict[str, object] = dict(id="u", side="A", hex=Hex(0, 0), kind=Kind.PERSONNEL)
    base.update(strength=100, assault=5.0, defense=5.0)
    base.update(kw)
    return Unit(**base)  # type: ignore[arg-type]


# EX-1 --------------------------------------------------------------------------------------


def test_ex1_combat_range_scales_lcv_hcv_by_combat_value_over_1000() -> None:
    # combat value 400 with +25 % -> 500 -> half the reference -> 2.5 .. 12.5
    cr = combat_range(400 * 1.25, 1.0, LossPair("assault", 5, 25), 1000, "D")
    assert (cr.combat_value, cr.low, cr.high) == (500.0, 2.5, 12.5)


def test_ex1_probabilistic_rounding_of_3_7() -> None:
    pmf = rounded_uniform_pmf(3.7, 3.7)
    assert pmf == pytest.approx({3: 0.3, 4: 0.7})


def test_ex1_uniform_draw_in_range_then_rounding_is_unbiased_and_bounded() -> None:
    pmf = rounded_uniform_pmf(2.5, 12.5)
    assert sum(pmf.values()) == pytest.approx(1.0)
    assert min(pmf) == 2 and max(pmf) == 13
    assert sum(k * p for k, p in pmf.items()) == pytest.approx(7.5)
    # a point well inside the range: P(k) = 1 / (high - low)
    assert pmf[7] == pytest.approx(1 / 10)


def test_ex1_through_a_whole_assault() -> None:
    # 500 men x assault 1, defenders' defense 1 -> combat value 500 -> with revision 1's single
    # 5/25 pair, losses 2.5 .. 12.5; with spec §16.1's defenders' pair 20/100, 10 .. 50
    units = [unit("a", "3,3", assault=1, strength=500), unit("d", "4,4", side="D", defense=1)]
    single = {"combat.assault_pair_for_attacker_losses": "single"}
    cr = plan_assault(build(units, rules=single)).breakdown.against_defenders
    assert (cr.low, cr.high) == (2.5, 12.5)
    cr = plan_assault(build(units)).breakdown.against_defenders
    assert (cr.low, cr.high, cr.pair.name) == (10, 50, "assault_defender")


# EX-2 --------------------------------------------------------------------------------------


@pytest.mark.parametrize("kind", [Kind.VEHICLE, Kind.GUN])
def test_ex2_five_men_equivalents_give_a_half_chance_of_one_vehicle_or_gun(kind: Kind) -> None:
    u = _unit(kind=kind, strength=10)
    law = dict(enumerate_outcomes(lambda ch: unit_loss(u, 5.0, ch)))
    assert law == pytest.approx({0: 0.5, 1: 0.5})


def test_ex2_personnel_lose_men_one_for_one() -> None:
    law = dict(enumerate_outcomes(lambda ch: unit_loss(_unit(), 5.0, ch)))
    assert law == {5: 1.0}


# EX-4 --------------------------------------------------------------------------------------


@pytest.mark.parametrize(
    ("quality", "pct"), [("A", 20), ("B", 10), ("C", 0), ("D", -20), ("E", -40), ("F", -60)]
)
def test_ex4_quality_modifiers(quality: str, pct: int) -> None:
    assert _unit(quality=quality).unit_modifier_pct() == pct


@pytest.mark.parametrize(("fatigue", "pct"), [(0, 0), (99, 0), (100, -10), (200, -20), (300, -40)])
def test_ex4_fatigue_modifiers(fatigue: int, pct: int) -> None:
    assert _unit(fatigue=fatigue).unit_modifier_pct() == pct


def test_ex4_spec_example_lowest_attacker_highest_defender() -> None:
    """Attackers B/Low (+10) and C/Medium (-10) use -10; defenders C/None and A/High use 0."""
    s = build([
        unit("a1", "3,3", quality="B", fatigue=50),
        unit("a2", "3,4", quality="C", fatigue=150),
        unit("d1", "4,4", side="D", quality="C"),
        unit("d2", "4,4", side="D", quality="A", fatigue=250),
    ])  # fmt: skip
    bd = plan_assault(s).breakdown
    assert bd.attackers.modifiers[0].pct == -10 and "a2" in bd.attackers.modifiers[0].reason
    assert bd.defenders.modifiers[0].pct == 0


# EX-5 --------------------------------------------------------------------------------------


@pytest.mark.parametrize(
    ("quality", "morale"), list(zip("ABCDEF", [6, 5, 4, 3, 2, 1], strict=True))
)
def test_ex5_morale_numbers(quality: str, morale: int) -> None:
    assert _unit(quality=quality).morale() == morale


def test_ex5_morale_subtractions_and_no_morale() -> None:
    assert _unit(quality="A", fatigue=150).morale() == 5
    assert _unit(quality="A", fatigue=250).morale() == 4
    assert _unit(quality="A", fatigue=300).morale() == 2
    assert _unit(quality="A", low_ammo=True, low_fuel=True).morale() == 5
    assert _unit(quality="A", state=State.DISRUPTED).morale() == 5
    assert _unit(quality="A", isolated=True).morale() == 5
    assert _unit(quality="C", fatigue=300, isolated=True).morale() == -1


def test_ex5_check_passes_on_roll_at_most_morale() -> None:
    rules = Rules({"morale.inferred.check_trigger": "always"})
    law = dict(enumerate_outcomes(lambda ch: morale_check(_unit(quality="D"), 1, 100, rules, ch)))
    passes = sum(p for c, p in law.items() if c is not None and c.passed)
    assert passes == pytest.approx(3 / 6)
    nomorale = _unit(quality="F", fatigue=300)
    law = dict(enumerate_outcomes(lambda ch: morale_check(nomorale, 1, 100, rules, ch)))
    assert all(c is not None and not c.passed for c in law)


def test_ex5_failure_disrupts_then_breaks_at_maximum_fatigue() -> None:
    rules = Rules()
    assert failed_state(_unit(), rules) is State.DISRUPTED
    assert failed_state(_unit(state=State.DISRUPTED, fatigue=300), rules) is State.BROKEN
    # morale.html adds "and at Maximum Fatigue"; the key drops that condition
    assert failed_state(_unit(state=State.DISRUPTED, fatigue=100), rules) is State.DISRUPTED
    loose = Rules({"morale.inferred.broken_requires_max_fatigue": False})
    assert failed_state(_unit(state=State.DISRUPTED, fatigue=100), loose) is State.BROKEN


# EX-6 --------------------------------------------------------------------------------------


def test_ex6_hard_share_counts_tanks_as_ten_men() -> None:
    tanks = _unit(kind=Kind.VEHICLE, strength=10)
    infantry = _unit(strength=200)
    assert hard_share([tanks, infantry]) == pytest.approx(1 / 3)
    assert hard_share([tanks]) == 1.0
    assert hard_share([infantry]) == 0.0


def test_ex6_alternative_assault_resolution_blends_hard_attack() -> None:
    s = build(
        [
            unit("a", "3,3", kind="vehicle", strength=20, assault=8, hard_attack=14),
            unit("d1", "4,4", side="D", kind="vehicle", strength=10),
            unit("d2", "4,4", side="D", strength=200),
        ],
        rules={"optional_rules.alternative_assault_resolution": True},
    )
    term = plan_assault(s).breakdown.attackers.units[0]
    assert term.assault_value == pytest.approx(14 / 3 + 8 * 2 / 3)
    assert term.assault_total == pytest.approx((14 / 3 + 16 / 3) * 200)


def test_ex6_rule_off_uses_assault_value() -> None:
    s = build([
        unit("a", "3,3", kind="vehicle", strength=20, assault=8, hard_attack=14),
        unit("d1", "4,4", side="D", kind="vehicle", strength=10),
    ])  # fmt: skip
    assert plan_assault(s).breakdown.attackers.units[0].assault_value == 8


# EX-8 --------------------------------------------------------------------------------------


@pytest.mark.parametrize(
    ("fatigue", "level"),
    [(0, "None"), (1, "Low"), (99, "Low"), (100, "Medium"), (199, "Medium"), (200, "High"),
     (299, "High"), (300, "Maximum")],
)  # fmt: skip
def test_ex8_fatigue_bands(fatigue: int, level: str) -> None:
    assert tables().fatigue_level(fatigue).name == level
