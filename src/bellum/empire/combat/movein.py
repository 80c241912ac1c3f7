"""Step 13 (moving into the taken sector) and step 14 (interdiction) (spec §13, §14)."""

from __future__ import annotations

from bellum.empire.combat.capture import pct
from bellum.empire.combat.force import ArmyAnswers
from bellum.empire.combat.state import BELL, Combat, Fighter, ldround
from bellum.empire.combat.strength import sector_defense
from bellum.empire.combat.support import aimed, ship_fire, ship_range, unit_fire, unit_range
from bellum.empire.events import Prompt
from bellum.empire.geometry import Coord
from bellum.empire.movement import MoveKind, attcost, unit_kind, unitcost
from bellum.empire.tables import land_vul
from bellum.empire.world import LandUnit, Relation, Sector
from bellum.numbers import c_atoi as atoi


def _covers(c: Combat, center: Coord | None, radius: int, at: Coord) -> bool:
    assert c.target is not None
    geo = c.world.geometry
    return geo.mapdist(c.target.xy, center or at) <= radius


def mission_interdiction(c: Combat) -> int:
    """§14.1: hostile ships and land units on interdiction missions fire at the move-in.

    Like every mission, only where the op area covers the target.

    Planes on interdiction missions do not fly yet (see the notes in docs).
    """
    t = c.target
    assert t is not None
    w = c.world
    geo = w.geometry
    total = 0
    for cnum in sorted(w.nations):
        if cnum == c.aggressor or w.rel(cnum, c.aggressor) > Relation.HOSTILE:
            continue
        dam = 0
        for _, sh in sorted(w.ships.items()):
            if sh.owner != cnum or sh.mission != "interdiction" or sh.mob < 1:
                continue
            dist = geo.mapdist(sh.xy, t.xy)
            if dist > 8 or sh.type.has("sub") or not _covers(c, sh.op_center, sh.op_radius, sh.xy):
                continue
            if ship_range(c, sh) >= dist:
                dam += ship_fire(c, sh)
        for _, u in sorted(w.units.items()):
            if u.owner != cnum or u.mission != "interdiction" or u.mob < 1:
                continue
            dist = geo.mapdist(u.xy, t.xy)
            if dist > 8 or not _covers(c, u.op_center, u.op_radius, u.xy):
                continue
            if unit_range(c, u) >= dist and (volley := unit_fire(c, u)) is not None:
                dam += aimed(c, u, volley)
        if dam > 0:
            c.say(f"{c.name(cnum)} interdiction mission does {dam} damage!")
            total += dam
    collateral = ldround(total * c.world.option("collateral_dam"))
    if total and t.owner and collateral:
        hit = sector_hit(c, t, collateral)
        if hit:
            c.notify(t.owner, f"{c.at(t.xy, t.owner)} takes {hit}% collateral damage")
    return total


def sector_hit(c: Combat, s: Sector, dam: int) -> int:
    """§0.8: a sector hit by ``dam`` loses efficiency, infrastructure and goods; the percent."""
    d1 = ldround(dam / sector_defense(s))
    p = min(pct(d1), 100)
    s.eff = c.dice.damage(s.eff, p)
    s.avail = c.dice.damage(s.avail, p)
    s.road = c.dice.damage(s.road, p)
    s.rail = c.dice.damage(s.rail, p)
    s.defense = c.dice.damage(s.defense, p)
    if s.mob > 0:
        s.mob = c.dice.damage(s.mob, p)
    for item in list(s.items):
        lost = c.dice.roundavg(s.items[item] * p / 100)
        if item in ("civ", "mil", "uw"):
            lost = ldround(lost * c.world.option("people_damage"))
        s.items[item] = max(0, s.items[item] - lost)
    d2 = ldround(100.0 * (d1 * 0.3) / (d1 * 0.3 + 100.0))
    if d2 > 0:
        for u in c.world.units_at(s.xy):
            if u.owner == s.owner and not u.loaded:
                _unit_hit(u, d2, c)
    return p


def landmine_hit(c: Combat, weight: int) -> int:
    """§14.1: mil stepping on the target's mines (harmless to the old owner)."""
    t = c.target
    assert t is not None
    mines = 0 if t.type.has("seamines") else t.mines
    if mines <= 0 or t.oldowner == c.aggressor:
        return 0
    if not c.dice.chance(mines / (mines + 35)):
        return 0
    if not c.dice.chance(weight / 100):
        return 0
    c.put(f"{BELL}Blammo! Landmines detected! in {c.at(t.xy)}  ")
    dmg = c.dice.roll(20)
    t.mines -= 1
    c.say(f"{dmg} damage sustained.")
    return dmg


def interdict_mil(c: Combat, n: int) -> int:
    """§14.1: how many of ``n`` moving mil survive the move-in."""
    if not c.world.option("INTERDICT_ATT"):
        return n
    dam = 0
    if c.dice.chance(n / 200):
        if c.dice.chance(n / 100):
            dam += mission_interdiction(c)
        dam += landmine_hit(c, n)
    if dam <= 0:
        return n
    lost = n - c.dice.damage(n, pct(dam))
    lost = ldround(lost * c.world.option("people_damage"))
    left = n - lost
    assert c.target is not None
    if left > 0:
        c.say(f"{lost} of the mil you were moving were destroyed!")
        c.say(f"Only {left} mil made it to {c.at(c.target.xy)}")
    else:
        c.say("All of the mil you were moving were destroyed!")
    return max(0, left)


def move_in_mil(c: Combat) -> None:
    """§13.1: per attacking sector, how many mil follow; 4.4.1 charges no mobility for it.
    End of input at one sector's question leaves the others unasked (as on 4.4.1)."""
    t = c.target
    assert t is not None
    for o in c.offs:
        s = o.sector
        if s is None or o.troops <= 0 or s.mob == 0:
            continue
        cost = attcost(c.world, c.aggressor, t, MoveKind.MOVE)
        most = min(o.troops, int(s.mob / cost))
        if most <= 0:
            continue
        text = f"How many mil to move in from {c.at(s.xy)} ({most} max)? "
        n = atoi(c.ask(Prompt(text, "move_in_mil", at=s.xy, max=most)))
        if c.aborted:
            break
        if n <= 0:
            continue
        n = min(n, most, o.troops)
        if n <= 0:
            c.say(f"No mil moved in from {c.at(s.xy)}")
            continue
        s.mil -= n
        o.troops -= n
        if c.world.option("fix_movein_mobility"):
            s.mob = max(0, s.mob - max(1, int(n * cost)))
        t.mil += interdict_mil(c, n)


def _unit_hit(u: LandUnit, dam: int, c: Combat) -> None:
    """§0.8: a land unit hit by ``dam`` loses efficiency, mobility and goods."""
    d = ldround(dam * 127 / (127 + u.fort) * land_vul(u.type, u.tech) / 100)
    d = min(d, 100)
    if u.type.has("spy"):
        u.eff = 0
        return
    u.eff = c.dice.damage(u.eff, d)
    if u.mob > 0:
        u.mob = c.dice.damage(u.mob, d)
    for k in list(u.items):
        u.items[k] = c.dice.damage(u.items[k], d)


def mine_checks(c: Combat, movers: list[LandUnit]) -> None:
    """§14.3: engineers sweep, then every unit that moved in may step on a mine."""
    t = c.target
    assert t is not None
    w = c.world
    if t.type.has("seamines"):
        return
    engineers = [u for u in movers if u.type.has("engineer")]
    if engineers and w.rel(t.oldowner, c.aggressor) != Relation.ALLIED:
        for e in engineers:
            if t.mines <= 0:
                break
            c.say(f"Approaching minefield at {c.at(t.xy)}...")
            for _ in range(2 * e.type.cargo.get("shell", 0)):
                if t.mines <= 0:
                    break
                c.say("Sweep...")
                if c.dice.chance(0.5 * e.type.att):
                    t.mines -= 1
                    if e.items.get("shell", 0) < e.type.cargo.get("shell", 0):
                        e.items["shell"] = e.items.get("shell", 0) + 1
                    else:
                        t.put("shell", min(9999, t.get("shell") + 1))
            _step_on_mines(c, e, 3)
    for u in movers:
        _step_on_mines(c, u, 3 if engineers else 1)


def _step_on_mines(c: Combat, u: LandUnit, divisor: int) -> None:
    t = c.target
    assert t is not None
    if t.mines <= 0 or c.world.rel(t.oldowner, u.owner) == Relation.ALLIED:
        return
    if c.dice.chance(t.mines / (t.mines + 35) / divisor):
        c.say(f"Blammo! Landmines detected in {c.at(t.xy)}!")
        dam = 10 + c.dice.roll(20)
        if u.type.has("engineer"):
            dam //= 2
        _unit_hit(u, dam, c)
        t.mines -= 1


def move_in_units(c: Combat) -> None:
    """§13.2-13.3: the attacking units that follow, each paying the march again.  After
    end of input (or ``q``) none is asked: each stays, as on 4.4.1."""
    t = c.target
    assert t is not None
    answers = ArmyAnswers(c)
    movers: list[Fighter] = []
    for f in list(c.a_units):
        u = f.unit
        if u.uid not in c.world.units or t.owner != c.aggressor:
            continue
        prompt = Prompt(
            f"Move in with {u.name()} ({u.army or '~'} {u.eff}%) [ynYNq?] ",
            "move_in_unit",
            uid=u.uid,
            army=u.army,
        )
        if answers.choose(prompt, u.army):
            movers.append(f)
        else:
            c.say(f"{u.name()} stays in {c.at(u.xy)}")
    if movers and c.world.option("INTERDICT_ATT"):
        dam = mission_interdiction(c)
        if dam > 0:
            share = ldround(dam / len(movers))
            for f in movers:
                _unit_hit(f.unit, share, c)
    moved: list[LandUnit] = []
    for f in movers:
        if f.unit.eff < 10:
            c.say(f"{f.unit.name()} was destroyed on its way in")
            c.world.units.pop(f.unit.uid, None)
            continue
        u = f.unit
        cost = unitcost(u, attcost(c.world, c.aggressor, t, unit_kind(u)))
        u.mob = int(max(-127.0, u.mob - cost))
        u.fort = 0
        u.x, u.y = t.xy
        moved.append(u)
        c.say(f"{u.name()} now occupies {c.at(t.xy)}")
    if moved and c.world.option("INTERDICT_ATT"):
        mine_checks(c, list(reversed(moved)))
