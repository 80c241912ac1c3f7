"""Whether a land unit is in supply (spec §0.7).

A unit is in supply when it holds its basic load of shells (and, without
NOFOOD, food for one update).  The check combat uses pulls what is missing
from the unit's own sector first; the wider search through warehouses,
harbors, supply ships and supply units is not modelled yet, so a unit that
its own sector cannot refill counts as out of supply.
"""

from __future__ import annotations

import math

from bellum.empire.world import LandUnit, World


def _needs(world: World, u: LandUnit) -> dict[str, int]:
    need = {"shell": min(u.type.ammo, u.type.cargo.get("shell", 0))}
    if not world.option("NOFOOD"):
        people = u.items.get("civ", 0) + u.mil + u.items.get("uw", 0)
        need["food"] = min(math.ceil(60 * 0.0005 * people), u.type.cargo.get("food", 0))
    return need


def in_supply(world: World, u: LandUnit, resupply: bool = True) -> bool:
    """True if ``u`` has (or, with ``resupply``, can pull from its sector) its basic load."""
    if world.option("NOFOOD") and u.type.ammo == 0:
        return True
    sector = world.sector(u.xy)
    ok = True
    for item, need in _needs(world, u).items():
        have = u.items.get(item, 0)
        if have >= need:
            continue
        missing = need - have
        if not u.loaded and sector.owner == u.owner:
            take = min(missing, sector.get(item))
            if resupply and take:
                sector.put(item, sector.get(item) - take)
                u.items[item] = have + take
            missing -= take
        if missing > 0:
            ok = False
    return ok
