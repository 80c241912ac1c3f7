"""``board`` (a ship, from a ship or a sector) and ``lboard`` (a land unit) (spec §16.3).

Boarding has no reaction and no support: the victim fights with the mil and
units aboard it, its armor as the multiplier (§3.3).  Before a ship is
boarded the ships around it fire at the boarders (§5.5).  The capture of the
vessel and the move aboard are in :mod:`.conclude`.
"""

from __future__ import annotations

from collections.abc import Callable

from bellum.dice import ServerRandom
from bellum.empire.combat import defenders, force, support
from bellum.empire.combat.capture import pct
from bellum.empire.combat.conclude import conclude
from bellum.empire.combat.flows import (
    Lost,
    ask_mil,
    ask_number,
    ask_text,
    fight_out,
    initial_strength,
    run_flow,
)
from bellum.empire.combat.movein import _unit_hit
from bellum.empire.combat.result import CombatResult
from bellum.empire.combat.state import (
    Combat,
    Failure,
    Fighter,
    Mode,
    OffObject,
    UsageFailure,
    infected,
    ldround,
    roundint10,
)
from bellum.empire.combat.strength import sector_defense
from bellum.empire.events import Prompter, Sink
from bellum.empire.supply import in_supply
from bellum.empire.tables import techfact
from bellum.empire.world import ITEMS, LandUnit, Sector, Ship, World
from bellum.errors import UsageError
from bellum.numbers import ASCII_DIGITS, to_int

BOARD_USAGE = "Usage: board <to-SHIP> [<from-SHIP> or <from-SECT>]"
LBOARD_USAGE = "Usage: lboard <to-LAND> [<from-SECT>]"
PEOPLE = ("civ", "mil", "uw")


def board(
    world: World,
    victim: str | None,
    source: str | None,
    aggressor: int,
    dice: ServerRandom,
    prompter: Prompter,
    sink: Sink | None = None,
) -> CombatResult:
    """``board <to-SHIP> [<from-SHIP> or <from-SECT>]`` (spec §16.3)."""
    return _boarding(
        Mode.BOARD, _board_flow, world, victim, source, aggressor, dice, prompter, sink
    )


def lboard(
    world: World,
    victim: str | None,
    source: str | None,
    aggressor: int,
    dice: ServerRandom,
    prompter: Prompter,
    sink: Sink | None = None,
) -> CombatResult:
    """``lboard <to-LAND> [<from-SECT>]`` (spec §16.3): board an enemy land unit."""
    return _boarding(
        Mode.LBOARD, _lboard_flow, world, victim, source, aggressor, dice, prompter, sink
    )


Flow = Callable[[Combat, str | None, str | None, CombatResult], None]


def _boarding(
    mode: Mode,
    flow: Flow,
    world: World,
    victim: str | None,
    source: str | None,
    aggressor: int,
    dice: ServerRandom,
    prompter: Prompter,
    sink: Sink | None,
) -> CombatResult:
    c = Combat(world, dice, prompter, aggressor, mode, sink=sink)
    result = CombatResult(
        command=mode.value, seed=dice.seed, outcome="aborted", aggressor=aggressor
    )
    return run_flow(c, result, lambda: flow(c, victim, source, result))


def _refuse(c: Combat, text: str) -> Failure:
    """A legality check failed after the arguments were read (§1.2): the abort line follows."""
    verb = "Board aborted" if c.mode is Mode.BOARD else "Land unit boarding aborted"
    return Failure(f"{text}\n{verb}")


def _own_sector(c: Combat, text: str, usage: str) -> Sector:
    """A boarding sector given as ``x,y``: it must exist and be A's (a usage error if not)."""
    w = c.world
    try:
        xy = w.geometry.parse(text, w.nations[c.aggressor].origin)
    except UsageError:
        raise UsageFailure(usage) from None
    s = w.sector(xy)
    if s.owner != c.aggressor:
        raise UsageFailure(f"You don't own {c.at(s.xy)}!\n{usage}")
    return s


def _is_sector(text: str) -> bool:
    """§1.1: "from" is a sector if it has anything but digits, blanks and ``/``."""
    return any(ch not in ASCII_DIGITS and ch not in " /" for ch in text)


def _board_flow(c: Combat, victim: str | None, source: str | None, result: CombatResult) -> None:
    w = c.world
    a = c.aggressor
    vnum = ask_number(c, victim, "Victim ship #?  ", BOARD_USAGE)
    src = ask_text(c, source, "Boarding party from? ", BOARD_USAGE)
    o: OffObject
    if _is_sector(src):
        s = _own_sector(c, src, BOARD_USAGE)
        movers = [
            u
            for u in w.units_at(s.xy)
            if u.owner == a and not u.loaded and u.mob > 0 and u.type.has("assault")
        ]
        if s.mob <= 0 and not movers:
            raise UsageFailure(
                f"You don't have any mobility (sector or land units) in {c.at(s.xy)}!\n"
                + BOARD_USAGE
            )
        o = OffObject(sector=s, infected=infected(s.plague))
    else:
        number = to_int(src)
        if number is None:
            raise UsageFailure(BOARD_USAGE)
        o = OffObject(ship=w.ships.get(number))
    v = w.ships.get(vnum)
    if v is None or v.owner == 0:
        raise _refuse(c, f"Ship #{vnum} is not in the same sector!")
    if v.owner == a:
        raise _refuse(c, "Boarding yourself?  Try using the 'tend' command.")
    sh = o.ship
    if o.sector is None:
        if sh is None or sh.owner != a:
            raise _refuse(c, f"Ship #{src} is not your ship!")
        o.infected = infected(sh.plague)
    if o.xy != v.xy:
        raise _refuse(c, f"Ship #{vnum} is not in the same sector!")
    if sh is not None:
        if sh.mob <= 0:
            raise _refuse(c, f"{sh.title()} has no mobility!")
        if techfact(sh.tech, sh.speed) * sh.eff <= techfact(v.tech, v.speed) * v.eff:
            c.tell(v.owner, f"{c.name(a)} {sh.title()} failed to catch {v.title()}")
            raise _refuse(c, "Victim ship moves faster than you do!")
    if v.type.has("sub") and w.sector(v.xy).type.is_sea:
        raise _refuse(c, "You can't board a submarine!")
    c.target_ship, c.defender = v, v.owner
    c.offs = [o]
    result.defender, result.target = v.owner, v.title()
    approach_fire(c, o, v, result)
    show_vessel(c, v)
    ask_mil(c, o, lambda avail: _party_limit(c, o, v.type.milit, "ship", avail))
    if o.troops > 0:
        if sh is not None:
            o.pending += (v.speed // 2) * v.eff // 100
        else:
            o.pending += max(1, o.troops // 5)
    aboard = sum(1 for u in w.units.values() if u.ship == v.uid)
    force.ask_units(c, o, force.ArmyAnswers(c), most=max(0, v.type.nland - aboard))
    c.d_troops = v.mil
    c.target_infected = infected(v.plague)
    _fight(c, [u for u in w.units_at(v.xy) if u.ship == v.uid], result)


def _lboard_flow(c: Combat, victim: str | None, source: str | None, result: CombatResult) -> None:
    w = c.world
    unum = ask_number(c, victim, "Victim land unit #?  ", LBOARD_USAGE)
    src = ask_text(c, source, "Boarding party from? ", LBOARD_USAGE)
    if not _is_sector(src):
        raise UsageFailure(f"You can only board land units from a sector.\n{LBOARD_USAGE}")
    s = _own_sector(c, src, LBOARD_USAGE)
    if s.mob <= 0:
        raise UsageFailure(f"You don't have any mobility in {c.at(s.xy)}!\n{LBOARD_USAGE}")
    u = w.units.get(unum)
    if u is None or u.owner == 0 or u.loaded:
        raise _refuse(c, f"Land unit #{unum} is not in the same sector!")
    if u.owner == c.aggressor:
        raise _refuse(c, "Boarding yourself?  Try using the 'load' command.")
    if u.xy != s.xy:
        raise _refuse(c, f"Land unit #{unum} is not in the same sector!")
    c.target_unit, c.defender = u, u.owner
    o = OffObject(sector=s, infected=infected(s.plague))
    c.offs = [o]
    result.defender, result.target = u.owner, u.name()
    show_vessel(c, u)
    if u.type.has("spy"):
        ask_mil(c, o, lambda avail: 1)
    else:
        ask_mil(c, o, lambda avail: _party_limit(c, o, u.type.milit, "unit", avail))
    if o.troops > 0:
        o.pending += max(1, o.troops // 5)
    c.d_troops = u.mil
    c.target_infected = infected(u.plague)
    _fight(c, [x for x in w.units_at(u.xy) if x.land == u.uid], result)


def _party_limit(c: Combat, o: OffObject, capacity: int, what: str, avail: int) -> int:
    """§2.3: the victim's mil capacity limits the boarding party; a sector needs mobility."""
    if o.sector is not None and o.sector.mob <= 0:
        return 0
    if capacity < avail:
        c.say(
            f"The size of the {what} you are trying to board limits your party to {capacity} mil,"
        )
        return capacity
    return avail


def show_vessel(c: Combat, v: Ship | LandUnit) -> None:
    """§1.3 for a ship or land unit target."""
    name = v.title() if isinstance(v, Ship) else v.name()
    c.say(
        f"{name} is about {roundint10(v.eff)}% efficient"
        f" and has approximately {roundint10(v.mil)} mil on board."
    )


def _fight(c: Combat, aboard: list[LandUnit], result: CombatResult) -> None:
    """§16.3: strength, the defenders aboard (no reaction, no support), the fight, the end."""
    where = c.at(c.offs[0].xy, c.defender)
    initial_strength(c, result, where)
    for u in aboard:
        if u.owner != c.defender:
            continue
        defenders.report(c, c.aggressor, u, 0, "Scouts report defending unit:")
        supplied = in_supply(c.world, u)
        c.d_spy = max(c.d_spy, force.spy_value(u))
        c.d_units.insert(0, Fighter(unit=u, supplied=supplied))
    defenders.report_attackers(c)
    fight_out(c, result)
    conclude(c, result)


def approach_fire(c: Combat, o: OffObject, v: Ship, result: CombatResult) -> None:
    """§5.5: the defender's ships near the victim (subs and the victim too) fire first."""
    a, d = c.aggressor, c.defender
    off = c.off_name(o)
    c.say(f"Approaching {v.title()}...")
    seen_by_d = o.ship.title() if o.ship is not None else c.at(o.xy, d)
    c.tell(d, f"{v.title()} is being approached by {seen_by_d}...")
    dam = support.ship_damage(c, a, d, at=v.xy, approach=True)
    if dam <= 0:
        return
    result.world_changed = True
    c.say("They're firing at us sir!")
    c.tell(d, f"Your fleet at {c.at(v.xy, d)} does {dam} damage to {seen_by_d}")
    if o.sector is not None:
        c.say(f"Enemy fleet at {c.at(v.xy)} does {dam} damage to {off}")
        sector_hit(c, o.sector, dam)
        return
    sh = o.ship
    assert sh is not None
    ship_hit(c, sh, dam)
    if sh.eff < 20:
        c.tell(d, f"{sh.title()} sunk!")
        c.say(f"{sh.title()} was just sunk!")
        _sink(c, sh)
        raise Lost


def _sink(c: Combat, sh: Ship) -> None:
    """A sunk ship goes down with everything aboard."""
    w = c.world
    for uid in [u.uid for u in w.units.values() if u.ship == sh.uid]:
        del w.units[uid]
    for pid in [p.uid for p in w.planes.values() if p.ship == sh.uid]:
        del w.planes[pid]
    del w.ships[sh.uid]


def _items_damage(c: Combat, items: dict[str, int], p: int) -> None:
    """Every commodity loses ``roundavg(n * p / 100)``; people scaled by ``people_damage``."""
    for item in ITEMS:
        n = items.get(item, 0)
        lose = c.dice.roundavg(n * p * 0.01)
        if item in PEOPLE:
            lose = ldround(c.world.option("people_damage") * lose)
        if n or lose:
            items[item] = n - lose


def ship_hit(c: Combat, sh: Ship, dam: int) -> None:
    """§0.8: a ship hit by ``dam``, softened by its armor."""
    d = min(100, int(dam / (1 + sh.armor / 100)))
    sh.eff = c.dice.damage(sh.eff, d)
    if sh.mob > 0:
        sh.mob = c.dice.damage(sh.mob, d)
    _items_damage(c, sh.items, d)


def sector_hit(c: Combat, s: Sector, dam: int) -> None:
    """§0.8: a sector hit by ``dam``: itself, its goods, then its units and parked planes."""
    d1 = ldround(dam / sector_defense(s))
    p = min(100, pct(d1))
    s.eff = c.dice.damage(s.eff, p)
    s.avail = c.dice.damage(s.avail, p)
    s.road = c.dice.damage(s.road, p)
    s.rail = c.dice.damage(s.rail, p)
    s.defense = c.dice.damage(s.defense, p)
    if s.mob > 0:
        s.mob = c.dice.damage(s.mob, p)
    _items_damage(c, s.items, p)
    d2 = ldround(100.0 * (d1 * 0.3) / (d1 * 0.3 + 100.0))
    if d2 <= 0:
        return
    w = c.world
    for u in w.units_at(s.xy):
        if u.owner == s.owner and not u.loaded:
            _unit_hit(u, d2, c)
    if d2 // 7 > 0:
        for _, pl in sorted(w.planes.items()):
            if pl.xy == s.xy and pl.owner == s.owner and pl.ship is None and pl.land is None:
                pl.eff = c.dice.damage(pl.eff, d2 // 7)
                if pl.mob > 0:
                    pl.mob = c.dice.damage(pl.mob, d2 // 7)
