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
import types
import typing
from dataclasses import dataclass, field
from enum import IntEnum
from functools import cache
from typing import TYPE_CHECKING, Any

import bellum
from bellum.empire import world as wm
from bellum.empire.events import Event
from bellum.empire.geometry import Geometry
from bellum.empire.io.xdump.syntax import Record, Table, split_fields
from bellum.empire.orders import Order
from bellum.empire.tables import LandType, PlaneType, SectorType, ShipType, Tables
from bellum.errors import InputError

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
    return v


def encode(obj: Any) -> dict[str, Any]:
    """A world object as a JSON-able dict of all its fields."""
    return {f.name: _encode(getattr(obj, f.name)) for f in dataclasses.fields(obj)}


@cache
def _hints(cls: type) -> dict[str, Any]:
    return typing.get_type_hints(cls, vars(wm))


def _decode(hint: Any, v: Any, tables: Tables) -> Any:
    origin = typing.get_origin(hint)
    if origin in (typing.Union, types.UnionType):
        if v is None:
            return None
        inner = [a for a in typing.get_args(hint) if a is not type(None)]
        return _decode(inner[0], v, tables)
    if origin is tuple:
        return tuple(_decode(a, x, tables) for a, x in zip(typing.get_args(hint), v, strict=True))
    if origin is dict:
        kt, vt = typing.get_args(hint)
        return {_decode(kt, k, tables): _decode(vt, x, tables) for k, x in v.items()}
    if origin is list:
        (it,) = typing.get_args(hint)
        return [_decode(it, x, tables) for x in v]
    if hint is SectorType:
        return tables.sector(v)
    if hint is LandType:
        return tables.land[v]
    if hint is ShipType:
        return tables.ships[v]
    if hint is PlaneType:
        return tables.planes[v]
    if isinstance(hint, type) and issubclass(hint, IntEnum):
        return hint[str(v).upper()]
    if hint is float:
        return float(v)
    if hint is int:
        return int(v)
    return v


def decode(kind: str, data: dict[str, Any], tables: Tables, where: str) -> Any:
    """The world object of ``kind`` stored as ``data``; unknown fields (from a newer
    bellum) are ignored, missing ones take their defaults."""
    cls = KINDS[kind]
    hints = _hints(cls)
    args = {}
    try:
        for f in dataclasses.fields(cls):
            if f.name in data:
                args[f.name] = _decode(hints[f.name], data[f.name], tables)
        return cls(**args)
    except (KeyError, ValueError, TypeError) as exc:
        raise InputError(f"{where}: stored {kind} is malformed: {exc}") from None


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
    return rows


def rows_world(rows: Rows, tables: Tables, where: str) -> wm.World:
    """The world stored as ``rows`` (the inverse of :func:`world_rows`)."""
    try:
        size = json.loads(rows[("world", "size")])
        options = json.loads(rows.get(("world", "options"), "{}"))
        fog = json.loads(rows.get(("world", "fog"), "null"))
        deity = json.loads(rows.get(("world", "deity"), json.dumps(wm.DEITY_NAME)))
    except (KeyError, ValueError):
        raise InputError(f"{where}: the database holds no world") from None
    world = wm.World(geometry=Geometry(*size), tables=tables, options=options)
    world.deity_name = str(deity)
    if fog is not None:
        world.fog = wm.Fog(int(fog["viewer"]), {k: list(v) for k, v in fog["hidden"].items()})
    for (kind, key), text in sorted(rows.items()):
        if kind == "world":
            continue
        if kind not in KINDS:
            raise InputError(f"{where}: unknown object kind '{kind}' in the database")
        obj = decode(kind, json.loads(text), tables, f"{where}: {kind} {key}")
        if kind == "nation":
            world.nations[obj.cnum] = obj
        elif kind == "sector":
            world.sectors[(obj.x, obj.y)] = obj
        elif kind == "unit":
            world.units[obj.uid] = obj
        elif kind == "ship":
            world.ships[obj.uid] = obj
        elif kind == "plane":
            world.planes[obj.uid] = obj
        elif kind == "telegram":
            world.telegrams.append(obj)
        else:
            world.news.append(obj)
    world.nations = dict(sorted(world.nations.items()))
    world.units = dict(sorted(world.units.items()))
    world.ships = dict(sorted(world.ships.items()))
    world.planes = dict(sorted(world.planes.items()))
    world.sectors = dict(sorted(world.sectors.items(), key=lambda kv: (kv[0][1], kv[0][0])))
    return world


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
    t = Table(name, bool(human), header, json.loads(columns), column_line, [], footer, before)
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


def _options(world: wm.World) -> str:
    """Every option ``world`` runs under, defaults included."""
    return canonical({k: world.option(k) for k in wm.DEFAULT_OPTIONS} | world.options)


def _order_columns(order: Order) -> tuple[str, str, str, str | None]:
    """``name``, ``args``, ``extra`` and ``order_text`` of an order: the first three repeat
    it for readers of the database; ``order_text`` is what replay reads."""
    return order.name, json.dumps(order.slots()), json.dumps(_support(order)), order.text()


def command_row(
    at: str,
    order: Order,
    answers: list[str | None],
    result: CombatResult,
    world: wm.World,
) -> tuple[Any, ...]:
    """The history row of ``order``, run on ``world`` with ``answers``, as
    ``COMMAND_COLUMNS`` describe."""
    return (
        at,
        *_order_columns(order),
        result.aggressor,
        result.seed,
        json.dumps(answers),
        _options(world),
        bellum.__version__,
        str(world.option("profile")),
        result.outcome,
        canonical(result.to_json()),
        json.dumps([e.__dict__ for e in result.events]),
        result.transcript(),
        None,
    )


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
        _options(world),
        bellum.__version__,
        "server",
        entry.outcome,
        canonical(entry.result),
        json.dumps([e.__dict__ for e in entry.events]),
        entry.transcript,
        entry.server,
    )


def record_of(row: tuple[Any, ...]) -> CommandRecord:
    """The history record of ``row`` (``id`` then ``COMMAND_COLUMNS``)."""
    (cid, at, name, args, extra, order_text, country, seed, answers, options, version, profile,
     outcome, result, events, transcript, server) = row  # fmt: skip
    order: Order | None
    if order_text is not None:
        order = Order.parse(order_text)
    elif server is not None:
        order = None  # a sync (schema 4)
    else:  # schema 2 and older kept the Python call
        order = Order.from_call(name, json.loads(args), json.loads(extra))
    return CommandRecord(
        cid,
        at,
        order,
        country,
        seed,
        json.loads(answers),
        json.loads(options),
        version,
        profile,
        outcome,
        json.loads(result),
        [Event(**e) for e in json.loads(events)],
        transcript,
        server=server,
    )
