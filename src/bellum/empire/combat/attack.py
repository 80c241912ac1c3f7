"""The ``attack`` command as a flow over the steps (spec §16.1)."""

from __future__ import annotations

from bellum.dice import ServerRandom
from bellum.empire.combat import conclude, flows, force, target
from bellum.empire.combat.result import CombatResult
from bellum.empire.combat.state import (
    Aborted,
    Combat,
    CommandSpec,
    Ending,
    Mode,
    UsageFailure,
    Wording,
    infected,
)
from bellum.empire.events import Prompter, Sink
from bellum.empire.geometry import Coord
from bellum.empire.rules import Rules
from bellum.empire.world import World
from bellum.errors import InputError

ATTACK_USAGE = "Usage: attack <SECT> [<forts?> <ships?> <arty?> <planes?>]"


def attack(
    world: World,
    sector: str | None,
    aggressor: int,
    dice: ServerRandom,
    prompter: Prompter,
    support_args: list[str] | None = None,
    sink: Sink | None = None,
    *,
    rules: Rules | None = None,
) -> CombatResult:
    """``attack <SECT>`` (spec §16.1): take an adjacent sector with mil and land units.

    ``sector`` is the player's ``x,y`` text (relative to the aggressor's origin);
    ``None`` asks for it like the server (``Sector :``).  The world is changed in
    place; the result says whether anything happened that is worth saving.
    ``rules`` default to the world's own.
    """
    return flows.play(
        ATTACK, world, aggressor, dice, prompter, [sector], support_args or [],
        sink=sink, rules=rules or Rules.of(world.options),
    )  # fmt: skip


def _flow(c: Combat, args: list[str | None], support: list[str], result: CombatResult) -> None:
    (given,) = args
    # getstarg: an empty argument ("") is asked for, as a missing one is
    text = given if given else flows.ask_text(c, None, "Sector :  ", ATTACK_USAGE)
    try:
        xy = c.world.geometry.parse(text, c.world.origin(c.aggressor))
    except InputError:
        raise UsageFailure(ATTACK_USAGE) from None
    _attack_flow(c, xy, support, result)


def _attack_flow(c: Combat, xy: Coord, support_args: list[str], result: CombatResult) -> None:
    w = c.world
    t = w.sector(xy)
    result.defender, result.target = t.owner, c.at(t.xy)  # a refused attack names it too
    target.check_attack_target(c, t)
    c.target, c.defender = t, t.owner
    c.sneak = target.slow_war(c, t)
    target.show_sector(c, t)
    wanted = target.parse_support(support_args)
    if isinstance(wanted, str):
        c.say(wanted)
        wanted = (True, True, True, True)
    problem = target.passable_or_abort(c, t)
    if problem:
        c.say(problem)
        raise Aborted
    c.offs = force.attack_offs(c)
    answers = force.ArmyAnswers(c)
    for o in c.offs:
        force.ask_sector_mil(c, o)
        force.ask_units(c, o, answers)
    c.d_troops = t.mil
    c.target_infected = infected(t.plague)
    flows.initial_strength(c, result, c.at(xy, c.defender))
    flows.defend_and_fight(c, wanted, result)
    conclude.conclude(c, result)


ATTACK = CommandSpec(
    Mode.ATTACK,
    _flow,
    Wording(
        aborted="Attack aborted",
        considering="attacking",
        strength="               Final attack strength: ",
        dies="attack",
        ending=Ending(
            "We have captured {t}, sir!",
            "You have been defeated!",
            "infantry capture {d} territory",
            -4,
            "takes over unoccupied land",
            "infantry beaten back by {d}",
            -4,
            "taking",
            "attacking",
        ),
    ),
    roles=("target",),
    takes="sector",
    metavars=("TARGET",),
    example="attack 2,0",
    help="""Attack the sector TARGET (x,y in your coordinates) from your adjacent sectors.

    Without TARGET you are asked for it, like on the server.

    SUPPORT are the server's four optional answers (forts, ships, arty, planes),
    e.g. `y y n n`; without them all support is requested.  Prompts are
    answered interactively, or line by line from piped input.
    """,
)
