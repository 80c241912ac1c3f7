"""Stock 4.4.1 type tables (sector, land unit, ship, plane, item) and tech adjustment.

The numbers live in ``data/*.toml`` in bellum's own layout.  The server keeps
table floats as 32-bit floats and widens them in arithmetic, which matters at
truncation edges (spec §0.4), so every float read here goes through :func:`f32`.
"""

from __future__ import annotations

import contextlib
import marshal
import math
import struct
import sys
from dataclasses import dataclass
from functools import cache
from pathlib import Path
from typing import Any

#: A C float, packed and unpacked.
_F32 = struct.Struct("f")


def f32(x: float) -> float:
    """``x`` rounded to the nearest 32-bit float, widened back to a double."""
    result: float = _F32.unpack(_F32.pack(x))[0]
    return result


def techfact(level: float, x: float) -> float:
    """The server's tech scaling ``x * ((50 + level) / (200 + level))``, in its order."""
    return x * ((50.0 + level) / (200.0 + level))


@dataclass(frozen=True, slots=True)
class SectorType:
    uid: int
    name: str
    mnemonic: str
    offense: float
    defense: float
    mob0: float
    mob1: float
    max_pop: int
    packing: str
    navigation: str
    tags: frozenset[str]

    @property
    def is_sea(self) -> bool:
        return "sea" in self.tags

    @property
    def is_mountain(self) -> bool:
        return "mountain" in self.tags

    @property
    def impassable(self) -> bool:
        return self.mob0 < 0

    def has(self, tag: str) -> bool:
        return tag in self.tags


@dataclass(frozen=True, slots=True)
class LandType:
    uid: int
    mnemonic: str
    name: str
    display: str
    tech: int
    att: float
    defense: float
    vul: int
    spd: int
    vis: int
    spy: int
    rad: int
    frg: int
    acc: int
    dam: int
    ammo: int
    aaf: int
    nland: int
    nxl: int
    cargo: dict[str, int]
    flags: frozenset[str]

    def has(self, flag: str) -> bool:
        return flag in self.flags

    @property
    def milit(self) -> int:
        return self.cargo.get("milit", 0)


@dataclass(frozen=True, slots=True)
class ShipType:
    uid: int
    mnemonic: str
    name: str
    display: str
    tech: int
    armor: int
    speed: int
    vis: int
    vrange: int
    frg: int
    glim: int
    nland: int
    nplanes: int
    nchoppers: int
    nxl: int
    cargo: dict[str, int]
    flags: frozenset[str]

    def has(self, flag: str) -> bool:
        return flag in self.flags

    @property
    def milit(self) -> int:
        return self.cargo.get("milit", 0)


@dataclass(frozen=True, slots=True)
class PlaneType:
    uid: int
    mnemonic: str
    name: str
    display: str
    tech: int
    crew: int
    acc: int
    load: int
    att: int
    defense: int
    range: int
    fuel: int
    stealth: int
    flags: frozenset[str]
    #: Build cost in dollars (SAMs only engage planes costing 1000 or more).
    cost: int = 0

    def has(self, flag: str) -> bool:
        return flag in self.flags


@dataclass(frozen=True, slots=True)
class ItemType:
    uid: int
    mnemonic: str
    name: str
    lbs: int
    packing: dict[str, int]


#: The tables' files, beside this module (read as files: ``importlib.resources`` would
#: cost every command its imports, zipfile's among them).
DATA = Path(__file__).with_name("data")


def _read(name: str) -> dict[str, Any]:
    """The table file ``name`` as parsed TOML, through a cache beside it.

    Parsing the five files is most of reading the tables, which every command that
    opens a world does.  Like Python's bytecode, the parsed data is kept in
    ``data/__pycache__`` (as ``marshal`` data: plain values, never code), stamped with
    the file's modification time and size; a stale or unreadable cache is parsed
    again, and none is written where bytecode is not (``PYTHONDONTWRITEBYTECODE``).
    """
    path = DATA / name
    cached = DATA / "__pycache__" / f"{name}.{sys.implementation.cache_tag}.marshal"
    stat = path.stat()
    stamp = (stat.st_mtime_ns, stat.st_size)
    with contextlib.suppress(OSError, EOFError, ValueError, TypeError):
        kept, data = marshal.loads(cached.read_bytes())
        if kept == stamp and isinstance(data, dict):
            return data
    import tomllib

    data = tomllib.loads(path.read_text("utf-8"))
    if not sys.dont_write_bytecode:
        _keep(cached, (stamp, data))
    return data


def _keep(path: Path, value: Any) -> None:
    """Write ``value`` to ``path`` whole or not at all; a folder that cannot be written
    (or a value marshal cannot hold) is no error: the next run parses again."""
    from bellum.errors import InputError
    from bellum.fileio import write_atomic

    with contextlib.suppress(OSError, ValueError, InputError):
        path.parent.mkdir(exist_ok=True)
        write_atomic(path, marshal.dumps(value))


@dataclass(frozen=True)
class Tables:
    """All stock tables, looked up by name, mnemonic or uid."""

    sectors: dict[str, SectorType]
    land: dict[str, LandType]
    ships: dict[str, ShipType]
    planes: dict[str, PlaneType]
    items: dict[str, ItemType]

    def sector(self, key: str) -> SectorType:
        """A sector type by name or map mnemonic."""
        if key in self.sectors:
            return self.sectors[key]
        for t in self.sectors.values():
            if t.mnemonic == key:
                return t
        raise KeyError(key)


@cache
def stock() -> Tables:
    """The stock 4.4.1 tables (loaded once)."""
    sectors = {
        name: SectorType(
            uid=d["uid"],
            name=name,
            mnemonic=d["mnemonic"],
            offense=f32(d["offense"]),
            defense=f32(d["defense"]),
            mob0=f32(d["mob0"]),
            mob1=f32(d["mob1"]),
            max_pop=d["max_pop"],
            packing=d["packing"],
            navigation=d["navigation"],
            tags=frozenset(d["tags"]),
        )
        for name, d in _read("sectors.toml").items()
    }
    land = {
        key: LandType(
            uid=d["uid"],
            mnemonic=key,
            name=d["name"],
            display=d["display"],
            tech=d["tech"],
            att=f32(d["att"]),
            defense=f32(d["def"]),
            vul=d["vul"],
            spd=d["spd"],
            vis=d["vis"],
            spy=d["spy"],
            rad=d["rad"],
            frg=d["frg"],
            acc=d["acc"],
            dam=d["dam"],
            ammo=d["ammo"],
            aaf=d["aaf"],
            nland=d["nland"],
            nxl=d["nxl"],
            cargo=dict(d["cargo"]),
            flags=frozenset(d["flags"]),
        )
        for key, d in _read("land.toml").items()
    }
    ships = {
        key: ShipType(
            uid=d["uid"],
            mnemonic=key,
            name=d["name"],
            display=d["display"],
            tech=d["tech"],
            armor=d["armor"],
            speed=d["speed"],
            vis=d["vis"],
            vrange=d["vrange"],
            frg=d["frg"],
            glim=d["glim"],
            nland=d["nland"],
            nplanes=d["nplanes"],
            nchoppers=d["nchoppers"],
            nxl=d["nxl"],
            cargo=dict(d["cargo"]),
            flags=frozenset(d["flags"]),
        )
        for key, d in _read("ships.toml").items()
    }
    planes = {
        key: PlaneType(
            uid=d["uid"],
            mnemonic=key,
            name=d["name"],
            display=d["display"],
            tech=d["tech"],
            crew=d["crew"],
            acc=d["acc"],
            load=d["load"],
            att=d["att"],
            defense=d["def"],
            range=d["range"],
            fuel=d["fuel"],
            stealth=d["stealth"],
            flags=frozenset(d["flags"]),
            cost=d["cost"],
        )
        for key, d in _read("planes.toml").items()
    }
    items = {
        key: ItemType(
            uid=d["uid"], mnemonic=key, name=d["name"], lbs=d["lbs"], packing=dict(d["packing"])
        )
        for key, d in _read("items.toml").items()
    }
    return Tables(sectors, land, ships, planes, items)


# Tech-adjusted statistics (spec §0.5).  ``t`` is the surplus tech over the build tech.


def _surplus(tech: float, build_tech: int) -> float:
    return max(0.0, tech - build_tech)


def land_att(t: LandType, tech: float) -> float:
    return _land_value(t.att, t.tech, tech)


def land_def(t: LandType, tech: float) -> float:
    return _land_value(t.defense, t.tech, tech)


#: :func:`_land_value`'s answers: a side's odds ask them for every unit in every state.
_LAND_VALUES: dict[tuple[float, int, float], float] = {}


def _land_value(base: float, build_tech: int, tech: float) -> float:
    """A land unit's attack or defense ``base`` at ``tech`` (a C float)."""
    key = (base, build_tech, tech)
    value = _LAND_VALUES.get(key)
    if value is None:
        if len(_LAND_VALUES) >= 4096:
            _LAND_VALUES.clear()
        s = _surplus(tech, build_tech)
        value = _LAND_VALUES[key] = f32(min(127.0, base * (1 + math.sqrt(s) / 100 * 4)))
    return value


def land_spd(t: LandType, tech: float) -> int:
    s = _surplus(tech, t.tech)
    return int(min(127.0, t.spd * (1 + math.sqrt(s) / 100 * 2.1)))


def land_vul(t: LandType, tech: float) -> int:
    s = _surplus(tech, t.tech)
    return int(max(0.0, t.vul * (1 - math.sqrt(s) / 100 * 1.1)))


def land_acc(t: LandType, tech: float) -> int:
    s = _surplus(tech, t.tech)
    return int(max(0.0, t.acc * (1 - math.sqrt(s) / 100 * 1.1)))


def _log_scale(base: int, s: float, k: float) -> int:
    if s <= 0:
        return base
    return int(base * max(1.0, math.log(s) / math.log(k)))


def land_frg(t: LandType, tech: float) -> int:
    return _log_scale(t.frg, _surplus(tech, t.tech), 35)


def land_dam(t: LandType, tech: float) -> int:
    return _log_scale(t.dam, _surplus(tech, t.tech), 60)


def land_aaf(t: LandType, tech: float) -> int:
    s = _surplus(tech, t.tech)
    return int(min(127.0, t.aaf * (1 + math.sqrt(s) / 100 * 3)))


def ship_armor(t: ShipType, tech: float) -> int:
    return _log_scale(t.armor, _surplus(tech, t.tech), 40)


def ship_speed(t: ShipType, tech: float) -> int:
    return _log_scale(t.speed, _surplus(tech, t.tech), 35)


def ship_frange(t: ShipType, tech: float) -> int:
    return _log_scale(t.frg, _surplus(tech, t.tech), 35)


def ship_glim(t: ShipType, tech: float) -> int:
    return _log_scale(t.glim, _surplus(tech, t.tech), 60)


def plane_acc(t: PlaneType, tech: float) -> int:
    s = _surplus(tech, t.tech)
    return int(t.acc * (1 - math.sqrt(s) / 50))


def plane_load(t: PlaneType, tech: float) -> int:
    return _log_scale(t.load, _surplus(tech, t.tech), 50)


def plane_range(t: PlaneType, tech: float) -> int:
    s = _surplus(tech, t.tech)
    return t.range if s <= 0 else int(t.range + math.log2(s))


def plane_att(t: PlaneType, tech: float) -> int:
    s = _surplus(tech, t.tech)
    return t.att + (min(10, int(s) // 20) if t.att else 0)


def plane_def(t: PlaneType, tech: float) -> int:
    s = _surplus(tech, t.tech)
    return t.defense + (min(10, int(s) // 20) if t.defense else 0)
