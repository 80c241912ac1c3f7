"""paradrop: Appendix B.3 item 8, illegal drop zones, flak en route and every refusal."""

from __future__ import annotations

from pathlib import Path

import pytest
from conftest import EXAMPLES
from test_empire_cli import bellum

from bellum.dice import ServerRandom
from bellum.empire.combat import CombatResult, paradrop
from bellum.empire.events import ScriptedPrompter
from bellum.empire.io.toml import load_world
from bellum.empire.world import Plane, World

B38_TRANSCRIPT = """\
No escorts...
LZ is 4,0
range to target is 2
tc   transport chopper #0 standing by
tc   transport chopper #0 equipped
flying over wilderness at 0,0
flying over wilderness at 2,0
flying over wilderness at 4,0
4,0 is a 100% 2 wilderness with approximately 10 military.
          Final air-assault strength:       10
              Final defense strength:       20
                          Final odds:       33%
@@@@!@!@!!@!@@@
- Casualties -
     Yours: 10
    Theirs: 5
Paper-shuffling ... 2.2 BTU
All of your troops were destroyed
"""

USAGE = "Usage: paradrop <cargo-PLANES> <fighter-PLANES> <ap-SECT> <PATH or DESTINATION>\n"


def world() -> World:
    return load_world(EXAMPLES / "paradrop.toml")


def run(
    w: World,
    args: tuple[str | None, str | None, str | None, str | None],
    answers: list[str] | None = None,
    seed: int = 7,
) -> CombatResult:
    return paradrop(w, *args, 1, ServerRandom(seed), ScriptedPrompter(list(answers or [])))


def test_b3_item_8_one_chopper() -> None:
    w = world()
    r = run(w, ("0", "", "0,0", "jj"))
    assert r.transcript() == B38_TRANSCRIPT
    assert (r.final_attack, r.final_defense, r.outcome) == (10, 20, "defeated")
    assert (r.attacker_casualties, r.defender_casualties) == (10, 5)
    base, lz = w.sector((0, 0)), w.sector((4, 0))
    assert (base.mil, base.get("petrol")) == (90, 98)
    assert (lz.mob, lz.mil, lz.owner) == (60, 5, 2)
    assert (w.planes[0].mob, w.planes[0].xy) == (114, (0, 0))
    assert w.news[-1].text == "1 paratroopers destroyed in failed air-assault on 2"


def test_prompts_and_best_path() -> None:
    w = world()
    r = run(w, (None, None, None, None), ["0", "", "0,0", "4,0"])
    assert r.transcript().startswith(
        "plane(s)? 0\nescort(s)? \nNo escorts...\nassembly point? 0,0\n"
        "<10: 0,0> 4,0\nUsing best path 'jj'\nLZ is 4,0\nrange to target is 2\n"
    )
    assert r.outcome == "defeated"


@pytest.mark.parametrize(
    ("route", "message"),
    [
        ("jjj", "You can't air-assault a mountain sector!\n"),
        ("jjjj", "You can't air-assault a capital sector!\n"),
    ],
)
def test_illegal_drop_zone_loses_the_paratroopers(route: str, message: str) -> None:
    w = world()
    if len(route) > 3:
        w.sector((8, 0)).type = w.tables.sector("capital")
        w.sector((8, 0)).owner = 2
    r = run(w, ("0", "", "0,0", route))
    text = r.transcript()
    assert text.endswith(message + "Air-Assault aborted\n" + text.splitlines()[-1] + "\n")
    assert text.splitlines()[-1].endswith("paratroopers were lost.")
    assert r.outcome == "aborted" and r.world_changed
    assert w.sector((0, 0)).mil < 100
    assert w.nations[1].btu == 640 - 3


def test_sanctuary_and_own_sector_at_the_drop_zone() -> None:
    w = world()
    w.sector((6, 0)).type = w.tables.sector("sanctuary")
    r = run(w, ("0", "", "0,0", "jjj"))
    assert "You can't paradrop a sanctuary sector!\nAir-Assault aborted\n" in r.transcript()


def test_own_sector_refused_before_anything_flies() -> None:
    w = world()
    before = w.copy()
    r = run(w, ("0", "", "0,0", "j"))
    assert r.transcript().endswith("You can't air-assault your own sector!\n")
    assert (r.outcome, r.btu_charged, r.world_changed) == ("refused", 3, False)
    assert w == before


@pytest.mark.parametrize(
    ("args", "expected"),
    [
        (("0", "", "4,0", "j"), "Assembly point not owned by you or an ally!\n" + USAGE),
        (("0", "", "0,0", ""), USAGE),
        (("0", "", "0,0", "h"), USAGE),
        (("0", "", "0,0", "0,0"), USAGE),
        (("?", "", "0,0", "jj"), USAGE),
        (("0", "", "nowhere", "jj"), USAGE),
    ],
)
def test_usage_errors(args: tuple[str, str, str, str], expected: str) -> None:
    w = world()
    before = w.copy()
    r = run(w, args)
    assert r.transcript().endswith(expected)
    assert (r.outcome, r.btu_charged, r.world_changed) == ("usage", 0, False)
    assert w == before


def test_a_plane_that_cannot_carry_troops() -> None:
    w = world()
    w.planes[0].type = w.tables.planes["f1"]
    before = w.copy()
    r = run(w, ("0", "", "0,0", "jj"))
    assert r.transcript().endswith("No planes could be equipped for the mission.\n")
    assert (r.outcome, r.world_changed) == ("refused", False)
    assert w == before


@pytest.mark.parametrize(
    ("change", "message"),
    [
        ("eff", "tc   transport chopper #0 not efficient enough (must be 40%)\n"),
        ("far", "tc   transport chopper #0 too far from assembly point\n"),
        ("range", "tc   transport chopper #0 out of range (10:12)\n"),
        ("petrol", "tc   transport chopper #0 not enough petrol there!\n"),
        ("mil", "Not enough military for tc   transport chopper #0\n"),
    ],
)
def test_transport_refusals(change: str, message: str) -> None:
    w = world()
    base = w.sector((0, 0))
    if change == "eff":
        w.planes[0].eff = 30
    elif change == "far":
        w.sector((-10, 0)).owner = 1
        w.planes[0].x = 54
    elif change == "petrol":
        base.put("petrol", 1)
    elif change == "mil":
        base.mil = 5
    route = "jjjjjj" if change == "range" else "jj"
    if change == "range":
        w.sector((12, 0)).owner = 2
    r = run(w, ("0", "", "0,0", route))
    assert message in r.transcript()
    assert r.transcript().endswith("No planes could be equipped for the mission.\n")


def test_flak_over_a_defended_sector() -> None:
    w = world()
    w.sector((4, 0)).put("gun", 14)
    w.planes[0].type = w.tables.planes["tr"]
    w.planes[0].tech = 200.0
    w.sector((0, 0)).type = w.tables.sector("airfield")
    hits = 0
    for seed in range(1, 30):
        trial = w.copy()
        r = run(trial, ("0", "", "0,0", "jj"), seed=seed)
        text = r.transcript()
        if "firing" in text:
            hits += 1
            assert "tr   C-56 Lodestar #0 takes " in text
            assert trial.planes.get(0) is None or trial.planes[0].eff < 100
    assert hits > 0


@pytest.mark.parametrize("kind", ["sea", "fortress", "wasteland"])
def test_more_illegal_drop_zones(kind: str) -> None:
    w = world()
    w.sector((6, 0)).type = w.tables.sector(kind)
    if kind == "sea":
        w.sector((6, 0)).owner = 0
    r = run(w, ("0", "", "0,0", "jjj"))
    assert (
        f"You can't air-assault a {kind} sector!\nAir-Assault aborted\n10 paratroopers were lost.\n"
    ) in r.transcript()


def test_cli_paradrop(tmp_path: Path) -> None:
    world = tmp_path / "p.toml"
    world.write_text((EXAMPLES / "paradrop.toml").read_text())
    args = ("empire", "paradrop", "0", "", "0,0", "jj", "--world", str(world), "--as", "1")
    r = bellum(*args, "--seed", "7")
    assert r.returncode == 0, r.stderr
    assert r.stdout == B38_TRANSCRIPT
    assert load_world(world).planes[0].mob == 114
    lost = bellum("empire", "paradrop", "0", "", "0,0", "jjj", "--world", str(world), "--as", "1")
    assert lost.returncode == 1
    assert lost.stdout.endswith("Air-Assault aborted\n10 paratroopers were lost.\n")
    after = load_world(world)
    assert after.sector((0, 0)).mil == 80 and after.planes[0].mob == 114 - 17
    own = bellum("empire", "paradrop", "0", "", "0,0", "j", "--world", str(world), "--as", "1")
    assert own.returncode == 1 and own.stdout.endswith("You can't air-assault your own sector!\n")
    assert load_world(world) == after


def test_interceptors_rise_one_more_than_the_intruders() -> None:
    w = world()
    for uid, owner, x in ((5, 2, 4), (6, 2, 4), (7, 2, 4), (8, 2, 4), (1, 1, 0)):
        w.planes[uid] = Plane(
            uid=uid, type=w.tables.planes["jf2"], owner=owner, x=x, y=0, mob=50, tech=150.0
        )
    r = run(w, ("0", "1", "0,0", "jj"), seed=3)
    text = r.transcript()
    assert "jf2  AV-8B Harrier #1 standing by\n" in text
    fights = [line.split()[3] for line in text.splitlines() if "dogfights" in line]
    assert fights == ["#5", "#6", "#7"]
    assert "jf2  AV-8B Harrier #6 dogfights tc   transport chopper #0\n" in text
    assert w.planes[8].eff == 100
