"""The fixed Panzer Campaigns tables, read once from ``data/panzer.toml``.

Quality, fatigue bands and morale numbers are EXACT (seed, morale.html, fatigue.html);
terrain, hexside and Parameter Data numbers are placeholders a scenario replaces.
"""

from __future__ import annotations

import tomllib
from dataclasses import dataclass
from functools import cache
from importlib import resources
from typing import Any

QUALITIES = ("A", "B", "C", "D", "E", "F")


@dataclass(frozen=True)
class FatigueLevel:
    name: str
    upto: int
    assault_modifier_pct: float
    morale_subtract: int


@dataclass(frozen=True)
class Tables:
    quality_modifier_pct: dict[str, float]
    quality_morale: dict[str, int]
    quality_name: dict[str, str]
    fatigue_levels: tuple[FatigueLevel, ...]
    die_sides: int
    low_supply_subtract: int
    disrupted_subtract: int
    isolated_subtract: int
    terrain_protection_pct: dict[str, float]
    hexside_protection_pct: dict[str, float]
    parameter_data: dict[str, float]
    impassable_hexsides: frozenset[str]

    def fatigue_level(self, fatigue: int) -> FatigueLevel:
        """The fatigue band of a 0-300 fatigue value (spec §4.3, EX-8)."""
        for level in self.fatigue_levels:
            if fatigue <= level.upto:
                return level
        return self.fatigue_levels[-1]


@cache
def tables() -> Tables:
    raw: dict[str, Any] = tomllib.loads(
        resources.files("bellum.panzer").joinpath("data/panzer.toml").read_text("utf-8")
    )
    q = raw["quality"]
    m = raw["morale"]
    return Tables(
        quality_modifier_pct={k: float(v) for k, v in q["assault_modifier_pct"].items()},
        quality_morale=dict(q["morale_value"]),
        quality_name=dict(q["name"]),
        fatigue_levels=tuple(
            FatigueLevel(
                f["name"], f["upto"], float(f["assault_modifier_pct"]), f["morale_subtract"]
            )
            for f in raw["fatigue_level"]
        ),
        die_sides=m["die_sides"],
        low_supply_subtract=m["low_ammo_or_fuel_subtract"],
        disrupted_subtract=m["disrupted_or_broken_subtract"],
        isolated_subtract=m["isolated_subtract"],
        terrain_protection_pct={k: float(v) for k, v in raw["terrain_protection_pct"].items()},
        hexside_protection_pct={k: float(v) for k, v in raw["hexside_protection_pct"].items()},
        parameter_data={
            k: float(v) for k, v in raw["parameter_data"].items() if k != "impassable_hexsides"
        },
        impassable_hexsides=frozenset(raw["parameter_data"]["impassable_hexsides"]),
    )
