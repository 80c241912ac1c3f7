"""World files: a documented TOML format for a whole Empire world (docs/world-format.md).

Loading validates every entry and reports the first problem as
``file:entry: field: what is wrong``; saving writes a temporary file and
renames it over the target, so an interrupted run never leaves half a world.
"""

from __future__ import annotations

import math
import tomllib
from collections.abc import Callable, Iterator, Mapping
from pathlib import Path
from typing import Any, TypeVar

from bellum.empire.geometry import Coord, Geometry
from bellum.empire.intel.model import KINDS as OBSERVED
from bellum.empire.intel.model import Observation, Seen
from bellum.empire.io._common import (
    BYTE,
    CHE,
    MOBILITY,
    PERCENT,
    STOCK,
    fill_map,
    unownable,
)
from bellum.empire.rules import check_options
from bellum.empire.tables import SectorType, Tables, stock
from bellum.empire.world import (
    DEITY_NAME,
    ITEMS,
    MISSIONS,
    RETREAT_ORDERS,
    BMap,
    Fog,
    LandUnit,
    Nation,
    NewsItem,
    Plague,
    Plane,
    Relation,
    Sector,
    Ship,
    Telegram,
    World,
)
from bellum.errors import InputError
from bellum.fileio import WORLD, parse_toml, read_input, write_atomic
from bellum.numbers import shown, to_int

SCHEMA_VERSION = 1
T = TypeVar("T")
#: Country numbers (the server's ``cnum``, an unsigned byte; 0 is the deity).
MAX_CNUM = 255
#: A distribution threshold (the dump's ``*_dist`` columns, a signed short).
MAX_THRESHOLD = 32767
#: Any other whole number of a world file (money, BTUs, numbers of objects) is a C ``int``.
INT_RANGE = (-(2**31), 2**31 - 1)


def _number(v: int) -> str:
    """``v`` for a message (Python refuses to print integers of more than 4,300 digits)."""
    return str(v) if abs(v) < 10**15 else f"a {v.bit_length()}-bit number"


def _shown(v: Any) -> str:
    """A value of the file as a message quotes it: short, and never an error itself."""
    try:
        return shown(repr(v), 40)
    except (ValueError, RecursionError):  # a huge integer, or nesting Python cannot print
        return f"a {type(v).__name__} bellum cannot show"


class _Entry:
    """One table of the file, read field by field with precise error messages."""

    def __init__(self, where: str, data: Any) -> None:
        self.where = where
        if not isinstance(data, dict):
            raise InputError(f"{where}: expected a table")
        self.data: dict[str, Any] = data
        self.used: set[str] = set()

    def fail(self, key: str, problem: str) -> InputError:
        return InputError(f"{self.where}: {shown(key, 60)}: {problem}")

    def get(self, key: str, kind: type[T], default: T | None = None) -> T:
        self.used.add(key)
        if key not in self.data:
            if default is None:
                raise self.fail(key, "missing")
            return default
        v = self.data[key]
        if kind is float and isinstance(v, int) and not isinstance(v, bool):
            v = float(v) if abs(v) < 2**1000 else math.inf
        if not isinstance(v, kind) or (kind is int and isinstance(v, bool)):
            raise self.fail(key, f"expected {kind.__name__}, got {_shown(v)}")
        if isinstance(v, float) and not math.isfinite(v):
            raise self.fail(key, f"expected a finite number, got {v!r}")
        return v

    def int(
        self, key: str, default: int | None = None, lo: int | None = None, hi: int | None = None
    ) -> int:
        v = self.get(key, int, default)
        lo = INT_RANGE[0] if lo is None else lo
        hi = INT_RANGE[1] if hi is None else hi
        if v < lo:
            raise self.fail(key, f"{_number(v)} is below {lo}")
        if v > hi:
            raise self.fail(key, f"{_number(v)} is above {hi}")
        return v

    def coord(self, key: str, geo: Geometry, default: Coord | None = None) -> Coord:
        self.used.add(key)
        if key not in self.data:
            if default is None:
                raise self.fail(key, "missing")
            return default
        v = self.data[key]
        if not (isinstance(v, list) and len(v) == 2 and all(type(i) is int for i in v)):
            raise self.fail(key, f"expected [x, y], got {_shown(v)}")
        if (v[0] + v[1]) % 2:
            raise self.fail(key, f"{v[0]},{v[1]} is not a sector (x + y must be even)")
        if not (-geo.width <= v[0] < geo.width and -geo.height <= v[1] < geo.height):
            raise self.fail(key, f"{v[0]},{v[1]} is off the {geo.width}x{geo.height} map")
        return geo.norm(v[0], v[1])

    def tech(self, default: float) -> float:
        """A technology level: a finite number, 0 or more."""
        v = self.get("tech", float, default)
        if not 0 <= v < 1e6:
            raise self.fail("tech", f"{v} is not a technology level (0 or more)")
        return v

    def mission(self) -> str:
        v = self.get("mission", str, "")
        if v not in MISSIONS:
            raise self.fail(
                "mission", f"unknown mission '{shown(v)}' (one of {', '.join(MISSIONS[1:])})"
            )
        return v

    def lookup(self, key: str, table: Callable[[str], T], what: str) -> T:
        name = self.get(key, str)
        try:
            return table(name)
        except KeyError:
            raise self.fail(key, f"unknown {what} '{shown(name)}'") from None

    def finish(self) -> None:
        extra = sorted(set(self.data) - self.used)
        if extra:
            raise self.fail(extra[0], "unknown field")


def _items(e: _Entry, prefix_fields: tuple[str, ...] = ("mil", "civ")) -> dict[str, int]:
    items: dict[str, int] = {}
    for f in prefix_fields:
        if f in e.data:
            items[f] = e.int(f, lo=0, hi=9999)
    extra = e.get("items", dict, {})
    for k, v in extra.items():
        if k not in ITEMS:
            raise e.fail(f"items.{k}", f"unknown item (one of {', '.join(ITEMS)})")
        if type(v) is not int or not 0 <= v <= 9999:
            raise e.fail(f"items.{k}", f"expected a count 0..9999, got {_shown(v)}")
        items[k] = v
    return items


def _per_item(e: _Entry, key: str, valid: Callable[[Any], bool], wanted: str) -> dict[str, Any]:
    """A table of values by item name: distribution thresholds or deliveries."""
    out: dict[str, Any] = {}
    for k, v in e.get(key, dict, {}).items():
        if k not in ITEMS:
            raise e.fail(f"{key}.{k}", f"unknown item (one of {', '.join(ITEMS)})")
        if not valid(v):
            raise e.fail(f"{key}.{k}", f"expected {wanted}, got {_shown(v)}")
        out[k] = v
    return out


def _plague(e: _Entry, unknown: bool = False) -> Plague | None:
    """The plague stage; in a player's view, which the server does not show it, absent
    is unknown."""
    if unknown and "plague" not in e.data:
        return None
    name = e.get("plague", str, "healthy")
    try:
        return Plague[name.upper()]
    except KeyError:
        raise e.fail("plague", f"unknown stage '{shown(name)}'") from None


K = TypeVar("K")

#: What each kind of object is called in messages.
_KIND_NAMES = {"ship": ("ship", "ship type"), "unit": ("unit", "land unit type"),
               "plane": ("plane", "plane type")}  # fmt: skip


def _objects(
    top: _Entry, kind: str, seen: Mapping[int, object], types: Mapping[str, K], world: World
) -> Iterator[tuple[_Entry, tuple[int, K, int, int, int]]]:
    """The ``[[kind]]`` entries with their checked number, type, owner and position."""
    noun, type_noun = _KIND_NAMES[kind]
    for i, raw in enumerate(top.get(kind, list, [])):
        e = _Entry(f"{top.where}:{kind}[{i}]", raw)
        uid = e.int("uid", lo=0)
        e.where = f"{top.where}:{kind} #{uid}"
        if uid in seen:
            raise e.fail("uid", f"{noun} number used twice")
        kind_type = e.lookup("type", lambda k: types[k], type_noun)
        owner = e.int("owner", lo=1)
        if owner not in world.nations:
            raise e.fail("owner", f"no country {owner}")
        x, y = e.coord("at", world.geometry)
        yield e, (uid, kind_type, owner, x, y)


#: Top-level keys of a Panzer Campaigns scenario, and those only an Empire world has:
#: a scenario given for a world is named as such, not as an "unknown field".
_PANZER_KEYS = frozenset({"units", "map", "parameter_data", "assault", "last_assault"})
_EMPIRE_KEYS = frozenset({"world", "nation", "sector"})


def parse_world(
    data: dict[str, Any], source: str = "<world>", tables: Tables | None = None
) -> World:
    """Build and validate a :class:`World` from parsed TOML ``data``."""
    tables = tables or stock()
    top = _Entry(source, data)
    if _PANZER_KEYS & data.keys() and not _EMPIRE_KEYS & data.keys():
        raise InputError(
            f"{source}: this is a Panzer scenario, not an Empire world: use it with"
            " `bellum panzer`, or `bellum serve --scenario`"
        )
    if "schema_version" not in data:
        raise top.fail(
            "schema_version", f"missing: a world file starts with schema_version = {SCHEMA_VERSION}"
        )
    version = top.int("schema_version", SCHEMA_VERSION, lo=1)
    if version > SCHEMA_VERSION:
        raise top.fail("schema_version", f"{version} is newer than this bellum ({SCHEMA_VERSION})")
    world, fill, fill_eff = _read_map(_Entry(f"{source}:world", top.get("world", dict, {})), tables)
    if "fog" in top.data:  # a player's view: the sectors not listed are unknown
        world.fog = _read_fog(_Entry(f"{source}:fog", top.get("fog", dict)))
    _read_options(world, top.get("options", dict, {}), source)
    for i, raw in enumerate(top.get("nation", list, [])):
        _read_nation(world, _Entry(f"{source}:nation[{i}]", raw), source)
    for n in world.nations.values():
        for other in n.relations:
            if other not in world.nations:
                raise InputError(f"{source}:nation {n.name}: relations.{other}: no such country")
    for i, raw in enumerate(top.get("sector", list, [])):
        _read_sector(world, _Entry(f"{source}:sector[{i}]", raw), source)
    if world.fog is None:
        fill_map(world, fill, fill_eff)
    geo = world.geometry
    for e, (uid, st, owner, x, y) in _objects(top, "ship", world.ships, tables.ships, world):
        sh = Ship(uid=uid, type=st, owner=owner, x=x, y=y)
        world.ships[uid] = _read_ship(e, sh, geo, world.fog is not None)
    for e, (uid, lt, owner, x, y) in _objects(top, "unit", world.units, tables.land, world):
        u = LandUnit(uid=uid, type=lt, owner=owner, x=x, y=y)
        world.units[uid] = _read_unit(e, u, geo, world.fog is not None)
    for e, (uid, pt, owner, x, y) in _objects(top, "plane", world.planes, tables.planes, world):
        world.planes[uid] = _read_plane(e, Plane(uid=uid, type=pt, owner=owner, x=x, y=y), geo)
    for i, raw in enumerate(top.get("telegram", list, [])):
        e = _Entry(f"{source}:telegram[{i}]", raw)
        world.telegrams.append(Telegram(to=e.int("to", lo=0), text=e.get("text", str)))
        e.finish()
    for i, raw in enumerate(top.get("news", list, [])):
        e = _Entry(f"{source}:news[{i}]", raw)
        world.news.append(
            NewsItem(
                actor=e.int("actor", lo=0), victim=e.int("victim", lo=0), text=e.get("text", str)
            )
        )
        e.finish()
    for i, raw in enumerate(top.get("bmap", list, [])):
        _read_bmap(world, _Entry(f"{source}:bmap[{i}]", raw), source)
    for i, raw in enumerate(top.get("observation", list, [])):
        _read_observation(world, _Entry(f"{source}:observation[{i}]", raw), source)
    top.finish()
    _check_positions(world, source)
    return world


def _read_observation(world: World, e: _Entry, source: str) -> None:
    """What a country saw of an object not its own: ``kind``, ``id`` and its fields, each
    ``{ value, lo, hi, how, turn, time, source }`` (see :class:`Observation`)."""
    kind = e.get("kind", str)
    if kind not in OBSERVED:
        raise e.fail("kind", f"expected one of {', '.join(OBSERVED)}, got {_shown(kind)}")
    ident = e.get("id", str)
    e.where = f"{source}:observation {kind} {ident}"
    fields = {}
    for name, raw in e.get("fields", dict, {}).items():
        f = _Entry(f"{e.where}:fields.{name}", raw)
        value = f.data.get("value")
        f.used.add("value")
        if value is not None and (type(value) not in (int, float, str) or value != value):
            raise f.fail("value", f"expected a number or a text, got {_shown(value)}")
        lo, hi = (f.get(b, float) if b in f.data else None for b in ("lo", "hi"))
        how = f.get("how", str, "exact")
        fields[str(name)] = Seen(value, f.int("turn", lo=0), f.int("time", 0),
                                 f.get("source", str), lo, hi, how)  # fmt: skip
        f.finish()
    e.finish()
    obs = Observation(kind, ident, fields)
    if obs.key in world.observations:
        raise e.fail("id", "observed twice")
    world.observations[obs.key] = obs


def _read_bmap(world: World, e: _Entry, source: str) -> None:
    """A country's bmap: one text row per map row, as wide as the map."""
    cnum = e.int("country", lo=0)
    e.where = f"{source}:bmap {cnum}"
    if cnum in world.bmaps:
        raise e.fail("country", "bmap given twice")
    rows = e.get("rows", list)
    geo = world.geometry
    if len(rows) != geo.height or not all(
        isinstance(r, str) and len(r) == geo.width and r.isprintable() for r in rows
    ):
        size = f"{geo.height} rows of {geo.width} printable characters"
        raise e.fail("rows", f"expected {size} (the map's size)")
    e.finish()
    world.bmaps[cnum] = BMap(cnum, list(rows))


def _read_map(w: _Entry, tables: Tables) -> tuple[World, SectorType, int]:
    """The ``[world]`` table: an empty world of its size (and its deity's name), and the
    sector that fills it."""
    size = w.get("size", list, [64, 32])
    if not (len(size) == 2 and all(type(i) is int and i > 0 and i % 2 == 0 for i in size)):
        raise w.fail("size", f"expected [width, height], positive and even, got {_shown(size)}")
    try:
        geo = Geometry(size[0], size[1])
    except ValueError as exc:
        raise w.fail("size", str(exc)) from None
    fill = (
        w.lookup("fill", tables.sector, "sector type") if "fill" in w.data else tables.sector("sea")
    )
    fill_eff = w.int("fill_eff", 0, *PERCENT)
    deity = w.get("deity", str, DEITY_NAME)
    w.finish()
    return World(geometry=geo, tables=tables, deity_name=deity), fill, fill_eff


def _read_options(world: World, opts: dict[str, Any], source: str) -> None:
    world.options.update(check_options(opts, f"{source}:options"))


def _read_nation(world: World, e: _Entry, source: str) -> None:
    cnum = e.int("cnum", lo=1, hi=MAX_CNUM)
    if cnum in world.nations:
        raise e.fail("cnum", f"country {cnum} is defined twice")
    n = Nation(cnum=cnum, name=e.get("name", str))
    same = [o.cnum for o in world.nations.values() if o.name == n.name]
    if same:
        raise e.fail("name", f"{n.name!r} is already country {same[0]}'s name")
    e.where = f"{source}:nation {n.name}"
    if world.fog is not None and cnum != world.fog.viewer:
        _read_foreign_nation(world, e, n)
    else:
        n.money = e.int("money", 0)
        n.btu = e.int("btu", 640)
        n.tech = e.tech(0.0)
        n.happiness = e.get("happiness", float, 0.0)
        n.origin = e.coord("origin", world.geometry, (0, 0))
        # The server always has a registered capital location; a new country's is its origin.
        n.capital = e.coord("capital", world.geometry, n.origin)
        n.capital_sacked = e.get("capital_sacked", bool, False)
    n.active = e.get("active", bool, True)
    n.tgms = e.int("tgms", 0, lo=0, hi=65535)
    n.inform = e.get("inform", bool, False)
    for other, rel in e.get("relations", dict, {}).items():
        key = f"relations.{shown(other)}"
        them = to_int(other)
        if them is None or not 1 <= them <= MAX_CNUM:
            raise e.fail(key, f"expected a country number 1..{MAX_CNUM}")
        if rel == "unknown" and world.fog is not None:  # option HIDDEN keeps it from the view
            n.relations[them] = None
            continue
        if rel in ("mobilizing", "sitzkrieg"):
            n.war_steps[them] = rel
            rel = "hostile"
        try:
            if not isinstance(rel, str):
                raise KeyError(rel)
            n.relations[them] = Relation.parse(rel)
        except KeyError:
            raise e.fail(key, f"unknown relation '{shown(str(rel))}'") from None
    e.finish()
    world.nations[cnum] = n


def _read_foreign_nation(world: World, e: _Entry, n: Nation) -> None:
    """Another country in a player's view: what is not given is unknown."""
    geo = world.geometry
    n.money = e.int("money") if "money" in e.data else None
    n.btu = e.int("btu") if "btu" in e.data else None
    n.tech = e.tech(0.0) if "tech" in e.data else None
    n.happiness = e.get("happiness", float) if "happiness" in e.data else None
    n.origin = e.coord("origin", geo) if "origin" in e.data else None
    n.capital = e.coord("capital", geo) if "capital" in e.data else None
    n.capital_sacked = e.get("capital_sacked", bool) if "capital_sacked" in e.data else None


#: The fields of a player's own objects the server does not show the player: absent from
#: a view's world file, they are unknown.
UNSHOWN = {"sector": ("loyalty", "che", "che_target", "mines", "plague"), "ship": ("plague",),
           "unit": ("plague",)}  # fmt: skip
#: The fields of other countries a player's view does not show.
FOREIGN = ("money", "btu", "tech", "happiness", "origin", "capital", "capital_sacked")


def _read_sector(world: World, e: _Entry, source: str) -> None:
    geo = world.geometry
    x, y = e.coord("at", geo)
    e.where = f"{source}:sector {x},{y}"
    if (x, y) in world.sectors:
        raise e.fail("at", "sector is defined twice")
    des = e.lookup("des", world.tables.sector, "sector type")
    owner = e.int("owner", 0, 0)
    if owner and owner not in world.nations:
        raise e.fail("owner", f"no country {owner}")
    s = Sector(x=x, y=y, type=des, owner=owner)
    s.oldowner = e.int("oldowner", owner, 0)
    if s.oldowner and s.oldowner not in world.nations:
        raise e.fail("oldowner", f"no country {s.oldowner}")
    s.eff = e.int("eff", 0, *PERCENT)
    s.mob = e.int("mob", 0, *MOBILITY)
    s.road = e.int("road", 0, *PERCENT)
    s.rail = e.int("rail", 0, *PERCENT)
    s.defense = e.int("defense", 0, *PERCENT)
    view = world.fog is not None
    s.loyalty = None if view and "loyalty" not in e.data else e.int("loyalty", 0, *BYTE)
    s.che = None if view and "che" not in e.data else e.int("che", 0, *CHE)
    s.che_target = None if view and "che_target" not in e.data else e.int("che_target", 0, 0)
    s.avail = e.int("avail", 0, *STOCK)
    s.mines = None if view and "mines" not in e.data else e.int("mines", 0, *STOCK)
    s.off = e.get("off", bool, False)
    s.dist = e.coord("dist", geo) if "dist" in e.data else None
    counts = f"a count 0..{MAX_THRESHOLD}"
    s.thresholds = _per_item(
        e, "thresholds", lambda v: type(v) is int and 0 <= v <= MAX_THRESHOLD, counts
    )
    s.deliveries = _per_item(e, "deliveries", lambda v: type(v) is str, "a string")
    s.plague = _plague(e, view)
    s.items = _items(e)
    problem = unownable(s)
    if problem:
        raise e.fail("owner", problem)
    e.finish()
    world.sectors[(x, y)] = s


def _read_condition(e: _Entry, o: Ship | LandUnit | Plane) -> None:
    """Efficiency, mobility and technology: what ships, land units and planes all have."""
    o.eff = e.int("eff", 100, *PERCENT)
    o.mob = e.int("mob", 0, *MOBILITY)
    o.tech = e.tech(float(o.type.tech))


def _read_op_area(e: _Entry, o: Ship | LandUnit | Plane, geo: Geometry) -> None:
    """A mission's op area: centre (default: where the object is) and radius."""
    o.op_center = e.coord("op_center", geo) if "op_center" in e.data else None
    o.op_radius = e.int("op_radius", 0, 0)


def _retreat_orders(e: _Entry) -> str:
    """``rflags``: letters of the server's ``retreat`` command, kept in its flag order."""
    text = e.get("rflags", str, "")
    wrong = sorted(set(text) - set(RETREAT_ORDERS))
    if wrong:
        orders = "".join(RETREAT_ORDERS)
        raise e.fail("rflags", f"unknown retreat order '{shown(wrong[0])}' (one of {orders})")
    return "".join(k for k in RETREAT_ORDERS if k in text)


def _read_ship(e: _Entry, sh: Ship, geo: Geometry, view: bool) -> Ship:
    sh.name = e.get("name", str, "")
    _read_condition(e, sh)
    sh.fleet = e.get("fleet", str, "")
    sh.mission = e.mission()
    _read_op_area(e, sh, geo)
    sh.rpath = e.get("rpath", str, "")
    sh.rflags = _retreat_orders(e)
    sh.off = e.get("off", bool, False)
    sh.plague = _plague(e, view)
    sh.items = _items(e)
    e.finish()
    return sh


def _read_unit(e: _Entry, u: LandUnit, geo: Geometry, view: bool) -> LandUnit:
    _read_condition(e, u)
    u.army = e.get("army", str, "")
    u.fort = e.int("fort", 0, *BYTE)
    u.mission = e.mission()
    _read_op_area(e, u, geo)
    u.lrange = e.int("lrange", lo=0, hi=127) if "lrange" in e.data else None
    u.retreat = e.int("retreat", 42, *PERCENT)
    u.ship = e.int("ship", lo=0) if "ship" in e.data else None
    u.land = e.int("land", lo=0) if "land" in e.data else None
    u.plague = _plague(e, view)
    u.items = _items(e, ("mil",))
    if u.mil > u.type.milit:
        raise e.fail("mil", f"{u.mil} is more than {article(u.type.name)} holds ({u.type.milit})")
    e.finish()
    return u


def _read_plane(e: _Entry, p: Plane, geo: Geometry) -> Plane:
    _read_condition(e, p)
    p.wing = e.get("wing", str, "")
    p.mission = e.mission()
    p.ship = e.int("ship", lo=0) if "ship" in e.data else None
    p.land = e.int("land", lo=0) if "land" in e.data else None
    p.hardened = e.get("hardened", bool, False)
    _read_op_area(e, p, geo)
    e.finish()
    return p


def _read_fog(e: _Entry) -> Fog:
    fog = Fog(e.int("viewer", lo=0), e.int("turn", 0, lo=0), e.int("time", 0, lo=0))
    e.used.add("hidden")  # written by bellum before unknown fields were left out instead
    e.finish()
    return fog


def _check_positions(world: World, source: str) -> None:
    """Land units stand on land or aboard (where the sector is known: see :class:`Fog`).
    Ships may be anywhere, as in a real game: a harbour redesignated under them, or a
    canal that lost its efficiency, leaves them there."""
    unknown = Sector(x=0, y=0, type=world.tables.sector("plains"))
    for u in world.units.values():
        where = f"{source}:unit #{u.uid}"
        if u.ship is not None:
            sh = world.ships.get(u.ship)
            if sh is None:
                raise InputError(f"{where}: ship: no ship #{u.ship}")
            if sh.xy != u.xy:
                raise InputError(f"{where}: at: not where ship #{u.ship} is")
        elif u.land is not None:
            carrier = world.units.get(u.land)
            if carrier is None or carrier.uid == u.uid:
                raise InputError(f"{where}: land: no carrying unit #{u.land}")
            if carrier.xy != u.xy:
                raise InputError(f"{where}: at: not where unit #{u.land} is")
        elif world.sectors.get(u.xy, unknown).type.is_sea:
            raise InputError(f"{where}: at: a land unit cannot stand on a sea sector")


def load_world(path: str | Path) -> World:
    """Read and validate a world file; every problem is a one-line :class:`InputError`."""
    return read_world_file(path)[0]


def read_world_file(path: str | Path) -> tuple[World, str]:
    """The world in the file at ``path`` and the file's text, to rewrite it in its own
    style later (:func:`save_world`'s ``original``)."""
    p = Path(path)
    raw = read_input(p, "world file")
    try:
        text = raw.decode("utf-8")
    except UnicodeDecodeError:
        raise InputError(f"{p}: not a UTF-8 text file") from None
    return parse_world(parse_toml(text, str(p)), str(p)), text


# -- writing -----------------------------------------------------------------------


def _drop_defaults(d: dict[str, Any], defaults: dict[str, Any]) -> dict[str, Any]:
    return {k: v for k, v in d.items() if v is not None and defaults.get(k, object()) != v}


def _stock(items: dict[str, int], own_fields: tuple[str, ...]) -> dict[str, int]:
    """The items not written as fields of their own, in the game's item order."""
    return {k: items[k] for k in ITEMS if items.get(k) and k not in own_fields}


def _xy(c: Coord | None) -> list[int] | None:
    return None if c is None else [c[0], c[1]]


def world_to_data(world: World) -> dict[str, Any]:
    """The TOML document of ``world`` (sectors equal to the fill are left out, but
    in a player's view)."""
    geo = world.geometry
    fill_name, fill_eff = _fill_of(world)
    fill = world.tables.sector(fill_name)
    doc: dict[str, Any] = {
        "schema_version": SCHEMA_VERSION,
        "world": {"size": [geo.width, geo.height], "fill": fill_name, "fill_eff": fill_eff},
    }
    if world.fog is not None:  # every known sector is listed: the others are unknown
        doc["world"] = {"size": [geo.width, geo.height]}
        fog = {"viewer": world.fog.viewer, "turn": world.fog.turn, "time": world.fog.time}
        doc["fog"] = {k: v for k, v in fog.items() if v or k == "viewer"}
    if world.deity_name != DEITY_NAME:
        doc["world"]["deity"] = world.deity_name
    if world.options:
        doc["options"] = dict(world.options)
    doc["nation"] = [
        _known(_nation_data(n), FOREIGN, n, world.fog is not None and n.cnum != world.fog.viewer)
        for n in sorted(world.nations.values(), key=lambda n: n.cnum)
    ]
    known = [world.sectors[c] for c in sorted(world.sectors, key=lambda c: (c[1], c[0]))]
    view = world.fog is not None
    doc["sector"] = [
        _known(_sector_data(s), UNSHOWN["sector"], s, view)
        for s in known
        # a player's view lists every sector it knows: those left out are unknown
        if world.fog is not None or s != Sector(x=s.x, y=s.y, type=fill, eff=fill_eff)
    ]
    doc["ship"] = [
        _known(_ship_data(sh), UNSHOWN["ship"], sh, view) for _, sh in sorted(world.ships.items())
    ]
    doc["unit"] = [
        _known(_unit_data(u), UNSHOWN["unit"], u, view) for _, u in sorted(world.units.items())
    ]
    doc["plane"] = [_plane_data(p) for _, p in sorted(world.planes.items())]
    doc["telegram"] = [{"to": t.to, "text": t.text} for t in world.telegrams]
    doc["news"] = [{"actor": n.actor, "victim": n.victim, "text": n.text} for n in world.news]
    doc["bmap"] = [{"country": c, "rows": list(b.rows)} for c, b in sorted(world.bmaps.items())]
    doc["observation"] = [
        {"kind": o.kind, "id": o.ident,
         "fields": {n: _seen_data(v) for n, v in sorted(o.fields.items())}}
        for _, o in sorted(world.observations.items())
    ]  # fmt: skip
    return {k: v for k, v in doc.items() if v != []}


def _known(data: dict[str, Any], fields: tuple[str, ...], obj: Any, view: bool) -> dict[str, Any]:
    """In a player's view, ``fields`` are written when known (even at their default) and
    left out when unknown, which is how they read back."""
    if not view:
        return data
    for name in fields:
        v = getattr(obj, name)
        if v is None:
            data.pop(name, None)
        elif name not in data:
            data[name] = (
                _xy(v) if isinstance(v, tuple) else v.name.lower() if name == "plague" else v
            )
    return data


def _seen_data(v: Seen) -> dict[str, Any]:
    data = {"value": v.value, "lo": v.lo, "hi": v.hi, "how": v.how, "turn": v.turn,
            "time": v.time, "source": v.source}  # fmt: skip
    return {k: x for k, x in data.items() if x is not None and (k != "how" or x != "exact")}


def _fill_of(world: World) -> tuple[str, int]:
    """The commonest unowned sector (type and efficiency): what the file leaves out."""
    counts: dict[tuple[str, int], int] = {}
    for s in world.sectors.values():
        if s.owner == 0:
            key = (s.type.name, s.eff)
            counts[key] = counts.get(key, 0) + 1
    return max(counts, key=lambda k: counts[k]) if counts else ("sea", 0)


def _nation_data(n: Nation) -> dict[str, Any]:
    return _drop_defaults(
        {
            "cnum": n.cnum,
            "name": n.name,
            "money": n.money,
            "btu": n.btu,
            "tech": n.tech,
            "happiness": n.happiness,
            "origin": _xy(n.origin),
            "capital": _xy(n.capital) if n.capital != n.origin else None,
            "capital_sacked": n.capital_sacked,
            "active": n.active,
            "tgms": n.tgms,
            "inform": n.inform,
            "relations": {
                str(k): "unknown" if r is None else n.war_steps.get(k, r.label())
                for k, r in sorted(n.relations.items())
            },
        },
        {
            "happiness": 0.0,
            "capital_sacked": False,
            "active": True,
            "tgms": 0,
            "inform": False,
            "relations": {},
        },
    )


def _sector_data(s: Sector) -> dict[str, Any]:
    items = _stock(s.items, ("mil", "civ"))
    return _drop_defaults(
        {
            "at": [s.x, s.y],
            "des": s.type.name,
            "owner": s.owner,
            "oldowner": s.oldowner if s.oldowner != s.owner else None,
            "eff": s.eff,
            "mob": s.mob,
            "mil": s.mil,
            "civ": s.civ,
            "items": items,
            "road": s.road,
            "rail": s.rail,
            "defense": s.defense,
            "loyalty": s.loyalty,
            "che": s.che,
            "che_target": s.che_target,
            "avail": s.avail,
            "mines": s.mines,
            "off": s.off,
            "dist": _xy(s.dist),
            "thresholds": s.thresholds,
            "deliveries": s.deliveries,
            "plague": s.plague.name.lower() if s.plague is not None else None,
        },
        {
            "owner": 0,
            "mil": 0,
            "civ": 0,
            "items": {},
            "road": 0,
            "rail": 0,
            "defense": 0,
            "loyalty": 0,
            "che": 0,
            "che_target": 0,
            "avail": 0,
            "mines": 0,
            "off": False,
            "thresholds": {},
            "deliveries": {},
            "plague": "healthy",
            "mob": 0,
            "eff": 0,
        },
    )


def _op_area_data(o: Ship | LandUnit | Plane) -> dict[str, Any]:
    """The op area; a centre on the object itself is the default and left out."""
    center = None if o.op_center == o.xy else _xy(o.op_center)
    return {"op_center": center, "op_radius": o.op_radius}


def _ship_data(sh: Ship) -> dict[str, Any]:
    return _drop_defaults(
        {
            "uid": sh.uid,
            "type": sh.type.mnemonic,
            "owner": sh.owner,
            "at": [sh.x, sh.y],
            "name": sh.name,
            "eff": sh.eff,
            "mob": sh.mob,
            "tech": sh.tech,
            "mil": sh.mil,
            "items": _stock(sh.items, ("mil",)),
            "fleet": sh.fleet,
            "mission": sh.mission,
            **_op_area_data(sh),
            "rpath": sh.rpath,
            "rflags": sh.rflags,
            "off": sh.off,
            "plague": sh.plague.name.lower() if sh.plague is not None else None,
        },
        {
            "name": "",
            "fleet": "",
            "mission": "",
            "items": {},
            "mil": 0,
            "plague": "healthy",
            "rpath": "",
            "rflags": "",
            "off": False,
            "op_radius": 0,
        },
    )


def _unit_data(u: LandUnit) -> dict[str, Any]:
    return _drop_defaults(
        {
            "uid": u.uid,
            "type": u.type.mnemonic,
            "owner": u.owner,
            "at": [u.x, u.y],
            "eff": u.eff,
            "mob": u.mob,
            "tech": u.tech,
            "mil": u.mil,
            "items": _stock(u.items, ("mil",)),
            "army": u.army,
            "fort": u.fort,
            "mission": u.mission,
            **_op_area_data(u),
            "lrange": u.lrange,
            "retreat": u.retreat,
            "ship": u.ship,
            "land": u.land,
            "plague": u.plague.name.lower() if u.plague is not None else None,
        },
        {"army": "", "fort": 0, "mission": "", "op_radius": 0, "items": {}, "plague": "healthy"},
    )


def _plane_data(p: Plane) -> dict[str, Any]:
    return _drop_defaults(
        {
            "uid": p.uid,
            "type": p.type.mnemonic,
            "owner": p.owner,
            "at": [p.x, p.y],
            "eff": p.eff,
            "mob": p.mob,
            "tech": p.tech,
            "wing": p.wing,
            "mission": p.mission,
            "ship": p.ship,
            "land": p.land,
            "hardened": p.hardened,
            **_op_area_data(p),
        },
        {"wing": "", "mission": "", "hardened": False, "op_radius": 0},
    )


def _value(v: Any) -> str:
    if isinstance(v, bool):
        return "true" if v else "false"
    if isinstance(v, int | float):
        return repr(v)
    if isinstance(v, str):
        escaped = v.replace("\\", "\\\\").replace('"', '\\"').replace("\n", "\\n")
        return f'"{escaped}"'
    if isinstance(v, list):
        return "[" + ", ".join(_value(x) for x in v) + "]"
    if isinstance(v, dict):
        return "{ " + ", ".join(f"{_key(k)} = {_value(x)}" for k, x in v.items()) + " }"
    raise TypeError(f"cannot write {v!r} to a world file")


def _key(k: str) -> str:
    return k if k.replace("_", "").replace("-", "").isalnum() else _value(k)


def dumps(doc: dict[str, Any]) -> str:
    """Our TOML layout: scalars first, then ``[tables]``, then one line per field of
    each ``[[array]]`` entry (small arrays and tables inline)."""
    lines = [f"{_key(k)} = {_value(v)}" for k, v in doc.items() if not isinstance(v, dict | list)]
    for k, v in doc.items():
        if isinstance(v, dict):
            lines += ["", f"[{_key(k)}]"] + [f"{_key(f)} = {_value(x)}" for f, x in v.items()]
    for k, v in doc.items():
        if isinstance(v, list):
            for entry in v:
                lines += ["", f"[[{_key(k)}]]"]
                lines += [f"{_key(f)} = {_value(x)}" for f, x in entry.items()]
    return "\n".join(lines) + "\n"


def save_world(
    world: World, path: str | Path, *, original: str | None = None, force: bool = False
) -> None:
    """Write ``world`` atomically (:func:`bellum.fileio.write_atomic`); an existing file
    that is not a world file is kept unless ``force``.

    With ``original``, the text of the world file it was read from, that text is
    rewritten in its own style (:func:`update_text`): comments, order and layout stay.
    """
    text = dumps(world_to_data(world)) if original is None else update_text(original, world)
    write_atomic(path, text, kind=WORLD, force=force)


# -- rewriting a file in its own style -----------------------------------------------

#: How the entries of each ``[[array]]`` are told apart (see :func:`_entry_id`).
_ENTRY_KEYS = {
    "nation": "cnum",
    "sector": "at",
    "ship": "uid",
    "unit": "uid",
    "plane": "uid",
    "bmap": "country",
}


def update_text(text: str, world: World) -> str:
    """The world file ``text`` changed to describe ``world``, touching only what differs.

    A command changes a few values; the user's comments, the order of the
    entries, their layout and every unchanged value stay as written (with
    tomlkit).  The file's world and ``world`` are compared in the form
    :func:`world_to_data` writes, entry by entry (a nation by ``cnum``, a
    sector by its place, a ship, unit or plane by ``uid``): changed fields are
    set, fields back at their default removed, new entries appended and gone
    ones dropped.  The result is read back and must give ``world``; a file
    this cannot follow (a field written in another form than the writer's)
    is written afresh by :func:`dumps` instead, so the world is always right.
    """
    import tomlkit

    before = world_to_data(parse_world(tomllib.loads(text), "<original>", world.tables))
    after = world_to_data(world)
    if before == after:
        return text
    try:
        doc = tomlkit.parse(text)
        _merge_document(doc, before, after, world.geometry)
        updated = tomlkit.dumps(doc)
        if world_to_data(parse_world(tomllib.loads(updated), "<updated>", world.tables)) == after:
            return updated
    except (KeyError, TypeError, ValueError, IndexError, RecursionError, tomllib.TOMLDecodeError):
        pass
    return dumps(after)


def _merge_document(doc: Any, before: dict[str, Any], after: dict[str, Any], geo: Geometry) -> None:
    import tomlkit

    for key in {**before, **after}:
        b, a = before.get(key), after.get(key)
        if b == a:
            continue
        if key in _ENTRY_KEYS:
            _merge_entries(doc, key, b or [], a or [], geo)
        elif key in ("telegram", "news"):
            old, new = b or [], a or []
            if new[: len(old)] != old:
                raise ValueError(f"{key}: not only appended to")
            for entry in new[len(old) :]:
                _append(doc, key, entry)
        elif isinstance(a, dict) and isinstance(b, dict) and key in doc:
            _merge_fields(doc[key], b, a)
        elif a is None:
            del doc[key]
        else:
            doc[key] = tomlkit.item(a)


def _entry_id(kind: str, entry: Mapping[str, Any], geo: Geometry) -> object:
    value = entry[_ENTRY_KEYS[kind]]
    if kind == "sector":
        return geo.norm(int(value[0]), int(value[1]))
    return int(value)


def _merge_entries(
    doc: Any, kind: str, before: list[dict[str, Any]], after: list[dict[str, Any]], geo: Geometry
) -> None:
    """The ``[[kind]]`` entries of ``doc`` changed from ``before`` to ``after``."""
    old = {_entry_id(kind, e, geo): e for e in before}
    new = {_entry_id(kind, e, geo): e for e in after}
    tables = doc.get(kind, [])
    where = {_entry_id(kind, t, geo): i for i, t in enumerate(tables)}
    if len(where) != len(tables):
        raise ValueError(f"{kind}: an entry is written twice")
    for ident, entry in new.items():
        if ident not in old:
            _append(doc, kind, entry)
        elif entry != old[ident]:
            _merge_fields(tables[where[ident]], old[ident], entry)
    for i in sorted((where[k] for k in old if k not in new), reverse=True):
        del tables[i]


def _merge_fields(table: Any, before: Mapping[str, Any], after: Mapping[str, Any]) -> None:
    """The fields of ``table`` changed from ``before`` to ``after``, each in its place.

    A table written inline (``items = { gun = 10, shell = 100 }``) keeps the order of
    its keys: values change in place, and keys that come are written after the others.
    """
    for field in {**before, **after}:
        old, new = before.get(field), after.get(field)
        if old == new:
            continue
        current = table.get(field)
        if isinstance(new, dict) and isinstance(old, dict) and isinstance(current, dict):
            if current.keys() == new.keys():
                for key, value in new.items():
                    if old.get(key) != value:
                        current[key] = _toml_item(value)
                continue
            new = {**{k: new[k] for k in current if k in new}, **new}
        if field in after:
            table[field] = _toml_item(new)
        elif field in table:
            del table[field]


def _append(doc: Any, kind: str, entry: Mapping[str, Any]) -> None:
    import tomlkit

    table = tomlkit.table()
    for field, value in entry.items():
        table[field] = _toml_item(value)
    if kind not in doc:
        doc.add(tomlkit.nl())
        doc[kind] = tomlkit.aot()
    doc[kind].append(table)


def _toml_item(value: Any) -> Any:
    """A value as the writer lays it out (:func:`dumps`): tables inline, arrays on one line."""
    import tomlkit

    if isinstance(value, dict):
        return tomlkit.parse(f"v = {_value(value)}")["v"]
    return tomlkit.item(value)


def article(noun: str) -> str:
    """``a cavalry``, ``an engineer``."""
    return f"{'an' if noun[:1] in 'aeiou' else 'a'} {noun}"
