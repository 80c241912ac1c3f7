"""What a hit does to a sector, a land unit, a ship or a plane (spec §0.8).

Every commodity of a hit object loses its share, each with its own random
rounding, the empty ones too: the server draws for every item, so these
helpers do.  The owner of a hit unit, ship or plane hears ``<name> takes N``.
"""

from __future__ import annotations

from bellum.empire.combat.state import Combat, ldround
from bellum.empire.combat.strength import sector_defense
from bellum.empire.tables import land_vul, ship_armor
from bellum.empire.world import ITEMS, LandUnit, Plane, Sector, Ship

PEOPLE = ("civ", "mil", "uw")
#: A land unit hit below this efficiency is destroyed (silently, when it is written).
LAND_MINEFF = 10


def pct(x: int) -> int:
    """``PERCENT_DAMAGE``: damage as an asymptotic percentage."""
    return 100 * x // (x + 100)


def items(c: Combat, goods: dict[str, int], p: int) -> None:
    """Every commodity loses ``roundavg(n * p / 100)``; people scaled by ``people_damage``."""
    for item in ITEMS:
        n = goods.get(item, 0)
        lose = c.dice.roundavg(n * p * 0.01)
        if item in PEOPLE:
            lose = ldround(c.rules.people_damage * lose)
        if n or lose:
            goods[item] = n - lose if n >= lose else 0


def sector(c: Combat, s: Sector, dam: int) -> int:
    """``sectdamage``: the sector, then every land unit and parked plane in it.

    Returns the percentage the sector lost.
    """
    d1 = ldround(dam / sector_defense(s))
    p = min(100, pct(d1))
    if p > 0:
        s.eff = c.dice.damage(s.eff, p)
        s.avail = c.dice.damage(s.avail, p)
        s.road = c.dice.damage(s.road, p)
        s.rail = c.dice.damage(s.rail, p)
        s.defense = c.dice.damage(s.defense, p)
        if s.mob > 0:
            s.mob = c.dice.damage(s.mob, p)
        items(c, s.items, p)
    d2 = ldround(100.0 * (d1 * c.rules.unit_damage) / (d1 * c.rules.unit_damage + 100.0))
    if d2 <= 0:
        return p
    w = c.world
    for u in w.units_at(s.xy):
        if u.owner and not u.loaded:
            land(c, u, d2)
    if d2 // 7 <= 0:
        return p
    for _, pl in sorted(w.planes.items()):
        if pl.xy == s.xy and pl.owner and pl.ship is None and pl.land is None:
            plane(c, pl, d2 // 7)
    return p


def land(c: Combat, u: LandUnit, dam: int) -> None:
    """``landdamage``: fortification and the unit's vulnerability soften the hit."""
    d = ldround(dam * 127 / (127 + u.fort) * land_vul(u.type, u.tech) / 100)
    d = min(d, 100)
    if d <= 0:
        return
    c.notify(u.owner, f"\t{u.name()} takes {d}")
    if u.type.has("spy"):
        u.eff = 0
    else:
        u.eff = c.dice.damage(u.eff, d)
        if u.mob > 0:
            u.mob = c.dice.damage(u.mob, d)
        items(c, u.items, d)
    if u.eff < LAND_MINEFF:
        c.world.units.pop(u.uid, None)


def ship(c: Combat, sh: Ship, dam: int) -> None:
    """``shipdamage``: the armor softens the hit."""
    d = min(100, int(dam / (1 + ship_armor(sh.type, sh.tech) / 100)))
    if d <= 0:
        return
    c.notify(sh.owner, f"\t{sh.title()} takes {d}")
    sh.eff = c.dice.damage(sh.eff, d)
    if sh.mob > 0:
        sh.mob = c.dice.damage(sh.mob, d)
    items(c, sh.items, d)


def plane(c: Combat, p: Plane, dam: int) -> None:
    """``planedamage``: efficiency and mobility."""
    d = min(100, dam)
    if d <= 0:
        return
    c.notify(p.owner, f"\t{p.name()} takes {d}")
    p.eff = c.dice.damage(p.eff, d)
    if p.mob > 0:
        p.mob = c.dice.damage(p.mob, d)


def people(c: Combat, n: int, dam: int) -> int:
    """``commdamage`` for mil: how many of ``n`` survive a hit of ``dam``."""
    lost = n - c.dice.damage(n, pct(dam))
    return n - ldround(lost * c.rules.people_damage)
