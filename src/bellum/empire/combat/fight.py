"""Step 6 (the fight), step 7 (plague) and step 8 (unit mobility) (spec §6-§8)."""

from __future__ import annotations

from bellum.empire.combat.state import Combat, Fighter, Mode, ldround
from bellum.empire.combat.strength import defense_total, offense_total
from bellum.empire.movement import mcost, unit_kind, unitcost
from bellum.empire.world import Plague
from bellum.formulas import JITTER_CHOICES, WINDOW_BASE, WINDOW_CHOICES, jitter, jitter_offset, odds


def header(c: Combat) -> None:
    """§6.1: final strengths and odds."""
    c.ototal = offense_total(c)
    c.dtotal = defense_total(c)
    c.success = c.dtotal == 0
    c.a_bodies = sum(o.troops for o in c.offs) + sum(f.unit.mil for f in c.a_units)
    c.d_bodies = c.d_troops + sum(f.unit.mil for f in c.d_units)
    c.d_mil0 = c.d_troops
    for o in c.offs:
        o.troops0 = o.troops
    c.odds0 = odds(c.ototal, c.dtotal)
    c.say(f"{c.wording.strength}{c.ototal:8d}")
    c.say(f"              Final defense strength: {c.dtotal:8d}")
    c.say(f"                          Final odds: {int(c.odds0 * 100):8d}%")


def plague(c: Combat) -> None:
    """§7: the aggressor infects the target, then the target infects the aggressor."""
    if not c.target_infected:
        c.target_infected = any(o.infected for o in c.offs)
    for o in c.offs:
        o.infected = o.infected or c.target_infected
    if c.offs and c.offs[0].infected:
        for f in c.a_units:
            if f.unit.plague == Plague.HEALTHY:
                f.unit.plague = Plague.EXPOSED
    if c.target_infected:
        for f in c.d_units:
            if f.unit.plague == Plague.HEALTHY:
                f.unit.plague = Plague.EXPOSED


def _jitter(c: Combat, p: float) -> float:
    """§6.2: the odds moved by the jitter the dice draw (:mod:`bellum.formulas`)."""
    return jitter(p, jitter_offset(c.dice.roll(JITTER_CHOICES)))


def fight(c: Combat) -> None:
    """§6.2: one casualty per round; the odds are redrawn every 9..51 rounds.

    Under the info page's rules (``info_fight``) the odds are simply the
    current strengths' ratio, recomputed after every casualty.
    """
    per_casualty = c.rules.info_fight
    p = c.odds0 if per_casualty else _jitter(c, c.odds0)
    countdown = 0 if per_casualty else WINDOW_BASE + c.dice.roll(WINDOW_CHOICES)
    while not c.success and c.ototal > 0:
        if c.dice.chance(p):
            c.put("!")
            c.d_cas += casualty(c, defender=True)
            c.dtotal = defense_total(c)
            if c.dtotal == 0:
                c.success = True
        else:
            c.put("@")
            c.a_cas += casualty(c, defender=False)
            c.ototal = offense_total(c)
        if (c.a_cas + c.d_cas) % 70 == 69:
            c.put("\n")
        if per_casualty:
            p = odds(c.ototal, c.dtotal)
        elif countdown <= 0:
            countdown = WINDOW_BASE + c.dice.roll(WINDOW_CHOICES)
            p = _jitter(c, odds(c.ototal, c.dtotal))
        else:
            countdown -= 1
    c.put("\n")


def casualty(c: Combat, defender: bool) -> int:
    """§6.3: mil die first, the biggest pile first; then the unit with the most mil."""
    tot = c.d_troops if defender else sum(o.troops for o in c.offs)
    if tot >= 2:
        if defender:
            c.d_troops -= 1
        else:
            biggest = c.offs[0]
            for o in c.offs:
                if o.troops > biggest.troops:
                    biggest = o
            biggest.troops -= 1
        return 1
    base, k = 0, 1
    if tot == 1:
        if defender:
            c.d_troops = 0
        else:
            for o in c.offs:
                if o.troops:
                    o.troops = 0
        base, k = 1, 0
    units = c.d_units if defender else c.a_units
    if not units:
        return base
    chosen: Fighter | None = None
    most = -1
    for f in units:
        if f.unit.mil > most:
            chosen, most = f, f.unit.mil
    assert chosen is not None
    return base + unit_casualty(c, chosen, k, Mode.DEFEND if defender else c.mode)


def unit_casualty(c: Combat, f: Fighter, k: int, mode: Mode) -> int:
    """§6.4: a unit loses a soldier and efficiency; it may die, or fail its morale."""
    u = f.unit
    units = c.d_units if mode is Mode.DEFEND else c.a_units
    before = u.mil
    u.eff -= ldround(k * 100.0 / u.type.milit)
    u.mil = max(0, u.mil - k)
    lead = "\n" if u.owner == c.aggressor else ""
    if u.eff < 10:
        verb = "defend" if mode is Mode.DEFEND else c.wording.dies
        c.notify(u.owner, f"{lead}{u.name()} dies {verb}ing {c.at(u.xy, u.owner)}!")
        units.remove(f)
        c.world.units.pop(u.uid, None)
        return before
    taken = before - u.mil
    if u.eff >= u.retreat:
        return taken
    if mode is Mode.DEFEND and u.loaded:
        return taken
    if not c.morale or not c.dice.pct_chance(u.retreat - u.eff):
        return taken
    c.notify(u.owner, f"{lead}{u.name()} fails morale check!")
    u.mission = ""
    u.fort = 0
    nowhere = False
    if u.loaded:
        nowhere = True
    elif mode is Mode.DEFEND:
        w = c.world
        best = None
        most = -1
        for n in w.geometry.neighbours(u.xy):
            s = w.sector(n)
            if (
                s.owner != u.owner
                or s.type.is_mountain
                or mcost(w, s, unit_kind(u), rules=c.rules) < 0
            ):
                continue
            if s.civ > most:
                best, most = s, s.civ
        if best is None:
            nowhere = True
        else:
            u.x, u.y = best.xy
            cost = int(unitcost(u, mcost(w, best, unit_kind(u), rules=c.rules)))
            u.mob = max(-127, u.mob - cost)
            c.notify(
                u.owner, f"{u.name()} retreats at {u.eff}% efficiency to {c.at(u.xy, u.owner)}!"
            )
            units.remove(f)
    else:
        u.mob = max(-127, u.mob - int(f.pending))
        f.pending = 0
        c.notify(u.owner, f"{u.name()} leaves the battlefield at {u.eff}% efficiency")
        units.remove(f)
    if nowhere:
        u.eff -= 10
        u.mil = max(0, u.mil - u.type.milit // 10)
        if u.eff < 10:
            c.notify(u.owner, f"{u.name()} has nowhere to retreat, and dies!")
            units.remove(f)
            c.world.units.pop(u.uid, None)
        else:
            c.notify(u.owner, f"{u.name()} has nowhere to retreat and takes extra losses!")
    return taken


def unit_mobility(c: Combat) -> None:
    """§8: every unit still fighting loses ``combat_mob`` x its side's loss factor."""
    info = c.rules.info_unit_mobility
    cm = 10.0 if info else c.rules.combat_mob
    for cas, bodies, units, defending in (
        (c.d_cas, c.d_bodies, c.d_units, True),
        (c.a_cas, c.a_bodies, c.a_units, False),
    ):
        if bodies <= 0 or cas <= 0:
            continue
        factor = cas / bodies
        for f in units:
            u = f.unit
            half = info and defending and u.mission == "reserve"
            u.mob = max(-127, u.mob - ldround(cm * factor / (2 if half else 1)))
            if info and c.dice.chance(factor):
                u.items["shell"] = u.items.get("shell", 0) - min(
                    u.items.get("shell", 0), u.type.ammo
                )


def send_home(c: Combat) -> None:
    """§9: reacting defenders go back where they came from, at no cost."""
    for f in c.d_units:
        if f.origin is not None and f.unit.xy != f.origin:
            f.unit.x, f.unit.y = f.origin
            c.tell(c.defender, f"{f.unit.name()} returns to {c.at(f.origin, c.defender)}")


def write_attackers(c: Combat) -> None:
    """§8: the attacking units are written: no mission, no fortification, pending cost paid.

    The server then reads each again (its ``put_oland``) and reports what the fight cost
    it, a line the spec does not list.
    """
    for f in c.a_units:
        u = f.unit
        u.mission, u.fort = "", 0
        u.mob = u.mob - int(f.pending)
        if f.eff is not None and u.eff < f.eff:
            c.say(f"{u.name()} damaged from {f.eff}% to {u.eff}%")
            f.eff = u.eff
