"""The guns of ships and land units: their range and one volley (spec §5.3).

Support (:mod:`.support`) and the interdiction missions (:mod:`.missions`) fire
with them.
"""

from __future__ import annotations

from bellum.empire.combat.state import Combat
from bellum.empire.supply import in_supply
from bellum.empire.tables import land_dam, land_frg, ship_frange, ship_glim, techfact
from bellum.empire.world import LandUnit, Ship


def ship_fire(c: Combat, sh: Ship) -> int:
    """One ship's volley at the target (§5.3): guns limited by crew and shells."""
    if sh.eff < 60:
        return 0
    g = min(ship_glim(sh.type, sh.tech), sh.items.get("gun", 0), (sh.mil + 1) // 2)
    if g <= 0:
        return 0
    shells = sh.items.get("shell", 0)
    g = min(g, 2 * shells)
    if g <= 0:
        return 0
    sh.items["shell"] = shells - (g + 1) // 2
    return int(sum(9 + c.dice.roll(6) for _ in range(g)) * sh.eff / 100)


def ship_range(c: Combat, sh: Ship) -> int:
    """A ship's firing range this time (randomly rounded, one draw)."""
    return c.dice.roundavg(techfact(sh.tech, ship_frange(sh.type, sh.tech) / 2.0))


def unit_range(c: Combat, u: LandUnit) -> int:
    """A land unit's firing range this time (randomly rounded, one draw)."""
    return c.dice.roundavg(techfact(u.tech, land_frg(u.type, u.tech) / 2.0))


def unit_fire(c: Combat, u: LandUnit) -> int:
    """One land unit's volley at the target (§5.3); -1 if it cannot fire."""
    if u.eff < 40 or u.loaded or u.mil <= 0:
        return -1
    g = min(land_dam(u.type, u.tech), u.items.get("gun", 0))
    if g <= 0:
        return -1
    in_supply(c.world, u, dice=c.dice, rules=c.rules)
    shells = u.items.get("shell", 0)
    if shells <= 0:
        return -1
    d = sum(4 + c.dice.roll(6) for _ in range(g)) * u.eff / 100
    ammo = u.type.ammo
    if shells < ammo:
        d *= shells / ammo
        u.items["shell"] = 0
    else:
        u.items["shell"] = shells - ammo
    return int(d)
