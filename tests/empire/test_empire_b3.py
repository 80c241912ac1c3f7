"""Appendix B.3 items 4, 5 and 9, and the strength preview (spec §17)."""

from __future__ import annotations

import pytest
from conftest import EXAMPLES

from bellum.dice import ServerRandom
from bellum.empire.combat import attack
from bellum.empire.combat.preview import strength
from bellum.empire.events import ScriptedPrompter
from bellum.empire.io.toml import load_world
from bellum.empire.rules import Rules


def test_reaction_mines_and_unsupplied_engineer_b3_item_4() -> None:
    w = load_world(EXAMPLES / "reaction.toml")
    r = attack(w, "2,0", 1, ServerRandom(30), ScriptedPrompter(["317", "y", "0"]))
    text = r.transcript()
    assert "Sector 0,0 has 127 mobility which can only support 317 mil,\n" in text
    assert "eng  engineer #1 is out of supply, and cannot attack\n" in text
    assert "Scouts sight reacting enemy unit: inf  infantry #3" in text
    assert "Defense strength with reacting units:      520\n" in text
    assert "Defending mines add 0.20\n" in text
    assert (r.initial_attack, r.final_defense, r.odds_percent) == (317, 624, 33)
    tel = [t.text for t in w.telegrams]
    assert "inf  infantry #3 reacts to 2,0." in tel
    assert "\nOdds are good for us...support cancelled.\n" in tel
    assert "support values" not in text
    # seed 30: both defenders break and retreat among the 300 civilians of 4,0
    assert sum("retreats at" in t and "to 4,0!" in t for t in tel) == 2
    assert (r.outcome, r.attacker_casualties, r.defender_casualties) == ("captured", 119, 100)
    assert w.sector((2, 0)).eff == 83
    assert w.sector((0, 0)).mob == 0
    assert w.units[3].xy == (4, 0)


def test_reacting_unit_pays_its_march() -> None:
    w = load_world(EXAMPLES / "reaction.toml")
    # a tiny attack: the reserve unit still reacts (135 < 1.2 x 120), nothing else moves
    attack(w, "2,0", 1, ServerRandom(5), ScriptedPrompter(["120", "y", "0"]))
    assert any(t.text == "inf  infantry #3 reacts to 2,0." for t in w.telegrams)
    assert w.units[3].mob <= 104


def test_fort_and_ship_support_b3_item_5() -> None:
    w = load_world(EXAMPLES / "support.toml")
    r = attack(w, "2,0", 1, ServerRandom(1), ScriptedPrompter(["100", "0"]))
    text = r.transcript()
    assert r.initial_attack == 200  # 100 mil x 2.0 from a 100 % fortress
    # as the real server prints it (tests/vectors/attack-fort-ship-support.toml)
    table = "\n\t\tsupport values\n\t\tforts\tships\tunits\tplanes\nattacker\t0.31\t0.39\t0.00\t0.00\ndefender\t0.21\t0.40\t0.00\t0.00\n\n"
    assert table in text
    assert r.final_attack == round(200 * (1 + 0.31 + 0.39))
    assert r.final_defense == round(80 * (1 + 0.21 + 0.40))
    assert w.sector((0, 0)).get("shell") == 19  # one shell per fort volley
    assert w.ships[0].items["shell"] < 40


def test_support_arguments_decline_support() -> None:
    w = load_world(EXAMPLES / "support.toml")
    r = attack(w, "2,0", 1, ServerRandom(1), ScriptedPrompter(["100", "0"]), ["n", "n", "n", "n"])
    assert "attacker\t" not in r.transcript()


def test_cavalry_in_allied_fortress_b3_item_9() -> None:
    w = load_world(EXAMPLES / "allied-fort.toml")
    r = attack(w, "2,0", 1, ServerRandom(1), ScriptedPrompter(["y", "y"]))
    text = r.transcript()
    assert "Only 1 mil in 3,-1\n" in text
    assert "cav  cavalry #0 has a base attack value of 35\n" in text
    assert r.initial_attack == 138  # 20 x 1.7258 x 4.0: the ally's defense multiplier
    assert "\ncav  cavalry #0 dies attacking 3,-1!\n" in text
    assert r.attacker_casualties == 20 and r.outcome == "defeated"
    assert 0 not in w.units


def test_strength_preview() -> None:
    w = load_world(EXAMPLES / "reaction.toml")
    rows = strength(w, 2, list(w.sectors.values()), Rules.of(w.options))
    by_xy = {r.sector.xy: r for r in rows}
    r = by_xy[(2, 0)]
    assert int(r.units) == 57  # 50 mil x 1.92426 x 60 %
    assert r.mines == 10 and abs(r.mult - 2.4) < 1e-9
    assert (r.sector_defense, r.reacting_defense, r.total) == (162, 461, 624)
    assert by_xy[(4, 0)].reacting == 0.0  # the reserve unit stands there already
    assert 1 not in {row.sector.owner for row in rows}


def test_no_interdiction_without_the_option() -> None:
    w = load_world(EXAMPLES / "interdiction.toml")
    w.options["INTERDICT_ATT"] = False
    r = attack(w, "2,0", 1, ServerRandom(2), ScriptedPrompter(["100", "y", "200", "y"]))
    assert "interdiction" not in r.transcript()
    assert w.sector((2, 0)).mil == 99
    assert w.units[0].eff == 100


def test_plane_support_flies_through_flak() -> None:
    w = load_world(EXAMPLES / "air-support.toml")
    r = attack(w, "2,0", 1, ServerRandom(1), ScriptedPrompter(["100", "0"]))
    text = r.transcript()
    route = "flying over airfield at 4,2\nflying over wilderness at 3,1\nflying over wilderness at 2,0\n"
    assert route in text  # the server's route and support value for this seed
    assert "firing 4 flak guns in 2,0...\n" in text
    assert "attacker\t0.00\t0.00\t0.00\t0.90\n" in text
    assert r.final_attack == 190  # 100 x 1.90
    airfield = w.sector((4, 2))
    assert airfield.get("petrol") == 50 - 2 * 3 and airfield.get("shell") == 40 - 2 * 4
    assert all(p.mob < 60 and p.eff < 100 for p in w.planes.values())


def test_planes_without_a_mission_stay_home() -> None:
    w = load_world(EXAMPLES / "air-support.toml")
    for p in w.planes.values():
        p.mission = ""
    r = attack(w, "2,0", 1, ServerRandom(1), ScriptedPrompter(["100", "0"]))
    assert "flying over" not in r.transcript() and r.final_attack == 100


@pytest.mark.parametrize(("op_radius", "fires"), [(0, False), (2, True)])
def test_a_ship_interdicts_only_inside_its_op_area(op_radius: int, fires: bool) -> None:
    """Every mission needs its op area to cover the target (the server's in_oparea)."""
    from bellum.empire.world import Ship

    w = load_world(EXAMPLES / "interdiction.toml")
    del w.units[1]
    w.sectors[(3, 1)].type = w.tables.sector("sea")
    w.ships[0] = Ship(uid=0, type=w.tables.ships["dd"], owner=2, x=3, y=1, mob=100,
                      mission="interdiction", op_radius=op_radius,
                      items={"mil": 10, "shell": 40, "gun": 10})  # fmt: skip
    r = attack(w, "2,0", 1, ServerRandom(1), ScriptedPrompter(["100", "n", "99"]))
    assert r.outcome == "captured"
    assert ("2 interdiction mission does" in r.transcript()) == fires
