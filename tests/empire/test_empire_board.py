"""board and lboard: Appendix B.3 item 6, units aboard, approach fire and every refusal."""

from __future__ import annotations

from pathlib import Path

import pytest
from conftest import EXAMPLES, ROOT, world_from
from test_empire_cli import bellum

from bellum.dice import ServerRandom
from bellum.empire.combat import CombatResult, board, lboard
from bellum.empire.events import ScriptedPrompter
from bellum.empire.io.toml import load_world, save_world
from bellum.empire.rules import Rules
from bellum.empire.world import LandUnit, World

B36_BOARD = """\
Approaching cs   cargo ship (#1)...
cs   cargo ship (#1) is about 100% efficient and has approximately 20 mil on board.
The size of the ship you are trying to board limits your party to 50 mil,
Number of mil from dd   destroyer (#0) (max 50) : 50

             Initial attack strength:       50
                Final board strength:       50
              Final defense strength:       25
                          Final odds:       66%
!@!!!!!!!!!@!@!!!!!!!!!
- Casualties -
     Yours: 3
    Theirs: 20
Paper-shuffling ... 3.4 BTU
We have boarded cs   cargo ship (#1), sir!
1 mil from dd   destroyer (#0) moves onto cs   cargo ship (#1)
47 of your troops now occupy cs   cargo ship (#1)
"""

B36_LBOARD = """\
inf  infantry #0 is about 100% efficient and has approximately 10 mil on board.
The size of the unit you are trying to board limits your party to 100 mil,
Number of mil from wilderness at 0,0 (max 100) : 100

             Initial attack strength:      100
                Final board strength:      100
              Final defense strength:       10
                          Final odds:       90%
!!!@!!!!!!!
- Casualties -
     Yours: 1
    Theirs: 10
Paper-shuffling ... 1.6 BTU
We have boarded inf  infantry #0, sir!
1 mil from 0,0 moves onto inf  infantry #0
99 of your troops now occupy inf  infantry #0
"""


def run_board(
    w: World, victim: str | None, source: str | None, answers: list[str], seed: int = 1
) -> CombatResult:
    return board(w, victim, source, 1, ServerRandom(seed), ScriptedPrompter(list(answers)))


def run_lboard(
    w: World, victim: str | None, source: str | None, answers: list[str], seed: int = 1
) -> CombatResult:
    return lboard(w, victim, source, 1, ServerRandom(seed), ScriptedPrompter(list(answers)))


def test_b3_item_6_board_from_a_destroyer() -> None:
    w = load_world(EXAMPLES / "board.toml")
    r = run_board(w, "1", "0", ["50"])
    assert r.transcript() == B36_BOARD
    assert (r.final_defense, r.outcome) == (25, "captured")
    dd, cs = w.ships[0], w.ships[1]
    assert (dd.mob, dd.mil) == (112, 10)
    assert (cs.owner, cs.mil, cs.eff, cs.off) == (1, 47, 99, True)
    assert (cs.fleet, cs.mission, cs.rpath, cs.rflags) == ("", "", "", "")
    plane = w.planes[0]
    assert (plane.owner, plane.eff, plane.ship) == (1, 10, 1)
    assert [t.text for t in w.telegrams] == [
        "cs   cargo ship (#1) is being approached by dd   destroyer (#0)...",
        "1 (#1) lost 3 troops boarding cs   cargo ship (#1)",
        "We lost 20 troops defending",
    ]
    assert w.news[0].text == "1 seadogs board one of 2's ships"


def test_b3_item_6_lboard_from_a_sector() -> None:
    w = load_world(EXAMPLES / "lboard.toml")
    r = run_lboard(w, "0", "0,0", ["100"], seed=2)
    assert r.transcript() == B36_LBOARD
    s, u = w.sector((0, 0)), w.units[0]
    assert (s.mob, s.mil) == (107, 100)
    assert (u.owner, u.mob, u.mil, u.army, u.mission, u.retreat) == (1, 0, 99, "", "", 42)


def test_board_with_units_from_a_sector() -> None:
    extra = world_from(
        """
[[sector]]
at = [2, 0]
des = "harbor"
owner = 1
eff = 100
mob = 50
mil = 30

[[ship]]
uid = 1
type = "cs"
owner = 2
at = [2, 0]
tech = 100.0
mil = 5

[[unit]]
uid = 4
type = "mar"
owner = 1
at = [2, 0]
tech = 150.0
mob = 50
mil = 50
items = { shell = 4 }

[[unit]]
uid = 5
type = "art"
owner = 1
at = [2, 0]
mob = 50
mil = 20
"""
    )
    r = run_board(extra, "1", "2,0", ["10", "y"], seed=1)
    text = r.transcript()
    assert "You may board with a maximum of 2 land units\n" in text
    assert "mar  marines #4 has a base board value of" in text
    assert "art  artillery #5" not in text
    assert r.outcome == "captured"
    mar = extra.units[4]
    assert (mar.ship, mar.mob) == (1, 40)
    assert "mar  marines #4 boards cs   cargo ship (#1)\n" in text
    # 10 // 5 = 2 before the fight, and 2 for the one boarder lost (3 % of 30 mil).
    assert extra.sector((2, 0)).mob == 50 - 2 - 2


def test_only_light_units_and_no_room() -> None:
    w = world_from(
        """
[[sector]]
at = [2, 0]
des = "harbor"
owner = 1
eff = 100
mob = 50
mil = 30

[[ship]]
uid = 1
type = "dd"
owner = 2
at = [2, 0]
mil = 5

[[ship]]
uid = 2
type = "sb"
owner = 2
at = [2, 0]
mil = 5

[[unit]]
uid = 4
type = "hat"
owner = 1
at = [2, 0]
mob = 50
mil = 20
"""
    )
    r = run_board(w.copy(), "1", "2,0", ["0"])
    assert "Only light land units can board this kind of ship\n" in r.transcript()
    # A submarine in port may be boarded, but it carries no land units.
    r = run_board(w.copy(), "2", "2,0", ["0"])
    assert "Land units are not able to board this kind of ship\n" in r.transcript()


def test_failed_board_loses_units_aboard() -> None:
    w = world_from(
        """
[[sector]]
at = [2, 0]
des = "sea"

[[ship]]
uid = 0
type = "dd"
owner = 1
at = [2, 0]
tech = 100.0
mob = 100
mil = 3

[[ship]]
uid = 1
type = "cs"
owner = 2
at = [2, 0]
mil = 50

[[unit]]
uid = 4
type = "inf"
owner = 1
at = [2, 0]
ship = 0
mob = 50
mil = 10
"""
    )
    r = run_board(w, "1", "0", ["2", "y"], seed=1)
    assert "You have been repelled\n" in r.transcript()
    assert r.outcome == "defeated"
    assert 4 not in w.units


def test_approach_fire_hits_the_boarding_ship() -> None:
    w2 = world_from(
        """
[[sector]]
at = [2, 0]
des = "sea"

[[sector]]
at = [4, 0]
des = "sea"

[[ship]]
uid = 0
type = "dd"
owner = 1
at = [2, 0]
tech = 100.0
mob = 127
mil = 60

[[ship]]
uid = 1
type = "cs"
owner = 2
at = [2, 0]
tech = 100.0
mil = 20

[[ship]]
uid = 2
type = "bb"
owner = 2
at = [4, 0]
tech = 100.0
mil = 100
items = { gun = 20, shell = 40 }
"""
    )
    r = run_board(w2, "1", "0", ["0"], seed=1)
    text = r.transcript()
    # the terminal bell first, as a 4.4.1 server sends it
    assert text.startswith("Approaching cs   cargo ship (#1)...\n\aIncoming shells do ")
    assert "They're firing at us sir!\n" in text
    assert w2.ships[0].eff < 100 or 0 not in w2.ships
    assert w2.ships[2].items["shell"] < 40
    assert r.world_changed


REFUSALS = """
[[sector]]
at = [2, 0]
des = "sea"

[[sector]]
at = [0, 0]
des = "harbor"
owner = 1
eff = 100
mob = 0
mil = 10

[[sector]]
at = [4, 0]
des = "wilderness"
owner = 2
eff = 100
mob = 50
mil = 10

[[sector]]
at = [6, 0]
des = "wilderness"
owner = 1
eff = 100
mob = 50
mil = 10

[[ship]]
uid = 0
type = "dd"
owner = 1
at = [2, 0]
tech = 100.0
mob = 127
mil = 60

[[ship]]
uid = 1
type = "cs"
owner = 2
at = [2, 0]
mil = 20

[[ship]]
uid = 2
type = "dd"
owner = 1
at = [2, 0]
mil = 60

[[ship]]
uid = 3
type = "sb"
owner = 2
at = [2, 0]
mil = 5

[[ship]]
uid = 4
type = "cs"
owner = 2
at = [0, 0]
mil = 5

[[ship]]
uid = 5
type = "bb"
owner = 2
at = [2, 0]
tech = 200.0
mil = 5

[[ship]]
uid = 6
type = "cs"
owner = 1
at = [2, 0]
mil = 5

[[unit]]
uid = 0
type = "inf"
owner = 2
at = [4, 0]
mil = 10

[[unit]]
uid = 1
type = "inf"
owner = 1
at = [6, 0]
mil = 10

[[unit]]
uid = 2
type = "inf"
owner = 2
at = [6, 0]
mil = 10

[[unit]]
uid = 3
type = "inf"
owner = 2
at = [2, 0]
ship = 1
mil = 10
"""

BOARD_USAGE = "Usage: board <to-SHIP> [<from-SHIP>|<from-sector>]\n"
LBOARD_USAGE = "Usage: lboard <to-LAND> [<from-sector>]\n"


@pytest.mark.parametrize(
    ("victim", "source", "expected", "outcome"),
    [
        ("1", "4,0", "You don't own 4,0!\n" + BOARD_USAGE, "usage"),
        (
            "4",
            "0,0",
            "You don't have any mobility (sector or land units) in 0,0!\n" + BOARD_USAGE,
            "usage",
        ),
        ("-1", "0", BOARD_USAGE, "usage"),
        # C's atoi, as 4.4.1 reads it: 'x' is ship 0 (tests/vectors/board-bad-victim.toml)
        ("x", "0", "Boarding yourself?  Try using the 'tend' command.\nBoard aborted\n", "refused"),
        ("9", "0", "Ship #9 is not in the same sector!\nBoard aborted\n", "refused"),
        ("6", "0", "Boarding yourself?  Try using the 'tend' command.\nBoard aborted\n", "refused"),
        ("1", "3", "Ship #3 is not your ship!\nBoard aborted\n", "refused"),
        ("4", "0", "Ship #4 is not in the same sector!\nBoard aborted\n", "refused"),
        ("1", "2", "dd   destroyer (#2) has no mobility!\nBoard aborted\n", "refused"),
        ("5", "0", "Victim ship moves faster than you do!\nBoard aborted\n", "refused"),
        ("3", "0", "You can't board a submarine!\nBoard aborted\n", "refused"),
    ],
)
def test_board_refusals(victim: str, source: str, expected: str, outcome: str) -> None:
    w = world_from(REFUSALS)
    before = w.copy()
    r = run_board(w, victim, source, [])
    assert r.transcript() == expected
    assert r.outcome == outcome and not r.world_changed
    assert r.btu_charged == (0 if outcome == "usage" else 3)
    if victim == "5":
        assert (
            w.telegrams[-1].text
            == "1 (#1) dd   destroyer (#0) failed to catch bb   battleship (#5)"
        )
        w.telegrams.pop()
    assert w == before


@pytest.mark.parametrize(
    ("victim", "source", "expected", "outcome"),
    [
        ("0", "0", "You can only board land units from a sector.\n" + LBOARD_USAGE, "usage"),
        ("0", "4,0", "You don't own 4,0!\n" + LBOARD_USAGE, "usage"),
        ("0", "0,0", "You don't have any mobility in 0,0!\n" + LBOARD_USAGE, "usage"),
        ("-1", "6,0", LBOARD_USAGE, "usage"),
        (
            "9",
            "6,0",
            "Land unit #9 is not in the same sector!\nLand unit boarding aborted\n",
            "refused",
        ),
        (
            "3",
            "6,0",
            "Land unit #3 is not in the same sector!\nLand unit boarding aborted\n",
            "refused",
        ),
        (
            "1",
            "6,0",
            "Boarding yourself?  Try using the 'load' command.\nLand unit boarding aborted\n",
            "refused",
        ),
        (
            "0",
            "6,0",
            "Land unit #0 is not in the same sector!\nLand unit boarding aborted\n",
            "refused",
        ),
    ],
)
def test_lboard_refusals(victim: str, source: str, expected: str, outcome: str) -> None:
    w = world_from(REFUSALS)
    before = w.copy()
    r = run_lboard(w, victim, source, [])
    assert r.transcript() == expected
    assert r.outcome == outcome and not r.world_changed
    assert w == before


def test_prompts_for_missing_arguments() -> None:
    w = world_from(REFUSALS)
    r = run_board(w, None, None, ["1", "0", "0"])
    assert r.transcript().startswith("Victim ship #?  1\nBoarding party from? 0\n")
    assert r.transcript().endswith("Board aborted\nNo troops for board...\n")
    r = run_lboard(w, None, None, ["2", "6,0", "0"])
    assert r.transcript().startswith("Victim land unit #?  2\nBoarding party from? 6,0\n")
    assert r.transcript().endswith("Land unit boarding aborted\nNo troops for lboard...\n")
    assert w.telegrams[-1].text == "1 (#1) considered lboarding you @6,0"


def test_cli_board_and_lboard(tmp_path: Path) -> None:
    world = tmp_path / "b.toml"
    world.write_text((EXAMPLES / "board.toml").read_text())
    r = bellum("empire", "board", "1", "0", "--world", str(world), "--as", "1", "--seed", "1",
               stdin="50\n")  # fmt: skip
    assert r.returncode == 0, r.stderr
    assert r.stdout == B36_BOARD
    after = load_world(world)
    assert (after.ships[1].owner, after.ships[0].mob) == (1, 112)
    refused = bellum("empire", "board", "0", "1", "--world", str(world), "--as", "1")
    assert refused.returncode == 1
    assert refused.stdout == "Boarding yourself?  Try using the 'tend' command.\nBoard aborted\n"
    assert load_world(world) == after
    lworld = tmp_path / "l.toml"
    lworld.write_text((EXAMPLES / "lboard.toml").read_text())
    r = bellum("empire", "lboard", "0", "0,0", "--world", str(lworld), "--as", "1", "--seed", "2",
               stdin="100\n")  # fmt: skip
    assert r.returncode == 0 and r.stdout == B36_LBOARD
    usage = bellum("empire", "lboard", "0", "5", "--world", str(lworld), "--as", "1")
    assert usage.returncode == 2
    assert usage.stdout == "You can only board land units from a sector.\n" + LBOARD_USAGE


def test_ship_orders_survive_a_world_file_round_trip(tmp_path: Path) -> None:
    w = load_world(EXAMPLES / "board.toml")
    w.ships[1].off = True
    save_world(w, tmp_path / "w.toml")
    again = load_world(tmp_path / "w.toml")
    cs = again.ships[1]
    assert (cs.fleet, cs.mission, cs.rpath, cs.rflags, cs.off) == ("a", "escort", "yy", "b", True)
    assert (cs.speed, cs.armor) == (30, 23)


def test_info_page_reduces_land_units_aboard_a_captured_ship() -> None:
    """§10.5: the server keeps their efficiency; the newer info page cuts them to 10 %."""
    results = {}
    for switch in (False, True):
        w = load_world(EXAMPLES / "board.toml")
        cargo = w.ships[1]
        w.units[90] = LandUnit(uid=90, type=w.tables.land["inf"], owner=cargo.owner,
                               x=cargo.x, y=cargo.y, eff=80, ship=cargo.uid)  # fmt: skip
        rules = Rules.of(w.options, overrides={"info_capture": switch})
        r = board(w, "1", "0", 1, ServerRandom(1), ScriptedPrompter(["50"]), rules=rules)
        assert r.success
        results[switch] = (w.units[90].owner, w.units[90].eff)
    assert results[False] == (1, 80)
    assert results[True] == (1, 10)


@pytest.mark.parametrize(
    ("seed", "at", "rpath", "rflags"), [(2, (6, 0), "", ""), (9, (4, 0), "j", "gu")]
)
def test_retreat_when_boarded_uses_up_the_path(
    seed: int, at: tuple[int, int], rpath: str, rflags: str
) -> None:
    """The retreat consumes its path step by step; an emptied path drops the orders.

    As a 4.4.1 server's dump shows after the same runs (tests/vectors/board-retreat-*):
    seed 2 sails the whole path, seed 9 stops on a mine after one step.
    """
    w = load_world(ROOT / "tests" / "vectors" / "worlds" / "retreat.toml")
    r = run_board(w, "1", "0", ["5"], seed=seed)
    assert r.outcome == "defeated"
    for uid in (1, 2):
        assert (w.ships[uid].xy, w.ships[uid].rpath, w.ships[uid].rflags) == (at, rpath, rflags)


def test_no_retreat_without_the_order_or_after_a_capture() -> None:
    w = load_world(ROOT / "tests" / "vectors" / "worlds" / "retreat.toml")
    w.ships[1].rflags = "g"
    run_board(w, "1", "0", ["5"], seed=2)
    assert w.ships[1].xy == (2, 0) and w.ships[1].rpath == "jj"
    won = load_world(ROOT / "tests" / "vectors" / "worlds" / "retreat.toml")
    won.ships[1].mil = 1
    r = run_board(won, "1", "0", ["50"], seed=2)
    assert r.outcome == "captured"
    assert won.ships[1].xy == (2, 0) and won.ships[2].xy == (2, 0)
