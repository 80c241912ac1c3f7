"""Scenario files: TOML in, validated :class:`Scenario` out, and back (atomically).

The format is documented in ``docs/panzer-scenario.md``.  Every problem is one
:class:`~bellum.errors.InputError` line naming the file, and the unit, hex or key at fault.
"""

from __future__ import annotations

import dataclasses
import math
import os
from collections.abc import Mapping
from dataclasses import dataclass
from pathlib import Path
from typing import Any

import tomli_w

from bellum.errors import InputError
from bellum.fileio import SCENARIO, parse_toml, read_input, write_atomic
from bellum.panzer.battlefield import Battlefield, Hex, ParameterData, edge
from bellum.panzer.rules import Rules
from bellum.panzer.tables import QUALITIES
from bellum.panzer.units import Kind, Mode, Organization, State, Unit

SCHEMA_VERSION = 1

_UNIT_BOOLS = (
    "motorized_infantry",
    "hq",
    "towed",
    "fixed",
    "digging_in",
    "building_bridge",
    "low_ammo",
    "low_fuel",
    "isolated",
    "cavalry",
    "demolition",
)
_UNIT_KEYS = frozenset(
    {
        "id", "side", "hex", "kind", "strength", "assault", "defense", "name", "nation",
        "hard_attack", "hard_target", "quality", "fatigue", "mode", "state", "infantry",
        "size", "movement_left", "movement_allowance", "organization", *_UNIT_BOOLS,
    }
)  # fmt: skip
_SIZES = ("battalion", "company", "platoon", "other")

# Sensible ranges of the numbers a scenario gives.  Real counters and Parameter Data sit far
# inside them; the bounds only keep NaN, infinities and absurd values (1e308) out, because
# those would otherwise surface as overflows deep inside the assault arithmetic or make the
# exact odds enumerate for hours.
#: Highest strength of one unit (men, vehicles or guns).
MAX_STRENGTH = 100_000
#: Highest assault, defense or hard attack value of one unit.
MAX_UNIT_VALUE = 1_000.0
#: Highest movement points (left or allowance) and movement cost.
MAX_MOVEMENT = 1_000.0
#: Highest value of any Parameter Data number (percentages are capped at 100 instead).
MAX_PARAMETER = 1_000_000.0
#: Terrain and hexside protection, in percent, either sign (``unknowns.modifiers.terrain_sign``).
MAX_PROTECTION_PCT = 100.0


@dataclass(frozen=True, kw_only=True)
class AssaultOrder:
    """Which hex is assaulted and by which units (in the order they joined)."""

    target: Hex
    units: tuple[str, ...]


@dataclass(frozen=True, kw_only=True)
class Scenario:
    name: str
    battlefield: Battlefield
    units: tuple[Unit, ...]
    params: ParameterData
    rules: Rules
    assault: AssaultOrder | None = None
    description: str = ""
    night: bool = False
    source: str = "<scenario>"
    #: The ``[last_assault]`` table of a state written by ``assault --out`` (kept on save).
    last_assault: Mapping[str, Any] | None = None

    def unit(self, unit_id: str) -> Unit:
        for u in self.units:
            if u.id == unit_id:
                return u
        raise KeyError(unit_id)

    def units_at(self, h: Hex) -> tuple[Unit, ...]:
        return tuple(u for u in self.units if u.hex == h)

    def replace(self, **changes: object) -> Scenario:
        return dataclasses.replace(self, **changes)  # type: ignore[arg-type]


# --------------------------------------------------------------------------- loading


class _Reader:
    """Typed access to a TOML table that reports errors with their location."""

    def __init__(self, table: Mapping[str, Any], where: str) -> None:
        self.table = table
        self.where = where

    def fail(self, message: str) -> InputError:
        return InputError(f"{self.where}: {message}")

    def text(self, key: str, default: str | None = None) -> str:
        value = self.table.get(key, default)
        if not isinstance(value, str):
            raise self.fail(f"{key} must be a string" if key in self.table else f"missing {key}")
        return value

    def number(
        self,
        key: str,
        default: float | None = None,
        *,
        low: float = -math.inf,
        high: float = math.inf,
    ) -> float:
        """A finite number in ``[low, high]``; NaN, infinities and huge integers are refused."""
        value = self.table.get(key, default)
        if isinstance(value, bool) or not isinstance(value, int | float):
            raise self.fail(f"{key} must be a number" if key in self.table else f"missing {key}")
        try:
            number = float(value)
        except OverflowError:
            number = math.inf
        if not math.isfinite(number):
            raise self.fail(f"{key} = {value!r} must be a finite number")
        if not low <= number <= high:
            raise self.fail(f"{key} = {value!r} must be between {low:g} and {high:g}")
        return number

    def integer(self, key: str, default: int | None = None) -> int:
        value = self.table.get(key, default)
        if isinstance(value, bool) or not isinstance(value, int):
            raise self.fail(f"{key} must be an integer" if key in self.table else f"missing {key}")
        return value

    def flag(self, key: str, default: bool = False) -> bool:
        value = self.table.get(key, default)
        if not isinstance(value, bool):
            raise self.fail(f"{key} must be true or false")
        return value

    def sub(self, key: str) -> Mapping[str, Any]:
        value = self.table.get(key, {})
        if not isinstance(value, Mapping):
            raise self.fail(f"{key} must be a table")
        return value


def _features(value: object, where: str) -> tuple[str, ...]:
    items = [value] if isinstance(value, str) else value
    if not isinstance(items, list) or not items or not all(isinstance(i, str) for i in items):
        raise InputError(f"{where}: must be a name or a list of names")
    return tuple(items)


def _known(names: tuple[str, ...], table: Mapping[str, float], what: str, where: str) -> None:
    for name in names:
        if name not in table:
            raise InputError(
                f"{where}: unknown {what} {name!r} (known: {', '.join(sorted(table))})"
            )


def _load_params(raw: Mapping[str, Any], where: str) -> ParameterData:
    base = ParameterData.default()
    r = _Reader(raw, f"{where}: [parameter_data]")
    changes: dict[str, object] = {}
    scalars = base.scalar_fields()
    tables = ("terrain", "hexside", "movement_cost", "hexside_movement_cost")
    for key in raw:
        if key not in scalars and key not in (*tables, "impassable_hexsides"):
            raise r.fail(f"unknown key {key!r}")
    for key in scalars:
        if key in raw:
            high = 100.0 if key.endswith("_pct") else MAX_PARAMETER
            changes[key] = r.number(key, low=0.0, high=high)
    for key, field, low, high in zip(
        tables,
        (
            "terrain_protection_pct",
            "hexside_protection_pct",
            "movement_cost",
            "hexside_movement_cost",
        ),
        (-MAX_PROTECTION_PCT, -MAX_PROTECTION_PCT, 0.0, 0.0),
        (MAX_PROTECTION_PCT, MAX_PROTECTION_PCT, MAX_MOVEMENT, MAX_MOVEMENT),
        strict=True,
    ):
        sub = _Reader(r.sub(key), f"{where}: [parameter_data.{key}]")
        merged = dict(getattr(base, field))
        merged.update({name: sub.number(name, low=low, high=high) for name in sub.table})
        changes[field] = merged
    if "impassable_hexsides" in raw:
        changes["impassable_hexsides"] = frozenset(
            _features(raw["impassable_hexsides"], f"{where}: impassable_hexsides")
        )
    params = base.replace(**changes)
    for pair in ("assault", "assault_attacker", "assault_defender", "fire"):
        if getattr(params, f"{pair}_high") < getattr(params, f"{pair}_low"):
            raise r.fail(f"{pair}_high must not be below {pair}_low")
    return params


def _check_loss_pairs(raw: Mapping[str, Any], rules: Rules, where: str) -> None:
    """Refuse revision 1's single loss pair unless the rule that reads it is named (§16.1).

    Silently ignoring ``assault_low``/``assault_high`` would resolve an old scenario with
    losses it never asked for.
    """
    given = [key for key in ("assault_low", "assault_high") if key in raw]
    if given and rules.text("combat.assault_pair_for_attacker_losses") != "single":
        raise InputError(
            f"{where}: [parameter_data]: {' and '.join(given)} belong to revision 1's single "
            "loss pair; since spec §16.1 each side has its own (assault_attacker_low/high for "
            "the attackers' losses, assault_defender_low/high for the defenders'): give those, "
            'or set rule combat.assault_pair_for_attacker_losses = "single" to keep one pair'
        )


def _load_battlefield(raw: Mapping[str, Any], params: ParameterData, where: str) -> Battlefield:
    r = _Reader(raw, f"{where}: [map]")
    for key in raw:
        if key not in ("width", "height", "terrain", "hexsides"):
            raise r.fail(f"unknown key {key!r}")
    width, height = r.integer("width"), r.integer("height")
    if width < 1 or height < 1:
        raise r.fail("width and height must be at least 1")
    terrain: dict[Hex, tuple[str, ...]] = {}
    for key, value in r.sub("terrain").items():
        h = Hex.parse(key, f"{where}: [map.terrain]")
        names = _features(value, f"{where}: terrain of hex {h}")
        _known(names, params.terrain_protection_pct, "terrain", f"{where}: hex {h}")
        terrain[h] = names
    hexsides: dict[frozenset[Hex], tuple[str, ...]] = {}
    sides = raw.get("hexsides", [])
    if not isinstance(sides, list):
        raise r.fail("hexsides must be an array of tables ([[map.hexsides]])")
    for i, side in enumerate(sides):
        if not isinstance(side, Mapping):
            raise r.fail(f"hexside #{i + 1} must be a table with between and features")
        sr = _Reader(side, f"{where}: hexside #{i + 1}")
        between = side.get("between")
        if not isinstance(between, list) or len(between) != 2:
            raise sr.fail("between must list two hexes, e.g. ['2,3', '3,3']")
        a, b = (Hex.parse(x, sr.where) for x in between)
        if not a.adjacent(b):
            raise sr.fail(f"hexes {a} and {b} are not adjacent")
        names = _features(side.get("features"), f"{sr.where} features")
        known = {**params.hexside_protection_pct, **dict.fromkeys(params.impassable_hexsides, 0)}
        _known(names, known, "hexside feature", f"{sr.where} ({a}|{b})")
        hexsides[edge(a, b)] = names
    return Battlefield(width=width, height=height, terrain=terrain, hexsides=hexsides)


def _load_unit(raw: Mapping[str, Any], where: str) -> Unit:
    if not isinstance(raw, Mapping):
        raise InputError(f"{where}: must be a table")
    uid = raw.get("id")
    if not isinstance(uid, str) or not uid:
        raise InputError(f"{where}: missing id")
    r = _Reader(raw, f"{where.rsplit(':', 1)[0]}: unit {uid}")
    for key in raw:
        if key not in _UNIT_KEYS:
            raise r.fail(f"unknown key {key!r}")
    kind_s, mode_s, state_s = r.text("kind"), r.text("mode", "deployed"), r.text("state", "normal")
    quality, size = r.text("quality", "C"), r.text("size", "battalion")
    strength, fatigue = r.integer("strength"), r.integer("fatigue", 0)
    checks = (
        (kind_s in {k.value for k in Kind}, f"kind {kind_s!r} must be personnel, vehicle or gun"),
        (mode_s in {m.value for m in Mode}, f"mode {mode_s!r} must be travel, deployed or rail"),
        (state_s in {s.value for s in State},
         f"state {state_s!r} must be normal, disrupted or broken"),
        (quality in QUALITIES, f"quality {quality!r} is outside A-F"),
        (0 <= fatigue <= 300, f"fatigue {fatigue} is outside 0-300"),
        (1 <= strength <= MAX_STRENGTH,
         f"strength {strength} must be between 1 and {MAX_STRENGTH}"),
        (size in _SIZES, f"size {size!r} must be one of {', '.join(_SIZES)}"),
    )  # fmt: skip
    for ok, message in checks:
        if not ok:
            raise r.fail(message)
    org = _Reader(r.sub("organization"), f"{r.where} organization")
    for key in org.table:
        if key not in ("army", "corps", "division"):
            raise org.fail(f"unknown key {key!r}")
    values = {"low": 0.0, "high": MAX_UNIT_VALUE}
    assault, defense = r.number("assault", **values), r.number("defense", **values)
    hard_attack = r.number("hard_attack", 0.0, **values)
    moves = {"low": 0.0, "high": MAX_MOVEMENT}
    movement = raw.get("movement_left")
    allowance = raw.get("movement_allowance")
    return Unit(
        id=uid,
        side=r.text("side"),
        hex=Hex.parse(raw.get("hex"), r.where),
        kind=Kind(kind_s),
        strength=strength,
        assault=assault,
        defense=defense,
        name=r.text("name", ""),
        nation=r.text("nation", ""),
        hard_attack=hard_attack,
        hard_target=r.flag("hard_target") if "hard_target" in raw else None,
        quality=quality,
        fatigue=fatigue,
        mode=Mode(mode_s),
        state=State(state_s),
        infantry=r.flag("infantry") if "infantry" in raw else None,
        size=size,
        movement_left=None if movement is None else r.number("movement_left", **moves),
        movement_allowance=None if allowance is None else r.number("movement_allowance", **moves),
        organization=Organization(
            army=org.text("army", ""),
            corps=org.text("corps", ""),
            division=org.text("division", ""),
        ),
        **{key: r.flag(key) for key in _UNIT_BOOLS},
    )


#: Top-level tables only an Empire world has: such a file is named as one, not as an
#: "unknown top-level key".
_EMPIRE_KEYS = frozenset({"world", "nation", "sector"})


def scenario_from_dict(raw: Mapping[str, Any], source: str = "<scenario>") -> Scenario:
    """Validate a parsed TOML document; errors name ``source``."""
    r = _Reader(raw, source)
    if _EMPIRE_KEYS & raw.keys() and "units" not in raw:
        raise r.fail(
            "this is an Empire world, not a Panzer scenario: use it with"
            " `bellum empire ... --world`, or `bellum serve --world`"
        )
    if "schema_version" not in raw:
        raise r.fail(
            f"schema_version: missing: a scenario starts with schema_version = {SCHEMA_VERSION}"
        )
    version = raw["schema_version"]
    if version != SCHEMA_VERSION:
        raise r.fail(f"schema_version must be {SCHEMA_VERSION}, not {version!r}")
    allowed = {"schema_version", "name", "description", "night", "map", "parameter_data", "rules",
               "units", "assault", "last_assault"}  # fmt: skip
    for key in raw:
        if key not in allowed:
            raise r.fail(f"unknown top-level key {key!r}")
    params = _load_params(r.sub("parameter_data"), source)
    battlefield = _load_battlefield(r.sub("map"), params, source)
    rules = Rules(r.sub("rules"), where=f"{source}: [rules]")
    _check_loss_pairs(r.sub("parameter_data"), rules, source)
    units_raw = raw.get("units", [])
    if not isinstance(units_raw, list):
        raise r.fail("units must be an array of tables ([[units]])")
    units = tuple(_load_unit(u, f"{source}: unit #{i + 1}") for i, u in enumerate(units_raw))
    seen: set[str] = set()
    sides_at: dict[Hex, str] = {}
    for u in units:
        other = sides_at.setdefault(u.hex, u.side)
        if other != u.side:
            raise r.fail(f"unit {u.id}: hex {u.hex} already holds units of side {other}")
        if u.id in seen:
            raise r.fail(f"unit id {u.id!r} appears twice")
        seen.add(u.id)
        if not battlefield.on_map(u.hex):
            raise r.fail(f"unit {u.id}: hex {u.hex} is off the {battlefield.width}x"
                         f"{battlefield.height} map")  # fmt: skip
    order = None
    if "assault" in raw:
        a = _Reader(r.sub("assault"), f"{source}: [assault]")
        ids = raw["assault"].get("units")
        if not isinstance(ids, list) or not ids or not all(isinstance(i, str) for i in ids):
            raise a.fail("units must be a non-empty list of unit ids")
        order = AssaultOrder(target=Hex.parse(raw["assault"].get("target"), a.where),
                             units=tuple(ids))  # fmt: skip
    last = r.sub("last_assault") if "last_assault" in raw else None
    return Scenario(
        name=r.text("name", Path(source).stem),
        description=r.text("description", ""),
        night=r.flag("night"),
        battlefield=battlefield,
        units=units,
        params=params,
        rules=rules,
        assault=order,
        source=source,
        last_assault=last,
    )


def load_scenario(path: str | os.PathLike[str]) -> Scenario:
    """Read and validate a scenario file."""
    p = Path(path)
    try:
        text = read_input(p, "scenario").decode("utf-8")
    except UnicodeDecodeError:
        raise InputError(f"{p}: not a UTF-8 text file") from None
    return scenario_from_dict(parse_toml(text, str(p)), str(p))


# --------------------------------------------------------------------------- saving


def _unit_to_dict(u: Unit) -> dict[str, Any]:
    out: dict[str, Any] = {
        "id": u.id,
        "side": u.side,
        "hex": str(u.hex),
        "kind": u.kind.value,
        "strength": u.strength,
        "assault": u.assault,
        "defense": u.defense,
    }
    optional: dict[str, Any] = {
        "name": u.name,
        "nation": u.nation,
        "hard_attack": u.hard_attack,
        "quality": u.quality,
        "fatigue": u.fatigue,
        "mode": u.mode.value,
        "state": u.state.value,
        "size": u.size,
    }
    out.update(optional)
    if u.hard_target is not None:
        out["hard_target"] = u.hard_target
    if u.infantry is not None:
        out["infantry"] = u.infantry
    if u.movement_left is not None:
        out["movement_left"] = u.movement_left
    if u.movement_allowance is not None:
        out["movement_allowance"] = u.movement_allowance
    out.update({k: True for k in _UNIT_BOOLS if getattr(u, k)})
    org = {k: v for k, v in dataclasses.asdict(u.organization).items() if v}
    if org:
        out["organization"] = org
    return out


def scenario_to_dict(s: Scenario, extra: Mapping[str, Any] | None = None) -> dict[str, Any]:
    """The TOML document of a scenario (the inverse of :func:`scenario_from_dict`)."""
    base = ParameterData.default()
    params: dict[str, Any] = {
        k: v for k, v in s.params.scalar_fields().items() if v != getattr(base, k)
    }
    for key, field in (
        ("terrain", "terrain_protection_pct"),
        ("hexside", "hexside_protection_pct"),
        ("movement_cost", "movement_cost"),
        ("hexside_movement_cost", "hexside_movement_cost"),
    ):
        diff = {
            k: v for k, v in getattr(s.params, field).items() if getattr(base, field).get(k) != v
        }
        if diff:
            params[key] = diff
    if s.params.impassable_hexsides != base.impassable_hexsides:
        params["impassable_hexsides"] = sorted(s.params.impassable_hexsides)
    doc: dict[str, Any] = {"schema_version": SCHEMA_VERSION, "name": s.name}
    if s.description:
        doc["description"] = s.description
    if s.night:
        doc["night"] = True
    bf = s.battlefield
    doc["map"] = {
        "width": bf.width,
        "height": bf.height,
        "terrain": {str(h): list(t) for h, t in sorted(bf.terrain.items())},
        "hexsides": [
            {"between": [str(h) for h in sorted(e)], "features": list(f)}
            for e, f in sorted(bf.hexsides.items(), key=lambda kv: sorted(kv[0]))
        ],
    }
    if params:
        doc["parameter_data"] = params
    if s.rules.overrides():
        doc["rules"] = dict(s.rules.overrides())
    doc["units"] = [_unit_to_dict(u) for u in s.units]
    if s.assault is not None:
        doc["assault"] = {"target": str(s.assault.target), "units": list(s.assault.units)}
    if s.last_assault is not None:
        doc["last_assault"] = dict(s.last_assault)
    if extra:
        doc.update(extra)
    return doc


def save_scenario(
    s: Scenario,
    path: str | os.PathLike[str],
    extra: Mapping[str, Any] | None = None,
    *,
    force: bool = False,
) -> None:
    """Write a scenario file atomically (never a half-written file); an existing file
    that is not a scenario is kept unless ``force``."""
    write_atomic(path, tomli_w.dumps(scenario_to_dict(s, extra)), kind=SCENARIO, force=force)


__all__ = [
    "SCHEMA_VERSION",
    "AssaultOrder",
    "Scenario",
    "load_scenario",
    "save_scenario",
    "scenario_from_dict",
    "scenario_to_dict",
]
