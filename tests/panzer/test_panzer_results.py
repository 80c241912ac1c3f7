"""The random half: combat results, losses, morale, outcome, retreat, surrender, advance."""

from __future__ import annotations

import tomllib
from typing import Any

import pytest
from panzer_helpers import EXAMPLES, build, merged, pairs, revision_1, unit

from bellum.dice import ServerRandom
from bellum.panzer import (
    Hex,
    State,
    load_scenario,
    plan_assault,
    resolve_assault,
    scenario_from_dict,
)
from bellum.panzer.results import AssaultResult, resolve_plan

# Defenders with assault 0 inflict nothing: the attackers never check morale and so win.
HARMLESS = {"assault": 0}
CERTAIN_LOSSES = pairs(2000, 2000)


def outcome_of(result: AssaultResult, uid: str) -> Any:
    return next(o for o in result.units if o.unit_id == uid)


def test_same_seed_same_result_bit_for_bit() -> None:
    s = load_scenario(EXAMPLES / "terrain-vehicles.toml")
    a, b = resolve_assault(s, seed=42), resolve_assault(s, seed=42)
    assert a == b and a.seed == 42 and a.draws > 0
    others = {resolve_assault(s, seed=n).losses_to_defenders.drawn for n in range(5)}
    assert len(others) == 5


def test_without_seed_a_fresh_one_is_chosen_and_recorded() -> None:
    s = load_scenario(EXAMPLES / "terrain-vehicles.toml")
    r = resolve_assault(s)
    assert resolve_assault(s, seed=r.seed) == r


def test_draw_order_starts_with_the_two_combat_results() -> None:
    """§7.1: defenders' range draw and rounding, then the attackers' likewise."""
    s = load_scenario(EXAMPLES / "hexsides.toml")
    r = resolve_assault(s, seed=7)
    rng = ServerRandom(7)
    for side in (r.losses_to_defenders, r.losses_to_attackers):
        x = side.low + (side.high - side.low) * rng.real()
        assert x == side.drawn and rng.roundavg(x) == side.rounded


def test_losses_are_spread_in_proportion_to_equivalent_strength() -> None:
    s = build(
        [
            unit("a", "3,3", strength=1000),
            unit("d1", "4,4", "D", strength=300),
            unit("d2", "4,4", "D", kind="vehicle", strength=10),
            unit("d3", "4,4", "D", strength=600),
        ],
        params=pairs(50, 50),
    )
    r = resolve_assault(s, seed=1)
    loss = r.losses_to_defenders.loss
    shares = {o.unit_id: o.share for o in r.units if not o.attacker}
    assert shares == pytest.approx({"d1": loss * 0.3, "d2": loss * 0.1, "d3": loss * 0.6})
    d2 = outcome_of(r, "d2")
    assert d2.loss in (int(d2.share / 10), int(d2.share / 10) + 1)


def test_single_random_weighted_puts_the_loss_on_one_unit() -> None:
    s = build(
        [unit("a", "3,3", strength=1000), unit("d1", "4,4", "D"), unit("d2", "4,4", "D")],
        params=pairs(10, 10),
        rules={"combat.distribution": "single_random_weighted"},
    )
    r = resolve_assault(s, seed=3)
    assert sorted(o.share for o in r.units if not o.attacker) == [0.0, r.losses_to_defenders.loss]


def test_loss_cap_and_strength_cap() -> None:
    s = build(
        [unit("a", "3,3", strength=1000), unit("d", "4,4", "D", strength=100)],
        params=CERTAIN_LOSSES,
        rules={"combat.max_loss_fraction": 0.25},
    )
    r = resolve_assault(s, seed=1)
    assert r.losses_to_defenders.rounded > 100 and r.losses_to_defenders.loss == 25
    assert outcome_of(r, "d").loss == 25


def test_defenders_wiped_out_means_success_and_advance() -> None:
    s = build(
        [unit("a", "3,3", strength=500), unit("d", "4,4", "D", strength=50) | HARMLESS],
        params=CERTAIN_LOSSES,
    )
    r = resolve_assault(s, seed=1)
    assert (r.success, r.outcome, r.hex_taken) == (True, "eliminated", True)
    assert outcome_of(r, "d").eliminated
    assert r.scenario.unit("a").hex == Hex(4, 4)
    assert [u.id for u in r.scenario.units] == ["a"]


ALWAYS_CHECK = {"morale.inferred.check_trigger": "always"}


def test_attacker_failing_morale_means_the_assault_fails() -> None:
    # F quality at High fatigue: morale 1 - 2 < 0 = No Morale, every check fails
    s = build(
        [
            unit("a", "3,3", strength=500, quality="F", fatigue=250, movement_left=6),
            unit("d", "4,4", "D", strength=500, assault=8),
        ],
        params=pairs(100, 100),
        rules=ALWAYS_CHECK,
    )
    r = resolve_assault(s, seed=1)
    a = outcome_of(r, "a")
    assert a.loss > 0 and a.morale is not None and not a.morale.passed
    assert (r.success, r.outcome, r.hex_taken) == (False, "failed", False)
    assert r.reason == "every surviving attacker is disrupted or broken"
    after = r.scenario.unit("a")
    assert after.state is State.DISRUPTED and after.hex == Hex(3, 3)
    assert after.movement_left == 0  # every assaulting unit ends with 0 movement points
    assert r.scenario.unit("d").hex == Hex(4, 4)


def test_one_shaken_attacker_among_steady_ones_does_not_fail_the_assault() -> None:
    """§16.3 clause 2: only when every surviving attacker is shaken does the assault fail."""
    s = build(
        [
            unit("a1", "3,3", strength=500, quality="F", fatigue=250),  # No Morale: fails
            unit("a2", "3,4", strength=500, quality="A"),
            unit("d", "4,4", "D", strength=500, assault=8),
        ],
        params=pairs(100, 100) | {"assault_defender_low": 1000, "assault_defender_high": 1000},
        rules=ALWAYS_CHECK,
    )
    for seed in range(10):  # A quality (morale 6) always passes, F at High fatigue never does
        r = resolve_assault(s, seed=seed)
        assert r.success and r.reason != "every surviving attacker is disrupted or broken"
        assert outcome_of(r, "a1").unit_after.state is State.DISRUPTED  # type: ignore[union-attr]
        assert [o.unit_id for o in r.units if o.advanced] == ["a2"]  # the shaken one stays


def test_defenders_give_way_when_they_lose_more_or_are_all_shaken() -> None:
    """§16.3 clause 3: losing more men-equivalents, or every defender Disrupted or Broken."""
    # both sides lose exactly 40 (a tie), nobody checks morale
    tie = {"assault_attacker_low": 40, "assault_attacker_high": 40}
    tie |= {"assault_defender_low": 40, "assault_defender_high": 40}
    quiet = {"morale.inferred.check_trigger": 1.0}  # only units that lose everything check
    units = [unit("a", "3,3", strength=1000), unit("d", "4,4", "D", strength=1000)]
    r = resolve_assault(build(units, params=tie, rules=quiet), seed=1)
    assert (r.success, r.reason) == (
        False,
        "the defenders held and did not lose more than the attackers",
    )
    more = tie | {"assault_defender_low": 41, "assault_defender_high": 41}
    r = resolve_assault(build(units, params=more, rules=quiet), seed=1)
    assert (r.success, r.reason) == (True, "the defenders lost more than the attackers")
    # 41 of 1000 is less than 40 of 500 as a fraction of strength
    half = [unit("a", "3,3", strength=500, assault=10), unit("d", "4,4", "D", strength=1000)]
    fraction = quiet | {"unknowns.outcome.loss_compare": "fraction"}
    assert resolve_assault(build(half, params=more, rules=quiet), seed=1).success
    assert not resolve_assault(build(half, params=more, rules=fraction), seed=1).success
    # a defender Disrupted before the assault gives way although it lost less
    shaken = [units[0], unit("d", "4,4", "D", strength=1000, state="disrupted")]
    r = resolve_assault(build(shaken, params=tie, rules=quiet), seed=1)
    assert (r.success, r.reason) == (True, "every surviving defender is disrupted or broken")
    only_morale = quiet | {"unknowns.outcome.success_rule": "morale_only"}
    assert not resolve_assault(build(units, params=more, rules=only_morale), seed=1).success


def test_a_probable_morale_check_costs_one_draw_before_its_die() -> None:
    """§16.2: P(check) = L / (L + max(25, S/10)); the trigger draw comes right before the d6."""
    units = [unit("a", "3,3", strength=800), unit("d", "4,4", "D", strength=800)]
    exact = {"assault_attacker_low": 125, "assault_attacker_high": 125}  # attackers lose 100
    exact |= {"assault_defender_low": 50, "assault_defender_high": 50}  # defenders lose 40
    s = build(units, params=exact)
    checked = 0
    for seed in range(200):
        r = resolve_assault(s, seed=seed)
        a, d = outcome_of(r, "a"), outcome_of(r, "d")
        assert (a.loss, d.loss) == (100, 40)
        rng = ServerRandom(seed)
        for _ in range(6):  # two loss draws, their roundings, each unit's loss rounding
            rng.real()
        d_checks = rng.real() < 40 / (40 + 80)
        if d_checks:
            assert d.morale is not None and d.morale.roll == rng.roll(6)
        else:
            assert d.morale is None
        a_checks = rng.real() < 100 / (100 + 80)
        assert (a.morale is not None) is a_checks
        if a.morale is not None:
            assert a.morale.check_probability == pytest.approx(100 / 180)
            checked += 1
    assert 90 < checked < 135  # 200 x 5/9 = 111, within 3.4 standard deviations


def test_success_makes_survivors_retreat_away_from_the_attack_hexes() -> None:
    s = build([unit("a", "3,3", strength=500), unit("d", "4,4", "D", strength=500) | HARMLESS])
    r = resolve_assault(s, seed=1)
    d = outcome_of(r, "d")
    assert r.outcome == "retreated" and d.fate is not None and d.fate.kind == "retreated"
    dest = d.fate.destination
    assert dest is not None and dest.adjacent(Hex(4, 4)) and dest.distance(Hex(3, 3)) >= 2
    assert r.scenario.unit("d").state is State.DISRUPTED
    assert r.scenario.unit("a").hex == Hex(4, 4)


def test_retreat_prefers_hexes_outside_enemy_zones_of_control() -> None:
    # 4,4's hexes away from 3,3 are 5,3, 5,4 and 4,5; an idle enemy at 6,4 covers 5,3 and 5,4
    units = [
        unit("a", "3,3", strength=500),
        unit("z", "6,4", strength=10),
        unit("d", "4,4", "D", strength=500) | HARMLESS,
    ]
    for seed in range(10):
        r = resolve_assault(build(units, attackers=["a"]), seed=seed)
        assert outcome_of(r, "d").fate.destination == Hex(4, 5)


def surrounded(**rules: Any) -> dict[str, Any]:
    return {
        "units": [
            unit("a1", "1,0", strength=500),
            unit("a2", "0,1", strength=500),
            unit("d", "0,0", "D", strength=100, quality="C") | HARMLESS,
        ],
        "target": "0,0",
        "rules": rules,
    }


def test_no_retreat_means_surrender_with_extra_losses() -> None:
    kw = surrounded()
    r = resolve_assault(build(kw.pop("units"), **kw), seed=1)
    d = outcome_of(r, "d")
    assert r.outcome == "surrendered" and d.fate.kind == "surrendered"
    remaining = d.strength_before - d.loss
    assert d.fate.extra_loss in (remaining // 2, remaining // 2 + 1)
    # a survivor stays in the hex, so the attackers do not advance
    assert not r.hex_taken and r.scenario.unit("a1").hex == Hex(1, 0)


def test_optional_surrender_eliminates_a_broken_defender() -> None:
    kw = surrounded(**{"optional_rules.optional_surrender": True})
    units = kw.pop("units")
    units[2] |= {"state": "broken"}
    r = resolve_assault(build(units, **kw), seed=1)
    d = outcome_of(r, "d")
    assert d.fate.kind == "surrendered" and d.eliminated and r.hex_taken


def test_fanatical_defenders_never_surrender_nor_leave_a_bunker() -> None:
    kw = surrounded()
    units = kw.pop("units")
    units[2] |= {"nation": "Japan"}
    r = resolve_assault(build(units, **kw), seed=1)
    assert r.outcome == "held" and outcome_of(r, "d").fate.extra_loss == 0 and not r.hex_taken
    free = [unit("a", "3,3", strength=500), unit("d", "4,4", "D", nation="Japan") | HARMLESS]
    r = resolve_assault(build(free, terrain={"4,4": "bunker"}), seed=1)
    assert r.outcome == "held" and r.scenario.unit("d").hex == Hex(4, 4)
    r = resolve_assault(build(free), seed=1)
    assert r.outcome == "retreated"


def test_advance_respects_the_stacking_maximum() -> None:
    s = build(
        [
            unit("a1", "3,3", strength=2000),
            unit("a2", "3,4", strength=2000),
            unit("d", "4,4", "D", strength=10) | HARMLESS,
        ],
        params=CERTAIN_LOSSES,
    )
    r = resolve_assault(s, seed=1)
    assert r.hex_taken and [o.unit_id for o in r.units if o.advanced] == ["a1"]
    free = build(
        [
            unit("a1", "3,3", strength=2000),
            unit("a2", "3,4", strength=2000),
            unit("d", "4,4", "D", strength=10) | HARMLESS,
        ],
        params=CERTAIN_LOSSES,
        rules={"unknowns.advance.respect_stacking_maximum": False},
    )
    assert len([o for o in resolve_assault(free, seed=1).units if o.advanced]) == 2


def test_fatigue_gain_follows_losses_and_is_capped() -> None:
    s = build(
        [unit("a", "3,3", strength=1000), unit("d", "4,4", "D", strength=1000, fatigue=290)],
        params=pairs(100, 100),
    )
    for seed in range(5):
        r = resolve_assault(s, seed=seed)
        a = outcome_of(r, "a")
        loser = 2.0 if not r.success else 1.0
        low, high = a.loss * 1.5 * loser, 3 * a.loss * 1.5 * loser
        assert low - 0.5 <= a.fatigue_gain <= high + 0.5
        d = outcome_of(r, "d")
        assert r.scenario.unit("d").fatigue == 290 + d.fatigue_gain <= 300


def test_explicit_target_and_units_override_the_scenario_order() -> None:
    s = load_scenario(EXAMPLES / "mixed-organization.toml")
    plan = plan_assault(s, Hex(4, 4), ["us-16"])
    assert [u.id for u in plan.attackers] == ["us-16"]
    assert resolve_plan(plan, ServerRandom(1)).breakdown.attackers.modifiers[3].pct == 0


def test_golden_replay_of_seed_2026_as_revision_1() -> None:
    """Pins one whole revision-1 transcript: the block docs/panzer-defaults.md gives to go back
    to revision 1 must replay it draw for draw (spec §16: superseded values stay available)."""
    doc = tomllib.loads((EXAMPLES / "mixed-organization.toml").read_text())
    r = resolve_assault(scenario_from_dict(merged(doc, revision_1()), "rev1.toml"), seed=2026)
    assert r.draws == 17
    assert (r.losses_to_defenders.low, r.losses_to_defenders.high) == pytest.approx(
        (40 / 7, 200 / 7)
    )
    assert r.losses_to_defenders.drawn == pytest.approx(10.727900101670198, abs=1e-12)
    assert (r.losses_to_defenders.loss, r.losses_to_attackers.loss) == (10, 5)
    summary = [
        (o.unit_id, o.loss, o.morale and (o.morale.roll, o.morale.passed), o.fatigue_gain)
        for o in r.units
    ]
    assert summary == [
        ("de-352", 10, (5, False), 39),
        ("us-16", 1, (4, True), 8),
        ("us-116", 2, (6, False), 9),
        ("us-eng", 1, (5, False), 6),
    ]
    assert r.outcome == "failed"
