"""The assault command: Appendix B.3 items 3 and 10, the limits, and every refusal."""

from __future__ import annotations

import json
from pathlib import Path

import pytest
from conftest import EXAMPLES, world_from
from test_empire_cli import bellum

from bellum.dice import ServerRandom
from bellum.empire.combat import CombatResult, assault
from bellum.empire.events import ScriptedPrompter
from bellum.empire.io.toml import load_world
from bellum.empire.world import Relation, World

B33_TRANSCRIPT = """\
0,0 is a 100% 2 wilderness with approximately 10 military.
Number of mil from tt   troop transport (#0) (max 24) : 24

             Initial attack strength:       24
              Final assault strength:       24
              Final defense strength:       10
                          Final odds:       70%
@!!@@!@!!
- Casualties -
     Yours: 4
    Theirs: 5
Paper-shuffling ... 1.3 BTU
We have secured a beachhead at 0,0, sir!
1 mil from tt   troop transport (#0) moves into 0,0
20 of your troops now occupy 0,0
"""

B310_TRANSCRIPT = """\
0,0 is a 100% 2 wilderness with approximately 0 military.
Number of mil from dd   destroyer (#0) (max 29) : 0
mar  marines #0 has a base assault value of 158
assault with mar  marines #0 on dd   destroyer (#0) (~ 100%) [ynYNq?] y
inf  infantry #1 has a base assault value of 70
assault with inf  infantry #1 on dd   destroyer (#0) (~ 100%) [ynYNq?] y

             Initial attack strength:      228
              Final assault strength:      228
              Final defense strength:        0
                          Final odds:      100%

- Casualties -
     Yours: 0
    Theirs: 0
Paper-shuffling ... 0.0 BTU
We have secured a beachhead at 0,0, sir!
inf  infantry #1 moves in to occupy 0,0
mar  marines #0 now occupies 0,0
"""


def run(
    world: World, sector: str | None, ship: str | None, answers: list[str], seed: int = 1
) -> CombatResult:
    return assault(world, sector, ship, 1, ServerRandom(seed), ScriptedPrompter(list(answers)))


def test_b3_item_3_troop_transport() -> None:
    w = load_world(EXAMPLES / "assault.toml")
    r = run(w, "0,0", "0", ["24"], seed=18)
    assert r.transcript() == B33_TRANSCRIPT
    assert r.outcome == "captured" and r.world_changed
    sh, t = w.ships[0], w.sector((0, 0))
    assert (sh.mil, sh.items["food"], sh.mob) == (76, 80, 100)
    assert (t.owner, t.mil, t.get("food")) == (1, 20, 20)
    assert w.nations[1].btu == 640 - 3
    assert [x.text for x in w.telegrams] == [
        "1 (#1) lost 4 troops assaulting and taking 0,0",
        "We lost 5 troops defending",
    ]
    assert w.news[0].text == "1 navy secures a beachhead on 2 territory"


def test_b3_item_10_marines_and_infantry_from_a_destroyer() -> None:
    w = load_world(EXAMPLES / "landing.toml")
    r = run(w, "0,0", "0", ["0", "y", "y"])
    assert r.transcript() == B310_TRANSCRIPT
    mar, inf = w.units[0], w.units[1]
    assert (mar.mob, mar.xy, mar.ship) == (0, (0, 0), None)
    assert (inf.mob, inf.xy, inf.ship) == (-60, (0, 0), None)
    assert w.sector((0, 0)).owner == 1


def test_b3_item_10_landing_ship_has_no_limit_and_lunch_is_99() -> None:
    w = load_world(EXAMPLES / "landing.toml")
    r = run(w, "4,0", "1", ["98"], seed=106)
    assert "Number of mil from ls   landing ship (#1) (max 98) : 98\n" in r.transcript()
    assert (r.attacker_casualties, r.outcome) == (7, "captured")
    sh, t = w.ships[1], w.sector((4, 0))
    assert (sh.mil, sh.items["food"]) == (1, 1)
    assert (t.mil, t.get("food")) == (91, 99)


def test_other_ships_land_a_tenth_on_a_defended_beach() -> None:
    w = load_world(EXAMPLES / "landing.toml")
    w.ships[0].x, w.ships[0].y = 6, 0
    w.units[0].x, w.units[1].x = 6, 6
    r = run(w, "4,0", "0", ["9", "n", "n"], seed=1)
    assert "Number of mil from dd   destroyer (#0) (max 2) : 9\n" in r.transcript()


SEA = """
[[sector]]
at = [0, 0]
des = "wilderness"
owner = 2
eff = 100
mil = 10
civ = 100

[[sector]]
at = [2, 0]
des = "sea"

[[sector]]
at = [8, 0]
des = "sea"

[[sector]]
at = [4, 0]
des = "harbor"
owner = 1
eff = 100

[[sector]]
at = [-2, 0]
des = "mountain"
owner = 2
eff = 100

[[sector]]
at = [1, 1]
des = "sea"

[[ship]]
uid = 0
type = "tt"
owner = 1
at = [2, 0]
mil = 100

[[ship]]
uid = 1
type = "tt"
owner = 2
at = [2, 0]
mil = 100

[[ship]]
uid = 2
type = "tt"
owner = 1
at = [4, 0]
mil = 100

[[ship]]
uid = 3
type = "tt"
owner = 1
at = [8, 0]
mil = 100
"""


@pytest.mark.parametrize(
    ("sector", "ship", "message"),
    [
        ("0,0", "7", "Ship #7 is not your ship!\nAssault aborted\n"),
        ("0,0", "1", "Ship #1 is not your ship!\nAssault aborted\n"),
        (
            "2,0",
            "2",
            "tt   troop transport (#2) can not assault from that far inland!\nAssault aborted\n",
        ),
        ("0,0", "3", "You'll have to get there first...\nAssault aborted\n"),
        ("1,1", "0", "You can't assault a sea sector!\nAssault aborted\n"),
        ("0,0", "-1", "You may only assault from one ship!\ncommand failed\n"),
    ],
)
def test_refusals(sector: str, ship: str, message: str) -> None:
    w = world_from(SEA)
    before = w.copy()
    r = run(w, sector, ship, [])
    assert r.transcript().endswith(message)
    assert (r.outcome, r.btu_charged, r.world_changed) == ("refused", 3, False)
    assert w == before


def test_mountain_refused() -> None:
    w = world_from(SEA)
    w.ships[0].x = 0
    w.sector((0, 0)).type = w.tables.sector("sea")
    w.sectors.pop((1, 1))
    r = run(w, "-2,0", "0", [])
    assert r.transcript() == "You can't assault a mountain sector!\nAssault aborted\n"


@pytest.mark.parametrize(("sector", "ship"), [("nowhere", "0"), (None, None)])
def test_usage(sector: str | None, ship: str | None) -> None:
    w = world_from(SEA)
    r = run(w, sector, ship, [])
    assert r.transcript().endswith(
        "Usage: assault <to-SECT> <from-SHIP> [<forts?> <ships?> <arty?> <planes?>]\n"
    )
    assert (r.outcome, r.btu_charged) == ("usage", 0)


@pytest.mark.parametrize("ship", ["x", "0x", ""])
def test_the_ship_number_is_read_with_atoi(ship: str) -> None:
    """4.4.1 reads the ship with C's atoi: 'x', '0x' and an empty answer are ship 0
    (checked on the real server, tests/live)."""
    w = world_from(SEA)
    r = run(w, "0,0", None, [ship, "0"])
    assert r.transcript().startswith(
        f"Assault from ship # {ship}\n0,0 is a 100% 2 wilderness with approximately 10 military.\n"
    )


def test_no_ship_at_the_prompt_is_a_failure() -> None:
    """End of input at 'Assault from ship #' is a failure, not a usage error (4.4.1)."""
    w = world_from(SEA)
    r = run(w, "0,0", None, [])
    assert r.transcript() == (
        "Assault from ship # \nYou may only assault from one ship!\ncommand failed\n"
    )
    assert r.outcome == "refused"


def test_prompts_for_missing_arguments() -> None:
    w = world_from(SEA)
    r = run(w, None, None, ["0,0", "0", "0"])
    assert r.transcript().startswith(
        "Sector :  0,0\nAssault from ship # 0\n"
        "0,0 is a 100% 2 wilderness with approximately 10 military.\n"
        "Number of mil from tt   troop transport (#0) (max 24) : 0\n"
    )
    # Nothing committed and no unit chosen: vacuously "spies only" (spec §13.5).
    assert r.transcript().endswith("Trying to sneak on shore...\n")
    assert r.outcome == "aborted" and not r.world_changed


def test_reinforcing_an_own_sector() -> None:
    w = world_from(SEA)
    w.ships[2].items["food"] = 50
    r = run(w, "4,0", "2", ["60"])
    assert "You reinforce 4,0 with 60 troops\n" in r.transcript()
    assert r.outcome == "reinforced" and r.world_changed
    assert (w.sector((4, 0)).mil, w.ships[2].mil) == (60, 40)
    assert w.sector((4, 0)).get("food") == 30


SPIES = """
[[sector]]
at = [0, 0]
des = "wilderness"
owner = 2
eff = 100
civ = 100

[[sector]]
at = [2, 0]
des = "sea"

[[ship]]
uid = 0
type = "dd"
owner = 1
at = [2, 0]
mil = 1

[[unit]]
uid = 3
type = "spy"
owner = 1
at = [2, 0]
ship = 0
mob = 100
mil = 0
"""


def test_spies_sneak_ashore() -> None:
    w = world_from(SPIES)
    r = run(w, "0,0", "0", ["y"], seed=4)
    text = r.transcript()
    assert "Only 1 mil on dd   destroyer (#0)\n" in text
    assert "spy  infiltrator #3 has a base assault value of 0\n" in text
    assert text.endswith(
        "Trying to sneak on shore...\nspy  infiltrator #3 made it on shore safely.\n"
    )
    spy = w.units[3]
    assert (spy.xy, spy.ship, spy.mob) == ((0, 0), None, -60)
    assert r.outcome == "landed" and r.world_changed and w.nations[1].btu == 637


def test_failed_assault_units_aboard_die() -> None:
    w = load_world(EXAMPLES / "landing.toml")
    w.sector((0, 0)).mil = 500
    # 20 mil at 100 %: the infantry runs out of soldiers at 80 % and is still listed.
    w.units[1].mil = 20
    r = run(w, "0,0", "0", ["2", "n", "y", "y"], seed=3)
    text = r.transcript()
    assert (
        "You have been defeated!\ninf  infantry #1 cannot return to the ship, and dies!\n" in text
    )
    assert r.outcome == "defeated"
    assert 1 not in w.units
    assert 0 in w.units and w.units[0].ship == 0


def test_cli_assault_saves_only_when_something_happened(tmp_path: Path) -> None:
    src = EXAMPLES / "assault.toml"
    world = tmp_path / "w.toml"
    world.write_text(src.read_text())
    args = ("empire", "assault", "0,0", "0", "--world", str(world), "--as", "1", "--seed", "18")
    r = bellum(*args, stdin="24\n")
    assert r.returncode == 0, r.stderr
    assert r.stdout == B33_TRANSCRIPT
    after = load_world(world)
    assert (after.ships[0].mil, after.sector((0, 0)).owner) == (76, 1)
    again = bellum("empire", "assault", "0,0", "7", "--world", str(world), "--as", "1")
    assert again.returncode == 1
    assert again.stdout == "Ship #7 is not your ship!\nAssault aborted\n"
    usage = bellum("empire", "assault", "nowhere", "0", "--world", str(world), "--as", "1")
    assert usage.returncode == 2 and usage.stdout.startswith("Usage: assault")
    assert load_world(world) == after


def test_cli_assault_json_and_prompts(tmp_path: Path) -> None:
    out = tmp_path / "o.toml"
    r = bellum(
        "empire", "assault", "--world", str(EXAMPLES / "assault.toml"), "--as", "1",
        "--seed", "18", "--out", str(out), "--json", stdin="0,0\n0\n24\n",
    )  # fmt: skip
    data = json.loads(r.stdout)
    assert data["outcome"] == "captured" and data["command"] == "assault"
    assert data["casualties"] == {"attacker": 4, "defender": 5}
    assert data["transcript"].startswith("Sector :  0,0\nAssault from ship # 0\n")
    assert out.exists()


def test_no_btus() -> None:
    w = load_world(EXAMPLES / "assault.toml")
    w.nations[1].btu = 2
    r = run(w, "0,0", "0", [])
    assert r.transcript() == "You don't have the BTUs, bozo\n"
    assert r.outcome == "refused" and not r.world_changed


@pytest.mark.parametrize(
    ("relation", "seed", "line"),
    [
        ("allied", 1, "spy  infiltrator #3 made it on shore safely.\n"),
        ("at-war", 2, "spy  infiltrator #3 was spotted and was killed in the attempt.\n"),
        ("neutral", 2, "spy  infiltrator #3 was spotted but made it OK.\n"),
    ],
)
def test_spy_sneaking_branches(relation: str, seed: int, line: str) -> None:
    w = world_from(SPIES)
    w.nations[2].relations[1] = Relation.parse(relation)
    w.units[3].eff = 20
    r = run(w, "0,0", "0", ["y"], seed=seed)
    assert r.transcript().endswith("Trying to sneak on shore...\n" + line)
