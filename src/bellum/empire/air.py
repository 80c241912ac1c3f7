"""Air combat en route, as far as spec §16.5 specifies it (used by paradrop).

Over every sector of the route the whole mission may slip through unseen
(one ``chance`` on the lowest stealth); otherwise the sector's guns, flak
units and ships fire volleys at the transports, never at the escorts.  A
volley's strength picks a multiplier from the flak table; every transport
takes its own roll.

Not modelled (spec §20 item 1): interceptors and SAMs rising against the
mission.  Rules code here never prints; it reports through the combat's
``say``.
"""

from __future__ import annotations

from collections.abc import Iterable
from dataclasses import dataclass

from bellum.empire.combat.state import Combat
from bellum.empire.tables import f32, land_aaf, plane_def, ship_glim, techfact
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


def fly(c: Combat, route: list[Sector], flights: list[Flight]) -> None:
    """Fly the mission over ``route`` (AP first, the target last), flak and all."""
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
