"""The guns of ships and land units: their range and one volley (spec §5.3).

Support (:mod:`.support`) and the interdiction missions (:mod:`.missions`) fire
with them.
"""

from __future__ import annotations

from bellum.dice import ServerRandom
from bellum.empire.combat.state import Combat
from bellum.empire.supply import in_supply
from bellum.empire.tables import land_dam, land_frg, ship_frange, ship_glim, techfact
from bellum.empire.world import LandUnit, Ship


def ship_guns(sh: Ship) -> int:
    """The guns a ship fires with: limited by its efficiency, crew and shells (0: none)."""
    if sh.eff < 60:
        return 0
    g = min(ship_glim(sh.type, sh.tech), sh.items.get("gun", 0), (sh.mil + 1) // 2)
    return max(0, min(g, 2 * sh.items.get("shell", 0)))


def ship_volley(dice: ServerRandom, guns: int, eff: int) -> int:
    """The damage of a volley of ``guns`` ship guns (§5.3): 9 + roll(6) each."""
    return int((9 * guns + dice.roll_sum(guns, 6)) * eff / 100)


def ship_fire(c: Combat, sh: Ship) -> int:
    """One ship's volley at the target (§5.3): guns limited by crew and shells."""
    g = ship_guns(sh)
    if g <= 0:
        return 0
    sh.items["shell"] = sh.items.get("shell", 0) - (g + 1) // 2
    return ship_volley(c.dice, g, sh.eff)


def ship_reach(sh: Ship) -> float:
    """A ship's firing range before its random rounding."""
    return techfact(sh.tech, ship_frange(sh.type, sh.tech) / 2.0)


def ship_range(c: Combat, sh: Ship) -> int:
    """A ship's firing range this time (randomly rounded, one draw)."""
    return c.dice.roundavg(ship_reach(sh))


def unit_reach(u: LandUnit) -> float:
    """A land unit's firing range before its random rounding."""
    return techfact(u.tech, land_frg(u.type, u.tech) / 2.0)


def unit_range(c: Combat, u: LandUnit) -> int:
    """A land unit's firing range this time (randomly rounded, one draw)."""
    return c.dice.roundavg(unit_reach(u))


def unit_guns(u: LandUnit) -> int:
    """The guns a land unit fires with before its supply (0: it cannot fire)."""
    if u.eff < 40 or u.loaded or u.mil <= 0:
        return 0
    return max(0, min(land_dam(u.type, u.tech), u.items.get("gun", 0)))


def unit_volley(dice: ServerRandom, guns: int, eff: int, shells: int, ammo: int) -> int:
    """The damage of a land unit's volley (§5.3): 4 + roll(6) a gun, less when short
    of a full round of ``ammo`` shells."""
    d = (4 * guns + dice.roll_sum(guns, 6)) * eff / 100
    if shells < ammo:
        d *= shells / ammo
    return int(d)


def unit_fire(c: Combat, u: LandUnit) -> int:
    """One land unit's volley at the target (§5.3); -1 if it cannot fire."""
    g = unit_guns(u)
    if g <= 0:
        return -1
    in_supply(c.world, u, dice=c.dice, rules=c.rules)
    shells = u.items.get("shell", 0)
    if shells <= 0:
        return -1
    d = unit_volley(c.dice, g, u.eff, shells, u.type.ammo)
    u.items["shell"] = max(0, shells - u.type.ammo)
    return d
