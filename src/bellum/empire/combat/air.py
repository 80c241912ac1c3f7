"""Planes on a mission: who may fly, arming, the flight and its air combat (spec §16.5).

The server shares this between ``paradrop``, ``bomb``, ``fly``, ``drop`` and
plane support; bellum's ``paradrop`` and plane support use it.  A mission has
two lists, the *bombers* (transports, bombers: the planes with a job) and the
*escorts*.  Like the server, each list is kept newest-first: a plane selected
later comes first, which decides the order of arming, flak hits, dogfights
and of the random draws.

Over every sector of the route, starting with the assembly point:

1. ``flying over <type> at x,y``; the whole mission slips through unseen with
   ``chance(min stealth / 100)`` over both lists (one draw);
2. else countries other than the planes' owner that are not allied to it
   hear that the planes were spotted (those owning the sector or having
   ships or land units there); the sector's guns fire if its owner is
   hostile or at war (one ``roundavg``), then the flak units and the ships
   there (one ``roundavg`` each, made even when nothing fires); each volley
   hits every bomber (one ``roll(8)`` per plane);
3. every hostile country's SAMs, then its fighters, rise against the mission
   (:func:`intercept`).

Planes hit hard enough go down (efficiency below 10) or turn back; either way
they leave the mission and what they carry is lost.  At the end of the route
one news item per overflown country that is not allied (one draw each).
Rules code here never prints: it reports through the combat's ``say`` and
``tell``.
"""

from __future__ import annotations

import itertools
import math
from collections.abc import Hashable, Iterator, Sequence
from dataclasses import dataclass, field
from functools import cached_property, partial
from typing import Any, Literal, cast

from bellum.dice import Draws, ServerRandom
from bellum.empire.combat.state import Combat, ldround
from bellum.empire.events import PlaneStatus
from bellum.empire.geometry import Coord
from bellum.empire.tables import (
    f32,
    land_aaf,
    plane_att,
    plane_def,
    plane_load,
    plane_range,
    ship_glim,
    techfact,
)
from bellum.empire.world import (
    LandUnit,
    Plane,
    Relation,
    Sector,
    Ship,
    World,
    peek_items,
    peek_where,
)
from bellum.formulas import chance_probability

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
#: At most this many guns fire flak from one sector, or from its units or ships.
FLAK_GUN_MAX = 14
#: Below this efficiency a plane is destroyed.
PLANE_MINEFF = 10
#: Ships and land units below this efficiency cannot fly planes.
AIROPS_EFF = 50
#: SAMs only rise against planes that cost at least this much to build.
SAM_MIN_COST = 1000
#: News goodwill: overflying a country's land, shooting down its planes.
OVERFLY_GOODWILL = -1
DOWN_PLANE_GOODWILL = -3

Job = Literal["paradrop", "escort", "intercept"]


@dataclass(eq=False)
class Flight:
    """One plane in the air, with what it carries (paratroopers for paradrop)."""

    plane: Plane
    load: int = 0


def name3(p: Plane) -> str:
    """The first three letters of the plane type's name, as dogfight reports show it."""
    return f"{p.type.display[:3]:<3}"


# -- who may fly ----------------------------------------------------------------


def carrier_kinds(sh: Ship, missile: bool) -> frozenset[str]:
    """The plane flags a ship can operate (``light``, ``helo``, ``x-light``)."""
    if sh.eff < AIROPS_EFF:
        return frozenset()
    kinds = set()
    if sh.type.has("plane") or (sh.type.has("miss") and missile):
        kinds.add("light")
    if sh.type.nchoppers and not missile:
        kinds.add("helo")
    if sh.type.nxl:
        kinds.add("x-light")
    return frozenset(kinds)


def airbase_ok(c: Combat, p: Plane, *, oneway: bool, noisy: bool) -> bool:
    """Can ``p`` take off from its sector, ship or land unit (and land again unless ``oneway``)?

    ``noisy`` prints the server's reasons to the plane's owner (the aggressor).
    """
    w = c.world
    say = c.say if noisy else _quiet
    carrier = base_of(c, p)
    if carrier is None:
        return False
    if not isinstance(carrier, Sector):
        if w.rel(carrier.owner, p.owner) != Relation.ALLIED:
            what = "ship" if isinstance(carrier, Ship) else "unit"
            say(f"(note) An ally does not own the {what} {p.name()} is on")
            return False
        if isinstance(carrier, Ship):
            return bool(carrier_kinds(carrier, p.type.has("missile")) & p.type.flags)
        return carrier.eff >= AIROPS_EFF and p.type.has("x-light") and not carrier.loaded
    s = w.sector(p.xy)
    if s.type.is_mountain and not (p.type.has("helo") or p.type.has("missile")):
        say(f"(note) {p.name()} is in a mountain and can't take off")
        return False
    if w.rel(s.owner, p.owner) != Relation.ALLIED:
        say(f"(note) An ally does not own the sector {p.name()} is in")
        return False
    if p.type.has("VTOL"):
        return True
    if s.type.name != "airfield":
        say(f"{p.name()} not at airport")
        return False
    if s.eff < 40:
        say(f"{c.at(s.xy)} is not 40% efficient, {p.name()} can't take off from there.")
        return False
    if not oneway and s.eff < 60:
        say(f"{c.at(s.xy)} is not 60% efficient, {p.name()} can't land there.")
        return False
    return True


def _quiet(text: str = "") -> None:
    """A ``say`` that says nothing (the server's silent checks)."""


def capable(p: Plane, job: Job) -> bool:
    """Whether the plane's type can do ``job`` (never missiles or satellites)."""
    t = p.type
    if t.has("missile") or t.has("satellite"):
        return False
    if job == "paradrop":
        return t.has("cargo") and t.has("para")
    return t.has("escort") or t.has("intercept")


def paratroopers(w: World, p: Plane) -> int:
    """The mil one transport carries on a paradrop: its load (doubled for VTOL) in soldiers."""
    load = plane_load(p.type, p.tech) * (2 if p.type.has("VTOL") else 1)
    return load // w.tables.items["m"].lbs


def pick(c: Combat, planes: list[Plane], ap: Sector, dist: int, job: Job) -> list[Flight]:
    """§16.4 item 3: the planes that stand by for the mission, newest-first.

    ``dist`` is the route's length from the assembly point; a plane must be
    able to fly to the assembly point, to the target and all the way back.
    Selected planes lose their mission.
    """
    w = c.world
    chosen: list[Flight] = []
    for p in planes:
        if p.owner != c.aggressor or p.mob <= 0:
            continue
        if p.eff < 40:
            c.say(f"{p.name()} not efficient enough (must be 40%)", PlaneStatus(p.uid, False))
            continue
        if not capable(p, job):
            continue
        to_ap = w.geometry.mapdist(p.xy, ap.xy)
        if to_ap > 4:
            c.say(f"{p.name()} too far from assembly point", PlaneStatus(p.uid, False))
            continue
        need = 2 * (to_ap + dist)
        reach = plane_range(p.type, p.tech)
        if reach < need:
            c.say(f"{p.name()} out of range ({reach}:{need})", PlaneStatus(p.uid, False))
            continue
        if not airbase_ok(c, p, oneway=False, noisy=True):
            continue
        c.say(f"{p.name()} standing by", PlaneStatus(p.uid, True))
        p.mission = ""
        chosen.insert(0, Flight(p))
    return chosen


# -- arming -----------------------------------------------------------------------


def base_of(c: Combat, p: Plane) -> Sector | Ship | LandUnit | None:
    """Where the plane takes its fuel and cargo: its ship, its land unit or its sector."""
    w = c.world
    if p.ship is not None:
        return w.ships.get(p.ship)
    if p.land is not None:
        return w.units.get(p.land)
    return w.sector(p.xy)


def mob_cost(p: Plane, dist: int, escort: bool) -> int:
    """Mobility for a sortie of ``dist`` sectors; escorts and interceptors pay half."""
    cost = 20.0 / (p.eff / 100.0)
    if escort:
        cost /= 2
    return ldround(cost * dist / plane_range(p.type, p.tech) + 5)


def _would_abandon(c: Combat, s: Sector, mil_taken: int) -> bool:
    """Taking the mil would leave the sector with no people and no own land units."""
    if s.owner == 0 or s.civ > 0 or s.mil - mil_taken > 0:
        return False
    return not any(u.owner == c.aggressor and u.land is None for u in c.world.units_at(s.xy))


def equip(c: Combat, f: Flight, job: Job) -> bool:
    """Fuel from the base and, for paradrop, the paratroopers; False (with the reason) if not.

    Escorts and interceptors carry nothing.  Interceptors are equipped
    silently (``job == "intercept"``).
    """
    p = f.plane
    base = base_of(c, p)
    if base is None:
        return False
    petrol = base.items.get("petrol", 0)
    if p.type.fuel > petrol:
        if job != "intercept":
            c.say(f"{p.name()} not enough petrol there!", PlaneStatus(p.uid, False))
        return False
    load = 0
    if job == "paradrop":
        load = paratroopers(c.world, p)
        if load <= 0:
            c.say(f"{p.name()} can't contribute to mission")
            return False
        extra = 1 if isinstance(base, Sector) and _would_abandon(c, base, load) else 0
        if base.mil < load + extra:
            c.say(f"Not enough military for {p.name()}")
            return False
        base.mil = base.mil - load
    if p.type.fuel:
        base.items["petrol"] = petrol - p.type.fuel
    f.load = load
    owner = base.owner
    if owner != p.owner and job != "intercept":
        if isinstance(base, Sector):
            where = c.at(base.xy, owner)
        elif isinstance(base, Ship):
            where = f"ship {base.title()}"
        else:
            where = f"unit {base.name()}"
        c.tell(owner, f"{c.name(p.owner)} {p.name()} prepares for takeoff from {where}")
    return True


def arm(c: Combat, flights: list[Flight], dist: int, job: Job, launched: set[int]) -> None:
    """§16.4 item 4: equip each plane and charge its mobility; drop those that cannot go.

    ``launched`` holds the planes already in the air: a plane named twice
    flies once.
    """
    for f in list(flights):
        p = f.plane
        if p.uid in launched or not equip(c, f, job):
            flights.remove(f)
            continue
        launched.add(p.uid)
        p.mob -= mob_cost(p, dist, job != "paradrop")
        c.say(f"{p.name()} equipped")


# -- damage -----------------------------------------------------------------------


def damage(c: Combat, f: Flight, dam: int, shooter: int, *, flak: bool) -> tuple[int, str]:
    """A plane hit for ``dam``: 0 it flies on, 1 shot down, 2 turns back; and the report word.

    A plane left below 80 % turns back with ``chance((80 - eff) / 100)``.
    """
    p = f.plane
    if dam <= 0:
        return 0, "" if flak else " no damage"
    eff = max(0, p.eff - dam)
    if eff < PLANE_MINEFF:
        disp, word = 1, " shot down"
    elif eff < 80 and c.dice.chance((80 - eff) / 100.0):
        disp, word = 2, f" aborted @{eff:2d}%"
    else:
        disp, word = 0, "" if flak else " cleared"
    p.eff = eff
    p.mob -= min(32 + p.mob, dam // 2)
    if disp == 1 and shooter != 0 and not p.type.has("missile"):
        text = f"{c.name(shooter)} pilots down {c.name(p.owner)} planes"
        c.news(p.owner, text, DOWN_PLANE_GOODWILL, actor=shooter)
    return disp, word


def leave(c: Combat, f: Flight, disp: int, *flights: list[Flight]) -> None:
    """A plane shot down or turned back leaves its list: it is destroyed or lands at home."""
    for lst in flights:
        if f in lst:
            lst.remove(f)
    if disp == 1:
        c.world.planes.pop(f.plane.uid, None)
    else:
        land(c, [f])


def land(c: Combat, flights: list[Flight]) -> None:
    """The planes come home; one whose carrier sank or whose sector is sea or waste is lost."""
    w = c.world
    for f in flights:
        p = f.plane
        if p.uid not in w.planes:
            continue
        if p.ship is not None:
            sh = w.ships.get(p.ship)
            if sh is None or sh.owner == 0:
                c.notify(
                    p.owner,
                    f"Ship #{p.ship} has been sunk, plane #{p.uid} has nowhere to land, and\n"
                    "splashes into the sea.",
                )
                del w.planes[p.uid]
            continue
        if w.sector(p.xy).type.name in ("sea", "wasteland"):
            c.notify(
                p.owner,
                f"Nowhere to land at {c.at(p.xy, p.owner)}, plane #{p.uid} crashes and burns...",
            )
            del w.planes[p.uid]


# -- flak ---------------------------------------------------------------------------


def hostile(c: Combat, owner: int, intruder: int) -> bool:
    """Whether ``owner`` fights ``intruder``'s planes (its relation toward them <= HOSTILE)."""
    return owner != 0 and c.world.rel(owner, intruder) <= Relation.HOSTILE


def flak_damage(c: Combat, guns: int, p: Plane) -> int:
    """One plane's share of a volley of ``guns`` (one ``roll(8)``), as ``ac_flak_dam``
    computes it: ``mult`` is a C ``float``, so ``(roll(8) + 2) * mult`` is a float product
    too (10 x 1.4f is 14.0f, not 13.99999976 in double; checked on the server)."""
    return flak_hit(c.dice.roll(8), flak_mult(c, guns, p))


def flak_mult(c: Combat, guns: int, p: Plane) -> float:
    margin = guns - plane_def(p.type, p.tech) - (0 if p.type.has("tactical") else 1)
    return f32(FLAK_TABLE[max(-8, min(9, margin)) + 8] * c.rules.flakscale)


def flak_hit(roll: int, mult: float) -> int:
    return min(100, int(f32((roll + 2) * mult)))


def fire_flak(c: Combat, bombers: list[Flight], shooter: int, guns: int) -> None:
    """A volley hits every bomber; the hit ones may go down or turn back."""
    for f in list(bombers):
        p = f.plane
        n = flak_damage(c, guns, p)
        disp, word = damage(c, f, n, shooter, flak=True)
        c.notify(p.owner, f"    {p.name()} takes {n}{' --' if word else ''}{word}.")
        if disp:
            leave(c, f, disp, bombers)


def sector_flak(c: Combat, bombers: list[Flight], s: Sector) -> None:
    """The sector's own guns (only called when its owner is hostile)."""
    a = bombers[0].plane.owner
    g = c.dice.roundavg(sector_guns(c, s))
    if g > 0:
        c.notify(a, f"firing {g} flak guns in {c.at(s.xy, a)}...")
        c.notify(s.owner, f"firing {g} flak guns in {c.at(s.xy, s.owner)}...")
        fire_flak(c, bombers, s.owner, g)


#: One gun battery of a volley: its owner, tech, flak strength and what its owner hears.
Battery = tuple[int, float, float, str]


def sector_guns(c: Combat, s: Sector) -> float:
    """The guns a sector fires, before their ``roundavg``."""
    return techfact(c.world.tech(s.owner), 2.0 * min(FLAK_GUN_MAX, s.get("gun")))


def unit_flak(c: Combat, bombers: list[Flight], units: Sequence[LandUnit]) -> None:
    """Hostile flak units among ``units``, the sector's by number (one ``roundavg`` even
    when none fires)."""
    _volley(c, bombers, unit_batteries(c, bombers[0].plane.owner, units), "Land units")


def unit_batteries(c: Combat, a: int, units: Sequence[LandUnit]) -> list[Battery]:
    batteries: list[Battery] = []
    for u in units:
        if u.owner in (0, a):
            continue
        aaf = land_aaf(u.type, u.tech)
        if not u.type.has("flak") or aaf == 0 or u.loaded or not hostile(c, u.owner, a):
            continue
        note = f"firing flak guns from unit {u.name()} (AA rating {aaf})"
        batteries.append((u.owner, u.tech, aaf * 1.5 * u.eff / 100.0, note))
    return batteries


def ship_flak(c: Combat, bombers: list[Flight], ships: Sequence[Ship]) -> None:
    """Hostile surface ships among ``ships``, the sector's by number (one ``roundavg``
    even when none fires)."""
    _volley(c, bombers, ship_batteries(c, bombers[0].plane.owner, ships), "Ships")


def ship_batteries(c: Combat, a: int, ships: Sequence[Ship]) -> list[Battery]:
    batteries: list[Battery] = []
    for sh in ships:
        if sh.owner in (0, a) or sh.type.has("sub") or not hostile(c, sh.owner, a):
            continue
        guns = min(ship_glim(sh.type, sh.tech), sh.items.get("gun", 0))
        if guns:
            flak = guns * (sh.eff / 100.0)
            batteries.append(
                (sh.owner, sh.tech, flak, f"firing {flak:.0f} flak guns from {sh.title()}...")
            )
    return batteries


def _volley(c: Combat, bombers: list[Flight], batteries: list[Battery], who: str) -> None:
    """Units' or ships' flak together: at most 14 guns' worth of their average tech."""
    for owner, _, _, note in batteries:
        c.notify(owner, note)
    total, shooter = volley_guns(batteries)
    g = c.dice.roundavg(total)
    if g > 0:
        c.notify(bombers[0].plane.owner, f"Flak!  {who} firing {g} flak guns...")
        fire_flak(c, bombers, shooter, g)


def volley_guns(batteries: list[Battery]) -> tuple[float, int]:
    """The guns the batteries fire together, before their ``roundavg``, and who fires
    (the last battery's owner)."""
    raw = total = 0.0
    shooter = 0
    for owner, tech, flak, _ in batteries:
        raw += flak
        total += techfact(int(tech), flak * 2.0)
        shooter = owner
    if raw > FLAK_GUN_MAX:
        total *= FLAK_GUN_MAX / raw
    return total, shooter


# -- interception ---------------------------------------------------------------------


def interceptors(c: Combat, intruder: int, launched: set[int]) -> dict[int, list[Flight]]:
    """Each hostile country's planes ready to intercept, newest-first (highest uid first).

    Fighters (and SAMs) with no mission or an air-defense mission, with
    mobility, at least 40 % efficient, able to take off and land.
    """
    w = c.world
    pools: dict[int, list[Flight]] = {}
    # Read where they are; the world's own planes go in the pools.
    for k, p in sorted(peek_items(w.planes)):
        if not hostile(c, p.owner, intruder) or not p.type.has("intercept") or p.uid in launched:
            continue
        if p.mission not in ("", "air-defense") or p.mob <= 0 or p.eff < 40:
            continue
        if not airbase_ok(c, p, oneway=False, noisy=False):
            continue
        pools.setdefault(p.owner, []).insert(0, Flight(w.planes[k]))
    return pools


def _in_op_area(c: Combat, p: Plane, at: Coord) -> bool:
    geo = c.world.geometry
    return not p.mission or geo.mapdist(at, p.op_center or p.xy) <= p.op_radius


def dogfight(c: Combat, att: Flight, dfn: Flight) -> tuple[int, int]:
    """One intruder ``att`` against one interceptor or SAM ``dfn``; returns both dispositions.

    The intruder's attack (its defense if it has none) meets the
    interceptor's defense; each exchange of ``roll(20) x 4 + 1`` hits one of
    them by one point.  A SAM always dies.
    """
    ap, dp = att.plane, dfn.plane
    a_val = plane_att(ap.type, ap.tech) or plane_def(ap.type, ap.tech)
    a_val = max(a_val * ap.eff // 100, ap.type.defense // 2)
    d_val = max(plane_def(dp.type, dp.tech) * dp.eff // 100, dp.type.defense // 2)
    if ap.type.has("intercept") and att.load:
        a_val -= 2
    if dp.type.has("intercept") and dfn.load:
        d_val -= 2
    a_val = int(a_val + ap.type.stealth / 25.0)
    d_val = int(d_val + dp.type.stealth / 25.0)
    if a_val < 1:
        d_val += 1 - a_val
        a_val = 1
    if d_val < 1:
        a_val += 1 - d_val
        d_val = 1
    odds = max(0.05, a_val / (d_val + a_val))
    intensity = sum(c.dice.roll(20) for _ in range(4)) + 1
    a_dam = d_dam = 0
    for _ in range(intensity):
        if c.dice.chance(odds):
            d_dam += 1
            if dp.eff - d_dam < PLANE_MINEFF:
                break
        else:
            a_dam += 1
            if ap.eff - a_dam < PLANE_MINEFF:
                break
    if dp.type.has("missile"):
        d_dam = 100
    a_disp, a_word = damage(c, att, a_dam, dp.owner, flak=False)
    d_disp, d_word = damage(c, dfn, d_dam, ap.owner, flak=False)
    for to, (p1, v1, m1, w1), (p2, v2, m2, w2) in (
        (ap.owner, (ap, a_val, a_dam, a_word), (dp, d_val, d_dam, d_word)),
        (dp.owner, (dp, d_val, d_dam, d_word), (ap, a_val, a_dam, a_word)),
    ):
        c.notify(
            to,
            f" {name3(p1)} #{p1.uid:<4d}  {name3(p2)} #{p2.uid:<4d}   {v1:3d}/{v2:<3d}"
            f" {intensity:3d}  {odds:3.2f}  {m1:3d}/{m2:<3d}{w1[:13]:<13} {w2[:13]:<13}",
        )
    return a_disp, d_disp


def _headers(c: Combat, a: int, d: int) -> None:
    for to, first, second in ((a, a, d), (d, d, a)):
        c.notify(
            to,
            f" {c.name(first)[:10]:<10} {c.name(second)[:10]:<10}"
            "  strength int odds  damage           results",
        )


@dataclass
class Defence:
    """Country ``cn`` defending the sector ``at`` against the planes of ``intruder``.

    ``pool`` holds its planes still ready to rise (SAMs and fighters); when
    it neither owns ``at`` nor has ships or land units there
    (``only_mission``), only planes on an air-defense mission rise.
    """

    intruder: int
    cn: int
    at: Coord
    pool: list[Flight]
    only_mission: bool
    launched: set[int]

    def can_reach(self, c: Combat, p: Plane, dist: int) -> bool:
        """In range, in the op area of its mission, and on a mission if that is required."""
        if self.only_mission and not p.mission:
            return False
        return plane_range(p.type, p.tech) >= dist and _in_op_area(c, p, self.at)


def _sams(c: Combat, d: Defence, intruders: list[Flight]) -> None:
    """The defender's SAMs engage the costly intruders, one each, in list order."""
    a, cn, at = d.intruder, d.cn, d.at
    geo = c.world.geometry
    first = True
    queue = list(d.pool)
    qi = 0
    for f in list(intruders):
        if qi >= len(queue):
            break
        if f.plane.type.cost < SAM_MIN_COST:
            continue
        while qi < len(queue):
            sam = queue[qi]
            qi += 1
            p = sam.plane
            if not p.type.has("missile") or not d.can_reach(c, p, geo.mapdist(at, p.xy)):
                continue
            if not equip(c, sam, "intercept"):
                d.pool.remove(sam)
                continue
            d.launched.add(p.uid)
            if first:
                first = False
                c.notify(a, f"{c.name(cn)} launches SAMs!")
                c.notify(cn, f"Launching SAMs at {c.name(a)} planes over {c.at(at, cn)}!")
                _headers(c, a, cn)
            a_disp, d_disp = dogfight(c, f, sam)
            if a_disp:
                leave(c, f, a_disp, intruders)
            if d_disp:
                leave(c, sam, d_disp, d.pool)
            break
    if not first:
        c.notify(a, "")
        c.notify(cn, "")


def _air_to_air(c: Combat, intruders: list[Flight], fighters: list[Flight]) -> None:
    """Pair intruders and fighters round-robin until both lists have been gone through once."""
    if not intruders or not fighters:
        return
    att: Flight | None = intruders[0]
    fig: Flight | None = fighters[0]
    more_att = more_fig = True
    while more_att or more_fig:
        assert att is not None and fig is not None
        att_next = _after(intruders, att)
        fig_next = _after(fighters, fig)
        a_disp, d_disp = dogfight(c, att, fig)
        if a_disp:
            leave(c, att, a_disp, intruders)
        if d_disp:
            leave(c, fig, d_disp, fighters)
        att, fig = att_next, fig_next
        if att is None:
            more_att = False
            if not intruders:
                more_fig = False
            else:
                att = intruders[0]
        if fig is None:
            more_fig = False
            if not fighters:
                more_att = False
            else:
                fig = fighters[0]


def _after(lst: list[Flight], f: Flight) -> Flight | None:
    """The element after ``f`` (None past the end)."""
    i = lst.index(f) + 1
    return lst[i] if i < len(lst) else None


def intercept(c: Combat, d: Defence, bombers: list[Flight], escorts: list[Flight]) -> None:
    """SAMs, then at most one fighter more than there are intruders (§16.5).

    Fighters must reach ``at`` and come back.  Escorts are fought first,
    then the bombers.
    """
    a, cn, at = d.intruder, d.cn, d.at
    geo = c.world.geometry
    _sams(c, d, bombers)
    _sams(c, d, escorts)
    count = len(bombers) + len(escorts)
    if not count:
        return
    rising: list[Flight] = []
    for f in list(d.pool):
        p = f.plane
        dist = 2 * geo.mapdist(at, p.xy)
        if p.type.has("missile") or not d.can_reach(c, p, dist):
            continue
        d.pool.remove(f)
        if not equip(c, f, "intercept"):
            continue
        rising.insert(0, f)
        d.launched.add(p.uid)
        p.mob -= mob_cost(p, dist, True)
        if len(rising) > count:
            break
    if not rising:
        return
    n = len(rising)
    c.notify(a, f"{n} {c.name(cn)} fighter{' is' if n == 1 else 's are'} rising to intercept!")
    c.notify(
        cn,
        f"{n} fighter{' is' if n == 1 else 's are'} intercepting {c.name(a)} planes"
        f" over {c.at(at, cn)}!",
    )
    _headers(c, a, cn)
    _air_to_air(c, escorts, rising)
    _air_to_air(c, bombers, rising)
    c.notify(a, "")
    c.notify(cn, "")
    land(c, rising)
    for f in rising:
        d.launched.discard(f.plane.uid)


# -- the flight ------------------------------------------------------------------------


def fly(
    c: Combat,
    start: Coord,
    path: str,
    bombers: list[Flight],
    escorts: list[Flight],
    launched: set[int],
    *,
    through: bool = False,
) -> None:
    """Fly the mission from ``start`` along ``path`` (direction keys), air combat and all.

    The lists lose the planes shot down or turned back; the flight stops
    early when no bomber is left.  ``through``: the caller reads only which bombers got
    through (a paradrop's transports), so the odds' dice may draw the flight as one
    choice among those (:class:`Through`).
    """
    w = c.world
    a = bombers[0].plane.owner
    pools = interceptors(c, a, launched)
    route = Route(c, w.geometry.norm(*start), path, bombers, escorts, launched, pools)
    if through:
        c.dice.block(Through(route))
    else:
        route.fly()
    for cn, times in sorted(route.overflown.items()):
        if cn and w.rel(cn, a) != Relation.ALLIED:
            text = f"{c.name(a)} violates {c.name(cn)} airspace"
            c.news(cn, text, OVERFLY_GOODWILL * times, actor=a)


class _ByPlace(dict[Coord, list[Any]]):
    """The objects (units or ships) of a world in each sector, by number: a sector is
    looked up when asked for (:meth:`get`), the whole world only for a listing."""

    def __init__(self, objects: dict[int, Any]) -> None:
        super().__init__()
        self._objects = objects
        self._none: set[Coord] = set()
        self._whole = False

    def get(self, xy: Coord, default: Any = None) -> Any:
        if self._whole or xy in self._none:
            return dict.get(self, xy, default)
        found = dict.get(self, xy)
        if found is None:
            found = [o for _, o in sorted(peek_where(self._objects, "xy", xy))]
            if not found:
                self._none.add(xy)
                return default
            self[xy] = found
        return found

    def _all(self) -> None:
        if not self._whole:
            self.clear()
            for _, o in sorted(peek_items(self._objects)):
                self.setdefault(o.xy, []).append(o)
            self._whole = True

    def __getitem__(self, xy: Coord) -> list[Any]:
        found = self.get(xy)
        if found is None:
            raise KeyError(xy)
        return found  # type: ignore[no-any-return]

    def __contains__(self, xy: object) -> bool:
        return isinstance(xy, tuple) and self.get(xy) is not None

    def __iter__(self) -> Iterator[Coord]:
        self._all()
        return super().__iter__()

    def __len__(self) -> int:
        self._all()
        return super().__len__()

    def keys(self) -> Any:
        self._all()
        return super().keys()

    def values(self) -> Any:
        self._all()
        return super().values()

    def items(self) -> Any:
        self._all()
        return super().items()


@dataclass(frozen=True)
class Present:
    """The land units and the ships in each sector, by number (as
    :meth:`World.units_at` lists them): each sector of a flight's route looked up once,
    where each looked at every unit and ship, twice.  Read only (flak reads them;
    nothing in the air moves them), so a scratch world copies none of them."""

    units: dict[Coord, list[LandUnit]]
    ships: dict[Coord, list[Ship]]

    @classmethod
    def of(cls, w: World) -> Present:
        return cls(_ByPlace(w.units), _ByPlace(w.ships))


@dataclass(eq=False)
class Route:
    """A mission over its route: the sectors from ``start`` along ``path``, the lists and
    the interceptors ready (``pools``); ``overflown`` counts the sectors of each owner
    where the planes were seen."""

    c: Combat
    start: Coord
    path: str
    bombers: list[Flight]
    escorts: list[Flight]
    launched: set[int]
    pools: dict[int, list[Flight]]
    overflown: dict[int, int] = field(default_factory=dict)

    def sectors(self) -> Iterator[Coord]:
        here = self.start
        yield here
        for key in self.path:
            here = self.c.world.geometry.step(here, key)
            yield here

    @cached_property
    def present(self) -> Present:
        """The land units and ships in each sector: read over every sector of the route,
        where nothing in the air moves them."""
        return Present.of(self.c.world)

    def fly(self) -> None:
        """Over each sector until the route or the bombers run out: flak, then every
        hostile country's interceptors."""
        c, w, bombers, escorts = self.c, self.c.world, self.bombers, self.escorts
        a = bombers[0].plane.owner
        there = self.present
        for here in self.sectors():
            s = w.sector(here)
            at_sea, on_land = there.ships.get(here, ()), there.units.get(here, ())
            ships = {sh.owner for sh in at_sea if not sh.type.has("sub")}
            units = {u.owner for u in on_land if not u.loaded}
            c.notify(a, f"flying over {s.type.name} at {c.at(here, a)}")
            stealth = min(f.plane.type.stealth for f in bombers + escorts)
            if not c.dice.chance(stealth / 100.0):
                self.overflown[s.owner] = self.overflown.get(s.owner, 0) + 1
                for cn in sorted(w.nations):
                    if w.rel(cn, a) == Relation.ALLIED:
                        continue
                    if cn == s.owner or cn in ships or cn in units:
                        c.notify(cn, f"{c.name(a)} planes spotted over {c.at(here, cn)}")
                if hostile(c, s.owner, a):
                    sector_flak(c, bombers, s)
                if bombers:
                    unit_flak(c, bombers, on_land)
                if bombers:
                    ship_flak(c, bombers, at_sea)
                if not bombers:
                    break
                for cn in sorted(w.nations):
                    if not bombers:
                        break
                    if not hostile(c, cn, a):
                        continue
                    pool = self.pools.get(cn)
                    if not pool:
                        continue  # nothing to rise: no SAM, no fighter, no draw
                    present = cn == s.owner or cn in ships or cn in units
                    intercept(
                        c, Defence(a, cn, here, pool, not present, self.launched), bombers, escorts
                    )
            if not bombers:
                break


#: A set of transports through (one flag per bomber, in the list's order) and the script
#: of draws of its likeliest path.
Passage = tuple[tuple[bool, ...], tuple[bool | int, ...]]
#: One bomber's steps on a path: (volley, roll(8), turned back or ``None`` when not drawn).
Steps = tuple[tuple[int, int, bool | None], ...]
#: Most combinations of the volleys' gun counts :class:`Through` sums over.
MOST_VOLLEY_COUNTS = 256
#: Most sets of bombers through times combinations of gun counts: the sum's work doubles
#: with each bomber (a bigger drop is drawn draw by draw, as before).
MOST_THROUGH_TERMS = 4096
_GONE = -1
_THROUGH: dict[Hashable, list[tuple[None, float, Passage]]] = {}
_THROUGH_LIMIT = 1024


class Through:
    """The flak over a route no interceptor can reach, as one choice among the sets of
    bombers that get through (for a caller that reads nothing else of the flight: the
    paradrop, whose fight reads the paratroopers dropped, not their planes).

    The volleys are known before the flight (the guns of each hostile sector, and of its
    flak units and ships, each count one ``roundavg``).  Given the counts, each bomber's
    fate is its own draws: a ``roll(8)`` per volley while it flies and, hit below 80 %,
    its chance to turn back.  So the chance of a set is a sum over the counts of a
    product over the bombers, each bomber a chain over its efficiency.  A set's side
    effects (efficiency, mobility, telegrams, news) are those of its likeliest path, the
    flight itself replayed on that path's draws.  Only where no interceptor can reach the
    route (whatever rises is in range and, off its own ground, on a mission), with planes
    that cannot slip through unseen (stealth 0) and when no plane shot down can turn its
    owner hostile (the owner already is): otherwise ``key`` is ``None`` and the flight is
    drawn draw by draw.
    """

    def __init__(self, route: Route) -> None:
        self.route = route

    def run(self, dice: ServerRandom) -> None:
        self.route.fly()

    @cached_property
    def volleys(self) -> list[tuple[int, float]] | None:
        """Each volley that can fire over the route, in order: who fires, the guns before
        their ``roundavg``; ``None`` when :class:`Through` does not apply."""
        r = self.route
        c, w = r.c, r.c.world
        a = r.bombers[0].plane.owner
        # A stealthy flight may slip past a volley unseen (a draw in ``Route.fly``): the
        # sum holds only while a stealth-0 plane stays with it, an escort (no interceptor
        # can take one) or every bomber.
        seen = all(f.plane.type.stealth == 0 for f in r.bombers) or any(
            f.plane.type.stealth == 0 for f in r.escorts
        )
        if not seen or self._interceptable():
            return None
        present = r.present
        out: list[tuple[int, float]] = []
        for here in r.sectors():
            s = w.sector(here)
            units, ships = present.units.get(here, ()), present.ships.get(here, ())
            if hostile(c, s.owner, a):
                out.append((s.owner, sector_guns(c, s)))
            for batteries in (unit_batteries(c, a, units), ship_batteries(c, a, ships)):
                total, shooter = volley_guns(batteries)
                out.append((shooter, total))
        out = [(who, x) for who, x in out if x > 0]
        if any(c.may_turn_hostile(a, who) for who, _ in out):
            return None
        fractional = sum(x != math.floor(x) for _, x in out)
        if 2**fractional > MOST_VOLLEY_COUNTS:
            return None
        if 2 ** (fractional + len(r.bombers)) > MOST_THROUGH_TERMS:
            return None
        return out

    def _interceptable(self) -> bool:
        """Whether a SAM or a fighter of the pools could rise over a sector of the route
        (:func:`intercept`'s reach, before its checks of equipment)."""
        r = self.route
        ready = [(cn, f.plane) for cn, pool in r.pools.items() for f in pool]
        if not ready:
            return False
        w, geo, present = r.c.world, r.c.world.geometry, r.present
        for here in r.sectors():
            for cn, p in ready:
                dist = geo.mapdist(here, p.xy) * (1 if p.type.has("missile") else 2)
                if plane_range(p.type, p.tech) < dist or not _in_op_area(r.c, p, here):
                    continue
                # Off its own country's ground only a plane on a mission rises (Defence).
                if p.mission or cn == w.sector(here).owner:
                    return True
                if any(u.owner == cn and not u.loaded for u in present.units.get(here, ())):
                    return True
                if any(
                    sh.owner == cn and not sh.type.has("sub") for sh in present.ships.get(here, ())
                ):
                    return True
        return False

    @cached_property
    def key(self) -> Hashable | None:
        volleys = self.volleys
        if volleys is None:
            return None
        planes = tuple(
            (f.plane.eff, f.plane.type.name, f.plane.tech, f.plane.type.has("tactical"))
            for f in self.route.bombers
        )
        return (tuple(volleys), planes, self.route.c.rules.flakscale)

    def outcomes(self, draws: Draws) -> list[tuple[None, float, Passage]]:
        """Each set of bombers through with its exact probability and likeliest path."""
        key = self.key
        assert key is not None and self.volleys is not None
        known = _THROUGH.get(key)
        if known is not None:
            return known
        counts = [draws(partial(_roundavg, x)) for _, x in self.volleys]
        rolls = [(cast(int, r), p) for r, p in draws(partial(_roll, 8))]
        sets: dict[tuple[bool, ...], list[Any]] = {}
        for combo in itertools.product(*counts):
            p_combo = math.prod(p for _, p in combo)
            guns = [cast(int, g) for g, _ in combo]
            fates = [self._fates(f.plane, guns, rolls, draws) for f in self.route.bombers]
            for pick in itertools.product(*(sorted(x.items()) for x in fates)):
                through = tuple(ok for ok, _ in pick)
                p = p_combo * math.prod(v[0] for _, v in pick)
                best = p_combo * math.prod(v[1] for _, v in pick)
                entry = sets.setdefault(through, [0.0, -1.0, None])
                entry[0] += p
                if best > entry[1]:
                    script = self._script(counts, guns, through, [v[2] for _, v in pick])
                    entry[1], entry[2] = best, (through, script)
        out = [(None, p, path) for _, (p, _, path) in sorted(sets.items(), reverse=True) if p > 0]
        if len(_THROUGH) >= _THROUGH_LIMIT:
            _THROUGH.clear()
        _THROUGH[key] = out
        return out

    def _fates(
        self, p: Plane, guns: list[int], rolls: list[tuple[int, float]], draws: Draws
    ) -> dict[bool, tuple[float, float, Steps]]:
        """The bomber's chance to get through (True) or not, given the volleys' counts,
        with the likeliest steps to each."""
        states: dict[int, tuple[float, float, Steps]] = {p.eff: (1.0, 1.0, ())}
        for i, g in enumerate(guns):
            if g <= 0:
                continue
            mult = flak_mult(self.route.c, g, p)
            after: dict[int, tuple[float, float, Steps]] = {}
            for eff, (q, best, steps) in states.items():
                if eff == _GONE:
                    _merge(after, _GONE, q, best, steps)
                    continue
                for r, pr in rolls:
                    n = flak_hit(r, mult)
                    e2 = eff if n <= 0 else max(0, eff - n)
                    step = (i, r, None)
                    if n <= 0 or e2 >= 80:
                        _merge(after, e2, q * pr, best * pr, (*steps, step))
                    elif e2 < PLANE_MINEFF:
                        _merge(after, _GONE, q * pr, best * pr, (*steps, step))
                    else:
                        back = draws(partial(_chance, (80 - e2) / 100.0))
                        for turned, pb in back:
                            drawn = bool(turned) if len(back) > 1 else None
                            _merge(
                                after,
                                _GONE if turned else e2,
                                q * pr * pb,
                                best * pr * pb,
                                (*steps, (i, r, drawn)),
                            )
            states = after
        out: dict[bool, tuple[float, float, Steps]] = {}
        for eff, (q, best, steps) in states.items():
            ok = eff != _GONE
            old = out.get(ok)
            if old is None:
                out[ok] = (q, best, steps)
            else:
                out[ok] = (old[0] + q, *((best, steps) if best > old[1] else old[1:]))
        return out

    def _script(
        self,
        counts: list[list[tuple[Hashable, float]]],
        guns: list[int],
        through: tuple[bool, ...],
        steps: list[Steps],
    ) -> tuple[bool | int, ...]:
        """The draws of a path, in the flight's order: each volley's ``roundavg`` (when it
        can go either way), then each bomber still flying: its ``roll(8)`` and whether it
        turned back (when drawn)."""
        assert self.volleys is not None
        by_bomber = [{i: (r, back) for i, r, back in s} for s in steps]
        # The volley each bomber left the flight in (its last), None if it got through.
        gone = [None if ok else s[-1][0] for ok, s in zip(through, steps, strict=True)]
        script: list[bool | int] = []
        for i, ((_, x), g) in enumerate(zip(self.volleys, guns, strict=True)):
            flying = [b for b, j in enumerate(gone) if j is None or j >= i]
            if not flying:
                break
            if len(counts[i]) > 1:
                script.append(g > math.floor(x))
            if g <= 0:
                continue
            for b in flying:
                r, back = by_bomber[b][i]
                script.append(r - 1)
                if back is not None:
                    script.append(back)
        return tuple(script)

    def replay(self, path: Passage) -> None:
        through, script = path
        r = self.route
        c = r.c
        first = list(r.bombers)
        dice, c.dice = c.dice, _Scripted(script)
        try:
            r.fly()
            done = c.dice.done()
        finally:
            c.dice = dice
        assert done and tuple(f in r.bombers for f in first) == through, "flak replay diverged"


def _merge(
    into: dict[int, tuple[float, float, Steps]], eff: int, p: float, best: float, steps: Steps
) -> None:
    """Add ``p`` to the state's chance, keeping the likelier path (``best``) to it."""
    old = into.get(eff)
    if old is None:
        into[eff] = (p, best, steps)
    else:
        into[eff] = (old[0] + p, *((best, steps) if best > old[1] else old[1:]))


def _roundavg(x: float, dice: ServerRandom) -> int:
    return dice.roundavg(x)


def _roll(n: int, dice: ServerRandom) -> int:
    return dice.roll(n)


def _chance(p: float, dice: ServerRandom) -> bool:
    return dice.chance(p)


class _Scripted(ServerRandom):
    """Dice that take their values from a script, one per draw with more than one
    outcome (as the odds' dice count them); text-only draws take their likelier one."""

    def __init__(self, script: Sequence[bool | int]) -> None:
        self.seed = 0
        self.draws = 0
        self._script = list(script)
        self._next = 0
        self._text = 0

    def done(self) -> bool:
        return self._next == len(self._script)

    def _take(self) -> bool | int:
        value = self._script[self._next]
        self._next += 1
        return value

    def u32(self) -> int:
        raise AssertionError("a scripted flight makes no raw draw")

    def chance(self, p: float) -> bool:
        self.draws += 1
        q = chance_probability(p)
        if q <= 0.0 or q >= 1.0 or self._text:
            return q >= 1.0 - q
        return bool(self._take())

    def roll0(self, n: int) -> int:
        self.draws += 1
        return 0 if n == 1 else int(self._take())
