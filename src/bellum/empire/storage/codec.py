"""World objects <-> JSON rows of the store, field by field from the dataclasses.

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
from enum import IntEnum
from functools import cache
from typing import Any

from bellum.empire import world as wm
from bellum.empire.geometry import Geometry
from bellum.empire.tables import LandType, PlaneType, SectorType, ShipType, Tables
from bellum.errors import InputError

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


def world_rows(world: wm.World) -> dict[tuple[str, str], str]:
    """Every object of ``world`` as ``{(kind, key): canonical JSON}``."""
    rows: dict[tuple[str, str], str] = {
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


def rows_world(rows: dict[tuple[str, str], str], tables: Tables, where: str) -> wm.World:
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
