"""After the fight of every combat command (spec §6.5, §10-§15).

The order of :func:`conclude` is the server's order, which is also its draw
order: garrison, off-objects, unit mobility, target efficiency, casualties,
outcome and news, units written, capture, off-objects written, move-in.
"""

from __future__ import annotations

from dataclasses import replace

from bellum.empire.combat import capture, fight, movein, target
from bellum.empire.combat.result import COMMAND_BTU, CombatResult, Outcome
from bellum.empire.combat.state import Combat, Mode
from bellum.empire.movement import attcost, unit_kind, unitcost
from bellum.empire.world import LandUnit, Plague, Sector, Ship

#: Land units moving in after a board (§13.3): marines 10, others 40.
BOARD_COST = {True: 10.0, False: 40.0}


def assault_cost(c: Combat, u: LandUnit, ship: Ship | None) -> float:
    """§13.3: an update's worth of mobility (marines half); more from a non-landing ship."""
    gain = c.rules.etu_per_update * c.rules.land_mob_scale
    cost = gain / 2 if u.type.has("marine") else gain
    if ship is not None and not ship.type.has("land"):
        cost = max(cost, u.mob - 0.0) if u.type.has("marine") else max(cost, u.mob + cost)
    return float(cost)


def unit_movein_cost(c: Combat, u: LandUnit, target: Sector | None = None) -> float:
    """The mode's move-in cost of §13.3 for one attacking unit (attack: into ``target``,
    by default the target as it is now)."""
    if c.mode is Mode.ATTACK:
        target = target or c.target
        assert target is not None
        return unitcost(u, attcost(c.world, c.aggressor, target, unit_kind(u), rules=c.rules))
    if c.mode in (Mode.BOARD, Mode.LBOARD):
        return BOARD_COST[u.type.has("marine")]
    ship = c.offs[0].ship if c.offs else None
    return assault_cost(c, u, ship)


def pay(u: LandUnit, cost: float) -> None:
    """New mobility ``trunc(max(-127, mob - cost))``, fortification gone (§13.3)."""
    u.mob = int(max(-127.0, u.mob - cost))
    u.fort = 0


def sector_mob_loss(c: Combat, mob: int, newmob: int) -> int:
    """§11/§12: the server caps the loss at 20; the info page makes 20 the minimum."""
    if c.rules.info_sector_mobility:
        return min(mob, max(20, mob - newmob))
    return min(20, mob - newmob)


def conclude(c: Combat, result: CombatResult) -> None:
    """§6.5 items 1-10 and §15 for a fight that took place."""
    t, ship, unit = c.target, c.target_ship, c.target_unit
    victim = _losses(c)
    # 3. unit mobility, 4. the target's efficiency
    fight.unit_mobility(c)
    # The occupier pays its way into the target as it was before this damage:
    # the server charges it before it writes the damaged sector.
    undamaged = replace(t) if t is not None else None
    if t is not None:
        capture.damage_target(c)
    else:
        target_eff = ship or unit
        assert target_eff is not None
        target_eff.eff = c.dice.damage(target_eff.eff, capture.pct((c.d_cas + c.a_cas) // 10))
    cas = c.a_cas + c.d_cas
    c.say("- Casualties -")
    c.say(f"     Yours: {c.a_cas}")
    c.say(f"    Theirs: {c.d_cas}")
    c.say(f"Paper-shuffling ... {0.15 * cas:.1f} BTU")
    # 6. the outcome, the dead left aboard, news and telegram
    _outcome(c)
    # 7. reacting units go home; the attackers' units are written
    fight.send_home(c)
    fight.write_attackers(c)
    captured = _capture(c, undamaged)
    if c.target_infected and victim.plague == Plague.HEALTHY:
        victim.plague = Plague.EXPOSED
    _offs_pay(c)
    if captured:
        _move_in(c, victim)
    if c.money_made:
        c.say(f"You just made ${c.money_made}.00")
    if c.sneak:
        target.declare_sneak_war(c, c.success)
    charge = COMMAND_BTU + int(0.015 * cas + 0.5)
    c.world.charge_btus(c.aggressor, charge)
    result.btu_charged = charge
    result.outcome = (
        Outcome.CAPTURED if captured else Outcome.DEFEATED if not c.success else Outcome.UNOCCUPIED
    )
    result.attacker_casualties, result.defender_casualties = c.a_cas, c.d_cas
    result.money_made = c.money_made
    result.world_changed = True


def _losses(c: Combat) -> Sector | Ship | LandUnit:
    """Steps 1 and 2: the target's garrison and the off-objects lose their dead (their
    mobility loss is counted, paid in step 9); returns the target."""
    t, ship, unit = c.target, c.target_ship, c.target_unit
    # 1. the target's garrison
    if c.success:
        c.d_troops = 0
    elif t is not None and c.d_mil0 > 0 and c.d_cas > 0 and t.mob >= 0:
        newmob = c.dice.damage(t.mob, (100 * c.d_cas) // c.d_mil0)
        c.target_pending = sector_mob_loss(c, t.mob, newmob)
    victim = t or ship or unit
    assert victim is not None
    victim.mil = c.d_troops
    # 2. the off-objects lose their dead
    for o in c.offs:
        lost = o.troops0 - o.troops
        if lost <= 0:
            continue
        s = o.sector
        if s is not None and s.mil > 0 and s.mob >= 0:
            newmob = c.dice.damage(s.mob, (100 * lost) // s.mil)
            o.pending += sector_mob_loss(c, s.mob, newmob)
        o.mil = o.mil - lost
    return victim


def _capture(c: Combat, undamaged: Sector | None) -> bool:
    """Step 8: capture, or the target keeps its damaged self; whether it was captured."""
    t = c.target
    if c.success:
        if t is None:
            return take_vessel(c)
        if capture.occupy(c, lambda u: unit_movein_cost(c, u, undamaged)):
            capture.take_sector(c, t)
            return True
        if t.civ == 0 and t.mil == 0 and not c.world.units_at(t.xy):
            t.owner = 0
    elif t is not None:
        t.mob = max(0, t.mob - c.target_pending)
    return False


def _offs_pay(c: Combat) -> None:
    """Step 9: the off-objects pay their mobility (step 12)."""
    floor = -127 if c.rules.MOB_ACCESS else 0
    for o in c.offs:
        if o.sector is not None:
            o.sector.mob = max(floor, o.sector.mob - o.pending)
            if o.infected and o.sector.plague == Plague.HEALTHY:
                o.sector.plague = Plague.EXPOSED
        elif o.ship is not None:
            o.ship.mob = max(-127, o.ship.mob - o.pending)


def _move_in(c: Combat, victim: Sector | Ship | LandUnit) -> None:
    """Step 10: move in (§13.4)."""
    if c.mode is Mode.ATTACK:
        movein.move_in_mil(c)
        # The server reports the mil as they were before the units' move-in,
        # whose interdiction may hurt them.
        troops = victim.mil
        movein.move_in_units(c)
    else:
        move_in(c)
        troops = victim.mil
    if troops > 0:
        c.say(f"{troops} of your troops now occupy {c.target_name()}")


def _outcome(c: Combat) -> None:
    """§6.5 item 6 and the table of §15."""
    row = c.wording.ending
    a, d = c.aggressor, c.defender
    mine = c.target_name()
    theirs = c.target_name(d)
    if c.success:
        c.say(row.won.format(t=mine))
        if d:
            c.news(d, f"{c.name(a)} {row.news_won.format(d=c.name(d))}", row.goodwill_won)
        else:
            c.news(0, f"{c.name(a)} {row.news_unowned}", 0)
        c.tell(d, f"{c.natid(a)} lost {c.a_cas} troops {row.action_won} {theirs}")
    else:
        c.say(row.lost)
        if c.mode not in (Mode.PARADROP, Mode.ATTACK):
            for f in list(c.a_units):
                if f.unit.ship is not None:
                    c.say(f"{f.unit.name()} cannot return to the ship, and dies!")
                    c.a_units.remove(f)
                    c.world.units.pop(f.unit.uid, None)
        c.news(d, f"{c.name(a)} {row.news_lost.format(d=c.name(d))}", row.goodwill_lost)
        c.tell(d, f"{c.natid(a)} lost {c.a_cas} troops {row.action_lost} {theirs}")
    c.tell(d, f"We lost {c.d_cas} troops defending")


def take_vessel(c: Combat) -> bool:
    """§10.1 and §10.3: a boarded ship or land unit becomes A's, with what it carries."""
    w = c.world
    ship, unit = c.target_ship, c.target_unit
    victim = ship or unit
    assert victim is not None
    name = c.target_name()
    spy_target = unit is not None and unit.type.has("spy")
    o = capture.mover(c)
    if o is not None:
        if not spy_target:
            o.troops -= 1
            o.mil = o.mil - 1
            victim.mil = victim.mil + 1
            c.say(f"1 mil from {c.off_name(o)} moves onto {name}")
    else:
        if not c.a_units:
            c.say(f"{name} left unoccupied")
            c.tell(
                c.defender,
                f"No enemy troops moved onto {c.target_name(c.defender)} so you still own it!",
            )
            return False
        f = c.a_units.pop(0)
        _board_unit(c, f.unit)
    d = victim.owner
    victim.owner = c.aggressor
    victim.off = True
    victim.mission = ""
    if ship is not None:
        ship.fleet, ship.rpath, ship.rflags = "", "", ""
        for _, p in sorted(w.planes.items()):
            if p.ship == ship.uid and p.owner == d:
                p.eff, p.owner, p.mission, p.wing = 10, c.aggressor, "", ""
        for _, u in sorted(w.units.items()):
            if u.ship == ship.uid and u.owner == d:
                _take_unit(c, u)
                if c.rules.info_capture:
                    u.eff = 10
    else:
        assert unit is not None
        _take_unit(c, unit)
        for _, u in sorted(w.units.items()):
            if u.land == unit.uid and u.owner == d:
                _take_unit(c, u)
    return True


def _take_unit(c: Combat, u: LandUnit) -> None:
    """A captured land unit: A's, orders wiped, mobility at most 0, no fortification."""
    u.owner = c.aggressor
    u.mob, u.fort, u.off = min(u.mob, 0), 0, True
    u.retreat = c.rules.morale_base
    u.mission, u.op_center, u.op_radius, u.army = "", None, 0, ""


def _board_unit(c: Combat, u: LandUnit) -> None:
    """The unit that occupies a captured ship (§10.1): it pays and goes aboard."""
    ship = c.target_ship
    assert ship is not None
    pay(u, unit_movein_cost(c, u))
    u.x, u.y = ship.xy
    u.ship = ship.uid
    c.say(f"{u.name()} boards {ship.title()}")


def move_in(c: Combat) -> None:
    """§13.4: the victors' units, then the off-objects' troops (assault: with a lunch box)."""
    t = c.target
    movein.move_land(c, list(c.a_units), lambda u: unit_movein_cost(c, u))
    victim = t or c.target_ship or c.target_unit
    assert victim is not None
    for o in c.offs:
        n = o.troops
        if n <= 0:
            continue
        o.mil = o.mil - n
        o.troops = 0
        if not (c.target_unit is not None and c.target_unit.type.has("spy")):
            victim.mil = victim.mil + n  # a spy holds no mil: those boarding it vanish
        if c.mode is Mode.ASSAULT and o.ship is not None and t is not None:
            lunch_box(o.ship, t.items, n)


def lunch_box(ship: Ship, ashore: dict[str, int], troops: int) -> None:
    """§13.4: the food that goes ashore with ``troops`` landing from ``ship``."""
    food = ship.items.get("food", 0)
    left = ship.mil + troops + ship.items.get("civ", 0) + 0.5
    taken = int((troops + 1) * food / left)
    taken = min(taken, 9999 - ashore.get("food", 0))
    if taken <= 0:
        return
    ship.items["food"] = food - taken
    ashore["food"] = ashore.get("food", 0) + taken
