"""The seed's rules one by one, then combined (spec §3-§5)."""

from __future__ import annotations

import pytest
from panzer_helpers import build, unit

from bellum.panzer import plan_assault
from bellum.panzer.assault import AssaultBreakdown


def mods(bd: AssaultBreakdown) -> dict[str, float]:
    return {m.name: m.pct for m in bd.attackers.modifiers}


def breakdown(units: list[dict[str, object]], **kw: object) -> AssaultBreakdown:
    return plan_assault(build(units, **kw)).breakdown  # type: ignore[arg-type]


DEF = unit("d", "4,4", side="D", strength=200, assault=4, defense=8)


# §3.1 / §3.2 totals ---------------------------------------------------------------------


def test_vehicles_and_guns_count_ten_times_their_strength() -> None:
    bd = breakdown(
        [
            unit("inf", "3,3", strength=300, assault=6),
            unit("tk", "3,3", kind="vehicle", strength=12, assault=9),
            unit("sp", "3,4", kind="gun", strength=4, assault=3),
            DEF,
        ]
    )
    assert bd.attackers.total_assault == 300 * 6 + 120 * 9 + 40 * 3
    assert [t.equivalent for t in bd.attackers.units] == [300, 120, 40]


def test_average_defense_is_weighted_by_equivalent_strength() -> None:
    units = [
        unit("inf", "3,3", strength=300, defense=6),
        unit("tk", "3,3", kind="vehicle", strength=10, defense=10),
        DEF,
    ]
    assert breakdown(units).attackers.average_defense == pytest.approx((300 * 6 + 100 * 10) / 400)
    raw = breakdown(units, rules={"unknowns.defense.weight": "raw"})
    assert raw.attackers.average_defense == pytest.approx((300 * 6 + 10 * 10) / 310)


def test_deployed_motorized_infantry_uses_parameter_data_infantry_defense() -> None:
    units = [
        unit("mot", "3,3", motorized_infantry=True, mode="deployed", defense=3),
        unit("trv", "3,4", motorized_infantry=True, mode="travel", defense=3),
        DEF,
    ]
    terms = breakdown(units, params={"infantry_defense": 9}).attackers.units
    assert [t.defense_value for t in terms] == [9, 3]


# §4.1 hexsides -----------------------------------------------------------------------------


def test_no_hexside_feature_no_modifier() -> None:
    assert mods(breakdown([unit("a", "3,3"), DEF]))["hexside"] == 0


def test_largest_hexside_modifier_of_all_attack_hexsides() -> None:
    bd = breakdown(
        [unit("a", "3,3"), unit("b", "3,4"), DEF],
        hexsides=[
            {"between": ["3,3", "4,4"], "features": ["dune"]},
            {"between": ["4,4", "3,4"], "features": ["escarpment"]},
        ],
    )
    hexside = bd.attackers.modifiers[1]
    assert hexside.pct == -40  # §16.5: dune -10, escarpment -40
    assert "escarpment" in hexside.reason and "3,4|4,4" in hexside.reason


def test_hexside_of_a_hex_without_attackers_is_ignored() -> None:
    bd = breakdown(
        [unit("a", "3,3"), DEF], hexsides=[{"between": ["3,4", "4,4"], "features": ["cliff"]}]
    )
    assert mods(bd)["hexside"] == 0


def test_major_river_with_bridge_uses_the_river_value() -> None:
    bridged = {"between": ["3,3", "4,4"], "features": ["major_river", "bridge"]}
    assert mods(breakdown([unit("a", "3,3"), DEF], hexsides=[bridged]))["hexside"] == 0
    bd = breakdown([unit("a", "3,3"), DEF], hexsides=[bridged], params={"hexside": {"river": 30}})
    assert mods(bd)["hexside"] == -30


# §4.2 terrain ------------------------------------------------------------------------------


def test_terrain_not_applied_without_vehicles() -> None:
    bd = breakdown([unit("a", "3,3"), DEF], terrain={"4,4": "forest"})
    assert mods(bd)["terrain"] == 0
    assert "no attacker counts as vehicles" in bd.attackers.modifiers[2].reason


def test_terrain_applied_to_the_whole_total_when_any_vehicle_attacks() -> None:
    bd = breakdown(
        [unit("a", "3,3", strength=500), unit("tk", "3,4", kind="vehicle", strength=1), DEF],
        terrain={"4,4": "forest"},
    )
    assert mods(bd)["terrain"] == -20
    assert bd.attackers.modified_assault == pytest.approx(0.8 * bd.attackers.total_assault)


@pytest.mark.parametrize(("mode", "pct"), [("travel", -20), ("deployed", 0)])
def test_motorized_infantry_counts_as_vehicles_only_in_travel_mode(mode: str, pct: int) -> None:
    bd = breakdown(
        [unit("m", "3,3", motorized_infantry=True, mode=mode), DEF], terrain={"4,4": "forest"}
    )
    assert mods(bd)["terrain"] == pct


def test_several_terrain_features_use_the_most_protective() -> None:
    units = [unit("tk", "3,3", kind="vehicle", strength=5), DEF]
    assert mods(breakdown(units, terrain={"4,4": ["orchard", "town"]}))["terrain"] == -30
    summed = breakdown(
        units,
        terrain={"4,4": ["orchard", "town"]},
        rules={"unknowns.modifiers.hex_terrain_combine": "sum"},
    )
    assert mods(summed)["terrain"] == -40


# §4.3 unit modifiers -----------------------------------------------------------------------


def test_lowest_attacker_modifier_names_the_unit_that_set_it() -> None:
    bd = breakdown([unit("good", "3,3", quality="A"), unit("bad", "3,4", quality="E"), DEF])
    m = bd.attackers.modifiers[0]
    assert m.pct == -40 and "bad" in m.reason


def test_highest_defender_modifier() -> None:
    bd = breakdown(
        [
            unit("a", "3,3"),
            unit("d1", "4,4", side="D", quality="F"),
            unit("d2", "4,4", side="D", quality="B", fatigue=120),
        ]
    )
    assert bd.defenders.modifiers[0].pct == 0 and "d2" in bd.defenders.modifiers[0].reason
    assert bd.defenders.modified_assault == bd.defenders.total_assault


def test_quality_bonus_scale_only_scales_a_and_b() -> None:
    rules = {"quality.bonus_scale.assault": 0.5}
    assert mods(breakdown([unit("a", "3,3", quality="A"), DEF], rules=rules))["unit"] == 10
    assert mods(breakdown([unit("a", "3,3", quality="D"), DEF], rules=rules))["unit"] == -20


# §4.5 mixed organizations ------------------------------------------------------------------


def org(division: str = "", corps: str = "V", army: str = "1st") -> dict[str, str]:
    return {"army": army, "corps": corps, "division": division}


@pytest.mark.parametrize(
    ("a", "b", "pct"),
    [
        (org("1st Inf"), org("1st Inf"), 0),
        (org("1st Inf"), org("29th Inf"), -20),
        (org(""), org("29th Inf"), 0),  # corps-level unit with a division of its corps
        (org("", corps="V"), org("", corps="VII"), -20),  # corps-level units of two corps
        (org("", corps="V"), org("4th Inf", corps="VII"), -20),  # another corps' division
        (org("", corps="V"), org("", corps="V"), 0),
    ],
)
def test_mixed_organization_penalty(a: dict[str, str], b: dict[str, str], pct: int) -> None:
    bd = breakdown([unit("a", "3,3", organization=a), unit("b", "3,4", organization=b), DEF])
    assert mods(bd)["mixed organization"] == pct


# §4.6 bocage -------------------------------------------------------------------------------


def test_bocage_halves_the_defense_of_vehicles_and_travel_mode_mot_inf_only() -> None:
    bd = breakdown(
        [
            unit("tk", "3,3", kind="vehicle", strength=10, defense=8),
            unit("trv", "3,3", motorized_infantry=True, mode="travel", defense=4),
            unit("dep", "3,4", motorized_infantry=True, mode="deployed", defense=4),
            unit("inf", "3,4", defense=6),
            DEF,
        ],
        terrain={"4,4": "bocage"},
        params={"infantry_defense": 7},
    )
    assert [t.defense_value for t in bd.attackers.units] == [4, 2, 7, 6]
    assert "bocage" in bd.attackers.units[0].defense_note
    # the assault value is not halved, only modified by the bocage terrain (vehicles present)
    assert mods(bd)["terrain"] == -40


def test_no_bocage_halving_elsewhere() -> None:
    bd = breakdown(
        [unit("tk", "3,3", kind="vehicle", strength=10, defense=8), DEF], terrain={"4,4": "forest"}
    )
    assert bd.attackers.units[0].defense_value == 8


def test_bocage_raises_the_losses_the_defenders_inflict() -> None:
    units = [unit("tk", "3,3", kind="vehicle", strength=10, defense=8), DEF]
    forest = breakdown(units, terrain={"4,4": "forest"})
    bocage = breakdown(units, terrain={"4,4": "bocage"})
    assert bocage.against_attackers.high == pytest.approx(2 * forest.against_attackers.high)


# §4.4 combined arms ------------------------------------------------------------------------


def tanks(uid: str, hex: str, n: int) -> dict[str, object]:
    return unit(uid, hex, kind="vehicle", strength=n, assault=10)


def test_no_combined_arms_penalty_in_clear_terrain() -> None:
    bd = breakdown([tanks("tk", "3,3", 10), DEF])
    assert not bd.combined_arms.applies and "Clear" in bd.combined_arms.reason


def test_exactly_enough_supporting_infantry_means_no_penalty() -> None:
    # 10 tanks with 300 infantry: support capped at 10 x 10 = 100 = defending infantry
    bd = breakdown(
        [
            tanks("tk", "3,3", 10),
            unit("i", "3,3", strength=300),
            unit("d", "4,4", "D", strength=100),
        ],
        terrain={"4,4": "forest"},
    )
    ca = bd.combined_arms
    assert (ca.applies, ca.supporting_infantry, ca.defending_infantry) == (False, 100, 100)
    assert all(t.penalised_vehicles == 0 for t in bd.attackers.units)


def test_one_man_short_penalises_one_vehicle() -> None:
    bd = breakdown(
        [tanks("tk", "3,3", 10), unit("i", "3,3", strength=90), unit("d", "4,4", "D", strength=91)],
        terrain={"4,4": "forest"},
    )
    ca = bd.combined_arms
    assert (ca.deficit, ca.required, ca.penalised) == (1, 1, 1)


def test_a_fraction_of_ten_counts_as_ten() -> None:
    # deficit 11 -> two penalised vehicles; 20 tanks alone have 20 unsupported
    bd = breakdown(
        [tanks("tk", "3,3", 20), unit("d", "4,4", "D", strength=11)], terrain={"4,4": "forest"}
    )
    ca = bd.combined_arms
    assert (ca.deficit, ca.required, ca.penalised) == (11, 2, 2)
    term = bd.attackers.units[0]
    assert term.penalised_vehicles == 2
    assert term.assault_total == pytest.approx(10 * (200 - 0.5 * 10 * 2))


def test_infantry_in_another_hex_does_not_support() -> None:
    bd = breakdown(
        [tanks("tk", "3,3", 5), unit("i", "3,4", strength=500), unit("d", "4,4", "D", strength=30)],
        terrain={"4,4": "forest"},
    )
    assert bd.combined_arms.supporting_infantry == 0 and bd.combined_arms.penalised == 3


def test_hex_with_more_infantry_than_ten_per_vehicle_is_exempt() -> None:
    bd = breakdown(
        [tanks("tk", "3,3", 5), unit("i", "3,3", strength=51), unit("d", "4,4", "D", strength=300)],
        terrain={"4,4": "forest"},
    )
    ca = bd.combined_arms
    assert ca.applies and ca.hexes[0].exempt and ca.penalised == 0
    assert "exempt" in ca.reason


def test_penalty_spread_over_hexes_in_proportion_to_unsupported_vehicles() -> None:
    # the example scenario's numbers: deficit 65 -> 7 vehicles of 6 + 8 unsupported
    units = [
        tanks("t1", "3,3", 12),
        unit("i", "3,3", strength=60),
        tanks("t2", "3,4", 8),
        unit("d", "4,4", "D", strength=125),
    ]
    ca = breakdown(units, terrain={"4,4": "forest"}).combined_arms
    assert (ca.supporting_infantry, ca.required, ca.penalised) == (60, 7, 7)
    per_unit = dict(ca.per_unit)
    assert per_unit["t1"] == pytest.approx(3) and per_unit["t2"] == pytest.approx(4)
    weakest = breakdown(
        units,
        terrain={"4,4": "forest"},
        rules={"unknowns.combined_arms.allocation": "weakest_hex_first"},
    )
    assert dict(weakest.combined_arms.per_unit) == {"t2": 7}


def test_defending_vehicles_guns_and_hqs_are_not_defending_infantry() -> None:
    bd = breakdown(
        [
            tanks("tk", "3,3", 5),
            unit("d1", "4,4", "D", kind="vehicle", strength=30),
            unit("d2", "4,4", "D", kind="gun", strength=30),
            unit("d3", "4,4", "D", hq=True, strength=30),
        ],
        terrain={"4,4": "forest"},
    )
    assert bd.combined_arms.defending_infantry == 0 and not bd.combined_arms.applies


# §5 combination ----------------------------------------------------------------------------


def test_all_modifiers_combined_multiplicatively() -> None:
    bd = breakdown(
        [
            unit("a", "3,3", quality="D", organization=org("1st")),
            tanks("tk", "3,4", 10) | {"organization": org("2nd")},
            unit("d", "4,4", "D", strength=100, defense=8, quality="A"),
        ],
        terrain={"4,4": "village"},
        hexsides=[{"between": ["3,3", "4,4"], "features": ["embankment"]}],
    )
    assert mods(bd) == {"unit": -20, "hexside": -20, "terrain": -20, "mixed organization": -20}
    assert bd.attackers.factor == pytest.approx(0.8**4)
    assert bd.defenders.factor == pytest.approx(1.2)
    # 100 defending infantry, no support -> 10 of the 10 tanks at half strength
    assert bd.combined_arms.penalised == 10
    total = 100 * 5 + 10 * (100 - 50)
    assert bd.attackers.total_assault == total
    cv = total * bd.attackers.factor / 8
    assert bd.against_defenders.combat_value == pytest.approx(cv)
    # §16.1: the defenders' losses use the 20/100 pair, the attackers' the 40/200 pair
    assert (bd.against_defenders.low, bd.against_defenders.high) == pytest.approx(
        (20 * cv / 1000, 100 * cv / 1000)
    )
    dcv = 100 * 5 * 1.2 / bd.attackers.average_defense
    assert bd.against_attackers.combat_value == pytest.approx(dcv)
    assert (bd.against_attackers.low, bd.against_attackers.high) == pytest.approx(
        (40 * dcv / 1000, 200 * dcv / 1000)
    )


def test_additive_combination_and_floor() -> None:
    units = [unit("a", "3,3", quality="F", fatigue=250), tanks("tk", "3,4", 1), DEF]
    additive = breakdown(
        units, terrain={"4,4": "industrial"}, rules={"unknowns.modifiers.combine": "additive"}
    )
    assert additive.attackers.factor == 0.0  # 1 - 0.8 - 0.5 floored at 0 (industrial -50)
    assert additive.against_defenders.high == 0.0
    multiplied = breakdown(units, terrain={"4,4": "industrial"}).attackers.factor
    assert multiplied == pytest.approx(0.2 * 0.5)


def test_signed_terrain_convention() -> None:
    bd = breakdown(
        [tanks("tk", "3,3", 5), DEF],
        terrain={"4,4": "forest"},
        params={"terrain": {"forest": -30}},
        rules={"unknowns.modifiers.terrain_sign": "signed"},
    )
    assert mods(bd)["terrain"] == -30


def test_a_side_without_defense_loses_everything() -> None:
    bd = breakdown([unit("a", "3,3"), unit("d", "4,4", "D", strength=70, defense=0)])
    assert (bd.against_defenders.low, bd.against_defenders.high) == (70, 70)
    harmless = breakdown([unit("a", "3,3", defense=0), unit("d", "4,4", "D", assault=0)])
    assert harmless.against_attackers.high == 0


# §4.7 hooks with the values of §16.4 ---------------------------------------------------------


@pytest.mark.parametrize(
    ("side", "fields", "factor", "key"),
    [
        ("D", {"state": "disrupted"}, 0.5, "disrupted_assault_mult"),
        ("D", {"state": "broken"}, 0.25, "broken_assault_mult"),
        ("D", {"low_ammo": True}, 0.5, "low_ammo_assault_mult"),
        ("A", {"low_ammo": True}, 0.25, "low_ammo_attacker_assault_mult"),
        ("D", {"digging_in": True}, 0.5, "digging_in_defender_assault_mult"),
        ("A", {"mode": "travel"}, 0.25, "travel_mode_attacker_assault_mult"),
        ("D", {"mode": "travel"}, 0.25, "travel_or_rail_mode_defender_assault_mult"),
        ("D", {"mode": "rail"}, 0.25, "travel_or_rail_mode_defender_assault_mult"),
    ],
)
def test_section_16_4_factors_scale_one_unit_s_assault_value(
    side: str, fields: dict[str, object], factor: float, key: str
) -> None:
    units = [
        unit("a", "3,3", **(fields if side == "A" else {})),
        unit("d", "4,4", "D", **(fields if side == "D" else {})),
        unit("d2", "4,4", "D"),
    ]
    bd = breakdown(units)
    term = (bd.attackers if side == "A" else bd.defenders).units[0]
    assert term.assault_value == 5 * factor and f"unknowns.effects.{key}" in term.assault_note
    # the other side's unit in the same condition is not touched (only broken is one-sided too)
    other = breakdown([unit("a", "3,3"), unit("d", "4,4", "D")])
    assert other.defenders.units[0].assault_value == other.attackers.units[0].assault_value == 5
    revision_1 = breakdown(units, rules={f"unknowns.effects.{key}": 1.0})
    assert (revision_1.attackers if side == "A" else revision_1.defenders).units[
        0
    ].assault_value == 5


@pytest.mark.parametrize(
    ("reading", "to_defenders", "to_attackers"),
    [
        ("attacker", ("assault_defender", 20, 100), ("assault_attacker", 40, 200)),
        ("defender", ("assault_attacker", 40, 200), ("assault_defender", 20, 100)),
        ("single", ("assault", 5, 25), ("assault", 5, 25)),
    ],
)
def test_which_loss_pair_sets_whose_losses(
    reading: str, to_defenders: tuple[str, int, int], to_attackers: tuple[str, int, int]
) -> None:
    """§16.1: one pair per side; the 'Attacker' pair is the assaulting side's losses."""
    bd = breakdown(
        [unit("a", "3,3", strength=1000, assault=1), unit("d", "4,4", "D", strength=1000)],
        rules={"combat.assault_pair_for_attacker_losses": reading},
    )
    for cr, (name, low, high) in (
        (bd.against_defenders, to_defenders),
        (bd.against_attackers, to_attackers),
    ):
        assert (cr.pair.name, cr.pair.low, cr.pair.high) == (name, low, high)
        assert (cr.low, cr.high) == pytest.approx(
            (low * cr.combat_value / 1000, high * cr.combat_value / 1000)
        )
