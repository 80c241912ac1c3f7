"""The ``attack`` command as a flow over the steps (spec §16.1)."""

from __future__ import annotations

from bellum.dice import ServerRandom
from bellum.empire.combat import conclude, flows, force, target
from bellum.empire.combat.result import CombatResult, Outcome
from bellum.empire.combat.state import Aborted, Combat, Mode, UsageFailure, infected
from bellum.empire.events import Prompter, Sink
from bellum.empire.geometry import Coord
from bellum.empire.rules import Rules
from bellum.empire.world import World
from bellum.errors import UsageError

ATTACK_USAGE = "Usage: attack <SECT> [<forts?> <ships?> <arty?> <planes?>]"


def attack(
    world: World,
    sector: str | Coord | None,
    aggressor: int,
    dice: ServerRandom,
    prompter: Prompter,
    support_args: list[str] | None = None,
    sink: Sink | None = None,
    *,
    rules: Rules | None = None,
) -> CombatResult:
    """``attack <SECT>`` (spec §16.1): take an adjacent sector with mil and land units.

    ``sector`` is the player's ``x,y`` text (relative to the aggressor's origin)
    or absolute coordinates; ``None`` asks for it like the server (``Sector :``).
    The world is changed in place; the result says whether anything happened
    that is worth saving.  ``rules`` default to the world's own.
    """
    c = Combat(
        world, dice, prompter, aggressor, Mode.ATTACK, rules or Rules.of(world.options), sink=sink
    )
    result = CombatResult("attack", dice.seed, Outcome.ABORTED, aggressor, rules=c.rules)

    def flow() -> None:
        nation = world.nations[aggressor]
        given = sector
        if given is None:
            given = flows.ask_text(c, None, "Sector :  ", ATTACK_USAGE)
        if isinstance(given, str):
            try:
                xy = world.geometry.parse(given, world.origin(nation.cnum))
            except UsageError:
                raise UsageFailure(ATTACK_USAGE) from None
        else:
            xy = world.geometry.norm(*given)
        _attack_flow(c, xy, support_args or [], result)

    return flows.run_flow(c, result, flow)


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
