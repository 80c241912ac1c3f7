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

from dataclasses import dataclass
from typing import Literal

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
from bellum.empire.world import LandUnit, Plane, Relation, Sector, Ship, World

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
    margin = guns - plane_def(p.type, p.tech) - (0 if p.type.has("tactical") else 1)
    mult = f32(FLAK_TABLE[max(-8, min(9, margin)) + 8] * c.rules.flakscale)
    return min(100, int(f32((c.dice.roll(8) + 2) * mult)))


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
    w = c.world
    a = bombers[0].plane.owner
    level = w.tech(s.owner)
    g = c.dice.roundavg(techfact(level, 2.0 * min(FLAK_GUN_MAX, s.get("gun"))))
    if g > 0:
        c.notify(a, f"firing {g} flak guns in {c.at(s.xy, a)}...")
        c.notify(s.owner, f"firing {g} flak guns in {c.at(s.xy, s.owner)}...")
        fire_flak(c, bombers, s.owner, g)


#: One gun battery of a volley: its owner, tech, flak strength and what its owner hears.
Battery = tuple[int, float, float, str]


def unit_flak(c: Combat, bombers: list[Flight], at: Coord) -> None:
    """Hostile flak units in the sector (one ``roundavg`` even when none fires)."""
    a = bombers[0].plane.owner
    batteries: list[Battery] = []
    for u in c.world.units_at(at):
        if u.owner in (0, a):
            continue
        aaf = land_aaf(u.type, u.tech)
        if not u.type.has("flak") or aaf == 0 or u.loaded or not hostile(c, u.owner, a):
            continue
        note = f"firing flak guns from unit {u.name()} (AA rating {aaf})"
        batteries.append((u.owner, u.tech, aaf * 1.5 * u.eff / 100.0, note))
    _volley(c, bombers, batteries, "Land units")


def ship_flak(c: Combat, bombers: list[Flight], at: Coord) -> None:
    """Hostile surface ships in the sector (one ``roundavg`` even when none fires)."""
    a = bombers[0].plane.owner
    batteries: list[Battery] = []
    for _, sh in sorted(c.world.ships.items()):
        if sh.xy != at or sh.owner in (0, a) or sh.type.has("sub") or not hostile(c, sh.owner, a):
            continue
        guns = min(ship_glim(sh.type, sh.tech), sh.items.get("gun", 0))
        if guns:
            flak = guns * (sh.eff / 100.0)
            batteries.append(
                (sh.owner, sh.tech, flak, f"firing {flak:.0f} flak guns from {sh.title()}...")
            )
    _volley(c, bombers, batteries, "Ships")


def _volley(c: Combat, bombers: list[Flight], batteries: list[Battery], who: str) -> None:
    """Units' or ships' flak together: at most 14 guns' worth of their average tech."""
    raw = total = 0.0
    shooter = 0
    for owner, tech, flak, note in batteries:
        raw += flak
        total += techfact(int(tech), flak * 2.0)
        c.notify(owner, note)
        shooter = owner
    if raw > FLAK_GUN_MAX:
        total *= FLAK_GUN_MAX / raw
    g = c.dice.roundavg(total)
    if g > 0:
        c.notify(bombers[0].plane.owner, f"Flak!  {who} firing {g} flak guns...")
        fire_flak(c, bombers, shooter, g)


# -- interception ---------------------------------------------------------------------


def interceptors(c: Combat, intruder: int, launched: set[int]) -> dict[int, list[Flight]]:
    """Each hostile country's planes ready to intercept, newest-first (highest uid first).

    Fighters (and SAMs) with no mission or an air-defense mission, with
    mobility, at least 40 % efficient, able to take off and land.
    """
    w = c.world
    pools: dict[int, list[Flight]] = {}
    for _, p in sorted(w.planes.items()):
        if not hostile(c, p.owner, intruder) or not p.type.has("intercept") or p.uid in launched:
            continue
        if p.mission not in ("", "air-defense") or p.mob <= 0 or p.eff < 40:
            continue
        if not airbase_ok(c, p, oneway=False, noisy=False):
            continue
        pools.setdefault(p.owner, []).insert(0, Flight(p))
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
) -> None:
    """Fly the mission from ``start`` along ``path`` (direction keys), air combat and all.

    The lists lose the planes shot down or turned back; the flight stops
    early when no bomber is left.
    """
    w = c.world
    a = bombers[0].plane.owner
    pools = interceptors(c, a, launched)
    overflown: dict[int, int] = {}
    here = w.geometry.norm(*start)
    steps = iter(path)
    while True:
        s = w.sector(here)
        ships = {sh.owner for sh in w.ships.values() if sh.xy == here and not sh.type.has("sub")}
        units = {u.owner for u in w.units_at(here) if not u.loaded}
        c.notify(a, f"flying over {s.type.name} at {c.at(here, a)}")
        stealth = min(f.plane.type.stealth for f in bombers + escorts)
        if not c.dice.chance(stealth / 100.0):
            overflown[s.owner] = overflown.get(s.owner, 0) + 1
            for cn in sorted(w.nations):
                if w.rel(cn, a) == Relation.ALLIED:
                    continue
                if cn == s.owner or cn in ships or cn in units:
                    c.notify(cn, f"{c.name(a)} planes spotted over {c.at(here, cn)}")
            if hostile(c, s.owner, a):
                sector_flak(c, bombers, s)
            if bombers:
                unit_flak(c, bombers, here)
            if bombers:
                ship_flak(c, bombers, here)
            if not bombers:
                break
            for cn in sorted(w.nations):
                if not bombers:
                    break
                if not hostile(c, cn, a):
                    continue
                present = cn == s.owner or cn in ships or cn in units
                defence = Defence(a, cn, here, pools.get(cn, []), not present, launched)
                intercept(c, defence, bombers, escorts)
        key = next(steps, None)
        if key is None or not bombers:
            break
        here = w.geometry.step(here, key)
    for cn, times in sorted(overflown.items()):
        if cn and w.rel(cn, a) != Relation.ALLIED:
            text = f"{c.name(a)} violates {c.name(cn)} airspace"
            c.news(cn, text, OVERFLY_GOODWILL * times, actor=a)
