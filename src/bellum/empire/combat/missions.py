"""Missions: support from the air and interdiction of a move-in (spec §5.3, §14).

The server runs both through one mission engine, and so does this module:

* each country's units, ships and planes on the mission whose op area covers
  the target are listed (land units, then ships, then planes, each by
  number; the list is kept newest-first, so the last plane found acts first);
* land units and ships fire at once (range roll, volley, news, reports);
* planes fly in groups, one per base, along the shortest route: they arm at
  the base, meet flak and fighters on the way (:mod:`bellum.empire.combat.air`), and
  each survivor pin-bombs the target, its bombs reported ``Blam-blam-BLAM``
  to its owner;
* what falls near the target does collateral damage to the sector.

Plane support (§5.3) is :func:`dosupport`; the interdiction of mil moving in
after an attack is :func:`ground_interdict`, of land units
:func:`unit_interdict` (§14).
"""

from __future__ import annotations

from collections.abc import Callable
from typing import Any, Literal

from bellum.empire.combat import air, damage, guns
from bellum.empire.combat.state import Combat, ldround
from bellum.empire.geometry import Coord
from bellum.empire.tables import (
    land_frg,
    plane_acc,
    plane_load,
    plane_range,
    ship_frange,
    techfact,
)
from bellum.empire.world import (
    Answers,
    LandUnit,
    Plane,
    Relation,
    Ship,
    World,
    peek_where,
)

Mission = Literal["support", "osupport", "dsupport", "interdiction"]
Item = LandUnit | Ship | Plane

#: The hardness the server gives a sector: so low that every bomb hits.
SECT_HARDTARGET = -92917
#: Land units and ships interdict no farther than this (econfig defaults).
LAND_MAX_INTERDICTION_RANGE = 8
SHIP_MAX_INTERDICTION_RANGE = 8

MISSION_NAME = {
    "interdiction": "an interdiction",
    "support": "a support",
    "osupport": "an offensive support",
    "dsupport": "a defensive support",
}
#: News: guns shelling a sector, planes bombing one (both may turn the victim hostile).
SHELL_NEWS = "gunners bombard {} territory"
BOMB_NEWS = "planes dive-bomb one of {}'s sectors"


# -- who takes part ---------------------------------------------------------------------


def _effrange(level: float, frg: int) -> float:
    """A firing range factor at a tech level (the server truncates the level)."""
    return techfact(int(level), frg / 2.0)


def unit_fire_range(u: LandUnit) -> float:
    return _effrange(u.tech, land_frg(u.type, u.tech))


def ship_fire_range(sh: Ship) -> float:
    return _effrange(sh.tech, ship_frange(sh.type, sh.tech))


def oprange(item: Item) -> int:
    """How far from itself ``item`` can fire or fly on its mission (not its op area)."""
    if isinstance(item, Ship):
        return ldround(ship_fire_range(item))
    if isinstance(item, LandUnit):
        return ldround(unit_fire_range(item))
    reach = plane_range(item.type, item.tech)
    return reach if item.type.has("missile") else reach // 2


def in_oparea(w: World, item: Item, at: Coord) -> bool:
    """The mission's op area covers ``at``, and ``at`` is within the item's reach."""
    geo = w.geometry
    centre = item.op_center or item.xy
    return geo.mapdist(at, centre) <= item.op_radius and geo.mapdist(at, item.xy) <= oprange(item)


def mission_lists(
    c: Combat,
    at: Coord,
    missions: tuple[Mission, ...],
    acts: Callable[[int], bool],
    planes_act: Callable[[int], bool] | None = None,
) -> dict[int, list[Item]]:
    """Per country, what is on one of ``missions`` covering ``at``, newest-first.

    For each mission in turn the land units, the ships and the planes are
    looked at by number; each one found goes to the front of its owner's list.
    """
    w = c.world
    asked = Answers(acts)
    kinds: list[tuple[dict[int, Any], dict[int, bool]]] = [
        (w.units, asked),
        (w.ships, asked),
        (w.planes, Answers(planes_act or acts)),
    ]
    lists: dict[int, list[Item]] = {}
    for mission in missions:
        for objects, act in kinds:
            # Only the few on this mission are sorted (``acts`` only reads relations);
            # they are read where they are, and the world's own taken for the list.
            on = sorted(peek_where(objects, "mission", mission))
            for k, item in on:
                if not item.owner or not act[item.owner] or item.mob < 1:
                    continue
                if not in_oparea(w, item, at):
                    continue
                lists.setdefault(item.owner, []).insert(0, objects[k])
    return dict(sorted(lists.items()))


# -- performing a mission ----------------------------------------------------------------


def _tally(dam: int, new: int) -> int:
    """Damage so far, where -1 means that nothing has acted yet."""
    return new if dam < 0 else dam + new


def perform(
    c: Combat,
    at: Coord,
    victim: int,
    items: list[Item],
    mission: Mission,
    what: str,
    hard: int,
) -> int:
    """One country's mission at ``at`` against ``victim``; -1 if nothing acted.

    ``what`` names the target in reports (``military``, ``land units``, or
    nothing for support) and ``hard`` is how hard it is to hit.
    """
    w = c.world
    geo = w.geometry
    dam = -1
    missiles: list[Plane] = []
    bombers: list[Plane] = []
    for item in items:
        if isinstance(item, LandUnit):
            md = geo.mapdist(at, item.xy)
            if mission == "interdiction" and md > LAND_MAX_INTERDICTION_RANGE:
                continue
            if md > c.dice.roundavg(unit_fire_range(item)):
                continue
            dam2 = guns.unit_fire(c, item)
            if dam2 < 0:
                continue
            _fired(c, item.owner, item.name(), victim, what, at)
            dam = _tally(dam, dam2)
        elif isinstance(item, Ship):
            md = geo.mapdist(at, item.xy)
            if mission == "interdiction" and md > SHIP_MAX_INTERDICTION_RANGE:
                continue
            if item.type.has("sub"):
                continue  # submarines interdict ships only
            if md > c.dice.roundavg(ship_fire_range(item)):
                continue
            dam2 = guns.ship_fire(c, item)
            if dam2 <= 0:
                continue
            _fired(c, item.owner, item.title(), victim, what, at)
            dam = _tally(dam, dam2)
        elif item.type.has("missile"):
            if hard == SECT_HARDTARGET and not item.type.has("marine"):
                missiles.insert(0, item)
        else:
            bombers.insert(0, item)
    dam = _missiles(c, dam, list(reversed(missiles)), victim)
    return _bomb(c, dam, bombers, at, victim, mission, what, hard)


def _fired(c: Combat, owner: int, name: str, victim: int, what: str, at: Coord) -> None:
    """News and reports of a land unit or ship that fired on its mission."""
    c.news(victim, f"{c.name(owner)} {SHELL_NEWS.format(c.name(victim))}", -2, owner)
    c.tell(owner, f"{name} fires at {c.name(victim)} {what} at {c.at(at, owner)}")
    c.notify(victim, f"{c.name(owner)} {name} fires at you at {c.at(at, victim)}")


def _missiles(c: Combat, dam: int, missiles: list[Plane], victim: int) -> int:
    """Missiles on the mission fly straight in until they have done 100 damage.

    Not yet checked against the server: launch failures are drawn as in
    support (§5.3), interception by anti-ballistic missiles is left out.
    """
    w = c.world
    performed = False
    air_dam = 0
    for p in missiles:
        if air_dam >= 100:
            break
        base = air.base_of(c, p)
        need = plane_load(p.type, p.tech) // w.tables.items["s"].lbs
        if base is None or need <= 0 or base.items.get("shell", 0) < need:
            continue
        base.items["shell"] = base.items.get("shell", 0) - need
        performed = True
        w.planes.pop(p.uid, None)
        blowup = (0.05 + (100 - p.eff) / 100) * (1 - techfact(p.tech, 1))
        if c.dice.chance(blowup):
            c.notify(p.owner, f"{p.name()} explodes on launch!")
            continue
        air_dam += plane_damage(c, p, None)
    return _tally(dam, air_dam) if performed else dam


def _usable(c: Combat, p: Plane, *, escort: bool) -> bool:
    """The server's selection of mission planes: efficient, mobile, able, with a base."""
    t = p.type
    if p.eff < 40 or p.mob < 1:
        return False
    if escort:
        able = t.has("escort") or t.has("intercept")
    else:
        able = t.has("tactical") and not t.has("ASW")
    return able and air.airbase_ok(c, p, oneway=False, noisy=False)


def _bomb(
    c: Combat,
    dam: int,
    bombers: list[Plane],
    at: Coord,
    victim: int,
    mission: Mission,
    what: str,
    hard: int,
) -> int:
    """The mission's planes fly from their bases, one group per base, and bomb ``at``."""
    w = c.world
    if not bombers:
        return dam
    owner = bombers[0].owner
    escorts = [
        w.planes[k]
        for k, p in sorted(peek_where(w.planes, "mission", "escort"), reverse=True)
        if p.owner == owner and in_oparea(w, p, at)
    ]
    bombers = [p for p in bombers if _usable(c, p, escort=False)]
    escorts = [p for p in escorts if _usable(c, p, escort=True)]
    bases: list[Coord] = []
    for p in bombers:
        if p.xy not in bases:
            bases.insert(0, p.xy)
    performed = False
    air_dam = 0
    launched: set[int] = set()
    for base in bases:
        group = [air.Flight(p) for p in reversed(bombers) if p.xy == base]
        guards = [air.Flight(p) for p in reversed(escorts) if p.xy == base]
        bombers = [p for p in bombers if p.xy != base]
        escorts = [p for p in escorts if p.xy != base]
        path = w.geometry.fly_path(base, at)
        _arm(c, group, 2 * len(path), escort=False)
        if not group:
            continue
        _arm(c, guards, 2 * len(path), escort=True)
        performed = True
        name = MISSION_NAME[mission]
        c.tell(owner, f"Flying {name} mission from {c.at(base, owner)} to {c.at(at, owner)}")
        host = w.sector(base).owner
        if host and host != owner:
            c.tell(
                host,
                f"{c.name(owner)} is flying {name} mission from {c.at(base, host)}"
                f" to {c.at(at, host)}",
            )
        air.fly(c, base, path, group, guards, launched)
        if group:
            air_dam += _drop(c, group, at, victim, what, hard)
        air.land(c, group + guards)
    if air_dam > 0:
        c.news(victim, f"{c.name(owner)} {BOMB_NEWS.format(c.name(victim))}", -2, owner)
    return _tally(dam, air_dam) if performed else dam


def _arm(c: Combat, group: list[air.Flight], dist: int, *, escort: bool) -> None:
    """Fuel (and bombs, unless escorting) from the base; the sortie's mobility."""
    for f in list(group):
        p = f.plane
        base = air.base_of(c, p)
        if base is None or p.type.fuel > base.items.get("petrol", 0):
            group.remove(f)
            continue
        need = 0
        if not escort:
            need = plane_load(p.type, p.tech) // c.world.tables.items["s"].lbs
            if need <= 0 or base.items.get("shell", 0) < need:
                group.remove(f)
                continue
            base.items["shell"] = base.items.get("shell", 0) - need
        if p.type.fuel:
            base.items["petrol"] = base.items.get("petrol", 0) - p.type.fuel
        f.load = need
        p.mob -= air.mob_cost(p, dist, escort)


def hit_chance(p: Plane, hard: int) -> int:
    """A plane's chance in percent to hit a target of hardness ``hard`` (as a ship)."""
    t = p.type
    tech = int(p.tech)
    tfact = (tech - t.tech) / (tech - t.tech // 2)
    acc = plane_acc(t, p.tech)
    if t.has("ASW"):
        acc -= 20
    if not t.has("tactical"):
        acc += 35
    chance = int(p.eff * (1.0 - 0.1 * tfact) * (1.0 - acc / 100.0)) - hard
    if chance < 20:
        chance = 5 + ldround(300.0 / (40.0 - chance))
    return min(chance, 100)


def _drop(c: Combat, group: list[air.Flight], at: Coord, victim: int, what: str, hard: int) -> int:
    """Each plane that got through pin-bombs the target; misses fall as collateral damage."""
    total = 0
    for f in group:
        p = f.plane
        if not f.load:
            continue
        c.tell(
            p.owner,
            f"\t{p.name()} pin-bombing {c.name(victim)} {what} in {c.at(at, p.owner)}",
        )
        note = "" if hard == SECT_HARDTARGET else f"\t\t{hit_chance(p, hard)}% hit chance..."
        if c.dice.pct_chance(hit_chance(p, hard)):
            dam = plane_damage(c, p, note)
            c.tell(p.owner, f"\t\thit {c.name(victim)} {what} for {dam} damage")
            total += dam
        else:
            dam = plane_damage(c, p, None)
            c.tell(p.owner, f"{note}missed")
            c.notify(victim, f"SPLAT!  Bombs miss your {what} in {c.at(at, victim)}")
            collateral(c, at, dam)
        if p.type.has("missile"):
            p.eff = 0
    return total


def plane_damage(c: Combat, p: Plane, noisy: str | None) -> int:
    """The bombs of one plane (``pln_damage``): doubled for a pin-bomber on land.

    With ``noisy`` (a prefix, maybe empty) the owner hears every bomb,
    ``BLAM`` for a direct hit, ``Blam`` for a hit, ``blam`` for a near miss.
    """
    t = p.type
    load = plane_load(t, p.tech)
    if not load:
        return 0
    n = min(c.dice.roll(load) + 1, load)
    pinbomber = t.has("marine") if t.has("missile") else t.has("tactical")
    aim = 100 - plane_acc(t, p.tech)
    dam = 0
    line = noisy or ""
    for i in range(n - 1, -1, -1):
        if noisy is not None and len(line) > 75:
            c.notify(p.owner, line)
            line = ""
        dam += c.dice.roll(6)
        hit = c.dice.roll(100)
        if hit >= 90:
            dam += 8
            line += "BLAM"
        elif hit < aim:
            dam += 5
            line += "Blam"
        else:
            dam += 1
            line += "blam"
        if i:
            line += "-"
    if noisy is not None and line:
        c.notify(p.owner, line)
    return 2 * dam if pinbomber else dam


def collateral(c: Combat, at: Coord, dam: int) -> int:
    """What misses lands on the sector: ``collateral_dam`` of it, told to its owner."""
    s = c.world.sector(at)
    if not dam or not s.owner:
        return 0
    coll = ldround(dam * c.rules.collateral_dam)
    if coll == 0:
        return 0
    c.notify(s.owner, f"{c.at(at, s.owner)} takes {coll}% collateral damage")
    damage.sector(c, s, coll)
    return coll


# -- the three uses --------------------------------------------------------------------------


def dosupport(c: Combat, at: Coord, victim: int, helped: int, side: Mission) -> int:
    """§5.3 planes: every country helping ``helped`` flies its support missions."""
    w = c.world
    lists = mission_lists(c, at, ("support", side), lambda cn: w.helps(cn, helped, victim))
    total = 0
    for items in lists.values():
        dam = perform(c, at, victim, items, "support", "", SECT_HARDTARGET)
        if dam > 0:
            total += dam
    return total


def ground_interdict(c: Combat, at: Coord, victim: int, what: str) -> int:
    """§14.1: hostile interdiction missions fire at what moves into ``at``."""
    w = c.world
    lists = mission_lists(
        c, at, ("interdiction",), lambda cn: w.rel(cn, victim) <= Relation.HOSTILE
    )
    total = 0
    for cn, items in lists.items():
        dam = perform(c, at, victim, items, "interdiction", what, SECT_HARDTARGET)
        if dam > 0:
            total += dam
            c.notify(victim, f"{c.name(cn)} interdiction mission does {dam} damage!")
    if total:
        collateral(c, at, total)
    return total


def unit_interdict(c: Combat, at: Coord, victim: int, what: str, hard: int) -> int:
    """§14.2: the same against land units; -1 if no mission acted."""
    w = c.world
    lists = mission_lists(
        c, at, ("interdiction",), lambda cn: w.rel(cn, victim) <= Relation.HOSTILE
    )
    total = -1
    for cn, items in lists.items():
        subs = all(isinstance(i, Ship) and i.type.has("sub") for i in items)
        dam = perform(c, at, victim, items, "interdiction", what, hard)
        total = _tally(total, dam)  # as the server adds them: a country that did nothing is -1
        if dam > 0:
            c.notify(
                victim, f"{'Enemy' if subs else c.name(cn)} interdiction mission does {dam} damage!"
            )
    if total > 0:
        collateral(c, at, total)
    return total


__all__ = [
    "SECT_HARDTARGET",
    "collateral",
    "dosupport",
    "ground_interdict",
    "in_oparea",
    "mission_lists",
    "plane_damage",
    "unit_interdict",
]
