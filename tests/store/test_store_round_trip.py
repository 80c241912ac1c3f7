"""Every field combat reads survives TOML -> database -> dump -> database -> TOML unchanged."""

from __future__ import annotations

import difflib
from pathlib import Path

from hypothesis import HealthCheck, given, settings
from hypothesis import strategies as st

from bellum.empire.geometry import Geometry
from bellum.empire.io.sqlite.store import Store
from bellum.empire.io.toml import dumps, parse_world, world_to_data
from bellum.empire.io.xdump.mapping import dump_to_world, world_to_dump
from bellum.empire.io.xdump.syntax import parse_dump
from bellum.empire.tables import stock
from bellum.empire.world import (
    ITEMS,
    MISSIONS,
    RETREAT_ORDERS,
    LandUnit,
    Nation,
    Plague,
    Plane,
    Relation,
    Sector,
    Ship,
    World,
)

SIZE = (16, 8)
TABLES = stock()
LAND_TYPES = sorted(t.name for t in TABLES.sectors.values() if not t.is_sea)
#: Names as players type them: blanks, quotes, backslashes and non-ASCII letters included.
NAMES = st.text(st.sampled_from('ab Z9"\\é~'), max_size=6)
ARMY = st.sampled_from(["", "a", "Z", "~"])


@st.composite
def worlds(draw: st.DrawFn) -> World:
    geo = Geometry(*SIZE)
    world = World(geometry=geo, tables=TABLES)
    cells = [(x, y) for y in range(SIZE[1]) for x in range(SIZE[0]) if (x + y) % 2 == 0]
    coord = st.sampled_from(cells)
    cnums = draw(st.lists(st.integers(1, 12), min_size=2, max_size=3, unique=True))
    for c in cnums:
        n = Nation(cnum=c, name=f"c{c}{draw(NAMES)}".strip() or f"c{c}")
        n.money = draw(st.integers(-5000, 99999))
        n.btu = draw(st.integers(0, 640))
        n.tech = draw(st.integers(0, 400)) / 4
        n.origin = draw(coord)
        n.capital = draw(st.none() | coord)
        n.capital_sacked = draw(st.booleans())
        n.inform = draw(st.booleans())
        world.nations[c] = n
    for n in world.nations.values():
        for other in cnums:
            rel = draw(st.sampled_from(list(Relation)))
            if other != n.cnum and rel != Relation.NEUTRAL:
                n.relations[other] = rel
    for xy in cells:
        kind = draw(st.sampled_from(["sea", *LAND_TYPES]))
        s = Sector(x=xy[0], y=xy[1], type=TABLES.sector(kind))
        if kind != "sea":
            s.owner = draw(st.sampled_from([0, *cnums]))
            s.oldowner = draw(st.sampled_from([s.owner, *cnums]))
            s.eff = draw(st.integers(0, 100))
            s.mob = draw(st.integers(-127, 127))
            s.road, s.rail, s.defense = (draw(st.integers(0, 100)) for _ in range(3))
            s.loyalty = draw(st.integers(0, 127))
            s.che = draw(st.integers(0, 255))
            s.che_target = draw(st.sampled_from([0, *cnums])) if s.che else 0
            s.avail = draw(st.integers(0, 9999))
            s.off = draw(st.booleans())
            s.plague = draw(st.sampled_from(list(Plague)))
            s.items = {i: draw(st.integers(1, 9999)) for i in draw(st.sets(st.sampled_from(ITEMS)))}
        s.mines = draw(st.integers(0, 9999))
        world.sectors[xy] = s
    land = [xy for xy, s in world.sectors.items() if not s.type.is_sea]
    sea = [xy for xy, s in world.sectors.items() if s.type.is_sea]

    def mission() -> str:
        return draw(st.sampled_from([m for m in MISSIONS if m != "zdone"]))

    if sea:
        for uid in draw(st.sets(st.integers(0, 30), max_size=3)):
            x, y = draw(st.sampled_from(sea))
            sh = Ship(uid=uid, type=draw(st.sampled_from(list(TABLES.ships.values()))),
                      owner=draw(st.sampled_from(cnums)), x=x, y=y)  # fmt: skip
            sh.name, sh.fleet = draw(NAMES), draw(ARMY)
            sh.eff, sh.mob = draw(st.integers(20, 100)), draw(st.integers(-127, 127))
            sh.tech = float(draw(st.integers(sh.type.tech, 400)))
            sh.mission, sh.op_radius = mission(), draw(st.integers(0, 10))
            sh.op_center = draw(st.none() | st.sampled_from(cells))
            sh.items = {"mil": draw(st.integers(0, 50))} if draw(st.booleans()) else {}
            sh.rpath = draw(st.text(st.sampled_from("ujnbgyh"), max_size=4))
            sh.rflags = "".join(k for k in RETREAT_ORDERS if draw(st.booleans()))
            world.ships[uid] = sh
    if land:
        for uid in draw(st.sets(st.integers(0, 30), max_size=3)):
            x, y = draw(st.sampled_from(land))
            lt = draw(st.sampled_from(list(TABLES.land.values())))
            u = LandUnit(uid=uid, type=lt, owner=draw(st.sampled_from(cnums)), x=x, y=y)
            u.eff, u.mob = draw(st.integers(10, 100)), draw(st.integers(-127, 127))
            u.tech = float(draw(st.integers(lt.tech, 400)))
            u.army, u.fort = draw(ARMY), draw(st.integers(0, 127))
            u.mission, u.op_radius = mission(), draw(st.integers(0, 10))
            u.op_center = draw(st.none() | st.sampled_from(cells))
            u.retreat = draw(st.integers(0, 100))
            u.items = {"mil": draw(st.integers(0, lt.milit))}
            world.units[uid] = u
        for uid in draw(st.sets(st.integers(0, 30), max_size=3)):
            x, y = draw(st.sampled_from(land))
            pt = draw(st.sampled_from(list(TABLES.planes.values())))
            p = Plane(uid=uid, type=pt, owner=draw(st.sampled_from(cnums)), x=x, y=y)
            p.eff, p.mob = draw(st.integers(10, 100)), draw(st.integers(-127, 127))
            p.tech = float(draw(st.integers(pt.tech, 400)))
            p.wing, p.hardened = draw(ARMY), draw(st.booleans())
            p.mission, p.op_radius = mission(), draw(st.integers(0, 10))
            p.op_center = draw(st.none() | st.sampled_from(cells))
            world.planes[uid] = p
    return world


def toml_text(world: World) -> str:
    return dumps(world_to_data(world))


def through_database(world: World, path: Path) -> World:
    path.unlink(missing_ok=True)
    Store.create(path, world).close()
    store = Store.open(path)
    try:
        return store.world()
    finally:
        store.close()


@settings(max_examples=60, deadline=None, suppress_health_check=[HealthCheck.too_slow])
@given(world=worlds())
def test_a_world_survives_toml_database_dump_database_toml(world: World, tmp_path_factory) -> None:  # type: ignore[no-untyped-def]
    tmp = tmp_path_factory.mktemp("trip")
    import tomllib

    text = toml_text(world)
    first = parse_world(tomllib.loads(text), "first.toml")
    assert_same(toml_text(first), text)
    stored = through_database(first, tmp / "a.db")
    dumped = world_to_dump(stored)
    imported = dump_to_world(parse_dump(dumped, "w.xdump"), SIZE)
    again = through_database(imported, tmp / "b.db")
    assert_same(toml_text(again), text)


def assert_same(got: str, want: str) -> None:
    """Equal texts, or the lines that differ (a world's repr is too long to read)."""
    if got != want:
        diff = difflib.unified_diff(want.splitlines(), got.splitlines(), lineterm="", n=2)
        raise AssertionError("\n".join(list(diff)[:40]))
