"""Step 5: fort, ship, unit and plane support, and the land-mine bonus (spec §5)."""

from __future__ import annotations

from bellum.empire import air
from bellum.empire.combat.state import BELL, Combat
from bellum.empire.combat.strength import defense_total, offense_total
from bellum.empire.geometry import Coord
from bellum.empire.supply import in_supply
from bellum.empire.tables import (
    land_acc,
    land_dam,
    land_frg,
    plane_acc,
    plane_load,
    plane_range,
    ship_frange,
    ship_glim,
    techfact,
)
from bellum.empire.world import LandUnit, Plane, Sector, Ship


def fort_range(c: Combat, s: Sector) -> float:
    """§0.5: a fortress's firing range; -1 for anything that cannot fire."""
    if not s.type.has("fortress") or s.eff < 5:
        return -1.0
    tech = c.world.nations[s.owner].tech if s.owner in c.world.nations else 0.0
    rng = techfact(int(tech), int(14 * c.world.option("fire_range_factor")) / 2.0)
    return rng + (1 if s.eff >= 60 else 0)


def fort_damage(c: Combat, victim: int, helped: int) -> int:
    """§5.3 forts: every helping sector within 8 rolls its range; real forts fire."""
    w = c.world
    if w.option("NO_FORT_FIRE") or helped == 0 or victim == helped:
        return 0
    assert c.target is not None
    p = c.target.xy
    total = 0
    for xy in w.geometry.within(p, 8):
        if total >= 80:
            break
        s = w.sectors[xy]
        if not w.helps(s.owner, helped, victim):
            continue
        rng = c.dice.roundavg(fort_range(c, s))
        if rng < w.geometry.mapdist(xy, p):
            continue
        guns = s.get("gun")
        if not (s.type.has("fortress") and s.eff >= 5 and s.mil >= 5 and guns > 0):
            continue
        if s.get("shell") < 1:
            continue
        dmg = int((c.dice.roll(30) + 19) * min(guns, 7) / 7 * s.eff / 100)
        s.put("shell", s.get("shell") - 1)
        total += dmg
        if s.owner != helped:
            c.tell(
                s.owner,
                f"{c.at(xy, s.owner)} fired on {c.name(victim)} in {c.at(p, s.owner)}"
                f" in defense of {c.name(helped)}, doing {dmg} damage!",
            )
    return total


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


def ship_damage(
    c: Combat, victim: int, helped: int, at: Coord | None = None, approach: bool = False
) -> int:
    """§5.3 ships: helping surface ships within 8 fire while the remaining factor > 0.30.

    ``approach`` is the board's approach fire at ``at`` (§5.5): submarines fire
    too and every salvo is announced to the boarders.
    """
    w = c.world
    if helped == 0 or victim == helped:
        return 0
    if at is None:
        assert c.target is not None
        at = c.target.xy
    p = at
    f = 1.0
    for _, sh in sorted(w.ships.items()):
        if f <= 0.30:
            break
        dist = w.geometry.mapdist(sh.xy, p)
        if dist > 8 or not w.helps(sh.owner, helped, victim):
            continue
        if sh.type.has("sub") and not approach:
            continue
        if sh.mission and w.option("info_mission_fire"):
            continue
        if ship_range(c, sh) < dist:
            continue
        dmg = ship_fire(c, sh)
        if approach and dmg:
            c.say(f"{BELL}Incoming shells do {dmg} damage!")
        f *= 1 - 0.01 * dmg
    return int(100 - 100 * f)


def unit_range(c: Combat, u: LandUnit) -> int:
    """A land unit's firing range this time (randomly rounded, one draw)."""
    return c.dice.roundavg(techfact(u.tech, land_frg(u.type, u.tech) / 2.0))


def unit_fire(c: Combat, u: LandUnit) -> int:
    """One land unit's volley at the target (§5.3), halved when it misses its aim."""
    if u.eff < 40 or u.loaded or u.mil <= 0:
        return 0
    g = min(land_dam(u.type, u.tech), u.items.get("gun", 0))
    if g <= 0:
        return 0
    in_supply(c.world, u, dice=c.dice)
    shells = u.items.get("shell", 0)
    if shells <= 0:
        return 0
    d = sum(4 + c.dice.roll(6) for _ in range(g)) * u.eff / 100
    ammo = u.type.ammo
    if shells < ammo:
        d *= shells / ammo
        u.items["shell"] = 0
    else:
        u.items["shell"] = shells - ammo
    d2 = int(d)
    if c.dice.pct_chance(land_acc(u.type, u.tech) - 1):
        d2 //= 2
    return d2


def unit_damage(c: Combat, victim: int, helped: int) -> int:
    """§5.3 land units: artillery in range (not at the target) fires, sometimes off target."""
    w = c.world
    assert c.target is not None
    p = c.target.xy
    total = 0
    for _, u in sorted(w.units.items()):
        if u.xy == p or not w.helps(u.owner, helped, victim):
            continue
        if u.mission and w.option("info_mission_fire"):
            continue
        if w.geometry.mapdist(u.xy, p) > unit_range(c, u):
            continue
        d2 = unit_fire(c, u)
        if d2 <= 0:
            continue
        total += d2
        if u.owner != helped:
            c.tell(u.owner, f"{u.name()} supported {c.name(helped)} at {c.at(p, u.owner)}")
    return total


def _covers(c: Combat, p: Plane, at: Coord) -> bool:
    """The plane's op area holds ``at`` and ``at`` is within its reach (§5.3)."""
    geo = c.world.geometry
    reach = plane_range(p.type, p.tech)
    if not p.type.has("missile"):
        reach //= 2
    return geo.mapdist(at, p.op_center or p.xy) <= p.op_radius and geo.mapdist(at, p.xy) <= reach


def bomb_damage(c: Combat, p: Plane) -> int:
    """``bombdmg`` (§5.3): a random number of bombs, each with its own aim."""
    load = plane_load(p.type, p.tech)
    if load <= 0:
        return 0
    dmg = 0
    for _ in range(min(c.dice.roll(load) + 1, load)):
        dmg += c.dice.roll(6)
        h = c.dice.roll(100)
        dmg += 8 if h >= 90 else 5 if h < 100 - plane_acc(p.type, p.tech) else 1
    return dmg


def _take(s: Sector, item: str, n: int) -> bool:
    if s.get(item) < n:
        return False
    s.put(item, s.get(item) - n)
    return True


def plane_damage(c: Combat, victim: int, helped: int, defending: bool = False) -> int:
    """§5.3 planes on support missions; air combat en route is §16.5's summary (air.py).

    Missiles fly straight in (they may blow up on launch) until the country's
    missile damage reaches 100; other tactical planes fly from their bases,
    armed with fuel and bombs there, through flak and fighters, and the
    survivors hit twice their bomb damage.
    """
    w = c.world
    if helped == 0 or victim == helped:
        return 0
    assert c.target is not None
    p_at = c.target.xy
    side_mission = "dsupport" if defending else "osupport"
    total = 0
    for cnum in sorted(w.nations):
        if not w.helps(cnum, helped, victim):
            continue
        mine = [
            p
            for _, p in sorted(w.planes.items())
            if p.owner == cnum
            and p.mob >= 1
            and p.mission in ("support", side_mission)
            and _covers(c, p, p_at)
        ]
        missile_dmg = 0
        for p in [p for p in mine if p.type.has("missile") and not p.type.has("marine")]:
            if missile_dmg >= 100:
                break
            if not _take(w.sector(p.xy), "shell", plane_load(p.type, p.tech)):
                continue
            w.planes.pop(p.uid, None)
            blowup = (0.05 + (100 - p.eff) / 100) * (1 - techfact(p.tech, 1))
            if c.dice.chance(blowup):
                c.notify(cnum, f"{p.name()} explodes on launch!")
                continue
            missile_dmg += bomb_damage(c, p)
        total += missile_dmg
        flyers = [
            p
            for p in mine
            if not p.type.has("missile")
            and p.eff >= 40
            and p.type.has("tactical")
            and not p.type.has("ASW")
            and air.airbase_ok(c, p, oneway=False, noisy=False)
        ]
        escorts = [
            p
            for _, p in sorted(w.planes.items())
            if p.owner == cnum and p.mission == "escort" and p.mob >= 1 and _covers(c, p, p_at)
        ]
        for base in sorted({p.xy for p in flyers}, key=lambda xy: (xy[1], xy[0])):
            path = w.geometry.fly_path(base, p_at)
            bombers: list[air.Flight] = []
            guards: list[air.Flight] = []
            for p in [p for p in flyers if p.xy == base] + [e for e in escorts if e.xy == base]:
                escort = p.mission == "escort"
                s = w.sector(base)
                if not _take(s, "petrol", p.type.fuel):
                    continue
                if not escort and not _take(s, "shell", plane_load(p.type, p.tech)):
                    s.put("petrol", s.get("petrol") + p.type.fuel)
                    continue
                p.mob -= air.mob_cost(p, 2 * len(path), escort)
                (guards if escort else bombers).append(air.Flight(p))
            if not bombers:
                continue
            air.fly(c, base, path, bombers, guards, set())
            for f in bombers:
                c.dice.roll(100)
                total += 2 * bomb_damage(c, f.plane)
            air.land(c, bombers + guards)
    return total


def support(c: Combat, wanted: tuple[bool, bool, bool, bool]) -> None:
    """§5.1: both sides' multipliers, in the server's order, then the support table."""
    a, d = c.aggressor, c.defender
    af = as_ = au = ap = 0.0
    if wanted[0]:
        af = fort_damage(c, d, a) / 100
    if wanted[1]:
        as_ = ship_damage(c, d, a) / 100
    if wanted[2]:
        au = unit_damage(c, d, a) / 100
    if wanted[3]:
        ap = plane_damage(c, d, a) / 100
    c.osup = 1 + af + as_ + au + ap
    c.ototal = offense_total(c)
    dtotal = defense_total(c, 1.0)
    df = ds = du = dp = 0.0
    computed = False
    if dtotal < 0.1 * c.ototal:
        _odds_telegram(c, "Odds are bad for us...support cancelled.")
    elif dtotal >= 1.2 * c.ototal:
        _odds_telegram(c, "Odds are good for us...support cancelled.")
    else:
        computed = True
        df = fort_damage(c, a, d) / 100
        c.dsup = 1 + df
        if defense_total(c) < 1.2 * c.ototal:
            ds = ship_damage(c, a, d) / 100
            c.dsup += ds
        if defense_total(c) < 1.2 * c.ototal:
            du = unit_damage(c, a, d) / 100
            c.dsup += du
        if defense_total(c) < 1.2 * c.ototal:
            dp = plane_damage(c, a, d, defending=True) / 100
            c.dsup += dp
    c.ototal = offense_total(c)
    if c.osup != 1 or (computed and c.dsup != 1):
        table = "\n\t\tsupport values\n\t\tforts\tships\tunits\tplanes\n"
        if c.osup != 1:
            table += f"attacker\t{af:1.2f}\t{as_:1.2f}\t{au:1.2f}\t{ap:1.2f}\n"
        if computed and c.dsup != 1:
            table += f"defender\t{df:1.2f}\t{ds:1.2f}\t{du:1.2f}\t{dp:1.2f}\n"
        c.put(table + "\n")
        c.tell(d, table)
    mine_bonus(c)


def _odds_telegram(c: Combat, text: str) -> None:
    c.tell(c.defender, f"\n{text}\n")


def mine_bonus(c: Combat) -> None:
    """§5.4: defending land mines add 0.02 each (20 at most), halved with engineers."""
    t = c.target
    assert t is not None
    if defense_total(c) == 0 or t.oldowner == c.aggressor:
        return
    mines = 0 if t.type.has("seamines") else t.mines
    m = min(mines, 20)
    if c.a_engineer > 0:
        m = int(m / 2.0 + 0.5)
    if m > 0:
        c.dsup += 0.02 * m
        c.say(f"Defending mines add {0.02 * m:1.2f}")
        c.tell(c.defender, f"Defending mines add {0.02 * m:1.2f}")
