"""Air combat en route, as far as spec §16.5 specifies it (used by paradrop).

Over every sector of the route the whole mission may slip through unseen
(one ``chance`` on the lowest stealth); otherwise the sector's guns, flak
units and ships fire volleys at the transports, never at the escorts.  A
volley's strength picks a multiplier from the flak table; every transport
takes its own roll.

Then the hostile countries' fighters rise: at most one more than the
intruders, paired round-robin with them, escorts first (§16.5).  The spec
leaves parts of this open (§20 item 1): see :func:`intercept` for what is
simplified.  SAMs are not modelled (the tables carry no plane cost).  Rules
code here never prints; it reports through the combat's ``say``.
"""

from __future__ import annotations

from collections.abc import Iterable
from dataclasses import dataclass

from bellum.empire.combat.state import Combat
from bellum.empire.tables import (
    f32,
    land_aaf,
    plane_att,
    plane_def,
    plane_range,
    ship_glim,
    techfact,
)
from bellum.empire.world import Plane, Relation, Sector

#: The flak multipliers by the volley's margin over the plane's defense (§16.5).
FLAK_TABLE = tuple(
    f32(m)
    for m in (
        0.132,
        0.20,
        0.20,
        0.25,
        0.30,
        0.35,
        0.40,
        0.45,
        0.50,
        0.50,
        0.55,
        0.60,
        0.65,
        0.70,
        0.75,
        0.80,
        0.85,
        1.1305,
    )
)


@dataclass
class Flight:
    """One plane of a mission: a transport with its paratroopers, or an escort."""

    plane: Plane
    escort: bool = False
    load: int = 0
    down: bool = False
    turned_back: bool = False

    @property
    def flying(self) -> bool:
        return not (self.down or self.turned_back)


def hostile(c: Combat, owner: int) -> bool:
    """Whether ``owner`` shoots at the aggressor's planes (relation toward A <= HOSTILE)."""
    return (
        owner != 0 and owner != c.aggressor and c.world.rel(owner, c.aggressor) <= Relation.HOSTILE
    )


def _scaled(c: Combat, parts: Iterable[tuple[float, float]]) -> int:
    """Unit and ship flak: techfact-weighted sum, scaled down past 14 raw guns, rounded."""
    raw = 0.0
    tot = 0.0
    for tech, f in parts:
        raw += f
        tot += techfact(tech, 2 * f)
    if raw > 14:
        tot *= 14 / raw
    return c.dice.roundavg(tot)


def volleys(c: Combat, s: Sector) -> list[int]:
    """The flak volleys over ``s``: sector guns, then flak units, then ships."""
    w = c.world
    out: list[int] = []
    guns = s.get("gun")
    if guns > 0 and hostile(c, s.owner):
        tech = w.nations[s.owner].tech if s.owner in w.nations else 0.0
        out.append(c.dice.roundavg(techfact(tech, 2 * min(14, guns))))
    flak = [
        (u.tech, land_aaf(u.type, u.tech) * 1.5 * u.eff / 100)
        for u in w.units_at(s.xy)
        if u.type.has("flak") and u.type.aaf > 0 and not u.loaded and hostile(c, u.owner)
    ]
    if flak:
        out.append(_scaled(c, flak))
    ships = [
        (sh.tech, min(ship_glim(sh.type, sh.tech), sh.items.get("gun", 0)) * sh.eff / 100)
        for _, sh in sorted(w.ships.items())
        if sh.xy == s.xy and not sh.type.has("sub") and hostile(c, sh.owner)
    ]
    if ships:
        out.append(_scaled(c, ships))
    return out


def flak_damage(c: Combat, g: int, p: Plane) -> int:
    """One plane's share of a volley of strength ``g`` (one ``roll(8)``)."""
    margin = g - plane_def(p.type, p.tech) - (0 if p.type.has("tactical") else 1)
    m = FLAK_TABLE[max(-8, min(9, margin)) + 8]
    return min(100, int((c.dice.roll(8) + 2) * m * 1.75))


def hit(c: Combat, f: Flight, dam: int) -> None:
    """§16.5: a plane hit for ``dam`` loses efficiency; it may go down or turn back."""
    p = f.plane
    p.eff = max(0, p.eff - dam)
    c.say(f"    {p.name()} takes {dam}")
    if p.eff < 10:
        f.down = True
        c.say(f"    {p.name()} is shot down!")
        c.world.planes.pop(p.uid, None)
        return
    if p.eff < 80 and c.dice.chance((80 - p.eff) / 100):
        f.turned_back = True
        c.say(f"    {p.name()} aborts its mission")
    p.mob -= min(32 + p.mob, dam // 2)


def base_ok(c: Combat, p: Plane) -> bool:
    """Take off and land: an own or allied sector; an airfield of 60 % unless VTOL.

    Planes aboard ships and land units are not supported yet (they stay home).
    """
    if p.ship is not None or p.land is not None:
        return False
    s = c.world.sector(p.xy)
    if s.owner != p.owner and c.world.rel(s.owner, p.owner) != Relation.ALLIED:
        return False
    return p.type.has("VTOL") or (s.type.name == "airfield" and s.eff >= 60)


def _fighters(c: Combat, cn: int, s: Sector, busy: set[int]) -> list[Plane]:
    """Country ``cn``'s idle interceptors that can reach ``s`` and come back."""
    w = c.world
    return [
        p
        for _, p in sorted(w.planes.items())
        if p.owner == cn
        and p.uid not in busy
        and p.type.has("intercept")
        and not p.type.has("missile")
        and not p.mission
        and p.mob > 0
        and p.eff >= 40
        and base_ok(c, p)
        and plane_range(p.type, p.tech) >= 2 * w.geometry.mapdist(p.xy, s.xy)
    ]


def _dog_value(p: Plane, base: int) -> int:
    """A dogfighter's value: ``base`` x efficiency, at least half its defense, plus stealth."""
    v = max(base * p.eff / 100, p.type.defense / 2)
    return int(v) + p.type.stealth // 25


def dogfight(c: Combat, fighter: Flight, intruder: Flight) -> None:
    """One interceptor against one intruder: point-by-point exchanges, then the damage."""
    a, d = fighter.plane, intruder.plane
    att = _dog_value(a, plane_att(a.type, a.tech) or plane_def(a.type, a.tech))
    dfn = _dog_value(d, plane_def(d.type, d.tech))
    if att < 1:
        dfn, att = dfn + 1 - att, 1
    if dfn < 1:
        att, dfn = att + 1 - dfn, 1
    odds = max(0.05, att / (att + dfn))
    rounds = sum(c.dice.roll(20) for _ in range(4)) + 1
    a_dam = d_dam = 0
    for _ in range(rounds):
        if a.eff - a_dam - 1 < 10 or d.eff - d_dam - 1 < 10:
            break
        if c.dice.chance(odds):
            d_dam += 1
        else:
            a_dam += 1
    c.say(f"    {a.name()} dogfights {d.name()}")
    if a_dam:
        hit(c, fighter, a_dam)
    if d_dam:
        hit(c, intruder, d_dam)


def intercept(c: Combat, s: Sector, flights: list[Flight], busy: set[int]) -> None:
    """§16.5 interception over ``s``, simplified.

    Only countries that own ``s`` or have ships or units there send fighters,
    and only fighters without a mission (air-defense missions and their op
    areas, SAMs, interceptor mobility and the server's dogfight report texts
    are not modelled).
    """
    w = c.world
    for cn in sorted(w.nations):
        if not hostile(c, cn):
            continue
        present = (
            s.owner == cn
            or any(sh.owner == cn and sh.xy == s.xy for sh in w.ships.values())
            or any(u.owner == cn and u.xy == s.xy for u in w.units.values())
        )
        intruders = [f for f in flights if f.flying and f.escort]
        intruders += [f for f in flights if f.flying and not f.escort]
        if not present or not intruders:
            continue
        rising = _fighters(c, cn, s, busy)[: len(intruders) + 1]
        for i, p in enumerate(rising):
            busy.add(p.uid)
            target = intruders[i % len(intruders)]
            if target.flying:
                dogfight(c, Flight(p, escort=True), target)


def fly(c: Combat, route: list[Sector], flights: list[Flight]) -> None:
    """Fly the mission over ``route`` (AP first, the target last), flak and all."""
    busy: set[int] = set()
    for s in route:
        up = [f for f in flights if f.flying]
        if not up:
            return
        c.say(f"flying over {s.type.name} at {c.at(s.xy)}")
        stealth = min(f.plane.type.stealth for f in up)
        if c.dice.chance(stealth / 100):
            continue
        for g in volleys(c, s):
            if g <= 0:
                continue
            c.say(f"firing {g} flak guns in {c.at(s.xy)}...")
            for f in flights:
                if f.flying and not f.escort:
                    hit(c, f, flak_damage(c, g, f.plane))
        intercept(c, s, flights, busy)
