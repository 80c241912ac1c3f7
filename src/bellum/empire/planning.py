"""Planned attacks: the odds of an ``attack`` before it is made (odds issue, spec §3-§6).

A :class:`Plan` says what the player would answer — the target, how many mil
from which sector, which land units — so the real attack code can be run
without anyone at the keyboard.  Two uses:

* :func:`fight_sides` runs the attack's own steps up to the fight on a copy
  of the world and turns the deterministic casualty allocation (§6.3) into
  the odds engine's :class:`~bellum.odds.Side` arrays: each side's strength
  after it has lost k rounds, computed by the same ``casualty`` and
  ``offense_total``/``defense_total`` functions the fight uses.  Morale checks
  are switched off there (they are random); fort, ship, unit and plane support
  are random too and are left out, the mine bonus is kept.
* :func:`resolver_runs` plays the whole command many times on copies of the
  world (morale, reactions and support included): the Monte Carlo of last
  resort, against which the exact numbers can be checked.
"""

from __future__ import annotations

import copy
import re
from dataclasses import dataclass, field

import numpy as np

from bellum.dice import ServerRandom
from bellum.empire.combat import defenders, fight, force, support, target
from bellum.empire.combat.dispatch import run_command
from bellum.empire.combat.state import Aborted, Combat, Failure, Mode, UsageFailure, infected
from bellum.empire.combat.strength import defense_total, offense_total
from bellum.empire.geometry import Coord
from bellum.empire.orders import Order
from bellum.empire.world import World
from bellum.errors import CommandError, UsageError
from bellum.odds import Side

_MIL = re.compile(r"^Number of mil from .* at (-?\d+),(-?\d+) \(max (\d+)\) : $")
_UNIT = re.compile(r"^attack with .* #(\d+) in ")


@dataclass
class Plan:
    """What the player would answer for ``attack``: mil per sector, units, support."""

    target: Coord
    mil: dict[Coord, int] = field(default_factory=dict)
    units: set[int] = field(default_factory=set)
    support: tuple[bool, bool, bool, bool] = (True, True, True, True)

    def order(self, world: World, country: int) -> Order:
        """The ``attack`` order this plan answers, in ``country``'s coordinates."""
        words = ["y" if s else "n" for s in self.support]
        return Order("attack", (world.fmt(self.target, country), *words))


@dataclass
class PlanPrompter:
    """Answers the attack's questions from a :class:`Plan`, like a player who decided."""

    world: World
    origin: Coord
    plan: Plan
    unused_mil: set[Coord] = field(default_factory=set)

    def __post_init__(self) -> None:
        self.unused_mil = set(self.plan.mil)

    def ask(self, prompt: str) -> str | None:
        m = _MIL.match(prompt)
        if m:
            xy = self.world.geometry.to_abs((int(m.group(1)), int(m.group(2))), self.origin)
            self.unused_mil.discard(xy)
            return str(self.plan.mil.get(xy, 0))
        m = _UNIT.match(prompt)
        if m:
            return "y" if int(m.group(1)) in self.plan.units else "n"
        if prompt.startswith("Are you sure"):
            return "y"
        if prompt.startswith("How many mil to move in"):
            return "0"
        if prompt.startswith("Move in with"):
            return "n"
        return None


def make_plan(
    world: World, country: int, target_text: str, mil: list[str], units: list[int]
) -> Plan:
    """A plan from the command line's ``TARGET``, ``--mil SECT=N`` and ``--unit ID``."""
    origin = world.nations[country].origin
    geo = world.geometry
    t = geo.parse(target_text, origin)
    plan = Plan(target=t)
    neighbours = set(geo.neighbours(t))
    for item in mil:
        sect, sep, n = item.partition("=")
        if not sep or not n.strip().lstrip("-").isdigit():
            raise UsageError(f"--mil needs SECT=N such as 0,0=150, not '{item}'")
        xy = geo.parse(sect, origin)
        if xy in plan.mil:
            raise UsageError(f"--mil {sect} is given twice")
        if xy not in neighbours:
            raise UsageError(f"--mil {sect}: not next to {target_text}")
        count = int(n)
        if count < 0:
            raise UsageError(f"--mil {item}: the number of mil cannot be negative")
        plan.mil[xy] = count
    for uid in units:
        u = world.units.get(uid)
        if u is None or u.owner != country:
            raise UsageError(f"--unit {uid}: you have no land unit #{uid}")
        if u.xy not in neighbours:
            raise UsageError(f"--unit {uid}: {u.name()} is not next to {target_text}")
        plan.units.add(uid)
    return plan


def prepare(world: World, country: int, plan: Plan) -> tuple[Combat, list[str]]:
    """The combat on a copy of ``world``, set up to the first round; and what was printed.

    Raises :class:`~bellum.errors.CommandError` with the server's words when the
    plan cannot be carried out (not adjacent, nothing to attack with…).
    """
    w = world.copy()
    w.overrides["scout_estimate"] = False
    origin = w.nations[country].origin
    prompter = PlanPrompter(w, origin, plan)
    c = Combat(w, ServerRandom(1), prompter, country, Mode.ATTACK)
    t = w.sector(plan.target)
    try:
        target.check_attack_target(c, t)
        c.target, c.defender = t, t.owner
        problem = target.passable_or_abort(c, t)
        if problem:
            raise Failure(problem)
        c.offs = force.attack_offs(c)
        answers = force.ArmyAnswers(c)
        for o in c.offs:
            force.ask_sector_mil(c, o)
            force.ask_units(c, o, answers)
    except (Failure, UsageFailure) as exc:
        raise CommandError(str(exc)) from None
    except Aborted:
        raise CommandError("the plan cannot be carried out") from None
    unused = sorted(xy for xy in prompter.unused_mil if plan.mil[xy] > 0)
    if unused:
        xy = unused[0]
        raise CommandError(f"--mil {w.fmt(xy, country)}: no mil can attack from there")
    for o in c.offs:
        wanted = plan.mil.get(o.xy, 0)
        if o.troops < wanted:
            where = w.fmt(o.xy, country)
            raise CommandError(f"--mil {where}={wanted}: at most {o.troops} mil can attack there")
    missing = plan.units - {f.unit.uid for f in c.a_units}
    if missing:
        raise CommandError(f"--unit {min(missing)}: the unit cannot attack (see the reasons above)")
    c.d_troops = t.mil
    c.target_infected = infected(t.plague)
    c.ototal = offense_total(c)
    if c.ototal <= 0:
        raise CommandError("no troops for attack: give some mil (--mil) or units (--unit)")
    defenders.present_defenders(c, report_units=False)
    defenders.react(c)
    support.mine_bonus(c)
    fight.header(c)
    chosen = {f.unit.name() for f in c.a_units}
    said = [
        line
        for e in c.events
        if e.kind == "text"
        for line in e.text.rstrip("\n").split("\n")
        if "has a base attack value" not in line or line.split(" has a base")[0] in chosen
    ]
    return c, said


def _replay(c: Combat, defender: bool) -> tuple[list[float], list[int]]:
    """One side's strength and casualties after each lost round, by the fight's own rules."""
    side = copy.deepcopy(c)
    side.morale = False
    side.sink = None
    total = defense_total if defender else offense_total
    strength: list[float] = [float(total(side))]
    dead = [0]
    while strength[-1] > 0:
        dead.append(dead[-1] + fight.casualty(side, defender=defender))
        strength.append(float(total(side)))
    return strength, dead


def fight_sides(c: Combat) -> tuple[Side, Side]:
    """The odds engine's sides for a prepared combat (see the module notes)."""
    a_strength, a_dead = _replay(c, defender=False)
    d_strength, d_dead = _replay(c, defender=True)
    return (
        Side.from_arrays(a_strength, a_dead, label="attacker"),
        Side.from_arrays(d_strength, d_dead, label="defender"),
    )


@dataclass
class ResolverRuns:
    """What many full runs of the real command gave."""

    runs: int
    wins: int
    attacker_losses: list[int]
    defender_losses: list[int]
    seeds: list[int]

    @property
    def p_win(self) -> float:
        return self.wins / self.runs

    @property
    def standard_error(self) -> float:
        p = self.p_win
        return float(np.sqrt(max(p * (1 - p), 1e-300) / self.runs))


def resolver_runs(world: World, country: int, plan: Plan, runs: int, seed: int) -> ResolverRuns:
    """Play the real ``attack`` ``runs`` times on copies of ``world`` (morale, support, all)."""
    seeds = [int(s) for s in np.random.SeedSequence(seed).generate_state(runs)]
    wins, a_loss, d_loss = 0, [], []
    origin = world.nations[country].origin
    order = plan.order(world, country)
    for s in seeds:
        w = world.copy()
        w.overrides["scout_estimate"] = False
        r = run_command(w, order, country=country, seed=s, prompter=PlanPrompter(w, origin, plan))
        if r.outcome in ("aborted", "refused", "usage"):
            raise CommandError(f"the attack did not reach the fight: {r.transcript().strip()}")
        wins += r.success or r.outcome == "unoccupied"
        a_loss.append(r.attacker_casualties)
        d_loss.append(r.defender_casualties)
    return ResolverRuns(runs, wins, a_loss, d_loss, seeds)


__all__ = [
    "Plan",
    "PlanPrompter",
    "ResolverRuns",
    "fight_sides",
    "make_plan",
    "prepare",
    "resolver_runs",
]
