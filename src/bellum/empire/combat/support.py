"""Step 5: fort, ship, unit and plane support, and the land-mine bonus (spec §5)."""

from __future__ import annotations

from bellum.empire.combat import missions
from bellum.empire.combat.guns import ship_fire, ship_range, unit_fire, unit_range
from bellum.empire.combat.state import BELL, Combat
from bellum.empire.combat.strength import defense_total, offense_total
from bellum.empire.geometry import Coord
from bellum.empire.tables import (
    land_acc,
    techfact,
)
from bellum.empire.world import Sector

#: The news of support fire (§5.3), by who fires, when helping the aggressor: each
#: item may turn the victim hostile.  Fire in defense is news that never does.
SUPPORT_NEWS = {
    "fort": "fortress gunners support troops attacking {}",
    "ship": "naval gunners support troops attacking {}",
    "unit": "gunners support troops attacking {}",
}
SELF_DEFENSE_NEWS = "gunners fire on {} in self-defense"


def _support_news(c: Combat, who: str, firer: int, victim: int, helped: int) -> None:
    """The news item of one volley; the defender's (``helped``) side fires in self-defense."""
    if helped == c.defender and victim == c.aggressor:
        c.news(victim, f"{c.name(firer)} {SELF_DEFENSE_NEWS.format(c.name(victim))}", 0, firer)
    else:
        c.news(victim, f"{c.name(firer)} {SUPPORT_NEWS[who].format(c.name(victim))}", -2, firer)


def fort_range(c: Combat, s: Sector) -> float:
    """§0.5: a fortress's firing range; -1 for anything that cannot fire."""
    if not s.type.has("fortress") or s.eff < 5:
        return -1.0
    tech = c.world.tech(s.owner)
    rng = techfact(int(tech), int(14 * c.rules.fire_range_factor) / 2.0)
    return rng + (1 if s.eff >= 60 else 0)


def fort_damage(c: Combat, victim: int, helped: int) -> int:
    """§5.3 forts: every helping sector within 8 rolls its range; real forts fire."""
    w = c.world
    if c.rules.NO_FORT_FIRE or helped == 0 or victim == helped:
        return 0
    assert c.target is not None
    p = c.target.xy
    total = 0
    for xy in w.geometry.within(p, 8):
        if total >= 80:
            break
        s = w.peek(xy)
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
        s = w.sector(xy)  # the fort fires: its own copy loses the shell
        s.put("shell", s.get("shell") - 1)
        total += dmg
        if s.owner != helped:
            c.tell(
                s.owner,
                f"{c.at(xy, s.owner)} fired on {c.name(victim)} in {c.at(p, s.owner)}"
                f" in defense of {c.name(helped)}, doing {dmg} damage!",
            )
        _support_news(c, "fort", s.owner, victim, helped)
    return total


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
        if sh.mission and c.rules.info_mission_fire:
            continue
        if ship_range(c, sh) < dist:
            continue
        dmg = ship_fire(c, sh)
        if not dmg:
            continue
        _support_news(c, "ship", sh.owner, victim, helped)
        f *= 1 - 0.01 * dmg
        if approach:
            c.say(f"{BELL}Incoming shells do {dmg} damage!")
        there = c.at(p, sh.owner)
        if sh.owner == helped:
            if approach:
                c.tell(
                    sh.owner,
                    f"{sh.title()} fired on {c.name(victim)} at {there} doing {dmg} damage.",
                )
        elif helped == c.defender and victim == c.aggressor:
            c.tell(
                sh.owner,
                f"{sh.title()} fired on {c.name(victim)} at {there}"
                f" in defense of {c.name(helped)}, doing {dmg} damage.",
            )
        else:
            c.tell(
                sh.owner,
                f"{sh.title()} supported {c.name(helped)} attacks against {c.name(victim)}"
                f" at {there}, doing {dmg} damage.",
            )
    return int(100 - 100 * f)


def unit_damage(c: Combat, victim: int, helped: int) -> int:
    """§5.3 land units: artillery in range (not at the target) fires, sometimes off target."""
    w = c.world
    assert c.target is not None
    p = c.target.xy
    total = 0
    for _, u in sorted(w.units.items()):
        if u.xy == p or not w.helps(u.owner, helped, victim):
            continue
        if u.mission and c.rules.info_mission_fire:
            continue
        if w.geometry.mapdist(u.xy, p) > unit_range(c, u):
            continue
        d2 = unit_fire(c, u)
        if d2 < 0:
            continue
        _support_news(c, "unit", u.owner, victim, helped)
        if c.dice.pct_chance(land_acc(u.type, u.tech) - 1):
            d2 //= 2
        total += d2
        if u.owner != helped:
            c.tell(u.owner, f"{u.name()} supported {c.name(helped)} at {c.at(p, u.owner)}")
    return total


def support(c: Combat, wanted: tuple[bool, bool, bool, bool]) -> None:
    """§5.1: both sides' multipliers, in the server's order, then the support table."""
    a, d = c.aggressor, c.defender
    assert c.target is not None
    af = as_ = au = ap = 0.0
    if wanted[0]:
        af = fort_damage(c, d, a) / 100
    if wanted[1]:
        as_ = ship_damage(c, d, a) / 100
    if wanted[2]:
        au = unit_damage(c, d, a) / 100
    if wanted[3]:
        ap = missions.dosupport(c, c.target.xy, d, a, "osupport") / 100
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
            dp = missions.dosupport(c, c.target.xy, a, d, "dsupport") / 100
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
    mines = 0 if t.type.has("seamines") else t.minefield
    m = min(mines, 20)
    if c.a_engineer > 0:
        m = int(m / 2.0 + 0.5)
    if m > 0:
        c.dsup += 0.02 * m
        c.say(f"Defending mines add {0.02 * m:1.2f}")
        c.tell(c.defender, f"Defending mines add {0.02 * m:1.2f}")
