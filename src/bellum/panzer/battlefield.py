"""The hex map: terrain per hex, hexside features per edge, hex geometry, Parameter Data.

Coordinates are ``col,row`` offset coordinates of a map of flat-topped hexes laid out in
columns, odd columns shifted half a hex down (the layout of the JTS map grid).  Geometry is
done in cube coordinates so distance and adjacency are exact.
"""

from __future__ import annotations

import dataclasses
from collections.abc import Iterable, Mapping
from dataclasses import dataclass

from bellum.errors import InputError
from bellum.panzer.tables import tables

FORTIFICATIONS = frozenset({"improved_position", "trench", "bunker", "pillbox"})
BOCAGE = "bocage"
CLEAR = "clear"

_CUBE_DIRECTIONS = ((1, -1, 0), (1, 0, -1), (0, 1, -1), (-1, 1, 0), (-1, 0, 1), (0, -1, 1))


@dataclass(frozen=True, order=True)
class Hex:
    col: int
    row: int

    @classmethod
    def parse(cls, text: object, where: str) -> Hex:
        """``"3,4"`` -> ``Hex(3, 4)``; anything else is an :class:`InputError` naming ``where``."""
        if isinstance(text, str):
            parts = text.split(",")
            if len(parts) == 2:
                try:
                    return cls(int(parts[0]), int(parts[1]))
                except ValueError:
                    pass
        raise InputError(f"{where}: hex {text!r} is not of the form 'col,row'")

    def __str__(self) -> str:
        return f"{self.col},{self.row}"

    def _cube(self) -> tuple[int, int, int]:
        x = self.col
        z = self.row - (self.col - (self.col & 1)) // 2
        return x, -x - z, z

    @classmethod
    def _from_cube(cls, x: int, z: int) -> Hex:
        return cls(x, z + (x - (x & 1)) // 2)

    def neighbors(self) -> tuple[Hex, ...]:
        x, _y, z = self._cube()
        return tuple(Hex._from_cube(x + dx, z + dz) for dx, _dy, dz in _CUBE_DIRECTIONS)

    def distance(self, other: Hex) -> int:
        a, b = self._cube(), other._cube()
        return max(abs(a[0] - b[0]), abs(a[1] - b[1]), abs(a[2] - b[2]))

    def adjacent(self, other: Hex) -> bool:
        return self.distance(other) == 1


def edge(a: Hex, b: Hex) -> frozenset[Hex]:
    """The hexside between two adjacent hexes, independent of direction."""
    return frozenset((a, b))


@dataclass(frozen=True, kw_only=True)
class ParameterData:
    """A scenario's Parameter Data (spec §11, §16); defaults from ``data/panzer.toml``."""

    assault_attacker_low: float
    assault_attacker_high: float
    assault_defender_low: float
    assault_defender_high: float
    assault_low: float
    assault_high: float
    fire_low: float
    fire_high: float
    stacking_maximum: float
    stacking_road: float
    infantry_defense: float
    fatigue_recovery: float
    night_move_disruption_pct: float
    digging_in_pct: float
    bunker_prob_pct: float
    mine_prob_pct: float
    quality_fire_modifier: float
    exterior_defense: float
    default_movement_cost: float
    terrain_protection_pct: Mapping[str, float]
    hexside_protection_pct: Mapping[str, float]
    movement_cost: Mapping[str, float]
    hexside_movement_cost: Mapping[str, float]
    impassable_hexsides: frozenset[str]

    @classmethod
    def default(cls) -> ParameterData:
        t = tables()
        return cls(
            **t.parameter_data,
            terrain_protection_pct=dict(t.terrain_protection_pct),
            hexside_protection_pct=dict(t.hexside_protection_pct),
            movement_cost={},
            hexside_movement_cost={},
            impassable_hexsides=t.impassable_hexsides,
        )

    def replace(self, **changes: object) -> ParameterData:
        return dataclasses.replace(self, **changes)  # type: ignore[arg-type]

    def scalar_fields(self) -> dict[str, float]:
        return {
            f.name: getattr(self, f.name)
            for f in dataclasses.fields(self)
            if isinstance(getattr(self, f.name), int | float)
        }


@dataclass(frozen=True, kw_only=True)
class Battlefield:
    """Terrain per hex (unlisted hexes are Clear) and features per hexside."""

    width: int
    height: int
    terrain: Mapping[Hex, tuple[str, ...]]
    hexsides: Mapping[frozenset[Hex], tuple[str, ...]]

    def on_map(self, h: Hex) -> bool:
        return 0 <= h.col < self.width and 0 <= h.row < self.height

    def terrain_of(self, h: Hex) -> tuple[str, ...]:
        return self.terrain.get(h, (CLEAR,))

    def is_clear(self, h: Hex) -> bool:
        return all(t == CLEAR for t in self.terrain_of(h))

    def is_bocage(self, h: Hex) -> bool:
        return BOCAGE in self.terrain_of(h)

    def is_fortified(self, h: Hex) -> bool:
        return any(t in FORTIFICATIONS for t in self.terrain_of(h))

    def hexside_features(self, a: Hex, b: Hex) -> tuple[str, ...]:
        return self.hexsides.get(edge(a, b), ())

    def neighbors_on_map(self, h: Hex) -> Iterable[Hex]:
        return (n for n in h.neighbors() if self.on_map(n))

    def crossable(self, a: Hex, b: Hex, params: ParameterData) -> bool:
        """False for an impassable hexside (major river) without a bridge or ferry (§1.1.9)."""
        features = self.hexside_features(a, b)
        blocked = any(f in params.impassable_hexsides for f in features)
        return not blocked or "bridge" in features or "ferry" in features
