"""Step 13 (moving into the taken sector) and step 14 (interdiction) (spec §13, §14)."""

from __future__ import annotations

from collections.abc import Callable

from bellum.empire.combat import damage, missions
from bellum.empire.combat.force import ArmyAnswers
from bellum.empire.combat.state import BELL, Combat, Fighter, Mode
from bellum.empire.events import Prompt, PromptKind
from bellum.empire.movement import MoveKind, attcost, unit_kind, unitcost
from bellum.empire.tables import land_spd
from bellum.empire.world import LandUnit, NewsItem, Relation
from bellum.numbers import c_atoi as atoi


def landmine_hit(c: Combat, weight: int) -> int:
    """§14.1: mil stepping on the target's mines (harmless to the old owner)."""
    t = c.target
    assert t is not None
    mines = 0 if t.type.has("seamines") else t.minefield
    if mines <= 0 or t.oldowner == c.aggressor:
        return 0
    if not c.dice.chance(mines / (mines + 35)):
        return 0
    if not c.dice.chance(weight / 100):
        return 0
    c.put(f"{BELL}Blammo! Landmines detected! in {c.at(t.xy)}  ")
    dmg = c.dice.roll(20)
    t.mines = t.minefield - 1
    c.say(f"{dmg} damage sustained.")
    return dmg


def interdict_mil(c: Combat, n: int) -> int:
    """§14.1: how many of ``n`` moving mil survive the move-in."""
    t = c.target
    assert t is not None
    if not c.rules.INTERDICT_ATT:
        return n
    weight = n * c.world.tables.items["m"].lbs
    dam = 0
    if c.dice.chance(weight / 200):
        if c.dice.chance(weight / 100):
            dam += missions.ground_interdict(c, t.xy, c.aggressor, "military")
        dam += landmine_hit(c, weight)
    if dam <= 0:
        return n
    left = damage.people(c, n, dam)
    if left < n:
        if left > 0:
            c.say(f"{n - left} of the mil you were moving were destroyed!")
            c.say(f"Only {left} mil made it to {c.at(t.xy)}")
        else:
            c.say("All of the mil you were moving were destroyed!")
    return left


def move_in_mil(c: Combat) -> None:
    """§13.1: per attacking sector, how many mil follow; 4.4.1 charges no mobility for it.
    End of input at one sector's question leaves the others unasked (as on 4.4.1)."""
    t = c.target
    assert t is not None
    for o in c.offs:
        s = o.sector
        if s is None or o.troops <= 0 or s.mob == 0:
            continue
        cost = attcost(c.world, c.aggressor, t, MoveKind.MOVE, rules=c.rules)
        most = min(o.troops, int(s.mob / cost))
        if most <= 0:
            continue
        text = f"How many mil to move in from {c.at(s.xy)} ({most} max)? "
        n = atoi(c.ask(Prompt(text, PromptKind.MOVE_IN_MIL, at=s.xy, most=most)))
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
        if c.rules.fix_movein_mobility:
            s.mob = max(0, s.mob - max(1, int(n * cost)))
        # ask_move_in_off reads the target again after the interdiction: the arrivals
        # join what its collateral damage left of the mil already there.
        left = interdict_mil(c, n)
        t.mil += left


def easiest_target(c: Combat, units: list[LandUnit]) -> int:
    """How hard the easiest of ``units`` is to hit from the air, less one per unit (§14.2)."""
    w = c.world
    hardest = 9876
    for u in units:
        s = w.sector(u.xy)
        hard = int(
            (u.eff / 100.0)
            * (10 + s.type.defense * 2 + land_spd(u.type, u.tech) / 2.0 - u.type.vis)
        )
        hardest = min(hardest, hard)
    return hardest - len(units)


def _share_hits(c: Combat, fighters: list[Fighter], dam: int) -> None:
    """Interdiction damage is shared out evenly among the moving units, last chosen first."""
    if not dam or not fighters:
        return
    each = int(dam / len(fighters) + 0.5)
    for f in reversed(fighters):
        damage.land(c, f.unit, each)


def move_land(
    c: Combat,
    fighters: list[Fighter],
    cost_of: Callable[[LandUnit], float],
    before: dict[int, int] | None = None,
) -> None:
    """§13.2-13.4: the units move in, each paying ``cost_of`` it; engineers sweep and
    every unit may step on a mine (sector targets only); then each is reported.

    ``before`` holds efficiencies from before the interdiction, for the
    server's ``damaged from`` lines.
    """
    w = c.world
    t = c.target
    ship = c.target_ship
    moving: list[LandUnit] = []
    for f in fighters:
        u = f.unit
        if u.uid not in w.units:
            continue
        was = (before or {}).get(u.uid, u.eff)
        if u.eff < was:
            c.say(f"{u.name()} damaged from {was}% to {u.eff}%")
        u.mob = int(max(-127.0, u.mob - cost_of(u)))
        u.fort = 0
        if ship is not None:
            u.x, u.y = ship.xy
            u.ship = ship.uid
        elif t is not None:
            u.x, u.y = t.xy
            u.ship = None
        moving.append(u)
    if t is not None:
        landing_mines = c.mode is Mode.ATTACK or not c.rules.info_no_landing_mines
        if c.rules.INTERDICT_ATT and landing_mines:
            mine_checks(c, moving)
        where = f"now occupies {c.at(t.xy)}"
    else:
        where = f"boards {c.target_name()}"
    for u in moving:
        if u.uid in w.units:
            c.say(f"{u.name()} {where}")


def mine_checks(c: Combat, movers: list[LandUnit]) -> None:
    """§14.3: engineers sweep (last chosen first), then every unit may step on a mine."""
    t = c.target
    assert t is not None
    w = c.world
    if t.type.has("seamines"):
        return
    engineers = [u for u in movers if u.type.has("engineer")]
    if engineers and w.rel(t.oldowner, c.aggressor) != Relation.ALLIED:
        first = True
        for e in reversed(engineers):
            if e.uid not in w.units or t.minefield <= 0:
                continue
            most = e.type.cargo.get("shell", 0)
            for _ in range(2 * most):
                if t.minefield <= 0:
                    break
                if c.dice.chance(0.5 * e.type.att):
                    if first:
                        c.say(f"Approaching minefield at {c.at(t.xy)}...")
                        first = False
                    c.say("Sweep...")
                    t.mines = t.minefield - 1
                    if e.items.get("shell", 0) < most:
                        e.items["shell"] = e.items.get("shell", 0) + 1
                    elif t.get("shell") < 9999:
                        t.put("shell", t.get("shell") + 1)
            _step_on_mines(c, e, 3)
    for u in reversed(movers):
        _step_on_mines(c, u, 3 if engineers else 1)


def _step_on_mines(c: Combat, u: LandUnit, divisor: int) -> None:
    t = c.target
    assert t is not None
    if u.uid not in c.world.units:
        return
    if t.minefield <= 0 or c.world.rel(t.oldowner, u.owner) == Relation.ALLIED:
        return
    if c.dice.chance(t.minefield / (t.minefield + 35) / divisor):
        c.notify(u.owner, f"Blammo! Landmines detected in {c.at(t.xy, u.owner)}!")
        c.world.news.append(NewsItem(u.owner, 0, f"{c.name(u.owner)} {MINE_NEWS}"))
        dam = 10 + c.dice.roll(20)
        if u.type.has("engineer"):
            dam //= 2
        damage.land(c, u, dam)
        t.mines = t.minefield - 1


#: The news of a land unit that runs into a mine (no goodwill lost: it has no victim).
MINE_NEWS = "troops run afoul of a landmine"


def move_in_units(c: Combat) -> None:
    """§13.2-13.3 and §14.2: the attacking units that follow, each paying the march
    again.  After end of input (or ``q``) none is asked: each stays, as on 4.4.1."""
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
            PromptKind.MOVE_IN_UNIT,
            uid=u.uid,
            army=u.army,
        )
        if answers.choose(prompt, u.army):
            movers.append(f)
        else:
            c.say(f"{u.name()} stays in {c.at(u.xy)}")
    if not movers:
        return
    before = {f.unit.uid: f.unit.eff for f in movers}
    if c.rules.INTERDICT_ATT:
        hard = easiest_target(c, [f.unit for f in movers])
        dam = missions.unit_interdict(c, t.xy, c.aggressor, "land units", hard)
        if dam >= 0:
            _share_hits(c, movers, dam)
    move_land(
        c,
        movers,
        lambda u: unitcost(u, attcost(c.world, c.aggressor, t, unit_kind(u), rules=c.rules)),
        before,
    )
