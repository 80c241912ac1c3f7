"""The ``strength`` command: each sector's defense as the defender sees it (spec §17).

A preview, not a fight: supply is checked without side effects, every
eligible reserve unit counts as reacting, and nothing moves.  It ignores
engineers, support and fortification changes, like the server's.
"""

from __future__ import annotations

from dataclasses import dataclass

from bellum.empire.combat.defenders import reaction_cost
from bellum.empire.combat.strength import defense_value, sector_defense
from bellum.empire.rules import Rules
from bellum.empire.supply import in_supply
from bellum.empire.world import Sector, World


@dataclass(frozen=True)
class StrengthRow:
    sector: Sector
    units: float
    mines: int | None
    mult: float
    reacting: float

    @property
    def sector_defense(self) -> int:
        return int((self.units + self.sector.mil) * self.mult)

    @property
    def reacting_defense(self) -> int:
        return int(self.reacting * self.mult)

    @property
    def total(self) -> int:
        return int((self.units + self.sector.mil + self.reacting) * self.mult)


def strength(world: World, country: int, sectors: list[Sector], rules: Rules) -> list[StrengthRow]:
    """§17 for each of ``country``'s sectors among ``sectors``."""
    rows = []
    for s in sectors:
        if s.owner != country:
            continue
        units = 0.0
        for u in world.units_at(s.xy):
            if u.owner != country or u.loaded:
                continue
            dv = defense_value(u, rules.land_mob_max)
            units += dv if in_supply(world, u, resupply=False, rules=rules) else dv / 2
        mines = s.mines if s.oldowner == country and not s.type.has("seamines") else None
        mult = sector_defense(s) * (1 + min(mines or 0, 20) * 0.02)
        reacting = 0.0
        if not s.type.is_mountain:
            for _, u in sorted(world.units.items()):
                if reaction_cost(world, u, s, country, resupply=False, rules=rules) is not None:
                    reacting += defense_value(u, rules.land_mob_max)
        rows.append(StrengthRow(s, units, mines, mult, reacting))
    return rows
