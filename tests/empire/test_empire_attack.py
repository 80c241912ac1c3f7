"""The attack command with mil: Appendix B.1 bit for bit, and every step-1 refusal."""

from __future__ import annotations

from pathlib import Path

import pytest
from conftest import EXAMPLES, world_from

from bellum.dice import ServerRandom
from bellum.empire import run_command
from bellum.empire.combat import CombatResult, attack
from bellum.empire.events import ScriptedPrompter
from bellum.empire.io.toml import load_world
from bellum.empire.world import World

B1_TRANSCRIPT = """\
2,0 is a 100% 2 wilderness with approximately 40 military.
Number of mil from wilderness at 0,0 (max 199) : 150

             Initial attack strength:      150
               Final attack strength:      150
              Final defense strength:       80
                          Final odds:       65%
!@!!!!!!!!!@!@!!@!!!!!@!!!!!@!!@!@@!!!@@!@!!!!@!!!@!!!
- Casualties -
     Yours: 14
    Theirs: 40
Paper-shuffling ... 8.1 BTU
We have captured 2,0, sir!
1 mil from 0,0 moves into 2,0
How many mil to move in from 0,0 (135 max)? 0
1 of your troops now occupy 2,0
"""


def run(world: World, target: str, answers: list[str], seed: int = 1) -> CombatResult:
    return attack(world, target, 1, ServerRandom(seed), ScriptedPrompter(list(answers)))


def test_vector_a_transcript_bit_for_bit(vector_a_path: Path) -> None:
    w = load_world(vector_a_path)
    r = run(w, "2,0", ["150", "0"])
    assert r.transcript() == B1_TRANSCRIPT
    assert (r.outcome, r.attacker_casualties, r.defender_casualties) == ("captured", 14, 40)
    assert (r.final_attack, r.final_defense, r.odds_percent) == (150, 80, 65)


def test_vector_a_world_afterwards(vector_a_path: Path) -> None:
    w = load_world(vector_a_path)
    run(w, "2,0", ["150", "0"])
    src, tgt = w.sector((0, 0)), w.sector((2, 0))
    assert (src.mob, src.mil, src.civ) == (58, 185, 100)
    assert (tgt.owner, tgt.oldowner, tgt.eff, tgt.mob, tgt.mil) == (1, 2, 96, 0, 1)
    assert (tgt.civ, tgt.che, tgt.che_target, tgt.loyalty, tgt.off) == (93, 7, 1, 50, True)
    assert tgt.dist == (2, 0)
    assert w.nations[1].btu == 636
    assert [t.text for t in w.telegrams] == [
        "1 (#1) lost 14 troops taking 2,0",
        "We lost 40 troops defending",
    ]
    assert len(w.news) == 1


def test_attacking_again_is_refused(vector_a_path: Path) -> None:
    w = load_world(vector_a_path)
    run(w, "2,0", ["150", "0"])
    r = run(w, "2,0", [], seed=2)
    assert r.transcript() == "You can't attack your own sector.\ncommand failed\n"
    assert (r.outcome, r.btu_charged, r.world_changed) == ("refused", 3, False)


def test_move_in_costs_no_mobility_in_4_4_1(vector_a_path: Path) -> None:
    w = load_world(vector_a_path)
    r = run(w, "2,0", ["150", "50"])
    assert "How many mil to move in from 0,0 (135 max)? 50\n" in r.transcript()
    assert w.sector((0, 0)).mob == 58
    assert w.sector((0, 0)).mil == 135
    assert w.sector((2, 0)).mil == 51


def test_fixed_move_in_option_charges_the_move(vector_a_path: Path) -> None:
    w = load_world(vector_a_path)
    w.options["fix_movein_mobility"] = True
    run(w, "2,0", ["150", "50"])
    assert w.sector((0, 0)).mob == 58 - 20


FAILED_ATTACK = """
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


def test_failed_attack_b3_item_2() -> None:
    w = load_world(EXAMPLES / "failed.toml")
    r = run(w, "2,0", ["29"])
    assert r.outcome == "defeated"
    assert "Estimated" not in r.transcript()  # 4.4.1 never shows the scouts' estimate
    assert (r.final_attack, r.final_defense, r.odds_percent) == (29, 1000, 2)
    assert "You have been defeated!" in r.transcript()
    assert w.sector((0, 0)).mob == 69
    assert w.sector((0, 0)).mil == 1
    assert w.sector((2, 0)).owner == 2


def test_same_seed_same_transcript() -> None:
    a = run(world_from(FAILED_ATTACK), "2,0", ["29", "y"], seed=77)
    b = run(world_from(FAILED_ATTACK), "2,0", ["29", "y"], seed=77)
    assert a.transcript() == b.transcript()


@pytest.mark.parametrize(
    ("target", "message", "outcome"),
    [
        ("10,0", "You are not adjacent to 10,0\ncommand failed\n", "refused"),
        ("1,0", "Usage: attack <SECT> [<forts?> <ships?> <arty?> <planes?>]\n", "usage"),
        ("x", "Usage: attack <SECT> [<forts?> <ships?> <arty?> <planes?>]\n", "usage"),
    ],
)
def test_step_one_refusals(target: str, message: str, outcome: str, vector_a_path: Path) -> None:
    w = load_world(vector_a_path)
    r = run(w, target, ["150"])
    assert r.transcript() == message
    assert r.outcome == outcome
    assert not r.world_changed
    assert r.btu_charged == (0 if outcome == "usage" else 3)


@pytest.mark.parametrize("des", ["sea", "sanctuary", "wasteland"])
def test_illegal_target_types(des: str) -> None:
    owner = "" if des == "sea" else "owner = 2\n"
    w = world_from(
        f"""
[[sector]]
at = [0, 0]
des = "wilderness"
owner = 1
eff = 100
mob = 100
mil = 30
[[sector]]
at = [2, 0]
des = "{des}"
{owner}"""
    )
    r = run(w, "2,0", ["10"])
    lines = r.transcript().splitlines()
    assert lines[1:] == [
        f"You can't attack a {des} sector!",
        "Attack aborted",
        "No troops for attack...",
    ]
    assert r.outcome == "aborted"


def test_eof_at_the_mil_prompt_aborts(vector_a_path: Path) -> None:
    w = load_world(vector_a_path)
    r = run(w, "2,0", [])
    assert r.transcript().endswith("Attack aborted\nNo troops for attack...\n")
    assert r.outcome == "aborted" and not r.world_changed


def test_negative_answer_aborts(vector_a_path: Path) -> None:
    r = run(load_world(vector_a_path), "2,0", ["-5"])
    assert r.outcome == "aborted"


def test_zero_mil_means_no_troops(vector_a_path: Path) -> None:
    r = run(load_world(vector_a_path), "2,0", ["0"])
    assert r.transcript().endswith(
        "No troops for attack...\nAttack aborted\nNo troops for attack...\n"
    )


def test_mobility_limits_the_mil(vector_a_path: Path) -> None:
    w = load_world(vector_a_path)
    w.sector((0, 0)).mob = 20
    r = run(w, "2,0", ["0"])
    assert "Sector 0,0 has 20 mobility which can only support 49 mil,\n" in r.transcript()
    assert "(max 49)" in r.transcript()


def test_no_btus(vector_a_path: Path) -> None:
    w = load_world(vector_a_path)
    w.nations[1].btu = 2
    r = run(w, "2,0", ["150"])
    assert r.transcript() == "You don't have the BTUs, bozo\n"


def test_partial_support_arguments_complain_and_request_everything(vector_a_path: Path) -> None:
    w = load_world(vector_a_path)
    r = attack(w, "2,0", 1, ServerRandom(1), ScriptedPrompter(["150", "0"]), ["y"])
    assert "If any support arguments are used, all must be!\n" in r.transcript()
    assert r.transcript().count("!") > 0 and r.outcome == "captured"


def test_capital_sack_b3_item_7() -> None:
    w = load_world(EXAMPLES / "capital.toml")
    r = run(w, "24,0", ["150", "0"])
    assert r.outcome == "captured"
    text = r.transcript()
    assert "* We have captured 2's capital, sir! *\n" in text
    assert text.endswith("You just made $12500.00\n")
    assert w.nations[2].money == 12500
    assert w.nations[1].money == 25000 + 12500
    assert w.nations[2].capital_sacked


def test_missing_target_is_asked_for(vector_a_path: Path) -> None:
    w = load_world(vector_a_path)
    r = attack(w, None, 1, ServerRandom(1), ScriptedPrompter(["2,0", "150", "0"]))
    assert r.transcript() == "Sector :  2,0\n" + B1_TRANSCRIPT
    eof = attack(load_world(vector_a_path), None, 1, ServerRandom(1), ScriptedPrompter([]))
    assert eof.outcome == "usage" and eof.transcript().endswith(
        "Usage: attack <SECT> [<forts?> <ships?> <arty?> <planes?>]\n"
    )


def test_an_empty_target_argument_is_asked_for() -> None:
    """getstarg asks when the argument is empty ("" on the command line), as when it is
    missing (random play found bellum calling it a usage error at once)."""
    world = load_world(EXAMPLES / "air-support.toml")
    r = run_command(world, 'attack "" n n y', country=1, seed=1, answers=[None])
    assert r.transcript() == (
        "Sector :  \nUsage: attack <SECT> [<forts?> <ships?> <arty?> <planes?>]\n"
    )
    r = run_command(world, 'attack ""', country=1, seed=1, answers=["2,0", "100", "0"])
    assert r.transcript().startswith("Sector :  2,0\n2,0 is a 100% 2 wilderness")
