"""``assault <to-SECT> <from-SHIP>``: landing troops from a ship (spec §16.2).

The flow reuses the attack's steps: defenders and reaction (§4), support
(§5), the fight (§6) and the capture (§10).  What is the assault's own: the
1/4, 1/10 and no-limit rules on the ship's mil (§2.3), assault units only
(§2.4), reinforcing one's own sector and spies sneaking ashore (§13.4-13.5),
units that cannot return to the ship (§6.5), the move-in costs and the lunch
box (§13.3-13.4).
"""

from __future__ import annotations

from bellum.dice import ServerRandom
from bellum.empire.combat import flows, force, target
from bellum.empire.combat.conclude import assault_cost, conclude, move_in, pay
from bellum.empire.combat.flows import (
    ask_arg,
    ask_mil,
    ask_text,
    defend_and_fight,
    drop_powerless,
    initial_strength,
    play,
)
from bellum.empire.combat.result import COMMAND_BTU, CombatResult, Outcome
from bellum.empire.combat.state import (
    Combat,
    CommandSpec,
    Ending,
    Failure,
    Mode,
    OffObject,
    UsageFailure,
    Wording,
    infected,
)
from bellum.empire.events import Prompter, Sink, Sneaking
from bellum.empire.rules import Rules
from bellum.empire.world import Relation, Sector, Ship, World
from bellum.errors import InputError
from bellum.numbers import c_atoi as atoi

ASSAULT_USAGE = "Usage: assault <to-SECT> <from-SHIP> [<forts?> <ships?> <arty?> <planes?>]"


def assault(
    world: World,
    sector: str | None,
    ship: str | None,
    aggressor: int,
    dice: ServerRandom,
    prompter: Prompter,
    support_args: list[str] | None = None,
    sink: Sink | None = None,
    *,
    rules: Rules | None = None,
) -> CombatResult:
    """``assault`` (spec §16.2): take (or reinforce) a coastal sector from a ship.

    ``sector`` and ``ship`` are the command-line arguments; ``None`` makes the
    server prompt for them (§1.1).  The world is changed in place.
    """
    return play(
        ASSAULT, world, aggressor, dice, prompter, [sector, ship], support_args or [],
        sink=sink, rules=rules or Rules.of(world.options),
    )  # fmt: skip


def _flow(c: Combat, args: list[str | None], support_args: list[str], result: CombatResult) -> None:
    sector, ship = args
    w = c.world
    text = ask_text(c, sector, "Sector :  ", ASSAULT_USAGE)
    try:
        xy = w.geometry.parse(text, w.origin(c.aggressor))
    except InputError:
        raise UsageFailure(ASSAULT_USAGE) from None
    t = w.sector(xy)
    c.target, c.defender = t, t.owner
    result.defender, result.target = t.owner, c.at(t.xy)
    # The server's onearg: end of input or a negative number is a failure; otherwise
    # C's atoi reads the answer ("" and "abc" are ship 0), as 4.4.1 does.
    number = ask_arg(c, ship, "Assault from ship # ")
    uid = -1 if number is None else atoi(number)
    if uid < 0:
        raise Failure("You may only assault from one ship!")
    sh = check_assault(c, uid, t)
    target.show_sector(c, t)
    wanted = target.parse_support(support_args)
    if isinstance(wanted, str):
        c.say(wanted)
        wanted = (True, True, True, True)
    o = OffObject(ship=sh, infected=infected(sh.plague))
    c.offs = [o]
    ask_mil(c, o, lambda avail: assault_limit(c, sh, t, avail), announce=False)
    force.ask_units(c, o, force.ArmyAnswers(c))
    if t.owner == c.aggressor:
        _reinforce(c, o, result)
        return
    if o.troops == 0 and all(f.unit.type.has("spy") for f in c.a_units):
        _sneak(c, t, sh, result)
        return
    drop_powerless(c)
    c.d_troops = t.mil
    c.target_infected = infected(t.plague)
    initial_strength(c, result, c.at(t.xy, c.defender))
    defend_and_fight(c, wanted, result)
    conclude(c, result)


def check_assault(c: Combat, uid: int, t: Sector) -> Ship:
    """§1.2 assault items 2-6, each ending the command with ``Assault aborted``.

    Like the server, a look at the ship says how little mil it has first.
    """
    w = c.world
    sh = w.ships.get(uid)
    if sh is None or sh.owner != c.aggressor:
        raise Failure(f"Ship #{uid} is not your ship!", aborted=True)
    flows.announce_mil(c, OffObject(ship=sh))
    problem: str | None
    if sh.xy != t.xy and not w.sector(sh.xy).type.is_sea:
        problem = f"{sh.title()} can not assault from that far inland!"
    elif w.geometry.mapdist(sh.xy, t.xy) > 1:
        problem = "You'll have to get there first..."
    else:
        problem = target.passable_or_abort(c, t)
    if problem:
        raise Failure(problem, aborted=True)
    return sh


def assault_limit(c: Combat, sh: Ship, t: Sector, avail: int) -> int:
    """§2.3: a defended enemy beach takes 1/4 from semi-landing ships, 1/10 from others."""
    if t.owner != c.aggressor and t.mil > 0:
        if sh.type.has("semi-land"):
            return avail // 4
        if not sh.type.has("land"):
            return avail // 10
    return avail


def _reinforce(c: Combat, o: OffObject, result: CombatResult) -> None:
    """§13.4: landing in one's own sector is no fight, just the move-in."""
    if o.troops:
        c.say(f"You reinforce {c.target_name()} with {o.troops} troops")
    result.btu_charged = COMMAND_BTU
    if not (o.troops or c.a_units):
        result.outcome = Outcome.ABORTED
        return
    t = c.target
    assert t is not None
    warn = not o.troops and t.mil > 0
    move_in(c)
    if warn:
        # att_move_in_off writes the sector back and reads it again as an attacker's
        # (put_combat): the mil it counted at the start, with none landed to add, look
        # like one too many for the one it keeps.  Nothing changes but this line.
        c.say(f"WARNING: Your mil in {c.at(t.xy)} has been reduced from {t.mil} to {t.mil - 1}!")
    c.world.charge_btus(c.aggressor, COMMAND_BTU)
    result.outcome = Outcome.REINFORCED
    result.world_changed = True


def _sneak(c: Combat, t: Sector, sh: Ship, result: CombatResult) -> None:
    """§13.5: spies alone try to slip ashore unseen."""
    w = c.world
    c.say("Trying to sneak on shore...", Sneaking())
    d = t.owner
    for f in list(c.a_units):
        u = f.unit
        pay(u, assault_cost(c, u, sh))
        u.x, u.y = t.xy
        u.ship = None
        if w.rel(d, c.aggressor) == Relation.ALLIED or d == 0:
            spotted = False
        else:
            spotted = c.dice.chance((110 - u.eff // 2) / 100)
        if not spotted:
            c.say(f"{u.name()} made it on shore safely.")
        elif w.rel(d, c.aggressor) <= Relation.HOSTILE:
            c.say(f"{u.name()} was spotted and was killed in the attempt.")
            c.tell(d, f"{c.name(c.aggressor)} spy shot and killed in {c.at(t.xy, d)}.")
            w.units.pop(u.uid, None)
        else:
            c.say(f"{u.name()} was spotted but made it OK.")
            c.tell(d, f"{c.name(c.aggressor)} spy spotted in {c.at(t.xy, d)}.")
    result.btu_charged = COMMAND_BTU
    result.outcome = Outcome.LANDED if c.a_units else Outcome.ABORTED
    if c.a_units:
        w.charge_btus(c.aggressor, COMMAND_BTU)
        result.world_changed = True


ASSAULT = CommandSpec(
    Mode.ASSAULT,
    _flow,
    Wording(
        aborted="Assault aborted",
        considering="assaulting",
        strength="              Final assault strength: ",
        dies="assault",
        ending=Ending(
            "We have secured a beachhead at {t}, sir!",
            "You have been defeated!",
            "navy secures a beachhead on {d} territory",
            -4,
            "pilgrims settle on a new island",
            "sailors repelled by {d} coast-guard",
            4,
            "assaulting and taking",
            "trying to assault",
        ),
    ),
    roles=("target", "source"),
    takes="sector",
    metavars=("TARGET", "SHIP"),
    example="assault 2,0 5",
    help="""Assault the coastal sector TARGET from your ship number SHIP.

    SUPPORT are the four optional answers (forts, ships, arty, planes).  A
    missing TARGET or SHIP is asked for like the server does.
    """,
)
