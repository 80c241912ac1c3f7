"""Attacks with land units: Appendix B.2 bit for bit and B.3 item 1."""

from __future__ import annotations

from conftest import EXAMPLES

from bellum.dice import ServerRandom
from bellum.empire.combat import attack
from bellum.empire.combat.strength import defense_value
from bellum.empire.events import ScriptedPrompter
from bellum.empire.io.toml import load_world
from bellum.empire.world import Plague

B2_FIGHT = """\

             Initial attack strength:      150
Scouts report defending unit: inf  infantry #0
               Final attack strength:      150
              Final defense strength:      135
                          Final odds:       52%
@!!!!!!!@!@!@!!!!!@@!!@@@@!@!
- Casualties -
     Yours: 11
    Theirs: 18
"""


def test_vector_b_bit_for_bit() -> None:
    w = load_world(EXAMPLES / "vector-b.toml")
    r = attack(w, "2,0", 1, ServerRandom(1), ScriptedPrompter(["150", "0"]))
    assert B2_FIGHT in r.transcript()
    assert r.outcome == "captured"
    inf = w.units[0]
    assert (inf.x, inf.y, inf.eff, inf.mil, inf.mob, inf.owner) == (4, 0, 92, 22, 28, 2)
    assert w.sector((0, 0)).mob == 61
    assert (w.sector((2, 0)).eff, w.sector((2, 0)).civ) == (99, 94)
    texts = [t.text for t in w.telegrams if t.to == 2]
    assert "inf  infantry #0 fails morale check!" in texts
    assert "inf  infantry #0 retreats at 92% efficiency to 4,0!" in texts


def test_cavalry_attack_b3_item_1() -> None:
    w = load_world(EXAMPLES / "cavalry.toml")
    r = attack(w, "2,0", 1, ServerRandom(4), ScriptedPrompter(["150", "y", "n", "50", "y"]))
    text = r.transcript()
    assert "cav  cavalry #0 has a base attack value of 32\n" in text
    assert "attack with cav  cavalry #0 in 0,0 (~ 100%) [ynYNq?] y\n" in text
    assert (r.initial_attack, r.final_defense, r.odds_percent) == (182, 40, 81)
    assert r.attacker_casualties == 3
    assert "How many mil to move in from 0,0 (97 max)? 50\n" in text
    assert "cav  cavalry #0 now occupies 2,0\n" in text
    assert (w.sector((0, 0)).mob, w.sector((0, 0)).mil) == (39, 146)
    assert (w.units[0].xy, w.units[0].mob) == ((2, 0), 49)
    assert (w.units[1].xy, w.units[1].mob) == ((0, 0), 100)


def test_unit_prompt_help_and_army_memory() -> None:
    w = load_world(EXAMPLES / "cavalry.toml")
    r = attack(w, "2,0", 1, ServerRandom(4), ScriptedPrompter(["150", "?", "Y", "0", "N"]))
    text = r.transcript()
    assert "y - yes this unit\nn - no this unit\nY - yes to all units in army '~'\n" in text
    assert text.count("[ynYNq?] Y\n") == 1
    assert r.initial_attack == 150 + 32 + 32
    assert "cav  cavalry #1 stays in 0,0\n" in text and "cav  cavalry #0 stays in 0,0\n" in text


def test_q_at_the_unit_prompt_aborts() -> None:
    w = load_world(EXAMPLES / "cavalry.toml")
    r = attack(w, "2,0", 1, ServerRandom(4), ScriptedPrompter(["150", "q"]))
    assert r.outcome == "aborted"
    assert r.transcript().endswith("Attack aborted\nNo troops for attack...\n")


def test_end_of_input_at_the_move_in_leaves_every_unit_where_it_is() -> None:
    """After end of input the server asks nothing more: no "Move in with" question, each
    unit stays (4.4.1's player->aborted, checked on the real server in tests/live)."""
    w = load_world(EXAMPLES / "cavalry.toml")
    r = attack(w, "2,0", 1, ServerRandom(4), ScriptedPrompter(["150", "Y"]))
    text = r.transcript()
    assert "How many mil to move in from 0,0 (97 max)? \n" in text
    assert "Move in with" not in text
    assert text.endswith("cav  cavalry #1 stays in 0,0\ncav  cavalry #0 stays in 0,0\n"
                         "1 of your troops now occupy 2,0\n")  # fmt: skip


def test_attacking_units_that_lost_efficiency_say_so_after_the_fight() -> None:
    """4.4.1's put_oland reports every attacking unit the fight damaged, before the capture
    (checked on the real server in tests/live)."""
    w = load_world(EXAMPLES / "cavalry.toml")
    r = attack(w, "2,0", 1, ServerRandom(1), ScriptedPrompter(["5", "Y", "N"]))
    assert (
        "We have captured 2,0, sir!\n"
        "cav  cavalry #1 damaged from 100% to 95%\n"
        "cav  cavalry #0 damaged from 100% to 95%\n"
        "cav  cavalry #1 moves in to occupy 2,0\n"
    ) in r.transcript()


def test_plague_spreads_both_ways() -> None:
    """§7: an infectious attacking sector infects the target; the target exposes the defenders."""
    w = load_world(EXAMPLES / "vector-b.toml")
    w.sector((0, 0)).plague = Plague.INFECT
    attack(w, "2,0", 1, ServerRandom(1), ScriptedPrompter(["150", "0"]))
    assert w.units[0].plague == Plague.EXPOSED
    assert w.sector((2, 0)).plague == Plague.EXPOSED
    clean = load_world(EXAMPLES / "vector-b.toml")
    attack(clean, "2,0", 1, ServerRandom(1), ScriptedPrompter(["150", "0"]))
    assert clean.units[0].plague == Plague.HEALTHY


def test_fortification_counts_against_the_games_land_mob_max() -> None:
    """4.4.1's defense_val: value x (land_mob_max + harden) / land_mob_max."""
    u = load_world(EXAMPLES / "cavalry.toml").units[0]
    base = defense_value(u, 100)
    u.fort = 50
    assert defense_value(u, 100) == base * (150 / 100)
    assert defense_value(u) == base * (177 / 127)
