"""What the world formats share: the ranges of a world's numbers, and the full map.

A TOML world file and a game dump describe the same objects, so they check
the same limits (the server's own: efficiency is a percentage, mobility a
signed byte...) and complete the map the same way.
"""

from __future__ import annotations

from bellum.empire.tables import SectorType
from bellum.empire.world import Sector, World

#: Efficiency, and the road, rail and defense percentages of a sector.
PERCENT = (0, 100)
#: Mobility of sectors, ships, units and planes.
MOBILITY = (-127, 127)
#: A sector's loyalty and a land unit's fortification.
BYTE = (0, 127)
#: Guerrillas in a sector.
CHE = (0, 255)
#: A sector's available work and its mines.
STOCK = (0, 9999)


def fill_map(world: World, fill: SectorType, eff: int = 0) -> None:
    """Every sector of the map that the file leaves out, as ``fill`` at ``eff`` %."""
    for y in range(world.geometry.height):
        for x in range(y % 2, world.geometry.width, 2):
            if (x, y) not in world.sectors:
                world.sectors[(x, y)] = Sector(x=x, y=y, type=fill, eff=eff)


def unownable(s: Sector) -> str | None:
    """Why ``s`` cannot have an owner (sea and the like), or ``None``."""
    return f"a {s.type.name} sector cannot be owned" if s.type.is_sea and s.owner else None
