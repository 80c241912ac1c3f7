"""``board`` (a ship, from a ship or a sector) and ``lboard`` (a land unit) (spec §16.3).

Boarding has no reaction and no support: the victim fights with the mil and
units aboard it, its armor as the multiplier (§3.3).  Before a ship is
boarded the ships around it fire at the boarders (§5.5).  The capture of the
vessel and the move aboard are in :mod:`.conclude`.
"""

from __future__ import annotations

from dataclasses import dataclass

from bellum.dice import ServerRandom
from bellum.empire.combat import damage, defenders, force, support
from bellum.empire.combat.conclude import conclude
from bellum.empire.combat.flows import (
    announce_mil,
    ask_mil,
    ask_number,
    ask_word,
    fight_out,
    initial_strength,
    play,
)
from bellum.empire.combat.result import CombatResult
from bellum.empire.combat.state import (
    Aborted,
    Combat,
    CommandSpec,
    Ending,
    Failure,
    Fighter,
    Mode,
    OffObject,
    UsageFailure,
    Wording,
    infected,
    ldround,
    roundint10,
)
from bellum.empire.combat.strength import sector_offense
from bellum.empire.events import Prompter, Sink
from bellum.empire.rules import Rules
from bellum.empire.supply import in_supply
from bellum.empire.tables import techfact
from bellum.empire.world import LandUnit, Relation, Sector, Ship, World
from bellum.errors import InputError
from bellum.numbers import ASCII_DIGITS
from bellum.numbers import c_atoi as atoi

BOARD_USAGE = "Usage: board <to-SHIP> [<from-SHIP>|<from-sector>]"
LBOARD_USAGE = "Usage: lboard <to-LAND> [<from-sector>]"
PEOPLE = ("civ", "mil", "uw")


def board(
    world: World,
    victim: str | None,
    source: str | None,
    aggressor: int,
    dice: ServerRandom,
    prompter: Prompter,
    sink: Sink | None = None,
    *,
    rules: Rules | None = None,
) -> CombatResult:
    """``board <to-SHIP> [<from-SHIP>|<from-sector>]`` (spec §16.3)."""
    return play(
        BOARD, world, aggressor, dice, prompter, [victim, source], [],
        sink=sink, rules=rules or Rules.of(world.options),
    )  # fmt: skip


def lboard(
    world: World,
    victim: str | None,
    source: str | None,
    aggressor: int,
    dice: ServerRandom,
    prompter: Prompter,
    sink: Sink | None = None,
    *,
    rules: Rules | None = None,
) -> CombatResult:
    """``lboard <to-LAND> [<from-sector>]`` (spec §16.3): board an enemy land unit."""
    return play(
        LBOARD, world, aggressor, dice, prompter, [victim, source], [],
        sink=sink, rules=rules or Rules.of(world.options),
    )  # fmt: skip


def _own_sector(c: Combat, text: str, usage: str) -> Sector:
    """A boarding sector given as ``x,y``: it must exist and be A's (a usage error if not)."""
    w = c.world
    try:
        xy = w.geometry.parse(text.strip(), w.origin(c.aggressor))
    except InputError:
        raise UsageFailure(usage) from None
    s = w.sector(xy)
    if s.owner != c.aggressor:
        raise UsageFailure(usage, reason=f"You don't own {c.at(s.xy)}!")
    return s


def _is_sector(text: str) -> bool:
    """§1.1: "from" is a sector if it has anything but digits, blanks and ``/``."""
    return any(ch not in ASCII_DIGITS and ch not in " /" for ch in text)


def _board_flow(c: Combat, args: list[str | None], _: list[str], result: CombatResult) -> None:
    victim, source = args
    w = c.world
    a = c.aggressor
    vnum = ask_number(c, victim, "Victim ship #?  ", BOARD_USAGE)
    src = ask_word(c, source, "Boarding party from? ", BOARD_USAGE)
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
                BOARD_USAGE,
                reason=f"You don't have any mobility (sector or land units) in {c.at(s.xy)}!",
            )
        o = OffObject(sector=s, infected=infected(s.plague))
    else:  # a ship number, read with atoi: "1/2" is ship 1, a negative one a usage error
        snum = atoi(src)
        if snum < 0:
            raise UsageFailure(BOARD_USAGE)
        o = OffObject(ship=w.ships.get(snum))
    v = w.ships.get(vnum)
    if v is None or v.owner == 0:
        raise Failure(f"Ship #{vnum} is not in the same sector!", aborted=True)
    if v.owner == a:
        raise Failure("Boarding yourself?  Try using the 'tend' command.", aborted=True)
    sh = o.ship
    if o.sector is None:
        if sh is None or sh.owner != a:
            raise Failure(f"Ship #{snum} is not your ship!", aborted=True)
        o.infected = infected(sh.plague)
        announce_mil(c, o)
        if sh.xy != v.xy and not w.sector(sh.xy).type.is_sea:
            raise Failure(f"{sh.title()} can not board from that far inland!", aborted=True)
    else:
        announce_mil(c, o)
    problem = _cannot_board(c, o, v)
    if problem:
        raise Failure(problem, aborted=True)
    c.target_ship, c.defender = v, v.owner
    c.offs = [o]
    result.defender, result.target = v.owner, v.title()
    avail = max(0, o.mil - 1)
    if approach_fire(c, o, v, result):
        # The server looks at the boarders again: what the shells left of them,
        # and whether they can still catch the victim.
        if sh is not None and (sh.uid not in w.ships or sh.owner != a):
            c.say(f"Ship #{sh.uid} is not your ship!")
            raise Aborted
        if avail and avail + 1 > o.mil:
            where = f"on {sh.title()}" if sh is not None else f"in {c.at(o.xy)}"
            c.say(
                f"WARNING: Your mil {where} has been reduced from {avail} to {max(0, o.mil - 1)}!"
            )
        problem = _cannot_board(c, o, v)
        if problem:
            c.say(problem)
            raise Aborted
    show_vessel(c, v)
    _sector_multiplier(c, o)
    ask_mil(c, o, lambda avail: _party_limit(c, o, v.type.milit, "ship", avail), announce=False)
    if o.troops > 0:
        if sh is not None:
            o.pending += (v.speed // 2) * v.eff // 100
        else:
            o.pending += max(1, o.troops // 5)
    # The server lets as many units board as the ship type carries, whatever is aboard.
    force.ask_units(c, o, force.ArmyAnswers(c), most=v.type.nland)
    c.d_troops = v.mil
    c.target_infected = infected(v.plague)
    _fight(c, [u for u in w.units_at(v.xy) if u.ship == v.uid], result)
    afloat = w.ships.get(v.uid)
    if not c.success and afloat is not None and afloat.owner and "u" in afloat.rflags:
        retreat_ship(c, afloat, afloat.owner)


def _sector_multiplier(c: Combat, o: OffObject) -> None:
    """Mil boarding from a sector fight at its offense multiplier, as in an attack: the
    server's ``get_ototal`` weighs every off-object by ``att_combat_eff``, whatever the
    mode, so a fortress's mil board at twice their number (checked on the server)."""
    if o.sector is not None:
        o.om = sector_offense(o.sector, c.aggressor)


def _cannot_board(c: Combat, o: OffObject, v: Ship) -> str | None:
    """Why the boarders cannot board ``v`` now (§1.2 board items), or None."""
    sh = o.ship
    if o.xy != v.xy:
        return f"Ship #{v.uid} is not in the same sector!"
    if sh is not None:
        if sh.mob <= 0:
            return f"{sh.title()} has no mobility!"
        if techfact(sh.tech, sh.speed) * sh.eff <= techfact(v.tech, v.speed) * v.eff:
            c.tell(v.owner, f"{c.natid(c.aggressor)} {sh.title()} failed to catch {v.title()}")
            return "Victim ship moves faster than you do!"
    if v.type.has("sub") and c.world.sector(v.xy).type.is_sea:
        return "You can't board a submarine!"
    return None


def _lboard_flow(c: Combat, args: list[str | None], _: list[str], result: CombatResult) -> None:
    victim, source = args
    w = c.world
    unum = ask_number(c, victim, "Victim land unit #?  ", LBOARD_USAGE)
    src = ask_word(c, source, "Boarding party from? ", LBOARD_USAGE)
    if not _is_sector(src):
        raise UsageFailure(LBOARD_USAGE, reason="You can only board land units from a sector.")
    s = _own_sector(c, src, LBOARD_USAGE)
    if s.mob <= 0:
        raise UsageFailure(LBOARD_USAGE, reason=f"You don't have any mobility in {c.at(s.xy)}!")
    u = w.units.get(unum)
    if u is None or u.owner == 0 or u.loaded:
        raise Failure(f"Land unit #{unum} is not in the same sector!", aborted=True)
    if u.owner == c.aggressor:
        raise Failure("Boarding yourself?  Try using the 'load' command.", aborted=True)
    o = OffObject(sector=s, infected=infected(s.plague))
    announce_mil(c, o)
    if u.xy != s.xy:
        raise Failure(f"Land unit #{unum} is not in the same sector!", aborted=True)
    c.target_unit, c.defender = u, u.owner
    c.offs = [o]
    result.defender, result.target = u.owner, u.name()
    show_vessel(c, u)
    _sector_multiplier(c, o)
    if u.type.has("spy"):
        ask_mil(c, o, lambda avail: 1, announce=False)
    else:
        limit = _party_limit
        ask_mil(c, o, lambda avail: limit(c, o, u.type.milit, "unit", avail), announce=False)
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
        supplied = in_supply(c.world, u, rules=c.rules)
        c.d_spy = max(c.d_spy, force.spy_value(u))
        c.d_units.insert(0, Fighter(unit=u, supplied=supplied))
    defenders.report_attackers(c)
    fight_out(c, result)
    conclude(c, result)


def approach_fire(c: Combat, o: OffObject, v: Ship, result: CombatResult) -> bool:
    """§5.5: the defender's ships near the victim (subs and the victim too) fire first.

    Returns whether they hit the boarders.
    """
    a, d = c.aggressor, c.defender
    off = c.off_name(o)
    c.say(f"Approaching {v.title()}...")
    seen_by_d = o.ship.title() if o.ship is not None else c.at(o.xy, d)
    c.tell(d, f"{v.title()} is being approached by {seen_by_d}...")
    dam = support.ship_damage(c, a, d, at=v.xy, approach=True)
    if dam <= 0:
        return False
    result.world_changed = True
    c.say("They're firing at us sir!")
    c.tell(d, f"Your fleet at {c.at(v.xy, d)} does {dam} damage to {seen_by_d}")
    if o.sector is not None:
        damage.sector(c, o.sector, dam)
        c.say(f"Enemy fleet at {c.at(v.xy)} does {dam} damage to {off}")
        return True
    sh = o.ship
    assert sh is not None
    damage.ship(c, sh, dam)
    if sh.eff < SHIP_MINEFF:
        _sink(c, sh)
        c.tell(d, f"{sh.title()} sunk!")
        c.news(d, f"{c.name(a)} is repelled by {c.name(d)} while attempting to board a ship", -3)
    return True


def _sink(c: Combat, sh: Ship) -> None:
    """A sunk ship goes down with everything aboard; its owner hears of it."""
    w = c.world
    c.notify(sh.owner, f"\t{sh.title()} sunk!")
    for uid in [u.uid for u in w.units.values() if u.ship == sh.uid]:
        del w.units[uid]
    for pid in [p.uid for p in w.planes.values() if p.ship == sh.uid]:
        del w.planes[pid]
    del w.ships[sh.uid]


# -- retreat when boarded (§16.3) ----------------------------------------------------

#: A ship retreats at most this many sectors along its retreat path.
MAX_RETREAT = 2
#: Below this efficiency a ship sinks.
SHIP_MINEFF = 20


@dataclass(eq=False)
class _Sailing:
    """A retreating ship and its mobility, kept fractional while it sails."""

    ship: Ship
    mob: float


def retreat_ship(c: Combat, sh: Ship, owner: int) -> None:
    """A ship with orders to retreat when boarded (``u``) sails its retreat path.

    Everything here is told to ``owner``, the victim; with the group flag
    (``g``) the ships of its fleet in the same sector with the same path
    and orders sail along.  Like the server, a step leads only to sea, a
    harbor or a bridge span that is efficient enough, and not into the
    land of a country not friendly to ``owner``; each ship pays its
    mobility, and mines in the way may hit.
    """
    w = c.world
    if owner == c.aggressor or not sh.rpath:
        return
    path = sh.rpath
    n = next((i + 1 for i, k in enumerate(path[:MAX_RETREAT]) if k == "h"), len(path[:MAX_RETREAT]))
    fleet: list[_Sailing] = []
    _join(c, sh, fleet, path[:n])
    if "g" in sh.rflags:
        for _, other in sorted(w.ships.items()):
            same = other.xy == sh.xy and other.owner == owner and other.fleet == sh.fleet
            grouped = "g" in other.rflags and other.uid != sh.uid
            if same and grouped and other.rpath[: MAX_RETREAT + 1] == path[: MAX_RETREAT + 1]:
                _join(c, other, fleet, path[:n])
    i = 0
    while i < n and fleet:
        if not _retreat_step(c, fleet, path[i], owner):
            n = i
        _stay_behind(c, fleet, owner)
        i += 1
    for s in fleet:
        c.notify(owner, f"{s.ship.title()} stopped at {c.at(s.ship.xy, owner)}")
        s.ship.mob = int(s.mob)


def _may_sail(c: Combat, sh: Ship, flagship: Ship | None, suffix: str) -> bool:
    """Crewed, afloat where it is, and with the flagship; else its owner hears why not."""
    if sh.mil == 0 and sh.items.get("civ", 0) == 0:
        c.notify(sh.owner, f"{sh.title()} is crewless{suffix}")
        return False
    stuck = _stuck(sh, c.world.sector(sh.xy))
    if stuck:
        c.notify(sh.owner, f"{sh.title()} is {stuck}{suffix}")
        return False
    if flagship is not None and sh.xy != flagship.xy:
        c.notify(sh.owner, f"{sh.title()} is not with the flagship{suffix}")
        return False
    return True


def _stuck(sh: Ship, s: Sector) -> str:
    """Why ``sh`` cannot float in ``s`` ('' if it can)."""
    nav = s.type.navigation
    if nav == "sea":
        return ""
    if nav == "harb":
        return "caught in a construction zone" if s.eff < 2 else ""
    if nav == "brid":
        return "caught in a construction zone" if s.eff < 60 else ""
    return "landlocked"


def _join(c: Combat, sh: Ship, fleet: list[_Sailing], steps: str) -> None:
    flagship = fleet[0].ship if fleet else None
    if not _may_sail(c, sh, flagship, ", and can't retreat!"):
        return
    if sh.mob <= 0:
        c.notify(sh.owner, f"{sh.title()} has no mobility, and can't retreat!")
        return
    if flagship is not None:
        c.notify(sh.owner, f"{sh.title()} retreats with her")
    else:
        c.notify(sh.owner, f"{sh.title()} retreats along path {steps}")
    fleet.append(_Sailing(sh, float(sh.mob)))


def _retreat_step(c: Combat, fleet: list[_Sailing], key: str, owner: int) -> bool:
    """One step of the retreat path; False when the fleet stops here."""
    stop = key == "h"
    if not stop and _blocked(c, fleet, key, owner):
        return False
    for s in fleet:
        s.ship.rpath = s.ship.rpath[1:]
        if not s.ship.rpath:
            s.ship.rflags = ""
        if not stop:
            s.ship.mission = ""
    return not stop and not _gauntlet(c, fleet)


def _blocked(c: Combat, fleet: list[_Sailing], key: str, owner: int) -> bool:
    """Move the fleet one sector; True when it cannot go there (or nobody could move)."""
    w = c.world
    there = w.geometry.step(fleet[0].ship.xy, key)
    s = w.sector(there)
    if s.owner and w.rel(s.owner, owner) < Relation.FRIENDLY:
        c.notify(owner, f"can't go to {c.at(there, owner)}")
        return True
    if any(_stuck(f.ship, s) for f in fleet):
        c.notify(owner, f"can't go to {c.at(there, owner)}")
        return True
    for f in list(fleet):
        sh = f.ship
        if f.mob <= 0:
            c.notify(owner, f"{sh.title()} is out of mobility & stays in {c.at(sh.xy, owner)}")
            sh.mob = int(f.mob)
            fleet.remove(f)
            continue
        effspd = sh.eff * 0.01 * sh.speed
        f.mob = max(-127.0, f.mob - 480.0 / (effspd + techfact(sh.tech, effspd)))
        sh.x, sh.y = there
        sh.mob = int(f.mob)
    return not fleet


def _gauntlet(c: Combat, fleet: list[_Sailing]) -> bool:
    """Minesweepers sweep, then every ship may hit a sea mine; True if they must stop."""
    w = c.world
    s = w.sector(fleet[0].ship.xy)
    if s.type.name != "sea":
        return False
    stopping = False
    first = True
    for f in list(fleet):
        sh = f.ship
        if not sh.type.has("sweep"):
            continue
        cap = sh.type.cargo.get("shell", 0)
        for _ in range(5):
            if s.minefield <= 0:
                break
            if c.dice.chance(0.66):
                if first:
                    c.notify(sh.owner, f"Approaching minefield at {c.at(s.xy, sh.owner)}...")
                    first = False
                c.notify(sh.owner, "Sweep...")
                s.mines = s.minefield - 1
                sh.items["shell"] = min(cap, sh.items.get("shell", 0) + 1)
        stopping |= _mine(c, fleet, f)
    for f in list(fleet):
        stopping |= _mine(c, fleet, f)
    return stopping


def _mine(c: Combat, fleet: list[_Sailing], f: _Sailing) -> bool:
    """A ship in a mined sea sector may hit one: 21 + roll(21), halved for minesweepers."""
    sh = f.ship
    s = c.world.sector(sh.xy)
    if f not in fleet or s.type.name != "sea" or s.minefield <= 0:
        return False
    if not c.dice.chance(s.minefield / (s.minefield + 20.0)):
        return False
    c.notify(sh.owner, f"Kawhomp! Mine detected in {c.at(s.xy, sh.owner)}!")
    c.news(0, f"{c.name(sh.owner)} ship hits a mine", 0, actor=sh.owner)
    m = 21.0 + c.dice.roll(21)
    if sh.type.has("sweep"):
        m /= 2.0
    damage.ship(c, sh, ldround(m))
    s.mines = s.minefield - 1
    if sh.eff < SHIP_MINEFF:
        _sink(c, sh)
        fleet.remove(f)
    return True


def _stay_behind(c: Combat, fleet: list[_Sailing], owner: int) -> None:
    """Ships that sank or can no longer sail with the flagship drop out of the retreat."""
    flagship: Ship | None = None
    for f in list(fleet):
        sh = f.ship
        if sh.uid not in c.world.ships:
            c.notify(owner, f"{sh.title()} was sunk at {c.at(sh.xy, owner)}")
            fleet.remove(f)
            continue
        if not _may_sail(c, sh, flagship, f" & stays in {c.at(sh.xy, owner)}"):
            sh.mob = int(f.mob)
            fleet.remove(f)
            continue
        if flagship is None:
            flagship = sh
        if sh.mob + 1 < int(f.mob):
            f.mob = sh.mob


BOARD = CommandSpec(
    Mode.BOARD,
    _board_flow,
    Wording(
        aborted="Board aborted",
        considering="boarding",
        strength="                Final board strength: ",
        dies="board",
        ending=Ending(
            "We have boarded {t}, sir!",
            "You have been repelled",
            "seadogs board one of {d}'s ships",
            -2,
            "",
            "is repelled by {d} while attempting to board a ship",
            -3,
            "boarding",
            "trying to board",
        ),
    ),
    roles=("target", "source"),
    takes="ship",
    metavars=("VICTIM", "FROM"),
    example="board 5 0,0",
    help="""Board the enemy ship number VICTIM from your ship (a number) or sector (x,y) FROM.""",
)

LBOARD = CommandSpec(
    Mode.LBOARD,
    _lboard_flow,
    Wording(
        aborted="Land unit boarding aborted",
        considering="lboarding",
        strength="                Final board strength: ",
        dies="board",
        ending=Ending(
            "We have boarded {t}, sir!",
            "You have been repelled",
            "mercenaries board one of {d}'s land units",
            -2,
            "",
            "is repelled by {d} while attempting to board a land unit",
            -3,
            "boarding",
            "trying to board",
        ),
    ),
    roles=("target", "source"),
    takes="unit",
    metavars=("VICTIM", "FROM"),
    example="lboard 3 0,0",
    help="""Board the enemy land unit number VICTIM from your sector FROM (x,y).""",
)
