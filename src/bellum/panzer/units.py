"""Units: what a counter carries into an assault (spec §2).

A :class:`Unit` is an immutable value; the resolver returns changed copies.  The helpers
here answer the questions the seed's rules ask of a single unit: its equivalent strength
(vehicles and guns x10), whether it counts as vehicles, whether it is infantry, and its
unit modifier (quality + fatigue).
"""

from __future__ import annotations

import dataclasses
from dataclasses import dataclass
from enum import StrEnum

from bellum.panzer.battlefield import Hex
from bellum.panzer.tables import tables


class Kind(StrEnum):
    """What a unit's strength counts: men, vehicles or guns."""

    PERSONNEL = "personnel"
    VEHICLE = "vehicle"
    GUN = "gun"


class Mode(StrEnum):
    TRAVEL = "travel"
    DEPLOYED = "deployed"
    RAIL = "rail"


class State(StrEnum):
    """Disruption state; Broken is worse than Disrupted."""

    NORMAL = "normal"
    DISRUPTED = "disrupted"
    BROKEN = "broken"


MEN_PER_VEHICLE = 10
"""One vehicle or gun counts as ten men in assault totals and stacking (seed)."""


@dataclass(frozen=True, kw_only=True)
class Organization:
    """Formations above the unit; empty strings where the unit has none."""

    army: str = ""
    corps: str = ""
    division: str = ""

    def formation(self) -> tuple[str, ...]:
        """The unit's nearest formation at division level or above, as a path (§4.5).

        The path runs army > corps > division and stops at the lowest level the unit has,
        so a corps-level unit's path is a prefix of its corps' divisions' paths.
        """
        path: tuple[str, ...] = (self.army, self.corps, self.division)
        while path and not path[-1]:
            path = path[:-1]
        return path

    def label(self) -> str:
        return " / ".join(p for p in (self.army, self.corps, self.division) if p) or "(none)"


@dataclass(frozen=True, kw_only=True)
class Unit:
    id: str
    side: str
    hex: Hex
    kind: Kind
    strength: int
    assault: float
    defense: float
    name: str = ""
    nation: str = ""
    hard_attack: float = 0.0
    hard_target: bool | None = None
    quality: str = "C"
    fatigue: int = 0
    mode: Mode = Mode.DEPLOYED
    state: State = State.NORMAL
    motorized_infantry: bool = False
    infantry: bool | None = None
    hq: bool = False
    towed: bool = False
    fixed: bool = False
    digging_in: bool = False
    building_bridge: bool = False
    low_ammo: bool = False
    low_fuel: bool = False
    isolated: bool = False
    cavalry: bool = False
    demolition: bool = False
    size: str = "battalion"
    movement_left: float | None = None
    movement_allowance: float | None = None
    organization: Organization = dataclasses.field(default_factory=Organization)

    @property
    def label(self) -> str:
        return f"{self.id} ({self.name})" if self.name else self.id

    @property
    def equivalent(self) -> int:
        """E(u): men, or 10 x vehicles/guns (§3.1, EXACT)."""
        return self.strength * self.per_point

    @property
    def per_point(self) -> int:
        """Men-equivalents of one strength point."""
        return 1 if self.kind is Kind.PERSONNEL else MEN_PER_VEHICLE

    @property
    def counts_as_vehicle(self) -> bool:
        """Vehicles, and mot/mech infantry in Travel Mode (seed, §4.2/§4.6)."""
        return self.kind is Kind.VEHICLE or (self.motorized_in_travel)

    @property
    def motorized_in_travel(self) -> bool:
        return self.motorized_infantry and self.mode is Mode.TRAVEL

    @property
    def is_infantry(self) -> bool:
        """Infantry for the combined-arms rule (§2, INFERRED): personnel, not HQ, and
        mot/mech infantry only while Deployed; a scenario may override the class."""
        if self.motorized_in_travel or self.kind is not Kind.PERSONNEL:
            return False
        return (not self.hq) if self.infantry is None else self.infantry

    @property
    def is_hard_target(self) -> bool:
        """Hard target for Alternative Assault Resolution; vehicles unless stated."""
        return self.kind is Kind.VEHICLE if self.hard_target is None else self.hard_target

    @property
    def disrupted_or_broken(self) -> bool:
        return self.state is not State.NORMAL

    def quality_modifier_pct(self, bonus_scale: float = 1.0) -> float:
        """The seed's quality modifier; A/B bonuses scaled by ``bonus_scale`` (§4.3)."""
        q = tables().quality_modifier_pct[self.quality]
        return q * bonus_scale if q > 0 else q

    def fatigue_modifier_pct(self) -> float:
        return tables().fatigue_level(self.fatigue).assault_modifier_pct

    def unit_modifier_pct(self, bonus_scale: float = 1.0) -> float:
        """Quality + fatigue modifier, a sum of percentages (seed, §4.3)."""
        return self.quality_modifier_pct(bonus_scale) + self.fatigue_modifier_pct()

    def morale(self) -> int:
        """Morale value (morale.html, §9.1): quality number minus the listed conditions."""
        t = tables()
        value = t.quality_morale[self.quality] - t.fatigue_level(self.fatigue).morale_subtract
        if self.low_ammo or self.low_fuel:
            value -= t.low_supply_subtract
        if self.disrupted_or_broken:
            value -= t.disrupted_subtract
        if self.isolated:
            value -= t.isolated_subtract
        return value

    def replace(self, **changes: object) -> Unit:
        return dataclasses.replace(self, **changes)  # type: ignore[arg-type]
