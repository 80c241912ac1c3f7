"""Step 10 (taking the target) and step 11 (damage to it) (spec §10, §11)."""

from __future__ import annotations

from collections.abc import Callable

from bellum.empire.combat.state import Combat, OffObject
from bellum.empire.movement import attcost, unit_kind, unitcost
from bellum.empire.world import LandUnit, NewsItem, Sector, known


def pct(x: int) -> int:
    """The asymptotic percentage ``100x // (x + 100)`` (§0.8)."""
    return (100 * x) // (x + 100)


def damage_target(c: Combat) -> None:
    """§11: efficiency falls by PCT(casualties // 10), randomly rounded; infra follows."""
    t = c.target
    assert t is not None
    old = t.eff
    x = (c.d_cas + c.a_cas) // 10
    t.eff = c.dice.damage(t.eff, x if c.rules.info_efficiency else pct(x))
    delta = old - t.eff
    if delta > 0:
        t.road = max(0, int(t.road - t.road * delta / 100))
        t.rail = max(0, int(t.rail - t.rail * delta / 100))
        t.defense = max(0, int(t.defense - t.defense * delta / 100))


def mover(c: Combat) -> OffObject | None:
    """§10.1: the off-object whose mil moves in first (a sector needs mobility), if any."""
    for o in c.offs:
        if o.troops > 0 and (o.sector is None or o.sector.mob != 0):
            return o
    return None


def can_occupy(c: Combat) -> bool:
    """Whether a victory takes the target: some mil (:func:`mover`) or a unit can move in."""
    return mover(c) is not None or bool(c.a_units)


def occupy(c: Combat, unit_cost: Callable[[LandUnit], float] | None = None) -> bool:
    """§10.1: one mil (else the most recently chosen unit) moves in; False if nobody can.

    ``unit_cost`` is the move-in cost of §13.3 for modes other than attack; a
    unit occupying from a ship is unloaded.
    """
    t = c.target
    assert t is not None
    o = mover(c)
    if o is not None:
        o.troops -= 1
        o.mil = o.mil - 1
        t.mil = t.mil + 1
        c.say(f"1 mil from {c.off_name(o)} moves into {c.at(t.xy)}")
        return True
    if not c.a_units:
        c.say(f"{c.at(t.xy)} left unoccupied")
        c.tell(
            c.defender,
            f"No enemy troops moved into {c.at(t.xy, c.defender)} so you still own it!",
        )
        return False
    f = c.a_units[0]
    u = f.unit
    if unit_cost is None:
        cost = unitcost(u, attcost(c.world, c.aggressor, t, unit_kind(u), rules=c.rules))
    else:
        cost = unit_cost(u)
    u.mob = int(max(-127.0, u.mob - cost))
    u.fort = 0
    u.x, u.y = t.xy
    u.ship = None
    c.say(f"{u.name()} moves in to occupy {c.at(t.xy)}")
    c.a_units.remove(f)
    return True


def hapfact(c: Combat) -> float:
    w = c.world
    ha = (
        known(w.nations[c.aggressor].happiness, "the happiness")
        if c.aggressor in w.nations
        else 0.0
    )
    hd = (
        known(w.nations[c.defender].happiness, "the defender's happiness")
        if c.defender in w.nations
        else 0.0
    )
    if ha > 0 and hd > 0:
        f = ha / hd
    elif ha > 0:
        f = 2.0
    elif hd > 0:
        f = 0.8
    else:
        f = 1.0
    return min(max(f, 0.8), 2.0)


def take_sector(c: Combat, s: Sector) -> None:
    """§10.2: what happens to a sector, its planes, units and people when it is taken."""
    w = c.world
    a, d = c.aggressor, s.owner
    s.thresholds.clear()
    s.deliveries.clear()
    s.dist = s.xy
    s.off = d != 0
    for _, p in sorted(w.planes.items()):
        if p.owner != d or p.xy != s.xy or p.ship is not None or p.land is not None:
            continue
        p.eff = max(0, p.eff - (29 + c.dice.roll(100)))
        if p.eff < 10 or p.hardened:
            c.say(f"{p.name()} blown up by the crew!")
            c.tell(
                d,
                f"{p.name()} blown up by the crew to avoid capture by {c.name(a)}"
                f" at {c.at(s.xy, d)}!",
            )
            del w.planes[p.uid]
        else:
            c.say(f"We have captured {p.name()}!")
            c.tell(d, f"{p.name()} captured by {c.name(a)} at {c.at(s.xy, d)}!")
            p.owner, p.mob, p.off, p.mission, p.wing = a, min(p.mob, 0), True, "", ""
    for _, u in sorted(w.units.items()):
        if u.owner != d or d in (0, a) or u.xy != s.xy or u.loaded:
            continue
        if u.type.has("spy"):
            if c.dice.chance((110 - u.eff) / 100):
                c.say(f"{u.name()} summarily executed!")
                c.tell(d, f"{u.name()} summarily executed when {c.name(a)} took {c.at(s.xy, d)}!")
                del w.units[u.uid]
            continue
        u.eff = max(0, u.eff - (29 + c.dice.roll(100)))
        if u.eff < 10:
            c.say(f"{u.name()} blown up by the crew!")
            c.tell(d, f"{u.name()} blown up by the crew when {c.name(a)} took {c.at(s.xy, d)}!")
            del w.units[u.uid]
        else:
            c.say(f"We have captured {u.name()}!")
            c.tell(d, f"{u.name()} captured when {c.name(a)} took {c.at(s.xy, d)}!")
            u.owner, u.mob, u.off, u.fort = a, min(u.mob, 0), True, 0
            u.retreat = c.rules.morale_base
            u.mission, u.op_center, u.army = "", None, ""
    s.avail = 0
    loyalty, held = known(s.loyalty, "the loyalty"), known(s.che, "the che")
    n = (50 - loyalty) + (c.dice.roll(100) - 26)
    if n > 0 and s.owner == s.oldowner:
        che = s.civ * n // 3000 + 5
        if 2 * che > s.civ:
            che = s.civ // 2
        che = int(che / hapfact(c))
        if che + held > 255:
            che = 255 - held
        if che > 0:
            s.civ -= che
            s.che = held + che
    if s.oldowner != a:
        s.che_target = a
    if s.che_target == 0:
        s.che = 0
    if s.oldowner == a or s.civ == 0:
        s.loyalty = 0
        s.oldowner = a
    else:
        s.loyalty = 50
    s.owner = a
    s.mob = -(c.rules.etu_per_update // 2) if c.rules.MOB_ACCESS else 0
    if s.type.has("capital") or s.type.is_mountain:
        sack_capital(c, s, d)


def sack_capital(c: Combat, s: Sector, d: int) -> None:
    """§10.4: half the defender's money (at least 3000) goes, part of it to the aggressor."""
    w = c.world
    dn = w.nations.get(d)
    if dn is None or not dn.active or dn.capital != s.xy or d == c.aggressor or dn.capital_sacked:
        return
    dn.capital_sacked = True
    c.say(f"* We have captured {dn.name}'s capital, sir! *")
    money = known(dn.money, "the defender's money")
    half = int(money / 2)
    lose = max(half, 3000)
    dn.money = money - lose
    gain = int((0.2 + 0.8 * s.eff / 100) * half) if half >= 0 else 0
    me = w.nations[c.aggressor]
    me.money = known(me.money, "the country's money") + gain
    c.money_made += gain
    c.tell(d, f"* {c.name(c.aggressor)} just sacked your capital! *")
    c.tell(d, f"You lost ${lose} and they gained ${gain}")
    c.tell(d, "You need to use 'capital' to activate a new capital.")
    w.news.append(NewsItem(c.aggressor, d, f"{c.name(c.aggressor)} sacks {dn.name} capital"))
