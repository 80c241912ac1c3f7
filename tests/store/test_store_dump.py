"""Empire dumps: import what combat needs, keep the rest, export byte for byte."""

from __future__ import annotations

import re
from pathlib import Path

import pytest
from store_support import SIZES, dump_path

from bellum.empire.io.xdump.mapping import dump_to_world, infer_size, read_dump, world_to_dump
from bellum.empire.io.xdump.syntax import parse_dump, quote, split_fields, unquote
from bellum.empire.world import Plague, Relation
from bellum.errors import InputError
from clirunner import Ran, bellum


def exported(name: str) -> str:
    """The dump as bellum exports it: the same bytes, and its size where they leave it out."""
    size = SIZES[name]
    said = f"# WORLD_X {size[0]} WORLD_Y {size[1]}\n" if size else ""
    return said + dump_path(name).read_text()


@pytest.mark.parametrize("name", sorted(SIZES))
def test_store_dump_round_trip_is_byte_identical(name: str) -> None:
    path = dump_path(name)
    dump = read_dump(path)
    world = dump_to_world(dump, SIZES[name])
    assert world_to_dump(world, dump) == exported(name)
    again = parse_dump(exported(name), name)
    assert world_to_dump(dump_to_world(again), again) == exported(name)


@pytest.mark.parametrize("name", sorted(SIZES))
def test_store_dump_round_trip_through_the_database(name: str, tmp_path: Path) -> None:
    path = dump_path(name)
    db, out = tmp_path / "w.db", tmp_path / "out.xdump"
    size = SIZES[name]
    extra = ["--size", f"{size[0]}x{size[1]}"] if size else []
    r = bellum("empire", "world", "import", str(path), "--db", str(db), *extra)
    assert r.returncode == 0, r.stderr
    r = bellum("empire", "world", "export", "--db", str(db), "--out", str(out))
    assert r.returncode == 0, r.stderr
    assert out.read_text() == exported(name)


def test_store_dump_size_is_inferred_only_from_a_complete_sector_table(tmp_path: Path) -> None:
    assert infer_size(read_dump(dump_path("smoke-final.xdump"))) == (64, 32)
    fire = read_dump(dump_path("fire-final.xdump"))
    assert infer_size(fire) is None
    with pytest.raises(InputError, match="world size is unknown"):
        dump_to_world(fire)
    econfig = tmp_path / "econfig"
    econfig.write_text("# fire test\nWORLD_X 32\nWORLD_Y 16\nRAILWAYS 0\nland_mob_max 100\n")
    db = tmp_path / "f.db"
    r = bellum("empire", "world", "import", str(dump_path("fire-final.xdump")), "--db", str(db),
               "--econfig", str(econfig))  # fmt: skip
    assert r.returncode == 0, r.stderr
    show = bellum("empire", "world", "show", "--db", str(db))
    assert "32x16, 256 sectors" in show.stdout


def test_store_dump_maps_what_combat_reads() -> None:
    world = dump_to_world(read_dump(dump_path("fire-final.xdump")), (32, 16))
    # land: 1 1 3 1 13 39 127 0 160 3 1 interdiction 4 "" -1 0 42 () "" 0 10 40 12 ...
    u = world.units[1]
    assert (u.owner, u.xy, u.type.uid, u.eff, u.mob, u.tech) == (1, (3, 1), 13, 39, 127, 160.0)
    assert (u.mission, u.op_center, u.op_radius, u.ship, u.land, u.fort, u.retreat) == (
        "interdiction", (3, 1), 4, None, None, 0, 42
    )  # fmt: skip
    assert u.items == {"mil": 10, "shell": 40, "gun": 12}
    assert world.units[33].land == 32 and world.planes[22].ship == 22
    assert 0 not in world.units and 10 not in world.units  # unowned: dead or never built
    # sector -2,2 (absolute 30,2): 2 -2 2 24 100 127 ... oldown 2, civ 100, mil 0 ... road
    s = world.sectors[(30, 2)]
    assert (s.owner, s.type.uid, s.eff, s.mob, s.civ, s.road, s.rail, s.defense) == (
        2, 24, 100, 127, 100, 100, 100, 100
    )  # fmt: skip
    assert s.plague == Plague.HEALTHY
    n1, n2 = world.nations[1], world.nations[2]
    assert n1.relations == {2: Relation.AT_WAR} and n2.rel(1) == Relation.AT_WAR
    assert (n1.money, n1.btu, n1.tech, n1.capital, n1.active) == (25000, 255, 100.0, (1, 15), True)
    assert world.nations[3].active is False  # status "new"
    assert world.ships[1].mission == "interdiction" and world.ships[1].items["shell"] == 100


def test_store_dump_export_changes_only_the_changed_fields() -> None:
    path = dump_path("fire-final.xdump")
    dump = read_dump(path)
    world = dump_to_world(dump, (32, 16))
    world.sectors[(30, 2)].mil = 7
    del world.units[2]
    world.nations[1].btu = 12
    before, after = exported(path.name).splitlines(), world_to_dump(world, dump).splitlines()
    changed = [(a, b) for a, b in zip(before, after, strict=True) if a != b]
    assert len(changed) == 3
    fields = [(split_fields(a, ""), split_fields(b, "")) for a, b in changed]
    diffs = [[(i, x, y) for i, (x, y) in enumerate(zip(a, b, strict=True)) if x != y]
             for a, b in fields]  # fmt: skip
    assert diffs[0] == [(27, "0", "7")]  # sect milit
    assert diffs[1] == [(1, "1", "0"), (5, "40", "0")]  # land #2: unowned, like the server
    assert diffs[2] == [(15, "255", "12")]  # nat btu


def test_store_dump_strings_and_symbols() -> None:
    assert unquote('"a\\040b\\042c"', "") == 'a b"c'
    assert unquote(quote('Gr\u00fcn "x" y'), "") == 'Gr\u00fcn "x" y'
    assert unquote("nil", "") is None
    assert split_fields('1 "a b" (x y) nil -2', "") == ["1", '"a b"', "(x y)", "nil", "-2"]


def _mutated(tmp_path: Path, old: str, new: str, count: int = 1) -> Path:
    text = dump_path("fire-final.xdump").read_text()
    assert old in text
    out = tmp_path / "fire-final.xdump"
    out.write_text(text.replace(old, new, count))
    return out


def _line_of(text: str, needle: str) -> int:
    return text[: text.index(needle)].count("\n") + 1


@pytest.mark.parametrize(
    ("old", "new", "message"),
    [
        ("config nuke\n", "config nukes\n", r"unknown table 'nukes'"),
        (" access theta\n", " access thetas\n", r"table plane has no column 'thetas'"),
        ("wing range harden", "wing harden", r"table plane lacks column 'range'"),
        ("\n1 0 0 19 5 127 ", "\n1 0 0 19 150 127 ", r"sect effic: 150 is out of range 0..100"),
        ("\n1 0 0 19 5 127 ", "\n1 0 0 77 5 127 ", r"sect des: unknown sector type 77"),
        ("\n1 0 0 19 5 127 ", "\n9 0 0 19 5 127 ", r"sect owner: no country 9"),
        (
            "\n1 0 0 19 5 127 ",
            "\n1 99 0 19 5 127 ",
            r"sect xloc,yloc: 99,0 is off the 32x16 map \(x -16\.\.15, y -8\.\.7\)",
        ),
        ("\n1 0 0 19 5 127 ", "\n1 16 0 19 5 127 ", r"sect xloc,yloc: 16,0 is off the 32x16 map"),
        (" 0 0 healthy 0 0 0 0 0 0 0 0\n", " 0 0 sick 0 0 0 0 0 0 0 0\n", r"unknown plague stage"),
        ('"" -12 0 0 () ""\n', '"" -12 0 0 () "\n', r"unterminated string"),
        ("\n1 neutral neutral at-war", "\n1 neutral neutral at-peace", r"unknown relation"),
        ("\n0 2 2 2 27 100 127", "\n0 2 2 2 99 100 127", r"unknown plane type 99"),
        ("\n1 0 0 19 5 127 0", "\n1 0 0 19 5 127", r"sect expects 78 fields, got 77"),
        ("\n2 1 3 1 13 40 127", "\n1 1 3 1 13 40 127", r"land uid: land unit #1 appears twice"),
        ("\n1 0 0 19 5 127 ", "\n1 0 0 19 5x 127 ", r"malformed field 5"),
    ],
)
def test_store_dump_bad_input_is_one_line_with_file_and_line(
    tmp_path: Path, old: str, new: str, message: str
) -> None:
    path = _mutated(tmp_path, old, new)
    expected_line = _line_of(path.read_text(), new.lstrip("\n").split("\n")[0][:12])
    with pytest.raises(InputError) as err:
        dump_to_world(read_dump(path), (32, 16))
    text = str(err.value)
    assert "\n" not in text
    assert re.search(message, text), text
    m = re.match(r"fire-final\.xdump:(\d+): ", text)
    assert m, text
    assert abs(int(m.group(1)) - expected_line) <= 1, (text, expected_line)


def test_store_dump_truncated_anywhere_is_refused(tmp_path: Path) -> None:
    text = dump_path("fire-final.xdump").read_text()
    for cut in range(40, len(text) - 1, 997):
        with pytest.raises(InputError, match=r"^cut\.xdump:\d+: "):
            parse_and_map(text[:cut])


def parse_and_map(text: str) -> None:
    dump_to_world(parse_dump(text, "cut.xdump"), (32, 16))


def test_store_dump_bad_import_writes_nothing(tmp_path: Path) -> None:
    bad = _mutated(tmp_path, "\n1 0 0 19 5 127 ", "\n1 0 0 19 150 127 ")
    db = tmp_path / "w.db"
    r = bellum("empire", "world", "import", str(bad), "--db", str(db), "--size", "32x16")
    assert r.returncode == 1
    assert r.stderr.count("\n") == 1 and r.stderr.startswith("bellum: error: fire-final.xdump:")
    assert not db.exists()
    good = dump_path("fire-final.xdump")
    assert (
        bellum(
            "empire", "world", "import", str(good), "--db", str(db), "--size", "32x16"
        ).returncode
        == 0
    )
    before = db.read_bytes()
    r = bellum(
        "empire", "world", "import", str(bad), "--db", str(db), "--size", "32x16", "--replace"
    )
    assert r.returncode == 1 and "Traceback" not in r.stderr
    assert db.read_bytes() == before
    r = bellum("empire", "world", "import", str(good), "--db", str(db), "--size", "32x16")
    assert r.returncode == 1 and "already exists" in r.stderr


def test_store_dump_machine_readable_xdump(tmp_path: Path) -> None:
    text = "XDUMP game 1700000000\n0 0 18 0 0\n/1\nXDUMP nat 1700000000\n"
    dump = parse_dump(text + "/0\n", "m.xdump")
    assert [t.name for t in dump.tables] == ["game", "nat"]
    assert dump.text() == text + "/0\n"
    with pytest.raises(InputError, match=r"m\.xdump:3: footer says 3 records, read 1"):
        parse_dump("XDUMP game 1700000000\n0 0 18 0 0\n/3\n", "m.xdump")


@pytest.mark.parametrize("name", sorted(SIZES))
def test_store_dump_export_then_import_gives_the_changed_world_back(name: str) -> None:
    """Whatever commands do to a world (owners, items, efficiency, relations, units lost or
    new, sectors never in the dump), the exported dump reads back as the same world."""
    import random

    from bellum.empire.io.sqlite.codec import world_rows
    from bellum.empire.world import LandUnit, Relation

    dump = read_dump(dump_path(name))
    world = dump_to_world(dump, SIZES[name])
    rng = random.Random(7)
    cnums = sorted(world.nations)
    land = [s for s in world.sectors.values() if not s.type.is_sea]
    for s in rng.sample(land, min(40, len(land))):
        s.owner = s.oldowner = rng.choice(cnums)
        s.mil, s.civ = rng.randrange(0, 999), rng.randrange(0, 999)
        s.eff, s.mob = rng.randrange(0, 101), rng.randrange(-127, 128)
        s.items["shell"] = rng.randrange(0, 99)
    for uid in rng.sample(sorted(world.units), min(3, len(world.units))):
        del world.units[uid]
    for n in world.nations.values():
        n.money += rng.randrange(-999, 999)
        n.btu = rng.randrange(0, 640)
        other = rng.choice(cnums)
        rel = rng.choice(list(Relation))
        if other != n.cnum and rel == Relation.NEUTRAL:
            n.relations.pop(other, None)  # neutral is the default, never stored
        elif other != n.cnum:
            n.relations[other] = rel
    where = land[0]
    new_uid = max([0, *world.units]) + 5
    world.units[new_uid] = LandUnit(
        uid=new_uid, type=world.tables.land["inf"], owner=cnums[0], x=where.x, y=where.y,
        items={"mil": 10}, op_center=where.xy,
    )  # fmt: skip
    sea = next(s for s in world.sectors.values() if s.type.is_sea)
    sea.mines = 5  # a sector the dump may have left out
    text = world_to_dump(world, dump)
    again = dump_to_world(parse_dump(text, "again.xdump"), SIZES[name] or (64, 32))
    assert world_rows(again) == world_rows(world)


def test_store_dump_of_a_world_file_reads_back_as_the_same_world() -> None:
    from store_support import ROOT

    from bellum.empire.io.sqlite.codec import world_rows
    from bellum.empire.io.toml import load_world

    world = load_world(ROOT / "examples" / "empire" / "vector-a.toml")
    text = world_to_dump(world)
    assert text.startswith("config sect\nowner xloc yloc des effic")
    assert world_rows(dump_to_world(parse_dump(text, "a.xdump"))) == world_rows(world)


SEA_WITH_AN_ISLAND = """schema_version = 1
[world]
size = [32, 16]
fill = "sea"
[[nation]]
cnum = 1
name = "North"
[[sector]]
at = [20, 6]
des = "wilderness"
owner = 1
mil = 10
"""


def test_an_exported_dump_says_its_size_and_imports_without_it(tmp_path: Path) -> None:
    """A sea-filled world's dump leaves sectors out: its size goes in a comment (issue 29)."""
    (tmp_path / "sea.toml").write_text(SEA_WITH_AN_ISLAND)

    def run(*args: str) -> Ran:
        return bellum("empire", "world", *args, cwd=tmp_path)

    assert run("new", "--db", "w.db", "--from", "sea.toml").returncode == 0
    assert run("export", "--db", "w.db", "--out", "w.xdump").returncode == 0
    text = (tmp_path / "w.xdump").read_text()
    assert text.startswith("# WORLD_X 32 WORLD_Y 16\nconfig sect\n")
    r = run("import", "w.xdump", "--db", "r.db")
    assert r.returncode == 0 and "imported w.xdump: 32x16, 1 countries" in r.stdout, r.stderr
    assert run("export", "--db", "r.db", "--out", "r.xdump").returncode == 0
    assert (tmp_path / "r.xdump").read_text() == text  # said once, not twice
    r = run("import", "w.xdump", "--db", "x.db", "--size", "16x8")
    assert (r.returncode, r.stderr) == (
        1,
        "bellum: error: w.xdump: the dump's world is 32x16, not 16x8\n",
    )


@pytest.mark.parametrize(
    ("size", "problem"),
    [
        ("16x8", "-12,6 is off the 16x8 map (x -8..7, y -4..3)"),
        ("8x4", "-12,6 is off the 8x4 map (x -4..3, y -2..1)"),
    ],
)
def test_a_dump_read_at_a_smaller_size_is_refused_with_the_real_range(
    size: str, problem: str, tmp_path: Path
) -> None:
    (tmp_path / "sea.toml").write_text(SEA_WITH_AN_ISLAND)
    bellum("empire", "world", "new", "--db", "w.db", "--from", "sea.toml", cwd=tmp_path)
    bellum("empire", "world", "export", "--db", "w.db", "--out", "w.xdump", cwd=tmp_path)
    unsaid = (tmp_path / "w.xdump").read_text().split("\n", 1)[1]  # an old export: no size
    (tmp_path / "old.xdump").write_text(unsaid)
    r = bellum(
        "empire", "world", "import", "old.xdump", "--db", "x.db", "--size", size, cwd=tmp_path
    )
    assert r.returncode == 1 and not (tmp_path / "x.db").exists()
    assert r.stderr == (
        f"bellum: error: old.xdump:3: sect xloc,yloc: {problem}; give the game's size with"
        " --size or --econfig\n"
    )
