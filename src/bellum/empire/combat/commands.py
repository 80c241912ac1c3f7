"""The combat commands as flows over the steps (spec §16), and what they return."""

from __future__ import annotations

from dataclasses import dataclass, field
from typing import Any

from bellum.dice import ServerRandom
from bellum.empire.combat import capture, defenders, fight, force, movein, support, target
from bellum.empire.combat.state import (
    Aborted,
    Combat,
    Failure,
    Mode,
    UsageFailure,
    infected,
)
from bellum.empire.combat.strength import defense_total, offense_total
from bellum.empire.events import Event, Prompter, Sink, transcript
from bellum.empire.geometry import Coord
from bellum.empire.world import Plague, World
from bellum.errors import UsageError

ATTACK_USAGE = "Usage: attack <SECT> [<forts?> <ships?> <arty?> <planes?>]"
COMMAND_BTU = 3


@dataclass
class CombatResult:
    """What a combat command did: its outcome, numbers, transcript and seed.

    ``outcome`` is one of ``captured``, ``defeated``, ``unoccupied``,
    ``aborted``, ``refused`` (a legality check failed) or ``usage``.
    ``world_changed`` tells whether the world should be saved: only a
    command that reached the fight changes anything.
    """

    command: str
    seed: int
    outcome: str
    aggressor: int
    defender: int = 0
    target: str = ""
    attacker_casualties: int = 0
    defender_casualties: int = 0
    initial_attack: int = 0
    final_attack: int = 0
    final_defense: int = 0
    odds_percent: int = 0
    btu_charged: int = 0
    money_made: int = 0
    world_changed: bool = False
    events: list[Event] = field(default_factory=list)

    @property
    def success(self) -> bool:
        return self.outcome == "captured"

    def transcript(self) -> str:
        return transcript(self.events)

    def to_json(self) -> dict[str, Any]:
        """The documented ``--json`` schema (docs/empire-cli.md)."""
        return {
            "command": self.command,
            "seed": self.seed,
            "outcome": self.outcome,
            "success": self.success,
            "aggressor": self.aggressor,
            "defender": self.defender,
            "target": self.target,
            "casualties": {
                "attacker": self.attacker_casualties,
                "defender": self.defender_casualties,
            },
            "strength": {
                "initial_attack": self.initial_attack,
                "final_attack": self.final_attack,
                "final_defense": self.final_defense,
                "odds_percent": self.odds_percent,
            },
            "btu_charged": self.btu_charged,
            "money_made": self.money_made,
            "world_changed": self.world_changed,
            "transcript": self.transcript(),
            "telegrams": [
                {"to": e.to, "text": e.text} for e in self.events if e.kind == "telegram"
            ],
        }


def attack(
    world: World,
    sector: str | Coord,
    aggressor: int,
    dice: ServerRandom,
    prompter: Prompter,
    support_args: list[str] | None = None,
    sink: Sink | None = None,
) -> CombatResult:
    """``attack <SECT>`` (spec §16.1): take an adjacent sector with mil and land units.

    ``sector`` is the player's ``x,y`` text (relative to the aggressor's origin)
    or absolute coordinates.  The world is changed in place; the result says
    whether anything happened that is worth saving.
    """
    c = Combat(world, dice, prompter, aggressor, Mode.ATTACK, sink=sink)
    result = CombatResult(command="attack", seed=dice.seed, outcome="aborted", aggressor=aggressor)
    nation = world.nations.get(aggressor)
    if nation is None:
        raise UsageError(f"there is no country {aggressor} in this world")
    if nation.btu < COMMAND_BTU and not world.option("BLITZ"):
        c.say("You don't have the BTUs, bozo")
        result.outcome = "refused"
        result.events = c.events
        return result
    try:
        if isinstance(sector, str):
            try:
                xy = world.geometry.parse(sector, nation.origin)
            except UsageError:
                raise UsageFailure(ATTACK_USAGE) from None
        else:
            xy = world.geometry.norm(*sector)
        _attack_flow(c, xy, support_args or [], result)
    except UsageFailure as exc:
        c.say(str(exc))
        result.outcome = "usage"
    except Failure as exc:
        c.say(str(exc))
        result.outcome = "refused"
        result.btu_charged = COMMAND_BTU
    except Aborted as exc:
        c.say("Attack aborted")
        if exc.no_troops:
            c.say("No troops for attack...")
        result.outcome = "aborted"
        result.btu_charged = COMMAND_BTU
    result.events = c.events
    return result


def _attack_flow(c: Combat, xy: Coord, support_args: list[str], result: CombatResult) -> None:
    w = c.world
    t = w.sector(xy)
    target.check_attack_target(c, t)
    c.target, c.defender = t, t.owner
    c.sneak = target.slow_war(c, t)
    result.defender, result.target = t.owner, c.at(t.xy)
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
    c.ototal = offense_total(c)
    result.initial_attack = c.ototal
    if c.ototal <= 0:
        c.say("No troops for attack...")
        c.tell(
            c.defender, f"{c.name(c.aggressor)} considered attacking you @{c.at(xy, c.defender)}"
        )
        raise Aborted
    c.say()
    c.say(f"             Initial attack strength: {c.ototal:8d}")
    estimate = bool(w.option("scout_estimate"))
    if estimate:
        defenders.scout_estimate(c)
    defenders.present_defenders(c, report_units=not estimate)
    before = defense_total(c, 1.0)
    defenders.react(c)
    defenders.report_attackers(c)
    after = defense_total(c, 1.0)
    if after != before:
        c.say(f"Defense strength with reacting units: {after:8d}")
    support.support(c, wanted)
    fight.header(c)
    result.final_attack, result.final_defense = c.ototal, c.dtotal
    result.odds_percent = int(c.odds0 * 100)
    fight.plague(c)
    fight.fight(c)
    _after_fight(c, result)


def sector_mob_loss(c: Combat, mob: int, newmob: int) -> int:
    """§11/§12: the server caps the loss at 20; the info page makes 20 the minimum."""
    if c.world.option("info_sector_mobility"):
        return min(mob, max(20, mob - newmob))
    return min(20, mob - newmob)


def _after_fight(c: Combat, result: CombatResult) -> None:
    """§6.5: the consequences, in the server's order (which is also its draw order)."""
    w = c.world
    t = c.target
    assert t is not None
    # 1. the target's garrison
    if c.success:
        c.d_troops = 0
    elif c.d_mil0 > 0 and c.d_cas > 0 and t.mob >= 0:
        newmob = c.dice.damage(t.mob, (100 * c.d_cas) // c.d_mil0)
        c.target_pending = sector_mob_loss(c, t.mob, newmob)
    t.mil = c.d_troops
    # 2. the attacking sectors
    for o in c.offs:
        lost = o.troops0 - o.troops
        if lost <= 0 or o.sector is None:
            continue
        s = o.sector
        if s.mil > 0 and s.mob >= 0:
            newmob = c.dice.damage(s.mob, (100 * lost) // s.mil)
            o.pending += sector_mob_loss(c, s.mob, newmob)
        s.mil -= lost
    # 3. land unit mobility (step 8), 4. the target's efficiency (step 11)
    fight.unit_mobility(c)
    capture.damage_target(c)
    cas = c.a_cas + c.d_cas
    c.say("- Casualties -")
    c.say(f"     Yours: {c.a_cas}")
    c.say(f"    Theirs: {c.d_cas}")
    c.say(f"Paper-shuffling ... {0.15 * cas:.1f} BTU")
    # 6. the outcome, the news and the defender's telegram
    here = c.at(t.xy, c.defender)
    if c.success:
        c.say(f"We have captured {c.at(t.xy)}, sir!")
        if c.defender:
            c.news(
                c.defender,
                f"{c.name(c.aggressor)} infantry capture {c.name(c.defender)} territory",
                -4,
            )
        else:
            c.news(0, f"{c.name(c.aggressor)} takes over unoccupied land", 0)
        c.tell(c.defender, f"{c.name(c.aggressor)} lost {c.a_cas} troops taking {here}")
    else:
        c.say("You have been defeated!")
        c.news(
            c.defender, f"{c.name(c.aggressor)} infantry beaten back by {c.name(c.defender)}", -4
        )
        c.tell(c.defender, f"{c.name(c.aggressor)} lost {c.a_cas} troops attacking {here}")
    c.tell(c.defender, f"We lost {c.d_cas} troops defending")
    # 7. reacting units go home (step 9); the attackers' units are written
    for f in c.d_units:
        if f.origin is not None and f.unit.xy != f.origin:
            f.unit.x, f.unit.y = f.origin
            c.tell(c.defender, f"{f.unit.name()} returns to {c.at(f.origin, c.defender)}")
    for f in c.a_units:
        u = f.unit
        u.mission, u.fort = "", 0
        u.mob = u.mob - int(f.pending)
    # 8. capture, or the target keeps its (damaged) self
    captured = False
    if c.success:
        if capture.occupy(c):
            capture.take_sector(c, t)
            captured = True
        else:
            result.outcome = "unoccupied"
            if t.civ == 0 and t.mil == 0 and not w.units_at(t.xy):
                t.owner = 0
    else:
        t.mob = max(0, t.mob - c.target_pending)
    if c.target_infected and t.plague == Plague.HEALTHY:
        t.plague = Plague.EXPOSED
    # 9. the attacking sectors pay their mobility (step 12)
    floor = -127 if w.option("MOB_ACCESS") else 0
    for o in c.offs:
        if o.sector is not None:
            o.sector.mob = max(floor, o.sector.mob - o.pending)
            if o.infected and o.sector.plague == Plague.HEALTHY:
                o.sector.plague = Plague.EXPOSED
    # 10. move in (steps 13-14)
    if captured:
        movein.move_in_mil(c)
        movein.move_in_units(c)
        if t.mil > 0:
            c.say(f"{t.mil} of your troops now occupy {c.at(t.xy)}")
    if c.money_made:
        c.say(f"You just made ${c.money_made}.00")
    if c.sneak:
        target.declare_sneak_war(c, c.success)
    # step 15: BTUs
    charge = COMMAND_BTU + int(0.015 * cas + 0.5)
    w.nations[c.aggressor].btu -= charge
    result.btu_charged = charge
    if not c.success:
        result.outcome = "defeated"
    elif captured:
        result.outcome = "captured"
    result.attacker_casualties, result.defender_casualties = c.a_cas, c.d_cas
    result.money_made = c.money_made
    result.world_changed = True
