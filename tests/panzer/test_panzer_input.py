"""Who may assault (§1.1) and bad scenario input: one-line errors naming file, unit, hex, rule."""

from __future__ import annotations

import math
from pathlib import Path
from typing import Any

import pytest
import tomli_w
from panzer_helpers import EXAMPLES, build, build_doc, unit

from bellum.errors import CommandError, InputError
from bellum.panzer import load_scenario, plan_assault, save_scenario, scenario_from_dict
from bellum.panzer.scenario import scenario_to_dict

DEF = unit("d", "4,4", side="D")


def refused(attacker: dict[str, Any], **kw: Any) -> str:
    with pytest.raises(CommandError) as err:
        plan_assault(build([attacker, DEF], **kw))
    message = str(err.value)
    assert "\n" not in message and message.startswith("test.toml: ")
    return message


@pytest.mark.parametrize(
    ("fields", "why"),
    [
        ({"hq": True}, "headquarters"),
        ({"state": "broken"}, "Broken"),
        ({"state": "disrupted"}, "Disrupted"),
        ({"mode": "rail"}, "Rail Mode"),
        ({"towed": True, "kind": "gun"}, "towed gun"),
        ({"fixed": True}, "Fixed"),
        ({"digging_in": True}, "Digging-In"),
        ({"fatigue": 300}, "Maximum Fatigue"),
        ({"assault": 0}, "assault value 0"),
        ({"hex": "2,2"}, "not adjacent"),
        ({"movement_left": 0.5}, "movement points"),
    ],
)
def test_units_that_may_not_assault(fields: dict[str, Any], why: str) -> None:
    message = refused(unit("a1", "3,3") | fields)
    assert "unit a1" in message and "4,4" in message and why in message


@pytest.mark.parametrize(
    ("fields", "rule"),
    [
        ({"state": "disrupted"}, "unknowns.attackers.allow_disrupted"),
        ({"fatigue": 300}, "unknowns.attackers.allow_max_fatigue"),
        ({"towed": True, "kind": "gun"}, "unknowns.attackers.allow_towed_guns"),
        ({"fixed": True}, "unknowns.attackers.allow_fixed_or_digging_in"),
        ({"assault": 0}, "unknowns.attackers.require_positive_assault"),
    ],
)
def test_inferred_refusals_can_be_switched_off(fields: dict[str, Any], rule: str) -> None:
    value = rule.endswith("require_positive_assault") is False
    plan = plan_assault(build([unit("a1", "3,3", **fields), DEF], rules={rule: value}))
    assert plan.attackers[0].id == "a1"


def test_movement_cost_of_entering_the_target() -> None:
    ok = build(
        [unit("a1", "3,3", movement_left=3), DEF],
        terrain={"4,4": "forest"},
        params={"movement_cost": {"forest": 3}},
    )
    assert plan_assault(ok).attackers
    message = refused(
        unit("a1", "3,3", movement_left=3),
        terrain={"4,4": "forest"},
        params={"movement_cost": {"forest": 3}, "hexside_movement_cost": {"stream": 1}},
        hexsides=[{"between": ["3,3", "4,4"], "features": ["stream"]}],
    )
    assert "entering 4,4 costs 4" in message


def test_full_allowance_minimum_move_rule() -> None:
    fresh = unit("a1", "3,3", movement_left=2, movement_allowance=2)
    kw: dict[str, Any] = {"terrain": {"4,4": "city"}, "params": {"movement_cost": {"city": 5}}}
    assert "movement points" in refused(fresh, **kw)
    rule = {"unknowns.attackers.full_allowance_minimum_move": True}
    assert plan_assault(build([fresh, DEF], rules=rule, **kw)).attackers
    tired = unit("a1", "3,3", movement_left=1, movement_allowance=2)
    assert "movement points" in refused(tired, rules=rule, **kw)


def test_major_river_without_bridge_cannot_be_crossed() -> None:
    message = refused(
        unit("a1", "3,3"), hexsides=[{"between": ["3,3", "4,4"], "features": ["major_river"]}]
    )
    assert "major_river" in message and "3,3|4,4" in message


@pytest.mark.parametrize(
    ("units", "attackers", "target", "expected"),
    [
        ([unit("a", "3,3")], ["a"], "4,4", "holds no units"),
        ([unit("a", "3,3"), unit("b", "4,4")], ["a"], "4,4", "assaulting side"),
        ([unit("a", "3,3"), DEF], ["zz"], "4,4", "'zz' does not exist"),
        ([unit("a", "3,3"), unit("b", "3,4", side="C"), DEF], ["a", "b"], "4,4", "one side"),
        ([unit("a", "3,3"), DEF], ["a", "a"], "4,4", "listed twice"),
        ([unit("a", "3,3"), DEF], ["a"], "9,9", "off the map"),
    ],
)
def test_bad_assault_orders(
    units: list[dict[str, Any]], attackers: list[str], target: str, expected: str
) -> None:
    with pytest.raises(CommandError, match=expected):
        plan_assault(build(units, attackers=attackers, target=target))


def test_participants_limited_by_stacking_when_asked() -> None:
    units = [unit("a", "3,3", strength=2000), unit("b", "3,4", strength=2000), DEF]
    assert plan_assault(build(units))
    with pytest.raises(CommandError, match="stacking maximum 3000"):
        plan_assault(
            build(units, rules={"unknowns.attackers.limit_participants_by_stacking": True})
        )


# scenario validation -------------------------------------------------------------------------


def bad(doc: dict[str, Any]) -> str:
    with pytest.raises(InputError) as err:
        scenario_from_dict(doc, "bad.toml")
    message = str(err.value)
    assert "\n" not in message and message.startswith("bad.toml: ")
    return message


@pytest.mark.parametrize(
    ("fields", "expected"),
    [
        ({"quality": "G"}, "unit a: quality 'G' is outside A-F"),
        ({"fatigue": 301}, "unit a: fatigue 301 is outside 0-300"),
        ({"fatigue": -1}, "fatigue -1 is outside 0-300"),
        ({"kind": "tank"}, "kind 'tank'"),
        ({"strength": 0}, "strength 0"),
        ({"strength": "ten"}, "strength must be an integer"),
        ({"hex": "x"}, "hex 'x'"),
        ({"hex": "20,20"}, "off the 8x8 map"),
        ({"colour": "red"}, "unknown key 'colour'"),
        ({"mode": "flying"}, "mode 'flying'"),
        ({"assault": -1}, "unit a: assault = -1 must be between 0 and 1000"),
        ({"strength": 1_000_000}, "unit a: strength 1000000 must be between 1 and 100000"),
    ],
)
def test_bad_units(fields: dict[str, Any], expected: str) -> None:
    assert expected in bad(build_doc([unit("a", "3,3") | fields, DEF]))


def test_unknown_terrain_names_the_hex() -> None:
    message = bad(build_doc([unit("a", "3,3"), DEF], terrain={"4,4": "lava"}))
    assert "hex 4,4" in message and "unknown terrain 'lava'" in message


def test_unknown_hexside_and_non_adjacent_hexside() -> None:
    doc = build_doc([DEF], hexsides=[{"between": ["3,3", "4,4"], "features": ["moat"]}])
    assert "unknown hexside feature 'moat'" in bad(doc)
    doc = build_doc([DEF], hexsides=[{"between": ["1,1", "4,4"], "features": ["river"]}])
    assert "not adjacent" in bad(doc)


def test_rules_are_validated() -> None:
    assert "unknown rule key 'no.such.rule'" in bad(build_doc([DEF], rules={"no.such.rule": 1}))
    message = bad(build_doc([DEF], rules={"unknowns.defense.weight": "heavy"}))
    assert "must be one of equivalent, raw" in message
    message = bad(build_doc([DEF], rules={"optional_rules.optional_surrender": "yes"}))
    assert "true or false" in message


def test_two_sides_in_one_hex() -> None:
    message = bad(build_doc([DEF, unit("a", "4,4")]))
    assert "unit a: hex 4,4 already holds units of side D" in message


def test_schema_version_and_duplicates() -> None:
    doc = build_doc([DEF])
    doc["schema_version"] = 2
    assert "schema_version must be 1, not 2" in bad(doc)
    del doc["schema_version"]  # worded as an Empire world's (issue 29, item 7)
    assert "schema_version: missing: a scenario starts with schema_version = 1" in bad(doc)
    assert "appears twice" in bad(build_doc([DEF, DEF]))


def test_malformed_toml_and_missing_file(tmp_path: Path) -> None:
    path = tmp_path / "broken.toml"
    path.write_text("schema_version = 1\n[map\n")
    with pytest.raises(InputError, match=r"broken.toml: malformed TOML"):
        load_scenario(path)
    with pytest.raises(InputError, match=r"missing\.toml: no such scenario"):
        load_scenario(tmp_path / "missing.toml")


def test_revision_1_loss_pair_needs_its_rule() -> None:
    """Silently ignoring assault_low/assault_high would resolve an old scenario wrongly."""
    old = {"assault_low": 5, "assault_high": 25}
    message = bad(build_doc([unit("a", "3,3"), DEF], params=old))
    assert "assault_low and assault_high belong to revision 1's single loss pair" in message
    assert 'combat.assault_pair_for_attacker_losses = "single"' in message
    single = {"combat.assault_pair_for_attacker_losses": "single"}
    s = build([unit("a", "3,3"), DEF], params=old, rules=single)
    assert plan_assault(s).breakdown.against_defenders.pair.name == "assault"
    reversed_pair = {"assault_defender_low": 30, "assault_defender_high": 20}
    assert "assault_defender_high must not be below assault_defender_low" in bad(
        build_doc([DEF], params=reversed_pair)
    )


def test_nested_rules_tables_are_accepted() -> None:
    doc = build_doc([unit("a", "3,3"), DEF])
    doc["rules"] = {"optional_rules": {"optional_surrender": True}}
    assert scenario_from_dict(doc).rules.flag("optional_rules.optional_surrender")


# round trip -----------------------------------------------------------------------------------


@pytest.mark.parametrize("path", sorted(EXAMPLES.glob("*.toml")), ids=lambda p: p.stem)
def test_examples_round_trip(path: Path, tmp_path: Path) -> None:
    s = load_scenario(path)
    out = tmp_path / "copy.toml"
    save_scenario(s, out)
    again = load_scenario(out)
    assert scenario_to_dict(again) == scenario_to_dict(s)
    assert again.units == s.units and again.rules == s.rules
    assert list(tmp_path.iterdir()) == [out]  # no temporary file left behind


def test_saving_into_a_missing_directory_fails_cleanly(tmp_path: Path) -> None:
    s = load_scenario(EXAMPLES / "bocage.toml")
    with pytest.raises(InputError, match="cannot write"):
        save_scenario(s, tmp_path / "nope" / "out.toml")


def test_dump_is_valid_toml() -> None:
    s = load_scenario(EXAMPLES / "hexsides.toml")
    assert "schema_version = 1" in tomli_w.dumps(scenario_to_dict(s))


NOT_FINITE = [math.nan, math.inf, -math.inf]


@pytest.mark.parametrize("value", [*NOT_FINITE, 1e308, 10**400])
@pytest.mark.parametrize("key", ["assault", "defense", "hard_attack", "movement_left"])
def test_unit_numbers_must_be_finite_and_sensible(key: str, value: float) -> None:
    message = bad(build_doc([unit("a", "3,3") | {key: value}, DEF]))
    assert f"unit a: {key} = " in message
    assert "finite" in message or "between 0 and" in message


@pytest.mark.parametrize("value", [*NOT_FINITE, 1e308])
@pytest.mark.parametrize(
    "key",
    ["quality.bonus_scale.assault", "combat.reference_combat_value", "unknowns.fatigue.cap",
     "morale.inferred.check_trigger", "assault_rules.mixed_org_penalty_pct"],
)  # fmt: skip
def test_rule_numbers_must_be_finite_and_in_range(key: str, value: float) -> None:
    # NaN used to slip through the minimum/maximum comparisons; 1e308 overflowed later.
    message = bad(build_doc([DEF], rules={key: value}))
    assert f"[rules]: rule {key} = " in message
    assert "finite" in message or "at most" in message or "at least" in message


@pytest.mark.parametrize("value", [*NOT_FINITE, 1e308])
def test_parameter_data_numbers_must_be_finite_and_in_range(value: float) -> None:
    message = bad(build_doc([DEF], params={"assault_attacker_high": value}))
    assert "[parameter_data]: assault_attacker_high = " in message
    message = bad(build_doc([DEF], params={"mine_prob_pct": 101}))
    assert "mine_prob_pct = 101 must be between 0 and 100" in message
    message = bad(build_doc([DEF], params={"terrain": {"forest": value}}))
    assert "[parameter_data.terrain]: forest = " in message
    message = bad(build_doc([DEF], params={"movement_cost": {"forest": -1}}))
    assert "[parameter_data.movement_cost]: forest = -1 must be between 0 and 1000" in message


def test_a_file_written_by_assault_out_says_what_it_is(tmp_path: Path) -> None:
    from bellum.panzer import resolve_assault

    result = resolve_assault(load_scenario(EXAMPLES / "quality-fatigue.toml"), seed=3)
    after = tmp_path / "after.toml"
    save_scenario(result.scenario, after, {"last_assault": {"target": "4,4", "seed": 3}})
    state = load_scenario(after)
    assert state.last_assault == {"target": "4,4", "seed": 3}
    with pytest.raises(CommandError) as err:
        plan_assault(state)
    assert "is the state after an assault" in str(err.value) and "add an [assault]" in str(
        err.value
    )
    # Saved again, the file still says where it came from.
    save_scenario(state, tmp_path / "again.toml")
    assert load_scenario(tmp_path / "again.toml").last_assault == state.last_assault


def test_arithmetic_that_overflows_is_refused_before_the_dice() -> None:
    # Each value is in range, but assault 1000 x 100,000 men over a defense of 1e-300
    # divides to infinity; the loss draw used to crash with "cannot convert float NaN".
    s = build(
        [unit("a", "3,3", strength=100_000, assault=1000), unit("d", "4,4", "D", defense=1e-300)]
    )
    with pytest.raises(CommandError) as err:
        plan_assault(s)
    assert str(err.value).startswith("test.toml: the losses to D came out as inf")
