"""Candidates: every target a country can take this turn, and the forces it could send.

A target is offered to the planner when the command itself, run up to its
fight on a scratch world, asks for mil or offers land units: the command's
own checks (adjacency, mobility, a ship close enough, supply) decide, not a
second copy of them.  Each candidate then becomes a few *options*: force
levels the prompts allow (a fraction of every source's most, as the
``Number of mil from ... (max N)`` prompts say), with and without the land
units offered, and, where a source borders several targets, from that
source alone, so the planner can share it.

Commands covered: ``attack`` (sectors next to yours), ``assault`` (from your
ships with mil, at most one sector away), ``board`` (enemy ships next to your
ships and sectors) and ``lboard`` (enemy land units next to your sectors).
``paradrop`` needs a flight route per target and is not planned yet
(docs/plan.md).
"""

from __future__ import annotations

import math
from collections.abc import Iterator
from dataclasses import dataclass, field

from bellum.empire.combat.dispatch import run_order
from bellum.empire.combat.flows import FightReached
from bellum.empire.combat.result import COMMAND_BTU
from bellum.empire.geometry import Coord
from bellum.empire.movement import MoveKind, attcost
from bellum.empire.odds.branching import BranchingDice
from bellum.empire.odds.plan import MilSource, Plan, PlanPrompter
from bellum.empire.orders import Order
from bellum.empire.rules import Rules
from bellum.empire.scratch import WorldTemplate
from bellum.empire.world import Relation, World
from bellum.errors import BellumError

#: Force levels tried per source set: these fractions of every source's most.
DEFAULT_LEVELS = 4


@dataclass(frozen=True)
class Candidate:
    """A target and what its command offers: mil per source (the prompts' most) and units."""

    order: Order
    #: ``sector:x,y``, ``ship:N`` or ``unit:N`` (absolute coordinates).
    target: str
    sources: tuple[tuple[MilSource, int], ...]
    units: tuple[int, ...]
    #: The ship the command takes its mil from (assault, board from a ship).
    ship: int | None = None
    #: Mobility a sector spends per mil sent (attack), else 0.
    mob_per_mil: float = 0.0
    #: The rules the command runs under.
    rules: Rules = field(default_factory=Rules)


@dataclass(frozen=True)
class Force:
    """One option's force: the plan the odds engine solves and the resources it uses."""

    candidate: Candidate
    plan: Plan
    uses: dict[str, float]


def key(source: MilSource) -> str:
    return source if isinstance(source, str) else f"{source[0]},{source[1]}"


def enemies(world: World, country: int, owner: int) -> bool:
    """Whether ``owner``'s things are fair game for ``country`` (anyone not allied)."""
    return owner != country and (owner == 0 or world.rel(country, owner) != Relation.ALLIED)


def orders(world: World, country: int) -> Iterator[tuple[Order, str]]:
    """Orders worth probing: targets within one sector of the country's forces."""
    geo = world.geometry
    mine = [s for s in world.sectors.values() if s.owner == country]
    near: set[Coord] = set()
    for s in mine:
        if s.mil > 1 and s.mob > 0:
            near.update(geo.neighbours(s.xy))
    for u in world.units.values():
        if u.owner == country and u.mob > 0 and not u.loaded:
            near.update(geo.neighbours(u.xy))
    for xy in sorted(near):
        t = world.sectors.get(xy)
        if t is not None and not t.type.is_sea and enemies(world, country, t.owner):
            yield Order("attack", (world.fmt(xy, country),)), f"sector:{xy[0]},{xy[1]}"
    ships = [sh for sh in world.ships.values() if sh.owner == country and sh.mil > 0]
    for sh in sorted(ships, key=lambda s: s.uid):
        for xy in [sh.xy, *geo.neighbours(sh.xy)]:
            t = world.sectors.get(geo.norm(*xy))
            if t is not None and not t.type.is_sea and enemies(world, country, t.owner):
                where = world.fmt(t.xy, country)
                yield Order("assault", (where, str(sh.uid))), f"sector:{t.x},{t.y}"
    for v in sorted(world.ships.values(), key=lambda s: s.uid):
        if not enemies(world, country, v.owner) or v.owner == 0:
            continue
        for sh in ships:
            if geo.mapdist(sh.xy, v.xy) <= 1:
                yield Order("board", (str(v.uid), str(sh.uid))), f"ship:{v.uid}"
        for s in mine:
            if s.mil > 1 and geo.mapdist(s.xy, v.xy) <= 1:
                yield Order("board", (str(v.uid), world.fmt(s.xy, country))), f"ship:{v.uid}"
    for u in sorted(world.units.values(), key=lambda u: u.uid):
        if not enemies(world, country, u.owner) or u.owner == 0:
            continue
        for s in mine:
            if s.mil > 1 and s.mob > 0 and geo.mapdist(s.xy, u.xy) <= 1:
                yield Order("lboard", (str(u.uid), world.fmt(s.xy, country))), f"unit:{u.uid}"


def probe(
    world: World, template: WorldTemplate, country: int, order: Order, target: str, rules: Rules
) -> Candidate | None:
    """Run ``order`` up to its fight, everything offered taken; ``None`` if it cannot fight."""
    prompter = PlanPrompter(Plan(order, rules=rules))
    try:
        run_order(
            template.scratch(), order, country, BranchingDice(), prompter, rules=rules,
            stop_at="fight",
        )  # fmt: skip
    except FightReached:
        pass
    except BellumError:  # a sector the view does not show (fog of war), for one
        return None
    else:
        return None  # refused, aborted, or decided without a fight
    sources = tuple((s, n) for s, n in prompter.asked.items() if n > 0)
    if not sources and not prompter.offered:
        return None
    mob = 0.0
    if order.name == "attack":
        x, y = (int(v) for v in target.split(":")[1].split(","))
        mob = attcost(world, country, world.sector((x, y)), MoveKind.MOVE, rules=rules)
    ship = order.ship
    return Candidate(order, target, sources, tuple(sorted(prompter.offered)), ship, mob, rules)


def candidates(world: World, country: int, rules: Rules) -> list[Candidate]:
    """Every target ``country`` can fight for this turn under ``rules``, one candidate per
    order."""
    template = WorldTemplate(world)
    out = []
    seen: set[Order] = set()
    for order, target in orders(world, country):
        if order in seen:
            continue
        seen.add(order)
        c = probe(world, template, country, order, target, rules)
        if c is not None:
            out.append(c)
    return out


def forces(candidates: list[Candidate], levels: int = DEFAULT_LEVELS) -> list[Force]:
    """The options of every candidate: force levels × unit choices × source sets."""
    shared: dict[MilSource, int] = {}
    for c in candidates:
        for s, _ in c.sources:
            if s != "ship":
                shared[s] = shared.get(s, 0) + 1
    out: list[Force] = []
    for c in candidates:
        sets = [c.sources]
        if len(c.sources) > 1:
            sets += [((s, n),) for s, n in c.sources if shared.get(s, 0) > 1]
        unit_sets = [frozenset(c.units), frozenset()] if c.units else [frozenset()]
        seen: set[tuple[tuple[tuple[MilSource, int], ...], frozenset[int]]] = set()
        for units in unit_sets:
            for sources in sets:
                for k in range(1, levels + 1):
                    mil = tuple((s, math.ceil(n * k / levels)) for s, n in sources)
                    if (mil, units) in seen or (not units and not any(n for _, n in mil)):
                        continue
                    seen.add((mil, units))
                    # Every source the command asks about is answered, unused ones with 0.
                    answers = {s: 0 for s, _ in c.sources} | dict(mil)
                    out.append(_force(c, answers, units))
    return out


def _force(c: Candidate, mil: dict[MilSource, int], units: frozenset[int]) -> Force:
    uses: dict[str, float] = {"btu": float(COMMAND_BTU)}
    for s, n in mil.items():
        if s == "ship" or n <= 0:
            continue
        uses[f"mil:{key(s)}"] = float(n)
        if c.mob_per_mil:
            uses[f"mob:{key(s)}"] = float(max(1, int(n * c.mob_per_mil)))
    if c.ship is not None:
        uses[f"ship:{c.ship}"] = 1.0
    for uid in units:
        uses[f"unit:{uid}"] = 1.0
    return Force(c, Plan(c.order, mil, units, c.rules), uses)


def capacities(world: World, country: int) -> dict[str, float]:
    """Every shared resource's capacity: mil a sector can send, its mobility, the BTUs."""
    cap: dict[str, float] = {"btu": float(world.nations[country].btu)}
    for s in world.sectors.values():
        if s.owner == country:
            cap[f"mil:{s.x},{s.y}"] = float(max(0, s.mil - 1))
            cap[f"mob:{s.x},{s.y}"] = float(max(0, s.mob))
    return cap


__all__ = ["DEFAULT_LEVELS", "Candidate", "Force", "candidates", "capacities", "forces"]
