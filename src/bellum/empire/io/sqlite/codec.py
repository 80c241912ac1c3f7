"""What the store's rows hold: world objects, dump tables and history records.

The store (:mod:`.store`) runs the SQL and the transactions; this module
turns what is stored into objects and back.

World objects <-> JSON rows, field by field from the dataclasses.

The codec walks :func:`dataclasses.fields`, so a field added to
:class:`~bellum.empire.world.Sector` (or any other object) is stored without
touching this module, and a row written before the field existed loads with
the field's default.  Type objects are stored by name (sectors) or
mnemonic (units, ships, planes) so rows stay readable in ``sqlite3``.

Rows are compared as text to find what a command changed, hence the
canonical JSON (sorted keys, no spaces).
"""

from __future__ import annotations

import dataclasses
import json
import math
import types
import typing
from collections.abc import Callable
from dataclasses import dataclass, field
from enum import IntEnum
from functools import cache
from typing import TYPE_CHECKING, Any

import bellum
from bellum.empire import world as wm
from bellum.empire.events import Event, EventKind
from bellum.empire.geometry import Geometry
from bellum.empire.intel.model import KINDS as OBSERVED
from bellum.empire.intel.model import Observation
from bellum.empire.io.xdump.syntax import Record, Table, split_fields
from bellum.empire.orders import Order
from bellum.empire.rules import Rules, check_options
from bellum.empire.tables import LandType, PlaneType, SectorType, ShipType, Tables
from bellum.errors import InputError
from bellum.numbers import shown, to_int

if TYPE_CHECKING:
    from bellum.empire.combat.result import CombatResult

#: A world as rows: ``{(kind, key): canonical JSON}``.
Rows = dict[tuple[str, str], str]
#: What changed between two sets of rows: ``{(kind, key): (before, after)}``, ``None``
#: for an object that did not exist.
Changes = dict[tuple[str, str], tuple[str | None, str | None]]

#: Object kinds of a world, the dataclass of each and how rows are keyed.
KINDS: dict[str, type] = {
    "nation": wm.Nation,
    "sector": wm.Sector,
    "unit": wm.LandUnit,
    "ship": wm.Ship,
    "plane": wm.Plane,
    "telegram": wm.Telegram,
    "news": wm.NewsItem,
    "bmap": wm.BMap,
    "observation": Observation,
}


def canonical(data: Any) -> str:
    """The one JSON text of ``data`` used for storing and comparing rows."""
    return json.dumps(data, sort_keys=True, separators=(",", ":"))


def _encode(v: Any) -> Any:
    if isinstance(v, SectorType):
        return v.name
    if isinstance(v, LandType | ShipType | PlaneType):
        return v.mnemonic
    if isinstance(v, IntEnum):
        return v.name.lower()
    if isinstance(v, tuple):
        return [_encode(x) for x in v]
    if isinstance(v, dict):
        return {str(k): _encode(x) for k, x in v.items()}
    if isinstance(v, list):
        return [_encode(x) for x in v]
    if dataclasses.is_dataclass(v) and not isinstance(v, type):
        return encode(v)
    return v


#: Values stored as they are (``type(v)``, so enums, subclasses of int, take the long way).
_PLAIN = frozenset({int, float, str, bool, type(None)})


@cache
def _names(cls: type) -> tuple[str, ...]:
    return tuple(f.name for f in dataclasses.fields(cls))


def encode(obj: Any) -> dict[str, Any]:
    """A world object as a JSON-able dict of all its fields."""
    out = {}
    cls: type = type(obj)
    for name in _names(cls):
        v = getattr(obj, name)
        out[name] = v if type(v) in _PLAIN else _encode(v)
    return out


@cache
def _hints(cls: type) -> dict[str, Any]:
    return typing.get_type_hints(cls)


#: Reads one stored value into a field's type (see :func:`_decoder`).
Decoder = Callable[[Any, Tables], Any]


#: The whole numbers a database holds (SQLite's): a larger one is damage.
_INT_MIN, _INT_MAX = -(2**63), 2**63


def _decode_int(v: Any, tables: Tables) -> int:
    n = to_int(v, signed=True) if isinstance(v, str) else v  # JSON keys are text
    if type(n) is not int or not _INT_MIN <= n < _INT_MAX:
        raise ValueError(f"expected a whole number, got {_shown(v)}")
    return n


def _decode_float(v: Any, tables: Tables) -> float:
    if isinstance(v, bool) or not isinstance(v, int | float) or not math.isfinite(v):
        raise ValueError(f"expected a finite number, got {_shown(v)}")
    return float(v)


def _exactly(kind: type) -> Decoder:
    def check(v: Any, tables: Tables) -> Any:
        if type(v) is not kind:
            raise ValueError(f"expected {kind.__name__}, got {_shown(v)}")
        return v

    return check


@cache
def _decoder(hint: Any) -> Decoder:
    """How to read a stored value of a field typed ``hint``: worked out once per type,
    since a world is hundreds of thousands of values."""
    origin = typing.get_origin(hint)
    args = typing.get_args(hint)
    if origin in (typing.Union, types.UnionType):
        kinds = [a for a in args if a is not type(None)]
        if len(kinds) > 1:  # plain values of several types (a Seen's value)
            return lambda v, tables: _one_of(v, kinds)
        inner = _decoder(kinds[0])
        return lambda v, tables: None if v is None else inner(v, tables)
    if origin is tuple:
        parts = [_decoder(a) for a in args]
        return lambda v, tables: tuple(d(x, tables) for d, x in zip(parts, v, strict=True))
    if origin is dict:
        key, value = _decoder(args[0]), _decoder(args[1])
        return lambda v, tables: {key(k, tables): value(x, tables) for k, x in v.items()}
    if origin is list:
        item = _decoder(args[0])
        return lambda v, tables: [item(x, tables) for x in v]
    if hint is SectorType:
        return lambda v, tables: tables.sector(v)
    if hint is LandType:
        return lambda v, tables: tables.land[v]
    if hint is ShipType:
        return lambda v, tables: tables.ships[v]
    if hint is PlaneType:
        return lambda v, tables: tables.planes[v]
    if isinstance(hint, type) and issubclass(hint, IntEnum):
        return lambda v, tables: hint[str(v).upper()]
    if dataclasses.is_dataclass(hint) and isinstance(hint, type):
        return lambda v, tables: _decode_object(hint, v, tables)
    if hint is float:
        return _decode_float
    if hint is int:
        return _decode_int
    if hint in (str, bool):
        return _exactly(hint)
    return lambda v, tables: v


@cache
def _decoders(cls: type) -> tuple[tuple[str, Decoder], ...]:
    hints = _hints(cls)
    return tuple((f.name, _decoder(hints[f.name])) for f in dataclasses.fields(cls))


def _one_of(v: Any, kinds: list[Any]) -> Any:
    """A plain value that must be of one of ``kinds`` (or null)."""
    if v is None or type(v) in kinds or (float in kinds and type(v) is int):
        return v
    raise ValueError(f"expected one of {', '.join(k.__name__ for k in kinds)}, got {_shown(v)}")


def _decode_object(cls: type, data: Any, tables: Tables) -> Any:
    """A dataclass held inside an object (a :class:`Seen` in an observation)."""
    if not isinstance(data, dict):
        raise ValueError(f"expected a JSON object, got {_shown(data)}")
    return cls(**{name: read(data[name], tables) for name, read in _decoders(cls) if name in data})


def _shown(v: Any) -> str:
    try:
        return shown(repr(v), 40)
    except (ValueError, RecursionError):
        return type(v).__name__


#: What reading a damaged row can raise (bad JSON, wrong types, missing keys, numbers
#: too big for a float, nesting too deep for Python): each becomes a :class:`DamagedError`.
DAMAGE = (
    KeyError,
    ValueError,
    TypeError,
    AttributeError,
    IndexError,
    OverflowError,
    RecursionError,
)
#: What to do about a damaged world: its rows are the world, so it must come from elsewhere.
WORLD_HINT = (
    "restore a copy of the database, or import the world again"
    " (`bellum empire world import` or `bellum empire world new --from`)"
)
#: What to do about a damaged history: the world is intact and can start a new database.
HISTORY_HINT = (
    "the world itself is readable: `bellum empire world export --toml --out FILE`"
    " and `bellum empire world new --from FILE` start a database with a clean history"
)


class DamagedError(InputError):
    """A row of a world database cannot be read back: the file was damaged or edited."""

    def __init__(self, where: str, problem: str, hint: str = WORLD_HINT) -> None:
        super().__init__(f"{where}: damaged database: {problem}; {hint}")


def why(exc: BaseException) -> str:
    if isinstance(exc, KeyError):
        return f"unknown name {shown(str(exc), 40)}"
    if isinstance(exc, RecursionError):
        return "nested too deep"
    text = str(exc).splitlines()[0] if str(exc) else type(exc).__name__
    return shown(text, 80)


def decode(kind: str, data: dict[str, Any], tables: Tables, where: str) -> Any:
    """The world object of ``kind`` stored as ``data``; unknown fields (from a newer
    bellum) are ignored, missing ones take their defaults."""
    cls = KINDS[kind]
    args = {}
    if not isinstance(data, dict):
        raise DamagedError(where, f"expected a JSON object, got {type(data).__name__}")
    field = ""
    try:
        for field, read in _decoders(cls):
            if field in data:
                v = data[field]
                # Most fields of a world are plain whole numbers: those skip the call.
                if read is _decode_int and type(v) is int and _INT_MIN <= v < _INT_MAX:
                    args[field] = v
                else:
                    args[field] = read(v, tables)
        field = ""
        return cls(**args)
    except DAMAGE as exc:
        problem = f"{field}: {why(exc)}" if field else why(exc)
        raise DamagedError(where, problem) from None


def world_rows(world: wm.World) -> Rows:
    """Every object of ``world`` as ``{(kind, key): canonical JSON}``."""
    rows: Rows = {
        ("world", "options"): canonical(world.options),
        ("world", "size"): canonical([world.geometry.width, world.geometry.height]),
    }
    if world.fog is not None:
        rows[("world", "fog")] = canonical(encode(world.fog))
    if world.deity_name != wm.DEITY_NAME:
        rows[("world", "deity")] = canonical(world.deity_name)
    for cnum, n in world.nations.items():
        rows[("nation", str(cnum))] = canonical(encode(n))
    for (x, y), s in world.sectors.items():
        rows[("sector", f"{x},{y}")] = canonical(encode(s))
    for kind, objs in (("unit", world.units), ("ship", world.ships), ("plane", world.planes)):
        for uid, o in objs.items():
            rows[(kind, str(uid))] = canonical(encode(o))
    for i, t in enumerate(world.telegrams):
        rows[("telegram", f"{i:08d}")] = canonical(encode(t))
    for i, item in enumerate(world.news):
        rows[("news", f"{i:08d}")] = canonical(encode(item))
    for cnum, bmap in world.bmaps.items():
        rows[("bmap", str(cnum))] = canonical(encode(bmap))
    for key, seen in world.observations.items():
        rows[("observation", key)] = canonical(encode(seen))
    return rows


def rows_world(rows: Rows, tables: Tables, where: str) -> wm.World:
    """The world stored as ``rows`` (the inverse of :func:`world_rows`).

    Rows that cannot be read, or objects that cannot be where they are (off
    the map, a sector stored under another key, a map with holes), are a
    :class:`DamagedError` naming the object.
    """
    try:
        size = json.loads(rows[("world", "size")])
        geometry = Geometry(*size)
    except KeyError:
        raise InputError(f"{where}: the database holds no world") from None
    except DAMAGE as exc:
        raise DamagedError(f"{where}: world size", why(exc)) from None
    try:
        options = json.loads(rows.get(("world", "options"), "{}"))
        if not isinstance(options, dict):
            raise TypeError("expected a JSON object")
        check_options(options, "")
    except (*DAMAGE, InputError) as exc:
        raise DamagedError(f"{where}: world options", why(exc).lstrip(": ")) from None
    world = wm.World(geometry=geometry, tables=tables, options=options)
    try:
        deity = json.loads(rows.get(("world", "deity"), json.dumps(wm.DEITY_NAME)))
        if not isinstance(deity, str):
            raise TypeError("expected a text")
        world.deity_name = deity
        fog = json.loads(rows.get(("world", "fog"), "null"))
        if fog is not None:
            world.fog = _fog(fog)
    except DAMAGE as exc:
        raise DamagedError(f"{where}: world deity or fog", why(exc)) from None
    for (kind, key), text in sorted(rows.items()):
        if kind == "world":
            continue
        if kind not in KINDS:
            raise DamagedError(where, f"unknown object kind '{shown(kind)}'")
        named = f"{where}: {kind} {shown(key)}"
        try:
            data = json.loads(text)
        except DAMAGE as exc:
            raise DamagedError(named, f"not JSON: {why(exc)}") from None
        obj = decode(kind, data, tables, named)
        _check_places(obj, geometry, named)
        _place(world, kind, key, obj, named)
    # A player's view (fog) knows only some sectors; a whole world has every one.  A world
    # with none is the empty start a live game's first sync is recorded onto.
    whole = geometry.width * geometry.height
    if world.fog is None and world.sectors and len(world.sectors) * 2 != whole:
        missing = next(
            f"{x},{y}"
            for y in range(geometry.height)
            for x in range(y % 2, geometry.width, 2)
            if (x, y) not in world.sectors
        )
        raise DamagedError(where, f"the map has no sector {missing}")
    world.nations = dict(sorted(world.nations.items()))
    world.units = dict(sorted(world.units.items()))
    world.ships = dict(sorted(world.ships.items()))
    world.planes = dict(sorted(world.planes.items()))
    world.sectors = dict(sorted(world.sectors.items(), key=lambda kv: (kv[0][1], kv[0][0])))
    return world


def _place(world: wm.World, kind: str, key: str, obj: Any, named: str) -> None:
    """Put a decoded object of ``kind`` stored under ``key`` in ``world``."""
    if kind == "nation":
        world.nations[obj.cnum] = obj
    elif kind == "sector":
        if key != f"{obj.x},{obj.y}":
            raise DamagedError(named, f"holds sector {obj.x},{obj.y}")
        world.sectors[(obj.x, obj.y)] = obj
    elif kind in ("unit", "ship", "plane"):
        getattr(world, f"{kind}s")[obj.uid] = obj
    elif kind == "telegram":
        world.telegrams.append(obj)
    elif kind == "bmap":
        _check_bmap(obj, world.geometry, named)
        world.bmaps[obj.cnum] = obj
    elif kind == "observation":
        if key != obj.key or obj.kind not in OBSERVED:
            raise DamagedError(named, f"holds an observation of {shown(obj.key)}")
        world.observations[key] = obj
    else:
        world.news.append(obj)


def _fog(data: Any) -> wm.Fog:
    """A stored :class:`~bellum.empire.world.Fog`: a viewer and the view's game time (an
    older row's list of placeholder fields is left: its fields read as they were)."""
    viewer, turn, time = data["viewer"], data.get("turn", 0), data.get("time", 0)
    for name, v in (("viewer", viewer), ("turn", turn), ("time", time)):
        if type(v) is not int or v < 0 or (name == "viewer" and v > 255):
            raise ValueError(f"fog {name}: expected a whole number, got {_shown(v)}")
    return wm.Fog(viewer, turn, time)


def _check_bmap(bmap: wm.BMap, geo: Geometry, where: str) -> None:
    """A bmap has a row of the map's width for each row of the map."""
    if len(bmap.rows) != geo.height or any(len(r) != geo.width for r in bmap.rows):
        raise DamagedError(where, f"not a bmap of the {geo.width}x{geo.height} map")


#: The fields that hold a place on the map, besides ``x`` and ``y``.
_PLACES = ("origin", "capital", "dist", "op_center")


def _check_places(obj: Any, geo: Geometry, where: str) -> None:
    """Every place an object names is a sector of the map (rules look them up)."""
    places = [(f, getattr(obj, f)) for f in _PLACES if getattr(obj, f, None) is not None]
    if hasattr(obj, "x"):
        places.append(("at", (obj.x, obj.y)))
    for name, (x, y) in places:
        if not (0 <= x < geo.width and 0 <= y < geo.height and geo.is_sector(x, y)):
            raise DamagedError(
                where, f"{name}: {x},{y} is not a sector of the {geo.width}x{geo.height} map"
            )


def changes(before: Rows, after: Rows) -> Changes:
    """Every object whose row differs, with its row before and after."""
    return {
        k: (before.get(k), after.get(k))
        for k in sorted(set(before) | set(after))
        if before.get(k) != after.get(k)
    }


# -- dumps -------------------------------------------------------------------------

#: The columns of a dump table's row, in the order of :func:`table_row`.
TABLE_COLUMNS = "seq, name, human, header, column_line, columns, footer, before"


def table_row(seq: int, t: Table) -> tuple[Any, ...]:
    """Dump table ``t`` (without its records) as the row ``TABLE_COLUMNS`` describe."""
    return (seq, t.name, int(t.human), t.header, t.column_line, json.dumps(t.columns), t.footer,
            t.before)  # fmt: skip


def table_of(row: tuple[Any, ...], lines: list[str], source: str) -> Table:
    """The dump table stored as ``row`` with its record ``lines`` (the inverse of
    :func:`table_row`)."""
    _, name, human, header, column_line, columns, footer, before = row
    columns = json.loads(columns)
    texts = (name, header, footer, before, *columns)
    if not isinstance(columns, list) or not all(isinstance(s, str) for s in texts):
        raise TypeError("a dump table stored with fields of the wrong type")
    t = Table(name, bool(human), header, columns, column_line, [], footer, before)
    t.records = [Record(line, split_fields(line, source), i) for i, line in enumerate(lines)]
    return t


# -- history -----------------------------------------------------------------------

#: The columns of a history row after its ``id``, in the order of :func:`command_row`.
COMMAND_COLUMNS = (
    "at, name, args, extra, order_text, country, seed, answers, options, version, profile,"
    " outcome, result, events, transcript, server"
)
#: The ``name`` of a history entry that is a sync of a live game (it has no order).
SYNC = "sync"


@dataclass
class CommandRecord:
    """One entry of the history, as stored: an order, or a sync of a live game.

    ``server`` is ``None`` for an order bellum's rules resolved; otherwise the
    entry came from that server (``HOST:PORT``): a sync (``order`` is ``None``)
    or an order played there, whose transcript is the server's.
    """

    id: int
    at: str
    order: Order | None
    country: int
    seed: int
    answers: list[str | None]
    options: dict[str, Any]
    version: str
    profile: str
    outcome: str
    result: dict[str, Any]
    events: list[Event]
    transcript: str
    changes: Changes = field(default_factory=dict)
    server: str | None = None

    @property
    def rules(self) -> Rules:
        """The rules the order ran under (a sync: the game's own)."""
        return Rules.of(self.options)

    @property
    def command(self) -> str:
        """The command's name: the order's, or ``sync``."""
        return self.order.name if self.order is not None else SYNC

    def words(self) -> list[str]:
        """What followed the command's name: the order's arguments, or the server synced."""
        if self.order is not None:
            return list(self.order.args)
        return [self.server or ""]

    def to_json(self) -> dict[str, Any]:
        """The ``history --json`` entry (docs/store.md): the order, and its arguments as
        ``args`` (missing ones ``null``) and ``extra`` (the support words); ``server`` for an
        entry from a live game (a sync has no order: ``order`` is ``null``)."""
        order = self.order
        return {
            "id": self.id,
            "at": self.at,
            "command": self.command,
            "order": order.text() if order is not None else None,
            "args": order.slots() if order is not None else [],
            "extra": _support(order) if order is not None else {},
            "country": self.country,
            "seed": self.seed,
            "answers": self.answers,
            "outcome": self.outcome,
            "server": self.server,
        }


def _support(order: Order) -> dict[str, list[str]]:
    return {"support_args": order.support()} if order.syntax.support else {}


@dataclass(frozen=True)
class ServerEntry:
    """A history entry bellum's rules did not resolve: a sync of the live game at
    ``server`` (``order`` ``None``), or ``order`` played on that server.

    ``seed`` is -1 where the server's seed is unknown; the transcript and events
    are what the server sent.
    """

    server: str
    country: int
    outcome: str
    result: dict[str, Any]
    order: Order | None = None
    seed: int = -1
    answers: list[str | None] = field(default_factory=list)
    events: list[Event] = field(default_factory=list)
    transcript: str = ""


def _options(rules: Rules) -> str:
    """Every option of ``rules``, defaults and profile included."""
    return canonical(rules.to_dict())


def _order_columns(order: Order) -> tuple[str, str, str, str | None]:
    """``name``, ``args``, ``extra`` and ``order_text`` of an order: the first three repeat
    it for readers of the database; ``order_text`` is what replay reads."""
    return order.name, json.dumps(order.slots()), json.dumps(_support(order)), order.text()


def command_row(
    at: str,
    order: Order,
    answers: list[str | None],
    result: CombatResult,
) -> tuple[Any, ...]:
    """The history row of ``order``, run with ``answers`` (under the result's rules), as
    ``COMMAND_COLUMNS`` describe."""
    return (
        at,
        *_order_columns(order),
        result.aggressor,
        result.seed,
        json.dumps(answers),
        _options(result.rules),
        bellum.__version__,
        result.rules.profile,
        result.outcome,
        canonical(result.to_json()),
        events_json(result.events),
        result.transcript(),
        None,
    )


def events_json(events: list[Event]) -> str:
    """The events as the history keeps them: their text, not their facts (a replay
    compares the text; the facts are the rules' to give again)."""
    return json.dumps(
        [{"kind": e.kind, "text": e.text, "to": e.to, "answer": e.answer} for e in events]
    )


def events_from_json(text: str) -> list[Event]:
    return [
        Event(EventKind(e["kind"]), e["text"], to=e["to"], answer=e["answer"])
        for e in json.loads(text)
    ]


def entry_row(at: str, entry: ServerEntry, world: wm.World) -> tuple[Any, ...]:
    """The history row of ``entry``, whose world (after it) is ``world``, as
    ``COMMAND_COLUMNS`` describe.  A sync has no order: its ``order_text`` is null
    and its ``args`` name the server."""
    order = entry.order
    if order is not None:
        ordered = _order_columns(order)
    else:
        ordered = (SYNC, json.dumps([entry.server]), "{}", None)
    return (
        at,
        *ordered,
        entry.country,
        entry.seed,
        json.dumps(entry.answers),
        _options(Rules.of(world.options)),
        bellum.__version__,
        "server",
        entry.outcome,
        canonical(entry.result),
        events_json(entry.events),
        entry.transcript,
        entry.server,
    )


def record_of(row: tuple[Any, ...], where: str = "<database>") -> CommandRecord:
    """The history record of ``row`` (``id`` then ``COMMAND_COLUMNS``); a row that
    cannot be read is a :class:`DamagedError` naming the command."""
    try:
        return _record_of(row)
    except (*DAMAGE, InputError) as exc:
        raise DamagedError(f"{where}: command {row[0]}", why(exc), HISTORY_HINT) from None


def _record_of(row: tuple[Any, ...]) -> CommandRecord:
    (cid, at, name, args, extra, order_text, country, seed, answers, options, version, profile,
     outcome, result, events, transcript, server) = row  # fmt: skip
    order: Order | None
    if order_text is not None:
        order = Order.parse(order_text)
    elif server is not None:
        order = None  # a sync (schema 4)
    else:  # schema 2 and older kept the Python call
        order = Order.from_call(name, json.loads(args), json.loads(extra))
    answers = json.loads(answers)
    if not isinstance(answers, list) or not all(a is None or isinstance(a, str) for a in answers):
        raise TypeError("answers: expected a list of texts")
    options = json.loads(options)
    if not isinstance(options, dict):
        raise TypeError("options: expected a JSON object")
    check_options(options, "options")
    if type(country) is not int or type(seed) is not int or type(transcript) is not str:
        raise TypeError("country, seed or transcript of the wrong type")
    if server is not None and type(server) is not str:
        raise TypeError("server: expected a text")
    # A live server's entry may not know the server's seed: it stores -1.
    lowest = -1 if server is not None else 0
    if not (lowest <= seed < 2**32 and 0 <= country <= 255):
        raise ValueError(f"seed {seed} or country {country} out of range")
    return CommandRecord(
        cid,
        at,
        order,
        country,
        seed,
        answers,
        options,
        version,
        profile,
        outcome,
        json.loads(result),
        events_from_json(events),
        transcript,
        server=server,
    )
