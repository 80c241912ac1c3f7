"""Rule profiles and options: each info-page difference takes effect (spec §18)."""

from __future__ import annotations

import pytest
from conftest import EXAMPLES, world_from

from bellum.dice import ServerRandom
from bellum.empire.combat import CombatResult, attack
from bellum.empire.events import ScriptedPrompter
from bellum.empire.io.toml import load_world
from bellum.empire.rules import Rules, parse_options
from bellum.empire.world import Relation, World
from bellum.errors import InputError


def run(
    w: World,
    target: str,
    answers: list[str],
    profile: str,
    seed: int = 1,
    options: list[str] | None = None,
) -> CombatResult:
    rules = Rules.for_world(w, profile, options or [])
    return attack(w, target, 1, ServerRandom(seed), ScriptedPrompter(list(answers)), rules=rules)


ARTILLERY = """
[[sector]]
at = [0, 0]
des = "wilderness"
owner = 1
eff = 100
mob = 127
mil = 100
[[sector]]
at = [2, 0]
des = "wilderness"
owner = 2
eff = 100
mob = 80
mil = 10
[[unit]]
uid = 0
type = "art"
owner = 1
at = [0, 0]
tech = 100.0
mob = 100
mil = 25
items = { shell = 20, gun = 10 }
"""


def test_artillery_attacks_on_the_server_but_not_on_the_info_page() -> None:
    server = run(world_from(ARTILLERY), "2,0", ["50", "n"], "server-4.4.1").transcript()
    assert "art  artillery #0 has a base attack value of" in server
    info = run(world_from(ARTILLERY), "2,0", ["50"], "info-page").transcript()
    assert "art  artillery #0 is an artillery unit, and cannot attack\n" in info


REACTION = """
[[sector]]
at = [0, 0]
des = "wilderness"
owner = 1
eff = 100
mob = 127
mil = 200
[[sector]]
at = [2, 0]
des = "wilderness"
owner = 2
eff = 100
mob = 80
mil = 20
[[sector]]
at = [4, 0]
des = "wilderness"
owner = 2
eff = 100
mob = 80
[[unit]]
uid = 0
type = "inf"
owner = 2
at = [4, 0]
tech = 100.0
mob = 127
mil = 100
"""


def test_only_reserve_units_react_on_the_server() -> None:
    w = world_from(REACTION)
    r = run(w, "2,0", ["150", "0"], "server-4.4.1")
    assert "Defense strength with reacting units" not in r.transcript()
    w = world_from(REACTION)
    r = run(w, "2,0", ["150", "0"], "info-page")
    assert "Defense strength with reacting units:      425\n" in r.transcript()
    assert any(t.text == "inf  infantry #0 reacts to 2,0." for t in w.telegrams)


def test_info_page_reacting_units_need_efficiency_above_retreat() -> None:
    w = world_from(REACTION.replace("mil = 100\n", "mil = 100\neff = 40\nretreat = 50\n"))
    r = run(w, "2,0", ["150", "0"], "info-page")
    assert "Defense strength with reacting units" not in r.transcript()


def test_reserve_reaction_b3_item_4() -> None:
    """A reserve infantry one sector away reacts and pays 23 mobility (127 -> 104)."""
    w = world_from(
        REACTION.replace("mil = 100\n", 'mil = 100\nmission = "reserve"\nop_radius = 2\n')
    )
    r = run(w, "2,0", ["150", "0"], "server-4.4.1")
    assert "Defense strength with reacting units:      425\n" in r.transcript()
    # 20 mil x 2 + 100 x 1.92426 x 2 = 424.85, rounded up
    inf = w.units[0]
    assert inf.mob <= 104  # the reaction cost 23; combat may take more
    assert any(t.text.startswith("inf  infantry #0 returns to") for t in w.telegrams) or inf.xy != (
        2,
        0,
    )


def test_efficiency_damage_profiles(vector_a_path: object) -> None:
    server = load_world(EXAMPLES / "vector-a.toml")
    run(server, "2,0", ["150", "0"], "server-4.4.1")
    info = load_world(EXAMPLES / "vector-a.toml")
    r = run(info, "2,0", ["150", "0"], "info-page", options=["info_fight=off"])
    assert r.attacker_casualties + r.defender_casualties == 54  # same fight line
    assert server.sector((2, 0)).eff == 96  # PCT(5) = 4 %
    assert info.sector((2, 0)).eff == 95  # 54 // 10 = 5 %


FAILED = """
[[sector]]
at = [0, 0]
des = "wilderness"
owner = 1
eff = 100
mob = 100
mil = 30
[[sector]]
at = [2, 0]
des = "wilderness"
owner = 2
eff = 100
mob = 80
mil = 500
"""


def test_target_mobility_loss_is_capped_on_the_server_and_floored_on_the_info_page() -> None:
    server = world_from(FAILED)
    r = run(server, "2,0", ["29", "y"], "server-4.4.1")
    assert r.outcome == "defeated" and r.defender_casualties < 20
    assert server.sector((2, 0)).mob > 60
    info = world_from(FAILED)
    run(info, "2,0", ["29", "y"], "info-page")
    assert info.sector((2, 0)).mob == 60
    # all 29 of 30 lost: the server caps the attacker's loss at 20, the info page doesn't
    assert server.sector((0, 0)).mob == 69
    assert info.sector((0, 0)).mob == 0


def test_unit_mobility_ten_times_the_loss_factor_on_the_info_page() -> None:
    def cav_world() -> World:
        return load_world(EXAMPLES / "cavalry.toml")

    server, info = cav_world(), cav_world()
    rs = run(server, "2,0", ["150", "y", "n", "0", "n"], "server-4.4.1", seed=4)
    ri = run(info, "2,0", ["150", "y", "n", "0", "n"], "info-page", seed=4)
    assert rs.attacker_casualties == ri.attacker_casualties == 3
    # server: ldround(5 x 3/170) = 0; info page: ldround(10 x 3/170) = 0 as well, so
    # only the march cost (25) is paid either way; a bloodier fight shows the factor.
    assert server.units[0].mob == info.units[0].mob == 75


MISSION_FIRE = """
[[sector]]
at = [0, 0]
des = "wilderness"
owner = 1
eff = 100
mob = 127
mil = 100
[[sector]]
at = [2, 0]
des = "wilderness"
owner = 2
eff = 100
mob = 80
mil = 40
[[sector]]
at = [6, 0]
des = "wilderness"
owner = 2
eff = 100
[[unit]]
uid = 0
type = "art"
owner = 2
at = [6, 0]
tech = 100.0
mob = 100
mil = 25
mission = "interdiction"
items = { shell = 40, gun = 10 }
"""


def test_units_on_missions_fire_support_only_on_the_server() -> None:
    server = run(world_from(MISSION_FIRE), "2,0", ["99", "y"], "server-4.4.1").transcript()
    assert "defender\t0.00\t0.00\t0." in server and "\tunits" in server
    line = next(x for x in server.splitlines() if x.startswith("defender"))
    assert float(line.split("\t")[3]) > 0
    info = run(world_from(MISSION_FIRE), "2,0", ["99", "y"], "info-page").transcript()
    assert "support values" not in info


def test_unknown_profile_and_option_names_list_the_valid_ones() -> None:
    w = world_from("")
    with pytest.raises(InputError, match=r"profiles: server-4\.4\.1, info-page"):
        Rules.for_world(w, "wargame")
    with pytest.raises(InputError, match=r"unknown option 'SLOWWAR'; options: .*SLOW_WAR"):
        Rules.for_world(w, None, ["SLOWWAR=1"])
    with pytest.raises(InputError, match="takes on/off") as refused:
        Rules.for_world(w, None, ["SLOW_WAR=maybe"])
    assert refused.value.worded({"option": "--option"}).startswith("--option SLOW_WAR: takes")
    rules = Rules.for_world(w, None, ["SLOW_WAR=on", "combat_mob=7.5"])
    assert rules.SLOW_WAR is True and rules.combat_mob == 7.5


def test_scouts_estimate_aborts_like_the_seed() -> None:
    w = load_world(EXAMPLES / "scouts.toml")
    r = attack(w, "-14,2", 1, ServerRandom(1), ScriptedPrompter(["10", "y", "n", "n"]))
    text = r.transcript()
    assert text.count("Scouts report defending unit: inf  infantry #") == 4
    assert "          Estimated defense strength:     1036\n" in text
    assert "                      Estimated odds:        3%\n\n" in text
    assert text.endswith("Are you sure you want to attack [yn]? n\nAttack aborted\n")
    assert r.outcome == "aborted" and not r.world_changed


@pytest.mark.parametrize(
    ("profile", "options", "estimated"),
    [
        (None, [], False),
        ("server-4.4.1", [], False),
        ("info-page", [], True),
        (None, ["scout_estimate=on"], True),
        ("info-page", ["scout_estimate=off"], False),
    ],
)
def test_the_server_profile_never_shows_the_scouts_estimate(
    profile: str | None, options: list[str], estimated: bool
) -> None:
    """4.4.1 never estimates nor asks; a replay's next answer would be eaten if bellum did."""
    w = load_world(EXAMPLES / "failed.toml")
    rules = Rules.for_world(w, profile, options)
    r = attack(w, "2,0", 1, ServerRandom(1), ScriptedPrompter(["29", "y"]), rules=rules)
    assert ("Estimated odds:        2%" in r.transcript()) is estimated
    assert ("Are you sure you want to attack [yn]? y" in r.transcript()) is estimated
    assert r.outcome == "defeated"


def test_rules_lists_what_each_profile_sets(capsys: pytest.CaptureFixture[str]) -> None:
    from bellum.cli import main

    with pytest.raises(SystemExit):
        main(["empire", "rules"])
    lines = {line.split()[1]: line.split()[:5] for line in capsys.readouterr().out.splitlines()}
    assert lines["name"] == ["kind", "name", "value", "server-4.4.1", "info-page"]
    assert lines["scout_estimate"] == ["option", "scout_estimate", "off", "off", "on"]
    assert lines["info_fight"] == ["switch", "info_fight", "off", "off", "on"]
    assert lines["SLOW_WAR"] == ["option", "SLOW_WAR", "off", "-", "-"]
    assert lines["server-4.4.1"][:3] == ["profile", "server-4.4.1", "*"]


def test_scouts_estimate_off_goes_straight_to_the_fight() -> None:
    w = load_world(EXAMPLES / "scouts.toml")
    rules = Rules.for_world(w, None, ["scout_estimate=off"])
    r = attack(w, "-14,2", 1, ServerRandom(1), ScriptedPrompter(["10", "y", "n"]), rules=rules)
    assert "Estimated" not in r.transcript()
    assert r.outcome == "defeated"


PEACE = """
[[sector]]
at = [0, 0]
des = "wilderness"
owner = 1
eff = 100
mob = 127
mil = 200
[[sector]]
at = [2, 0]
des = "wilderness"
owner = 3
eff = 100
mob = 80
mil = 10
[[nation]]
cnum = 3
name = "Neutralia"
money = 1000
"""


def peace_world(options: list[str]) -> World:
    w = world_from(PEACE)
    w.options.update(parse_options(options)[1])  # the world's own options
    return w


def test_slow_war_refuses_attacks_on_countries_not_at_war() -> None:
    w = peace_world(["SLOW_WAR=on"])
    r = attack(w, "2,0", 1, ServerRandom(1), ScriptedPrompter(["150", "0"]))
    assert r.transcript().endswith("You're not at war with them!\n")
    assert r.outcome == "refused"
    w = peace_world(["SLOW_WAR=off"])
    assert attack(w, "2,0", 1, ServerRandom(1), ScriptedPrompter(["150", "0"])).success


def test_slow_war_lets_the_old_owner_take_back_his_sector() -> None:
    w = peace_world(["SLOW_WAR=on"])
    w.sector((2, 0)).oldowner = 1
    r = attack(w, "2,0", 1, ServerRandom(1), ScriptedPrompter(["150", "0"]))
    assert r.success


def test_sneak_attack_costs_5000_and_declares_war() -> None:
    w = peace_world(["SLOW_WAR=on", "SNEAK_ATTACK=on"])
    r = attack(w, "2,0", 1, ServerRandom(1), ScriptedPrompter(["n"]))
    assert r.transcript().endswith(
        "You're not at war with them!\n"
        "Do you really want to sneak attack (it will cost you $5000) [yn]? n\n"
        "Sneak attack cancelled!\nAttack aborted\n"
    )
    r = attack(w, "2,0", 1, ServerRandom(1), ScriptedPrompter(["y", "150", "0"]))
    assert r.success
    assert r.transcript().endswith(
        "Your sneak attack was successful\nit will cost you $5000\nWar has been declared!!!!\n"
    )
    assert w.nations[1].money == 25000 - 5000
    assert w.nations[1].war_steps[3] == "mobilizing"
    w.sectors[(4, 0)].owner = 3
    w.sectors[(4, 0)].oldowner = 3
    again = attack(w, "4,0", 1, ServerRandom(2), ScriptedPrompter(["y", "50", "0"]))
    assert again.transcript().endswith("You're not at war with them!\n")


def test_attacking_an_ally_asks_first() -> None:
    w = peace_world(["SLOW_WAR=on"])
    w.nations[1].relations[3] = Relation.ALLIED
    r = attack(w, "2,0", 1, ServerRandom(1), ScriptedPrompter(["n"]))
    assert r.transcript().endswith(
        "Sector is owned by Neutralia, your ally, attack [yn]? n\nAttack aborted\n"
    )


def test_info_page_fight_recomputes_the_odds_every_casualty() -> None:
    """The info page's fight: no jitter, no windows; the draws are one chance per round."""
    w = load_world(EXAMPLES / "vector-a.toml")
    r = run(w, "2,0", ["150", "0"], "server-4.4.1", options=["info_fight=on"])
    line = r.transcript().split("Final odds:       65%\n")[1].split("\n")[0]
    # replay the same draws by hand: one chance(p) per round, p from the current strengths
    from bellum.dice import ServerRandom as Dice

    d = Dice(1)
    d.roundavg(-1.0)
    d.roundavg(-1.0)
    a, f, out = 150, 40, []
    while a > 0 and f > 0:
        if d.chance(a / (a + 2 * f)):
            f -= 1
            out.append("!")
        else:
            a -= 1
            out.append("@")
    assert line == "".join(out)


@pytest.mark.parametrize("value", ["nan", "inf", "-1"])
def test_command_line_numbers_must_be_usable(value: str) -> None:
    with pytest.raises(InputError) as refused:
        Rules.for_world(world_from(""), None, [f"combat_mob={value}"])
    assert (refused.value.field, refused.value.value) == ("option", "combat_mob")


def test_info_page_unit_needs_the_mobility_of_its_whole_march() -> None:
    """Seed step 2: a unit must have the mobility its march into the target costs."""
    server = load_world(EXAMPLES / "cavalry.toml")
    server.units[0].mob = 1
    said = run(server, "2,0", ["150", "n", "n"], "server-4.4.1").transcript()
    assert "cav  cavalry #0 has a base attack value of" in said
    info = load_world(EXAMPLES / "cavalry.toml")
    info.units[0].mob = 1
    said = run(info, "2,0", ["150", "n"], "info-page").transcript()
    assert "cav  cavalry #0 does not have enough mobility (26 needed)\n" in said
    assert "cav  cavalry #0 has a base attack value" not in said


def _mined_landing(profile: str) -> str:
    from bellum.empire.combat import assault

    w = load_world(EXAMPLES / "landing.toml")
    w.sector((0, 0)).mines = 500
    answers = ScriptedPrompter(["0", "y", "y"])
    r = assault(w, "0,0", "0", 1, ServerRandom(1), answers, rules=Rules.of(profile=profile))
    assert r.outcome == "captured"
    return r.transcript()


def test_info_page_sets_off_no_mines_after_an_assault() -> None:
    """Seed step 14: post-attack interdiction, mines included, belongs to attack only."""
    assert "Blammo! Landmines detected in 0,0!" in _mined_landing("server-4.4.1")
    said = _mined_landing("info-page")
    assert "Blammo" not in said
    assert "now occupies 0,0" in said


def test_info_page_charges_the_mil_move_in_mobility(vector_a_path: object) -> None:
    """The page charges move-in mobility; 4.4.1 forgets it (fix_movein_mobility)."""
    moved_in = {}
    for profile in ("server-4.4.1", "info-page"):
        w = load_world(vector_a_path)  # type: ignore[arg-type]
        run(w, "2,0", ["150", "50"], profile)
        moved_in[profile] = w.sector((0, 0)).mob
    assert moved_in["info-page"] < moved_in["server-4.4.1"]
    w = load_world(vector_a_path)  # type: ignore[arg-type]
    assert Rules.for_world(w, "info-page", ["fix_movein_mobility=off"]).fix_movein_mobility is False


@pytest.mark.parametrize(
    ("lrange", "mission", "reacts"),
    [
        (None, "reserve", True),  # the type's whole radius
        (None, "", True),  # on the page any defensive unit reacts
        (0, "reserve", False),  # lrange 0 keeps the unit home, reserve or not
        (0, "", False),
        (1, "", True),  # 4,0 is next to 2,0
    ],
)
def test_info_page_lrange_limits_how_far_a_unit_reacts(
    lrange: int | None, mission: str, reacts: bool
) -> None:
    """Seed step 4: players limit their units' reaction radius with ``lrange``."""
    extra = (f"lrange = {lrange}\n" if lrange is not None else "") + (
        f'mission = "{mission}"\nop_radius = 3\n' if mission else ""
    )
    w = world_from(REACTION.replace("mil = 100\n", f"mil = 100\n{extra}"))
    said = run(w, "2,0", ["150", "0"], "info-page").transcript()
    assert ("Defense strength with reacting units" in said) == reacts
    server = world_from(REACTION.replace("mil = 100\n", f"mil = 100\n{extra}"))
    said = run(server, "2,0", ["150", "0"], "server-4.4.1").transcript()
    assert ("Defense strength with reacting units" in said) == (mission == "reserve"), "4.4.1"
