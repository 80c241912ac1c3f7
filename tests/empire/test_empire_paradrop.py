"""paradrop against a real 4.4.1 server: the shared ground truth, plane lists, paths.

The 20 measured runs of ``../shared/data/empire-paradrop`` go through the
command line exactly as the player typed them.  More verified runs (air
combat, refusals, prompts) are vectors in tests/vectors/.
"""

from __future__ import annotations

import json
import re
from dataclasses import replace
from pathlib import Path

import pytest
from click.testing import CliRunner, Result
from conftest import EXAMPLES, ROOT

from bellum.cli import cli
from bellum.dice import ServerRandom
from bellum.empire import run_command
from bellum.empire.combat import paradrop
from bellum.empire.events import ScriptedPrompter
from bellum.empire.geometry import Geometry
from bellum.empire.io.sqlite.store import Store
from bellum.empire.io.toml import load_world
from bellum.empire.io.xdump.mapping import dump_to_world, read_dump
from bellum.empire.selection import parse_numbers, parse_xy, select
from bellum.empire.world import LandUnit
from bellum.errors import InputError

#: Ground truth measured on a real server (never committed to this repository).
SHARED = ROOT.parent / "shared" / "data" / "empire-paradrop"
SCENARIOS = ("S5", "S5b")
#: What the player typed (note ``.``: no escorts) and the answers that followed.
TYPED = "paradrop 0/1/2/3/4/5/6/7/8/9 . 0,0 2,0"
PIPED = "0\nn\nn\n"


def shared(name: str) -> Path:
    path = SHARED / name
    if not path.exists():
        pytest.skip(f"the paradrop ground truth is not at {SHARED} (clone next to shared/)")
    return path


def run_cli(*args: str, stdin: str = "") -> Result:
    """The ``bellum`` command line in this process, with piped standard input."""
    return CliRunner().invoke(cli, list(args), input=stdin, catch_exceptions=False)


def imported(scenario: str, tmp_path: Path) -> Path:
    db = tmp_path / f"{scenario}.db"
    dump = shared(f"{scenario}.xdump")
    r = run_cli("empire", "world", "import", str(dump), "--size", "32x16", "--db", str(db))
    assert r.exit_code == 0, r.output
    return db


def paradrop_cli(db: Path, seed: int, *extra: str) -> Result:
    words = TYPED.split()
    return run_cli(
        "empire", *words, "--db", str(db), "--as", "1", "--seed", str(seed), *extra, stdin=PIPED
    )


def fight_of(transcript: str) -> str:
    """The ``!@`` string of a transcript (the server wraps it every 70 characters)."""
    return "".join(line for line in transcript.splitlines() if re.fullmatch(r"[!@]+", line))


@pytest.mark.parametrize("seed", range(1, 11))
@pytest.mark.parametrize("scenario", SCENARIOS)
def test_measured_runs_through_the_cli(scenario: str, seed: int, tmp_path: Path) -> None:
    runs = json.loads(shared(f"{scenario}-runs-1-10.json").read_text())
    assert runs["command"] == "para" + TYPED.removeprefix("paradrop")
    want = next(r for r in runs["runs"] if r["prng_seed"] == seed)
    db = imported(scenario, tmp_path)
    r = paradrop_cli(db, seed, "--json")
    assert r.exit_code == 0, r.output
    got = json.loads(r.stdout)
    assert fight_of(got["transcript"]) == want["fight"]
    assert got["casualties"] == {"attacker": want["a_cas"], "defender": want["d_cas"]}
    assert got["success"] is want["success"]
    store = Store.open(db)
    try:
        assert store.world().sector((2, 0)).mil == want["occupy"]
    finally:
        store.close()


class FightWatch(ServerRandom):
    """The server's generator, noting how many numbers it gave before the fight's ``roll(11)``."""

    before_fight: int | None = None

    def roll(self, n: int) -> int:
        if n == 11 and self.before_fight is None:
            self.before_fight = self.draws
        return super().roll(n)


@pytest.mark.parametrize("scenario", SCENARIOS)
def test_ten_draws_before_the_fight(scenario: str) -> None:
    """README: the server draws 10 numbers between the command's start and the fight."""
    runs = json.loads(shared(f"{scenario}-runs-1-10.json").read_text())
    for run in runs["runs"]:
        world = dump_to_world(read_dump(shared(f"{scenario}.xdump")), (32, 16))
        dice = FightWatch(run["prng_seed"])
        paradrop(world, *TYPED.split()[1:], 1, dice, ScriptedPrompter([]))
        assert dice.before_fight == run["prefight_draws"]


def _section(text: str, start: str, end: str) -> list[str]:
    lines = text.splitlines()
    i = next(n for n, line in enumerate(lines) if line.startswith(start))
    return lines[i + 1 : next(n for n in range(i + 1, len(lines)) if lines[n].startswith(end))]


@pytest.mark.parametrize("scenario", SCENARIOS)
def test_seed_1_transcript_line_for_line(scenario: str, tmp_path: Path) -> None:
    text = shared(f"{scenario}-seed-1-transcript.txt").read_text()
    lines = text.splitlines()
    i = next(n for n, line in enumerate(lines) if line.endswith("Command : No escorts..."))
    j = next(n for n in range(i + 1, len(lines)) if lines[n].startswith("[0:636] Command :"))
    expected = [lines[i].split("Command : ", 1)[1], *lines[i + 1 : j - 1]]
    assert lines[j - 1] == ""  # the client's own newline before its next prompt
    db = imported(scenario, tmp_path)
    r = paradrop_cli(db, 1)
    assert r.exit_code == 0, r.output
    assert r.stdout.splitlines() == expected
    assert r.stderr == "seed: 1\n"
    # the deity's dump afterwards
    store = Store.open(db)
    try:
        world = store.world()
    finally:
        store.close()
    sectors = _section(text, "   DUMP SECTOR", "4 sectors")
    head = sectors[0].split()
    for row in sectors[1:]:
        f = dict(zip(head, row.split(), strict=False))
        s = world.sector(world.geometry.norm(int(f["x"]), int(f["y"])))
        assert (s.owner, s.eff, s.mob, s.mil, s.get("petrol")) == tuple(
            int(f[k]) for k in ("own", "eff", "mob", "mil", "pet")
        ), row
    planes = _section(text, "   DUMP PLANES", "10 planes")
    head = planes[0].split()
    for row in planes[1:]:
        f = dict(zip(head, row.split(), strict=False))
        p = world.planes[int(f["id"])]
        assert (p.owner, p.eff, p.mob) == (int(f["own"]), int(f["eff"]), int(f["mob"])), row
    # the defender's telegrams
    told = text.split("telegrams produced by the command (printable text)\n", 1)[1]
    (tmp_path / "again").mkdir()
    r = paradrop_cli(imported(scenario, tmp_path / "again"), 1, "--json")
    assert [t["text"] for t in json.loads(r.stdout)["telegrams"]] == told.splitlines()


def test_dot_is_no_escorts_and_every_list_form_is_read() -> None:
    geo = Geometry(64, 32)
    world = load_world(EXAMPLES / "paradrop.toml")
    planes = world.planes
    assert select(planes, ".", geo, (0, 0), lambda p: p.wing).uids is None
    assert select(planes, "", geo, (0, 0), lambda p: p.wing).uids is None
    assert select(planes, "-1", geo, (0, 0), lambda p: p.wing).uids is None
    assert select(planes, "*", geo, (0, 0), lambda p: p.wing).uids == [0]
    assert select(planes, "0,0", geo, (0, 0), lambda p: p.wing).uids == [0]
    assert select(planes, "-2:0,0", geo, (0, 0), lambda p: p.wing).uids == [0]
    assert select(planes, "2,0", geo, (0, 0), lambda p: p.wing).uids == []
    assert select(planes, "@2,0:1", geo, (0, 0), lambda p: p.wing).uids == [0]
    assert select(planes, "@4,0:1", geo, (0, 0), lambda p: p.wing).uids == []
    assert select(planes, "~", geo, (0, 0), lambda p: p.wing).uids == [0]
    assert select(planes, "a", geo, (0, 0), lambda p: p.wing).uids == []
    planes[0].wing = "a"
    assert select(planes, "a", geo, (0, 0), lambda p: p.wing).uids == [0]
    assert select(planes, "0/7/0", geo, (0, 0), lambda p: p.wing).uids == [0]
    with pytest.raises(InputError, match="realm"):
        select(planes, "#1", geo, (0, 0), lambda p: p.wing)
    with pytest.raises(InputError, match="conditions"):
        select(planes, "?type=tc", geo, (0, 0), lambda p: p.wing)


@pytest.mark.parametrize(
    ("text", "uids", "note"),
    [
        ("3/1/3", [3, 1], ""),
        ("3 ", [3], ""),
        ("1/x", None, "Illegal character 'x'\n"),
        ("1/", None, "Illegal character '"),
        ("1x", None, "Expecting '/', got 'x'\n"),
        ("/".join(map(str, range(129))), None, "List too long (limit is 128)\n"),
    ],
)
def test_number_lists(text: str, uids: list[int] | None, note: str) -> None:
    picked = parse_numbers(text)
    assert picked.uids == uids
    assert "".join(picked.notes) == note


def test_sector_arguments_like_the_server() -> None:
    geo = Geometry(32, 16)
    assert parse_xy("2,0", geo, (0, 0)) == (2, 0)
    assert parse_xy(" 2, 0 ", geo, (0, 0)) == (2, 0)
    assert parse_xy("-2,0", geo, (4, 2)) == (2, 2)
    assert parse_xy("1,0", geo, (0, 0)) is None
    assert parse_xy("2,0x", geo, (0, 0)) is None
    assert parse_xy("2", geo, (0, 0)) is None


#: Best flight paths printed by a 4.4.1 server in a 32 x 16 world, from 0,0.
SERVER_PATHS = {
    (5, 3): "nnnj",
    (3, 5): "nnnbn",
    (-4, 4): "bbbb",
    (-5, 1): "ggb",
    (7, -3): "ujjuu",
    (-1, -7): "uuyyyuy",
    (12, 6): "nnnjnjjnn",
    (-15, 1): "gggggggb",
    (0, 8): "uuyyyuyu",
    (16, 0): "gggggggg",
    (9, 7): "nnnnnnnj",
}


@pytest.mark.parametrize(("dest", "path"), SERVER_PATHS.items())
def test_best_flight_path_breaks_ties_like_the_server(dest: tuple[int, int], path: str) -> None:
    geo = Geometry(32, 16)
    assert geo.fly_path((0, 0), geo.norm(*dest)) == path


def test_cli_example_and_an_illegal_drop_zone(tmp_path: Path) -> None:
    world = tmp_path / "p.toml"
    world.write_text((EXAMPLES / "paradrop.toml").read_text())
    args = ("empire", "paradrop", "0", ".", "0,0", "4,0", "--world", str(world), "--as", "1")
    r = run_cli(*args, "--seed", "7")
    assert r.exit_code == 0, r.output
    assert r.stdout.endswith(
        "!@!@!!@!!@@@@@!@@\n- Casualties -\n     Yours: 10\n    Theirs: 7\n"
        "Paper-shuffling ... 2.5 BTU\nAll of your troops were destroyed\n"
    )
    after = load_world(world)
    assert (after.planes[0].mob, after.sector((4, 0)).mob) == (114, 60)
    lost = run_cli(
        "empire", "paradrop", "0", ".", "0,0", "jjjh", "--world", str(world), "--as", "1"
    )
    assert lost.exit_code == 1
    assert lost.stdout.endswith("You can't air-assault a mountain sector!\nAir-Assault aborted\n")
    mountain = load_world(world)
    assert mountain.sector((0, 0)).mil == 80 and mountain.planes[0].mob == 114 - 17
    own = run_cli("empire", "paradrop", "0", ".", "0,0", "jh", "--world", str(world), "--as", "1")
    assert own.exit_code == 1
    assert own.stdout.endswith("You can't air-assault your own sector!\ncommand failed\n")
    assert load_world(world) == mountain


def test_x_light_transports_fly_from_a_land_unit() -> None:
    """Stock tables have no x-light transport, but the server lets one fly from a land unit:
    it takes fuel and paratroopers from the unit, which must be 50 % efficient, not loaded
    and the plane owner's or an ally's."""
    w = load_world(EXAMPLES / "paradrop.toml")
    tc = w.tables.planes["tc"]
    w.planes[0].type = replace(tc, flags=tc.flags | {"x-light"})
    w.units[0] = LandUnit(
        uid=0, type=w.tables.land["tra"], owner=1, x=0, y=0, eff=100, tech=200.0,
        items={"mil": 30, "petrol": 5},
    )  # fmt: skip
    w.planes[0].land = 0
    r = paradrop(w, "0", ".", "0,0", "4,0", 1, ServerRandom(7), ScriptedPrompter([]))
    assert "tc   transport chopper #0 equipped\n" in r.transcript()
    assert w.units[0].items == {"mil": 20, "petrol": 3}
    assert w.sector((0, 0)).mil == 100 and w.sector((0, 0)).get("petrol") == 100
    for change, message in (
        ("eff", "No planes could be equipped for the mission.\n"),
        ("owner", "(note) An ally does not own the unit tc   transport chopper #0 is on\n"),
    ):
        again = load_world(EXAMPLES / "paradrop.toml")
        again.planes[0].type, again.planes[0].land = w.planes[0].type, 0
        again.units[0] = replace(w.units[0], items={"mil": 30, "petrol": 5})
        if change == "eff":
            again.units[0].eff = 49
        else:
            again.units[0].owner = 2
        r = paradrop(again, "0", ".", "0,0", "4,0", 1, ServerRandom(7), ScriptedPrompter([]))
        assert message in r.transcript()
        assert "standing by" not in r.transcript()


def test_planes_that_stood_by_lose_their_mission_even_if_none_flies() -> None:
    w = load_world(EXAMPLES / "paradrop.toml")
    w.planes[0].mission, w.planes[0].op_center, w.planes[0].op_radius = "escort", (0, 0), 2
    w.sector((0, 0)).put("petrol", 0)
    r = paradrop(w, "0", ".", "0,0", "4,0", 1, ServerRandom(7), ScriptedPrompter([]))
    assert r.transcript().endswith(
        "tc   transport chopper #0 standing by\ntc   transport chopper #0 not enough petrol"
        " there!\nNo planes could be equipped for the mission.\ncommand failed\n"
    )
    assert (r.outcome, r.world_changed, w.planes[0].mission) == ("refused", True, "")
    assert w.nations[1].btu == 640 - 3


def test_a_condition_on_the_planes_is_refused_whole() -> None:
    """The server's parser takes a ``?...`` word out of the arguments as a condition on
    the planes; bellum cannot evaluate it, so the order is refused, not run without it."""
    world = load_world(EXAMPLES / "paradrop.toml")
    with pytest.raises(InputError, match=re.escape("support conditions (?type=tc)")):
        run_command(world, "paradrop 0 . 0,0 4,0 ?type=tc", country=1, seed=7)
    assert world == load_world(EXAMPLES / "paradrop.toml")
