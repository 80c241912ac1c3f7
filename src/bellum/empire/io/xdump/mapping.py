"""Empire game dumps <-> bellum worlds.

Import reads what combat needs from an ``empdump``/``xdump`` text dump
(sectors, nations and relations, land units, ships, planes, their items)
into a :class:`~bellum.empire.world.World`.  Everything else stays in the
:class:`~bellum.empire.io.xdump.syntax.Dump`, record by record, so export can lay
the world's current values over the original records: a field whose value
did not change keeps the exact text it was read with, which makes an
import followed by an export byte-identical.

Coordinates in a deity's dump are absolute, written in ``[-size/2,
size/2)``.  A dump says how big the world is if it holds the ``version``
table (an ``xdump version``, which also gives the game's rule options) or
a comment ``# WORLD_X 32 WORLD_Y 16``, which bellum's export writes when the
sector table leaves sectors out (the server's reader skips comments);
otherwise :func:`dump_to_world` infers the size from a complete sector
table or needs it from the caller (``econfig``'s WORLD_X and WORLD_Y).

A player's dump (``xdump`` as a country other than the deity) leaves out
what the country cannot see: other countries' sectors and units, and the
deity-only columns.  Its world carries a :class:`~bellum.empire.world.Fog`
saying so, in the player's coordinates; the player's own nation comes from
its ``country`` table.
"""

from __future__ import annotations

import copy
import math
import re
from collections.abc import Callable, Iterator
from pathlib import Path
from typing import Any

from bellum.empire.geometry import Coord, Geometry
from bellum.empire.io._common import (
    BYTE,
    CHE,
    MOBILITY,
    PERCENT,
    STOCK,
    fill_map,
    unownable,
)
from bellum.empire.io.xdump.syntax import (
    DEITY_COLUMNS,
    KNOWN_COLUMNS,
    Dump,
    Record,
    Table,
    escape,
    format_float,
    parse_dump,
    quote,
    unescape,
    unquote,
)
from bellum.empire.rules import check_options, econfig_options
from bellum.empire.tables import Tables, stock
from bellum.empire.world import (
    ITEMS,
    RETREAT_ORDERS,
    Fog,
    LandUnit,
    Nation,
    Plague,
    Plane,
    Relation,
    Sector,
    Ship,
    World,
)
from bellum.errors import InputError
from bellum.fileio import read_input
from bellum.numbers import shown, to_int

#: Dump item columns, in the order of :data:`bellum.empire.world.ITEMS`.
ITEM_COLUMNS = KNOWN_COLUMNS["sect"][26:40]
#: Distribution threshold columns by world item name.
DIST_COLUMNS = {item: f"{col[0]}_dist" for item, col in zip(ITEMS, ITEM_COLUMNS, strict=True)}
#: Machine-readable dumps write these symbols as numbers; the values are the server's.
NATION_STATUS = ("unused", "new", "visitor", "sanctuary", "active", "deity")
NO_MISSION = "none"


def read_dump(path: str | Path) -> Dump:
    """Read and split a dump file; unreadable files are one-line :class:`InputError`."""
    p = Path(path)
    raw = read_input(p, "dump file")
    try:
        text = raw.decode("ascii")
    except UnicodeDecodeError:
        raise InputError(f"{p}: not an Empire dump (not ASCII text)") from None
    return parse_dump(text, p.name)


class _Row:
    """Typed access to one record's fields, with errors naming the file and line."""

    def __init__(self, dump: Dump, table: Table, rec: Record, geo: Geometry | None) -> None:
        self.where = f"{dump.source}:{rec.lineno}"
        self.table = table
        self.rec = rec
        self.geo = geo

    def raw(self, col: str) -> str:
        return self.rec.fields[self.table.columns.index(col)]

    def has(self, col: str) -> bool:
        """Whether the dump has column ``col`` (a player's dump lacks the deity's)."""
        return col in self.table.columns

    def fail(self, col: str, problem: str) -> InputError:
        return InputError(f"{self.where}: {self.table.name} {col}: {problem}")

    def num(self, col: str, lo: int | None = None, hi: int | None = None) -> int:
        text = self.raw(col)
        v = to_int(text, signed=True)
        if v is None:
            raise self.fail(col, f"expected an integer, got {shown(text)}")
        if (lo is not None and v < lo) or (hi is not None and v > hi):
            raise self.fail(col, f"{v} is out of range {lo}..{hi}")
        return v

    def real(self, col: str) -> float:
        text = self.raw(col)
        try:
            v = float(text)
        except ValueError:
            raise self.fail(col, f"expected a number, got {shown(text)}") from None
        if not math.isfinite(v):
            raise self.fail(col, f"expected a finite number, got {shown(text)}")
        return v

    def text(self, col: str) -> str:
        try:
            v = unquote(self.raw(col), self.where)
        except InputError as exc:
            raise self.fail(col, str(exc).split(": ", 1)[1]) from None
        return v or ""

    def symbol(self, col: str, names: tuple[str, ...] | None = None) -> str:
        """A symbol as its name; machine-readable dumps give the number (``names``)."""
        text = self.raw(col)
        k = to_int(text, signed=True)
        if k is not None:
            if names is None:
                raise self.fail(col, f"numeric symbol {text} needs the server's meta-data")
            if not 0 <= k < len(names):
                raise self.fail(col, f"unknown symbol {text}")
            return names[k]
        if text.startswith(("(", '"')):
            raise self.fail(col, f"expected a symbol, got {text}")
        return unescape(text, self.where)

    def symset(self, col: str) -> set[str]:
        text = self.raw(col)
        if not (text.startswith("(") and text.endswith(")")):
            raise self.fail(col, f"expected a symbol set, got {text}")
        return {unescape(name, self.where) for name in text[1:-1].split()}

    def xy(self, xcol: str, ycol: str) -> Coord:
        """A place, written as the server writes it: in ``[-size/2, size/2)``."""
        assert self.geo is not None
        w, h = self.geo.width // 2, self.geo.height // 2
        x, y = self.num(xcol), self.num(ycol)
        if not (-w <= x < w and -h <= y < h):
            raise self.fail(
                f"{xcol},{ycol}",
                f"{x},{y} is off the {2 * w}x{2 * h} map (x {-w}..{w - 1}, y {-h}..{h - 1});"
                " give the game's size with --size or --econfig",
            )
        return self.geo.norm(x, y)


def _plague(row: _Row) -> Plague | None:
    if not row.has("pstage"):
        return None  # the deity's: unknown in a player's view
    name = row.symbol("pstage", tuple(p.name.lower() for p in Plague))
    try:
        return Plague[name.upper()]
    except KeyError:
        raise row.fail("pstage", f"unknown plague stage '{name}'") from None


def _relation(row: _Row, col: str) -> Relation | None:
    """A declared relation; ``None`` where option HIDDEN hides it from a player."""
    name = row.symbol(col, tuple(r.label() for r in Relation))
    if name == "unknown":
        return None
    try:
        return Relation.parse(name)
    except KeyError:
        raise row.fail(col, f"unknown relation '{name}'") from None


#: The server's mission symbols (by number) and the names bellum gives them.
_MISSION_SYMBOLS = {
    0: ("none", ""),
    1: ("interdiction", "interdiction"),
    2: ("support", "support"),
    3: ("reserve", "reserve"),
    4: ("escort", "escort"),
    6: ("air defense", "air-defense"),
    7: ("defensive support", "dsupport"),
    8: ("offensive support", "osupport"),
}
_MISSION_OF_SYMBOL = {symbol: ours for symbol, ours in _MISSION_SYMBOLS.values()}
_SYMBOL_OF_MISSION = {ours: symbol for symbol, ours in _MISSION_SYMBOLS.values()}


def _mission(row: _Row) -> str:
    number = to_int(row.raw("mission"))
    if number is not None and number in _MISSION_SYMBOLS:
        return _MISSION_SYMBOLS[number][1]
    name = row.symbol("mission")
    if name not in _MISSION_OF_SYMBOL:
        raise row.fail("mission", f"unknown mission '{shown(name)}'")
    return _MISSION_OF_SYMBOL[name]


def _op_area(row: _Row, o: Ship | LandUnit | Plane) -> None:
    o.op_center = row.xy("opx", "opy")
    o.op_radius = row.num("radius", 0)


def _opt_id(row: _Row, col: str) -> int | None:
    v = row.num(col, -1)
    return None if v < 0 else v


def _items(row: _Row) -> dict[str, int]:
    items = {}
    for item, col in zip(ITEMS, ITEM_COLUMNS, strict=True):
        v = row.num(col, 0, 32767)
        if v:
            items[item] = v
    return items


def _nation_fields(row: _Row, n: Nation) -> None:
    """What a nation record (``nat``, or a player's ``country``) says beyond name and status."""
    n.money = row.num("money")
    n.btu = row.num("btu", -32768, 32767)
    n.tech = row.real("tech")
    n.happiness = row.real("happiness")
    n.capital = row.xy("xcap", "ycap")
    flags = row.symset("flags")
    n.capital_sacked = "sacked" in flags
    n.inform = "inform" in flags


def _read_ship(row: _Row, sh: Ship) -> None:
    sh.name = row.text("name")
    sh.fleet = row.text("fleet")
    _op_area(row, sh)
    sh.rpath = row.text("rpath")
    sh.rflags = _retreat_orders(row)
    sh.items = _items(row)
    sh.plague = _plague(row)


def _retreat_orders(row: _Row) -> str:
    """``rflags`` as the ``retreat`` command's letters; machine-readable dumps give bits."""
    bits = to_int(row.raw("rflags"))
    if bits is not None:
        return "".join(k for i, k in enumerate(RETREAT_ORDERS) if bits >> i & 1)
    names = row.symset("rflags")
    unknown = names - set(RETREAT_ORDERS.values())
    if unknown:
        raise row.fail("rflags", f"unknown retreat order '{shown(min(unknown))}'")
    return "".join(k for k, name in RETREAT_ORDERS.items() if name in names)


def _read_unit(row: _Row, u: LandUnit) -> None:
    _op_area(row, u)
    u.army = row.text("army")
    u.ship = _opt_id(row, "ship")
    u.fort = row.num("harden", *BYTE)
    u.retreat = row.num("retreat", *PERCENT)
    u.items = _items(row)
    u.plague = _plague(row)
    u.land = _opt_id(row, "land")


def _read_plane(row: _Row, p: Plane) -> None:
    p.wing = row.text("wing")
    _op_area(row, p)
    p.hardened = row.num("harden", 0, 127) > 0
    p.ship = _opt_id(row, "ship")
    p.land = _opt_id(row, "land")


#: What each unit table has beyond the fields all three share.
_READ_MORE: dict[str, Callable[[_Row, Any], None]] = {
    "ship": _read_ship,
    "land": _read_unit,
    "plane": _read_plane,
}


def infer_size(dump: Dump) -> tuple[int, int] | None:
    """The world size if the sector table is complete (an ``empdump -c`` or a full world)."""
    t = dump.table("sect")
    if t is None or not t.records:
        return None
    xi, yi = t.index("xloc"), t.index("yloc")
    try:
        xs = [int(r.fields[xi]) for r in t.records]
        ys = [int(r.fields[yi]) for r in t.records]
    except ValueError:
        return None
    w = 2 * max(max(xs) + 1, -min(xs))
    h = 2 * max(max(ys) + 1, -min(ys))
    w += w % 2
    h += h % 2
    if len(t.records) * 2 == w * h and len({(x, y) for x, y in zip(xs, ys, strict=True)}) == len(
        xs
    ):
        return w, h
    return None


def _type_index(items: Any) -> dict[int, Any]:
    return {t.uid: t for t in items}


def game_config(dump: Dump) -> dict[str, str]:
    """The game's configuration from the dump's ``version`` table (empty without one)."""
    t = dump.table("version")
    if t is None or len(t.records) != 1:
        return {}
    return dict(zip(t.columns, t.records[0].fields, strict=True))


#: The comment that gives a dump's size (see the module's documentation).
_SIZE_COMMENT = re.compile(r"^#\s*WORLD_X\s+([0-9]{1,9})\s+WORLD_Y\s+([0-9]{1,9})\b", re.M)


def _size_of(dump: Dump, config: dict[str, str]) -> tuple[int, int] | None:
    """The size the dump says (its ``version`` table, else its size comment), else the
    size of its complete sector table, else ``None``."""
    if "WORLD_X" in config and "WORLD_Y" in config:
        try:
            return int(config["WORLD_X"]), int(config["WORLD_Y"])
        except ValueError:
            raise InputError(
                f"{dump.source}: version: WORLD_X and WORLD_Y must be numbers"
            ) from None
    said = _SIZE_COMMENT.search("".join(t.before for t in dump.tables))
    if said is not None:
        return int(said[1]), int(said[2])
    return infer_size(dump)


def _viewer(dump: Dump, geo: Geometry) -> _Row | None:
    """The player whose view a dump is (its ``country`` record), or None for a deity's dump."""
    nat = dump.table("nat")
    assert nat is not None
    if not DEITY_COLUMNS["nat"] - set(nat.columns):
        return None
    country = dump.table("country")
    if country is None or len(country.records) != 1:
        raise InputError(
            f"{dump.source}: a player's dump (its nat table lacks the deity's columns) needs"
            " the player's own country table (xdump country *)"
        )
    return _Row(dump, country, country.records[0], geo)


def _game_time(dump: Dump, world: World) -> tuple[int, int]:
    """The update number (``game`` table's ``turn``) and the server's clock when the dump
    was made (its header's timestamp); 0 where the dump does not say."""
    turn = 0
    for row in _rows(dump, "game", world):
        if row.has("turn"):
            turn = row.num("turn", 0)
    table = dump.table("game") or dump.table("nat")
    words = table.header.split() if table is not None else []
    stamp = to_int(words[-1]) if len(words) >= 3 else None
    return turn, stamp or 0


def dump_to_world(
    dump: Dump,
    size: tuple[int, int] | None = None,
    options: dict[str, Any] | None = None,
    tables: Tables | None = None,
    telegrams: bool = False,
) -> World:
    """The world held by ``dump``: every field combat reads, validated with line numbers.

    ``size`` is the world's WORLD_X, WORLD_Y; without it the size comes from the
    dump's ``version`` table or is inferred from a complete sector table.  The
    rule options are the ``version`` table's, overridden by ``options``.
    Objects owned by nobody (the server's dead or never-built units, ships and
    planes) are not part of the world.  A player's dump gives a world with fog.

    ``telegrams``: the deity's dump was read from a live server while the players
    played, so each nation's count of telegrams yet to announce (``tgms``) is theirs
    before their next command.  A dump file's is not (a player logs in before playing,
    and the login announces them), nor is a player's own (its ``xdump`` announced them).
    """
    world = _new_world(dump, size, options or {}, tables or stock())
    viewer = _viewer(dump, world.geometry)
    if viewer is not None:
        world.fog = Fog(viewer.num("cnum", 0, 255), *_game_time(dump, world))
    _read_nations(dump, world, viewer, telegrams)
    _read_relations(dump, world)
    _read_sectors(dump, world)
    if world.fog is None:  # a player's view: the sectors it does not list are unknown
        fill_map(world, world.tables.sector("sea"))
    _read_ships_units_planes(dump, world)
    for u in world.units.values():
        if u.ship is not None and u.ship not in world.ships:
            raise InputError(
                f"{dump.source}: land unit #{u.uid} is on ship #{u.ship}: no such ship"
            )
        if u.land is not None and u.land not in world.units:
            raise InputError(
                f"{dump.source}: land unit #{u.uid} is on unit #{u.land}: no such unit"
            )
    return world


def _new_world(
    dump: Dump, size: tuple[int, int] | None, options: dict[str, Any], tables: Tables
) -> World:
    """An empty world of the dump's size, with ``options``; refuses what is no dump."""
    if dump.table("sect") is None and dump.table("nat") is None:
        raise InputError(f"{dump.source}: no sect or nat table: not an Empire dump, or empty")
    config = game_config(dump)
    own = _size_of(dump, config)
    if size is not None and own is not None and size != own:
        raise InputError(
            f"{dump.source}: the dump's world is {own[0]}x{own[1]}, not {size[0]}x{size[1]}"
        )
    size = size or own
    if size is None:
        raise InputError(
            f"{dump.source}: the dump leaves out sectors, so its world size is unknown;"
            " give it with --size WIDTHxHEIGHT or --econfig FILE (WORLD_X, WORLD_Y)"
        )
    try:
        geo = Geometry(*size)
    except ValueError as exc:
        raise InputError(f"{dump.source}: {exc}") from None
    for name in ("sect", "nat"):
        if dump.table(name) is None:
            raise InputError(f"{dump.source}: the dump has no '{name}' table")
    world = World(geometry=geo, tables=tables)
    world.options.update(econfig_options(config, f"{dump.source}: version"))
    world.options.update(check_options(options, f"{dump.source}: options"))
    return world


def _rows(dump: Dump, name: str, world: World) -> Iterator[_Row]:
    """The records of table ``name`` (none if the dump lacks it), for typed reading."""
    t = dump.table(name)
    for rec in t.records if t else []:
        yield _Row(dump, t, rec, world.geometry)  # type: ignore[arg-type]


def _owner(row: _Row, world: World, col: str = "owner") -> int:
    owner = row.num(col, 0, 255)
    if owner and owner not in world.nations:
        raise row.fail(col, f"no country {owner} in the nat table")
    return owner


def _read_nations(dump: Dump, world: World, viewer: _Row | None, telegrams: bool) -> None:
    """The countries that play (not unused, not the deity), and the deity's name.

    In a player's dump (``viewer``, its ``country`` record) the other countries
    are only names, statuses and relations: the rest of them is unknown (``None``).
    """
    for row in _rows(dump, "nat", world):
        cnum = row.num("cnum", 0, 255)
        if cnum in world.nations:
            raise row.fail("cnum", f"country {cnum} appears twice")
        stat = row.symbol("stat", NATION_STATUS)
        if stat not in NATION_STATUS:
            raise row.fail("stat", f"unknown status '{stat}'")
        if cnum == 0:
            world.deity_name = row.text("cname") or world.deity_name
        if cnum == 0 or stat in ("unused", "deity"):
            continue
        n = Nation(cnum=cnum, name=row.text("cname"))
        n.active = stat == "active"
        world.nations[cnum] = n
        if viewer is None:
            _nation_fields(row, n)
            n.origin = row.xy("xorg", "yorg")
            n.tgms = row.num("tgms", 0, 65535) if telegrams and row.has("tgms") else 0
        elif world.fog is not None and cnum == world.fog.viewer:
            _nation_fields(viewer, n)  # the player's coordinates: its origin is 0,0
        else:  # another country, as a player sees it: what its nat row hides is unknown
            n.money = n.btu = n.tech = n.happiness = n.origin = n.capital_sacked = None


def _read_relations(dump: Dump, world: World) -> None:
    """Each country's relations to the others (neutral is the default, not stored)."""
    for row in _rows(dump, "relat", world):
        me = world.nations.get(row.num("uid", 0, 255))
        if me is None:
            continue
        for other in world.nations:
            col = f"relations({other})"
            if other != me.cnum and col in row.table.columns:
                r = _relation(row, col)  # None: option HIDDEN keeps it from the player
                if r != Relation.NEUTRAL:
                    me.relations[other] = r


def _read_sectors(dump: Dump, world: World) -> None:
    geo = world.geometry
    sect_types = _type_index(world.tables.sectors.values())
    for row in _rows(dump, "sect", world):
        x, y = row.xy("xloc", "yloc")
        if (x + y) % 2:
            raise row.fail("xloc", f"{x},{y} is not a sector (x + y must be even)")
        if (x, y) in world.sectors:
            raise row.fail(
                "xloc",
                f"sector {x},{y} appears twice (is the world {geo.width}x{geo.height}?"
                " give the game's size with --size or --econfig)",
            )
        des = sect_types.get(row.num("des", 0))
        if des is None:
            raise row.fail("des", f"unknown sector type {row.raw('des')}")
        s = Sector(x=x, y=y, type=des, owner=_owner(row, world))
        s.oldowner = _owner(row, world, "oldown")
        s.eff = row.num("effic", *PERCENT)
        s.mob = row.num("mobil", *MOBILITY)
        s.off = row.num("off", 0, 1) == 1
        s.loyalty = row.num("loyal", *BYTE) if row.has("loyal") else None
        dist = row.xy("xdist", "ydist")
        s.dist = None if dist == (x, y) else dist
        s.avail = row.num("avail", *STOCK)
        s.items = _items(row)
        s.thresholds = {
            item: v for item, col in DIST_COLUMNS.items() if (v := row.num(col, 0, 32767))
        }
        s.mines = row.num("mines", *STOCK) if row.has("mines") else None
        s.plague = _plague(row)
        s.che = row.num("che", *CHE) if row.has("che") else None
        s.che_target = _owner(row, world, "che_target") if row.has("che_target") else None
        s.road = row.num("road", *PERCENT)
        s.rail = row.num("rail", *PERCENT)
        s.defense = row.num("dfense", *PERCENT)
        problem = unownable(s)
        if problem:
            raise row.fail("owner", problem)
        world.sectors[(x, y)] = s


def _read_ships_units_planes(dump: Dump, world: World) -> None:
    """The owned ships, land units and planes: the fields they share, then their own."""
    tables = world.tables
    kinds: list[tuple[str, str, type, Any, dict[int, Any]]] = [
        ("ship", "ship", Ship, tables.ships.values(), world.ships),
        ("land", "land unit", LandUnit, tables.land.values(), world.units),
        ("plane", "plane", Plane, tables.planes.values(), world.planes),
    ]
    for name, what, cls, kinds_of, into in kinds:
        by_uid = _type_index(kinds_of)
        seen: set[int] = set()
        for row in _rows(dump, name, world):
            uid, owner = row.num("uid", 0), _owner(row, world)
            if uid in seen:
                raise row.fail("uid", f"{what} #{uid} appears twice")
            seen.add(uid)
            if not owner:
                continue
            kind = by_uid.get(row.num("type", 0))
            if kind is None:
                raise row.fail("type", f"unknown {what} type {row.raw('type')}")
            x, y = row.xy("xloc", "yloc")
            obj = cls(uid=uid, type=kind, owner=owner, x=x, y=y)
            obj.eff = row.num("effic", *PERCENT)
            obj.mob = row.num("mobil", *MOBILITY)
            obj.off = row.num("off", 0, 1) == 1
            obj.tech = float(row.num("tech", 0))
            obj.mission = _mission(row)
            _READ_MORE[name](row, obj)
            into[uid] = obj


# -- export ------------------------------------------------------------------------


def _fmt(v: object) -> str:
    if isinstance(v, bool):
        return "1" if v else "0"
    if isinstance(v, float):
        return str(int(v)) if v.is_integer() else format_float(v)
    return str(v)


Encoder = Callable[[Any], str]
Decoder = Callable[[str], Any]


class _Overlay:
    """Writes new values into a record, keeping every field whose value is unchanged."""

    def __init__(self, table: Table, rec: Record, geo: Geometry) -> None:
        self.table, self.rec, self.geo = table, rec, geo
        self.changed = False

    def put(self, col: str, value: Any, decode: Decoder = int, encode: Encoder = _fmt) -> None:
        """Write ``value`` in column ``col``; an unknown value (``None``) leaves it as read."""
        i = self.table.index(col)
        if i < 0 or value is None:
            return
        old = self.rec.fields[i]
        try:
            same = decode(old) == value
        except (ValueError, InputError, KeyError):
            same = False
        if not same:
            self.rec.fields[i] = encode(value)
            self.changed = True

    def xy(self, xcol: str, ycol: str, c: Coord | None) -> None:
        if c is None:
            return
        rx, ry = self.geo.to_rel(c, (0, 0))
        w, h = self.geo.width, self.geo.height
        self.put(xcol, rx % w, lambda s: int(s) % w, lambda _: str(rx))
        self.put(ycol, ry % h, lambda s: int(s) % h, lambda _: str(ry))

    def items(self, items: dict[str, int]) -> None:
        for item, col in zip(ITEMS, ITEM_COLUMNS, strict=True):
            self.put(col, items.get(item, 0))

    def string(self, col: str, value: str) -> None:
        self.put(col, value, lambda s: unquote(s, "") or "", quote)

    def symbol(self, col: str, value: str) -> None:
        self.put(col, value, lambda s: unescape(s, ""), escape)

    def plague(self, p: Plague | None) -> None:
        if p is not None:
            self.symbol("pstage", p.name.lower())

    def mission(self, m: str) -> None:
        self.symbol("mission", _SYMBOL_OF_MISSION[m])

    def op_area(self, o: Ship | LandUnit | Plane) -> None:
        self.xy("opx", "opy", o.op_center or o.xy)
        self.put("radius", o.op_radius)

    def finish(self) -> None:
        if self.changed:
            self.rec.line = " ".join(self.rec.fields)


def _blank(table: Table, values: dict[str, str]) -> Record:
    """A new record for an object the dump did not have: zeros, and the given fields."""
    defaults = {"pstage": "healthy", "mission": NO_MISSION, "rflags": "()", "flags": "()"}
    fields = []
    for col in table.columns:
        if col in values:
            fields.append(values[col])
        elif col in ("name", "fleet", "army", "wing", "rpath", "cname", "passwd", "ip", "userid"):
            fields.append('""')
        elif col.startswith("relations("):
            fields.append("neutral")
        else:
            fields.append(defaults.get(col, "0"))
    return Record(" ".join(fields), fields, 0)


def _place(table: Table, key_of: Callable[[Record], int], rec: Record) -> None:
    k = key_of(rec)
    pos = len(table.records)
    for i, r in enumerate(table.records):
        if key_of(r) > k:
            pos = i
            break
    table.records.insert(pos, rec)


def _lay_over(
    t: Table,
    geo: Geometry,
    objs: dict[int, Any],
    over: Callable[[_Overlay, Any], None],
    blank: Callable[[int], dict[str, str]],
    dead: bool = False,
) -> None:
    """Lay ``objs`` over the records of ``t`` keyed by their first field, adding records
    for new objects; with ``dead``, an object that is gone leaves an unowned record
    behind, as the server does."""
    present = set()
    for rec in t.records:
        key = int(rec.fields[0])
        present.add(key)
        o = _Overlay(t, rec, geo)
        if key in objs:
            over(o, objs[key])
        elif dead and int(rec.fields[t.index("owner")]) != 0:
            o.put("owner", 0)
            o.put("effic", 0)
        o.finish()
    for key, obj in sorted(objs.items()):
        if key not in present:
            rec = _blank(t, blank(key))
            o = _Overlay(t, rec, geo)
            over(o, obj)
            rec.line = " ".join(rec.fields)
            _place(t, lambda r: int(r.fields[0]), rec)


def check_template(dump: Dump) -> None:
    """Refuse a dump whose records export cannot key: a sector's ``xloc``/``yloc`` and
    the number in the first field of every other table bellum lays the world over."""
    for t in dump.tables:
        if t.name == "sect":
            keys = [t.index("xloc"), t.index("yloc")]
        elif t.name in ("ship", "land", "plane", "nat", "relat"):
            keys = [0] + ([t.index("owner")] if t.index("owner") >= 0 else [])
        else:
            continue
        for rec in t.records:
            for k in keys:
                if len(rec.fields) != len(t.columns) or to_int(rec.fields[k], signed=True) is None:
                    raise InputError(f"{dump.source}:{rec.lineno}: table {t.name}: bad record")


def world_to_dump(world: World, template: Dump | None = None) -> str:
    """``world`` as dump text; over ``template`` (the imported dump) when there is one.

    Without a template the dump has just the tables bellum models (sect,
    ship, plane, land, nat, relat) and zeros in the fields it does not.
    """
    dump = copy.deepcopy(template) if template is not None else _empty_dump(world)
    geo = world.geometry
    sea = world.tables.sector("sea")

    t = dump.table("sect")
    if t is not None:
        xi, yi = t.index("xloc"), t.index("yloc")

        def sect_key(r: Record) -> int:
            x, y = geo.norm(int(r.fields[xi]), int(r.fields[yi]))
            return y * geo.width + x

        seen = set()
        for rec in t.records:
            xy = geo.norm(int(rec.fields[xi]), int(rec.fields[yi]))
            seen.add(xy)
            _sector_over(_Overlay(t, rec, geo), world.sectors[xy])
        for xy, s in sorted(world.sectors.items(), key=lambda kv: (kv[0][1], kv[0][0])):
            if xy in seen or s == Sector(x=s.x, y=s.y, type=sea):
                continue
            rel = geo.to_rel(xy, (0, 0))
            rec = _blank(t, {"xloc": str(rel[0]), "yloc": str(rel[1])})
            _sector_over(_Overlay(t, rec, geo), s)
            _place(t, sect_key, rec)

    unit_tables: list[tuple[str, dict[int, Any], Callable[[_Overlay, Any], None]]] = [
        ("ship", world.ships, _ship_over),
        ("land", world.units, _unit_over),
        ("plane", world.planes, _plane_over),
    ]
    for name, objs, over in unit_tables:
        if (t := dump.table(name)) is not None:
            _lay_over(t, geo, objs, over, lambda uid: {"uid": str(uid)}, dead=True)
    if (t := dump.table("nat")) is not None:
        _lay_over(t, geo, world.nations, _nation_over, lambda c: {"cnum": str(c), "stat": "active"})
    if (t := dump.table("country")) is not None and world.fog is not None:
        mine = {c: n for c, n in world.nations.items() if c == world.fog.viewer}
        _lay_over(t, geo, mine, _nation_over, lambda c: {"cnum": str(c)})
    if (t := dump.table("relat")) is not None:
        _lay_over(
            t,
            geo,
            world.nations,
            lambda o, n: _relations_over(o, world, n),
            lambda c: {"uid": str(c)},
        )
    if _size_of(dump, game_config(dump)) != (geo.width, geo.height):
        first = dump.tables[0]
        first.before = f"# WORLD_X {geo.width} WORLD_Y {geo.height}\n{first.before}"
    return dump.text()


def _sector_over(o: _Overlay, s: Sector) -> None:
    o.put("owner", s.owner)
    o.put("des", s.type.uid)
    o.put("effic", s.eff)
    o.put("mobil", s.mob)
    o.put("off", s.off)
    o.put("loyal", s.loyalty)
    o.xy("xdist", "ydist", s.dist or s.xy)
    o.put("avail", s.avail)
    o.put("oldown", s.oldowner)
    o.items(s.items)
    for item, col in DIST_COLUMNS.items():
        o.put(col, s.thresholds.get(item, 0))
    o.put("mines", s.mines)
    o.plague(s.plague)
    o.put("che", s.che)
    o.put("che_target", s.che_target)
    o.put("road", s.road)
    o.put("rail", s.rail)
    o.put("dfense", s.defense)
    o.finish()


def _unit_common(o: _Overlay, u: LandUnit | Ship | Plane) -> None:
    o.put("owner", u.owner)
    o.xy("xloc", "yloc", u.xy)
    o.put("type", u.type.uid)
    o.put("effic", u.eff)
    o.put("mobil", u.mob)
    o.put("off", u.off)
    o.put("tech", u.tech, float, lambda v: str(int(v)))
    o.mission(u.mission)
    o.op_area(u)


def _ship_over(o: _Overlay, sh: Ship) -> None:
    _unit_common(o, sh)
    o.string("fleet", sh.fleet)
    o.items(sh.items)
    o.plague(sh.plague)
    o.string("name", sh.name)
    o.string("rpath", sh.rpath)
    names = [RETREAT_ORDERS[k] for k in RETREAT_ORDERS if k in sh.rflags]
    o.put(
        "rflags", set(names), lambda s: set(s.strip("()").split()), lambda _: f"({' '.join(names)})"
    )


def _unit_over(o: _Overlay, u: LandUnit) -> None:
    _unit_common(o, u)
    o.string("army", u.army)
    o.put("ship", -1 if u.ship is None else u.ship)
    o.put("harden", u.fort)
    o.put("retreat", u.retreat)
    o.items(u.items)
    o.plague(u.plague)
    o.put("land", -1 if u.land is None else u.land)


def _plane_over(o: _Overlay, p: Plane) -> None:
    _unit_common(o, p)
    o.string("wing", p.wing)
    o.put("harden", p.hardened, lambda s: int(s) > 0)
    o.put("ship", -1 if p.ship is None else p.ship)
    o.put("land", -1 if p.land is None else p.land)


def _nation_over(o: _Overlay, n: Nation) -> None:
    o.string("cname", n.name)
    o.xy("xcap", "ycap", n.capital or n.origin)
    o.xy("xorg", "yorg", n.origin)
    o.put("btu", n.btu)
    o.put("money", n.money)
    o.put("tech", n.tech, float, format_float)
    o.put("happiness", n.happiness, float, format_float)
    i = o.table.index("flags")
    if i >= 0:
        flags = o.rec.fields[i][1:-1].split()
        for name, on in (("sacked", n.capital_sacked), ("inform", n.inform)):
            if on is not None and (name in flags) != on:
                flags = [f for f in flags if f != name] + ([name] if on else [])
                o.rec.fields[i] = "(" + " ".join(flags) + ")"
                o.changed = True
    i = o.table.index("stat")
    if i >= 0 and (o.rec.fields[i] == "active") != n.active:
        o.rec.fields[i] = "active" if n.active else "new"
        o.changed = True
    o.finish()


def _relations_over(o: _Overlay, world: World, n: Nation) -> None:
    for other in world.nations:
        if other != n.cnum:
            r = n.relations.get(other, Relation.NEUTRAL)
            o.put(f"relations({other})", r, Relation.parse, lambda r: r.label())
    o.finish()


def _empty_dump(world: World) -> Dump:
    """A dump skeleton with bellum's tables, for worlds that did not come from a dump."""
    dump = Dump("bellum")
    n = max([0, *world.nations]) + 1
    for name in ("sect", "ship", "plane", "land", "nat", "relat"):
        cols = list(KNOWN_COLUMNS[name])
        if name == "relat":
            cols = ["uid"] + [f"relations({i})" for i in range(n)]
        dump.tables.append(Table(name, True, f"config {name}", cols, " ".join(cols)))
    return dump
