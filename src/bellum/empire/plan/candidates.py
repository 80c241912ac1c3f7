"""Candidates: every target a country can take this turn, and the forces it could send.

A target is offered to the planner when the command itself, run up to its
fight on a scratch world (the likeliest way there), asks for mil, offers land
units or flies paratroopers: the command's own checks (adjacency, mobility, a
ship close enough, supply, a plane's range, a drop zone) decide, not a second
copy of them.  Each candidate then becomes a few *options*: force levels the
prompts allow (a fraction of every source's most, as the ``Number of mil from
... (max N)`` prompts say), with and without the land units offered, and,
where a source borders several targets, from that source alone, so the
planner can share it; for a paradrop, how many of its transports fly.

Every command of the registry (:data:`~bellum.empire.combat.commands.COMMANDS`)
is covered, its arguments found by their roles: ``attack`` (sectors next to
yours or your land units), ``assault`` (from your ships with mil, at most one
sector away), ``paradrop`` (the transports of one sector, its assembly point,
to any sector within their range there and back, no escorts), ``board``
(enemy ships next to your ships and sectors) and ``lboard`` (enemy land units
next to your sectors).
"""

from __future__ import annotations

import math
from collections.abc import Callable, Iterator
from dataclasses import dataclass, field, replace

from bellum.collector import fewer_collections
from bellum.empire.combat import air
from bellum.empire.combat.air import paratroopers
from bellum.empire.combat.commands import COMMANDS, CommandSpec, spec_of
from bellum.empire.combat.dispatch import run_order
from bellum.empire.combat.flows import FightReached
from bellum.empire.combat.result import COMMAND_BTU
from bellum.empire.geometry import Coord
from bellum.empire.movement import MoveKind, attcost
from bellum.empire.odds.branching import BranchingDice
from bellum.empire.odds.plan import MilSource, Plan, PlanPrompter
from bellum.empire.orders import SYNTAX, Order
from bellum.empire.plan.curves import Pool, Task, WorldPickle, world_of
from bellum.empire.plan.precision import PLANNING, Precision
from bellum.empire.rules import Rules
from bellum.empire.scratch import WorldTemplate
from bellum.empire.tables import plane_range
from bellum.empire.world import Plane, Relation, World, known
from bellum.errors import BellumError

#: Force levels tried per source set: these fractions of every source's most.
DEFAULT_LEVELS = 4
#: Orders probed per task where a pool probes them.
PROBES_PER_TASK = 8


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
    #: Transport planes (paradrop): each plane's number and the paratroopers it carries
    #: from its sector, the assembly point ``base``.
    planes: tuple[tuple[int, int], ...] = ()
    base: Coord | None = None


@dataclass(frozen=True)
class Force:
    """One option's force: the plan the odds engine solves and the resources it uses."""

    candidate: Candidate
    plan: Plan
    uses: dict[str, float]
    #: Which of its candidate's force ladders it is on (one unit set and source set, or a
    #: paradrop's transports), and its step there (1: the weakest): the screen bisects
    #: each ladder (docs/plan.md).
    ladder: int = 0
    level: int = 0


def key(source: MilSource) -> str:
    return source if isinstance(source, str) else f"{source[0]},{source[1]}"


def enemies(world: World, country: int, owner: int) -> bool:
    """Whether ``owner``'s things are fair game for ``country`` (anyone not allied)."""
    return owner != country and (owner == 0 or world.rel(country, owner) != Relation.ALLIED)


def _transports(world: World, country: int) -> dict[Coord, list[Plane]]:
    """The country's transport planes that could fly a paradrop, by the sector they are in.

    A plane on a ship or a land unit is left out: the planner does not share a ship's or
    a unit's mil among paradrops.
    """
    out: dict[Coord, list[Plane]] = {}
    for p in sorted(world.planes.values(), key=lambda p: p.uid):
        if (
            p.owner == country
            and p.mob > 0
            and p.eff >= 40
            and p.ship is None
            and p.land is None
            and air.capable(p, "paradrop")
            and paratroopers(world, p) > 0
        ):
            out.setdefault(p.xy, []).append(p)
    return out


def _reach(world: World, country: int, spec: CommandSpec) -> Iterator[tuple[dict[str, str], Coord]]:
    """Where ``spec``'s sources reach: the words of its source arguments (by role) and a
    place a target may be, for each way the country's forces could give the command.

    The roles decide: a command with a ``planes`` role flies the transports of one
    sector (its assembly point) to anywhere within their range there and back; one with a
    ``source`` role takes a ship (its ship slot) or a sector (FROM) next to the target;
    one without either (``attack``) takes every sector and land unit next to it.
    """
    geo = world.geometry
    mine = [s for s in world.sectors.values() if s.owner == country]
    if "planes" in spec.roles:
        for ap, planes in _transports(world, country).items():
            reach = {p.uid: plane_range(p.type, p.tech) // 2 for p in planes}
            for t in world.sectors.values():
                d = geo.mapdist(ap, t.xy)
                flying = [p.uid for p in planes if 0 < d <= reach[p.uid]]
                if flying and enemies(world, country, t.owner):
                    words = {"planes": "/".join(map(str, flying)), "escorts": "."}
                    yield words | {"source": world.fmt(ap, country)}, t.xy
        return
    if "source" in spec.roles:
        syntax = SYNTAX[spec.name]
        if syntax.ship is not None:
            for sh in sorted(world.ships.values(), key=lambda s: s.uid):
                if sh.owner == country and sh.mil > 0:
                    for xy in [sh.xy, *geo.neighbours(sh.xy)]:
                        yield {"source": str(sh.uid)}, geo.norm(*xy)
        if syntax.ship is None or syntax.ship_or_sector:
            for s in mine:
                if s.mil > 1:
                    for xy in [s.xy, *geo.neighbours(s.xy)]:
                        yield {"source": world.fmt(s.xy, country)}, geo.norm(*xy)
        return
    near: set[Coord] = set()
    for s in mine:
        if s.mil > 1 and s.mob > 0:
            near.update(geo.neighbours(s.xy))
    for u in world.units.values():
        if u.owner == country and u.mob > 0 and not u.loaded:
            near.update(geo.neighbours(u.xy))
    for xy in sorted(near):
        yield {}, xy


def orders(world: World, country: int) -> Iterator[tuple[Order, str]]:
    """Orders worth probing, for every command of the registry (:data:`COMMANDS`): each
    target of the kind it takes (an enemy's land sector, ship or land unit) that its
    sources reach, with the target's key."""
    ships: dict[Coord, list[int]] = {}
    units: dict[Coord, list[int]] = {}
    for v in sorted(world.ships.values(), key=lambda v: v.uid):
        if v.owner != 0 and enemies(world, country, v.owner):
            ships.setdefault(v.xy, []).append(v.uid)
    for u in sorted(world.units.values(), key=lambda u: u.uid):
        if u.owner != 0 and enemies(world, country, u.owner):
            units.setdefault(u.xy, []).append(u.uid)
    for spec in COMMANDS.values():
        for words, xy in _reach(world, country, spec):
            targets: list[tuple[str, str]] = []
            if spec.takes == "sector":
                t = world.sectors.get(xy)
                if t is not None and not t.type.is_sea and enemies(world, country, t.owner):
                    targets = [(world.fmt(xy, country), f"sector:{xy[0]},{xy[1]}")]
            else:
                found = (ships if spec.takes == "ship" else units).get(xy, [])
                targets = [(str(uid), f"{spec.takes}:{uid}") for uid in found]
            for word, key in targets:
                args = tuple(word if role == "target" else words[role] for role in spec.roles)
                yield Order(spec.name, args), key


def probe(
    world: World, template: WorldTemplate, country: int, order: Order, target: str, rules: Rules
) -> Candidate | None:
    """Run ``order`` up to its fight, everything offered taken; ``None`` if it cannot fight."""
    prompter = PlanPrompter(Plan(order, rules=rules))
    dice = BranchingDice()
    try:
        with dice.text_only():  # the likeliest way to the fight (flak that misses, say)
            run_order(template.scratch(), order, country, dice, prompter, rules=rules,
                      stop_at="fight")  # fmt: skip
    except FightReached:
        pass
    except BellumError:  # a sector the view does not show (fog of war), for one
        return None
    else:
        return None  # refused, aborted, or decided without a fight
    sources = tuple((s, n) for s, n in prompter.asked.items() if n > 0)
    if "planes" in spec_of(order.name).roles:
        planes = tuple((uid, paratroopers(world, world.planes[uid])) for uid in _uids(order))
        base = world.planes[planes[0][0]].xy
        return Candidate(order, target, (), (), None, 0.0, rules, planes, base)
    if not sources and not prompter.offered:
        return None
    mob = 0.0
    if order.name == "attack":
        x, y = (int(v) for v in target.split(":")[1].split(","))
        mob = attcost(world, country, world.sector((x, y)), MoveKind.MOVE, rules=rules)
    ship = order.ship
    return Candidate(order, target, sources, tuple(sorted(prompter.offered)), ship, mob, rules)


def candidates(
    world: World,
    country: int,
    rules: Rules,
    targets: set[str] | None = None,
    *,
    pool: Pool | None = None,
    progress: Callable[[float], None] | None = None,
) -> list[Candidate]:
    """Every target ``country`` can fight for this turn under ``rules`` (only ``targets``,
    by key, when given), one candidate per order.  With ``pool`` its workers probe the
    orders (the same candidates, in the same order: each probe is one run of its own).
    ``progress`` hears the fraction of the orders probed."""
    todo: list[tuple[Order, str]] = []
    seen: set[Order] = set()
    for order, target in orders(world, country):
        if order in seen or (targets is not None and target not in targets):
            continue
        seen.add(order)
        todo.append((order, target))
    found: list[Candidate | None]
    if pool is None:
        template = WorldTemplate(world)
        found = []
        for order, target in todo:
            found.append(probe(world, template, country, order, target, rules))
            if progress is not None:
                progress(len(found) / len(todo))
    else:
        found = [None] * len(todo)
        n = PROBES_PER_TASK
        tasks: list[Task] = [
            (0, country, [(order, target, rules) for order, target in todo[i : i + n]])
            for i in range(0, len(todo), n)
        ]
        done = 0
        for k, out in pool.run([WorldPickle.of(world)], tasks, 0, PLANNING, job=probe_chunk):
            found[k * n : k * n + len(out)] = out
            done += len(out)
            if progress is not None:
                progress(done / len(todo))
    return [c for c in found if c is not None]


def probe_chunk(
    digest: str,
    source: bytes | str,
    country: int,
    items: list[tuple[Order, str, Rules]],
    _seed: int,
    _precision: Precision,
) -> list[Candidate | None]:  # run in a worker
    """:func:`probe` of each order and target, on the world named ``digest`` (a pool's
    :data:`~bellum.empire.plan.curves.Job`)."""
    world, template = world_of(digest, source)
    with fewer_collections():
        return [probe(world, template, country, order, target, r) for order, target, r in items]


def _uids(order: Order) -> list[int]:
    """The transport planes a paradrop order names (its ``planes`` slot: ``3/7/12``)."""
    return [int(w) for w in order.args[spec_of(order.name).roles.index("planes")].split("/")]


def _paradrops(c: Candidate, levels: int) -> Iterator[Force]:
    """A paradrop's options: the first ⌈k/N⌉ of its transports, for each level k."""
    slot = spec_of(c.order.name).roles.index("planes")
    seen: set[int] = set()
    for k in range(1, levels + 1):
        n = math.ceil(len(c.planes) * k / levels)
        if n in seen:
            continue
        seen.add(n)
        flying = c.planes[:n]
        args = list(c.order.args)
        args[slot] = "/".join(str(uid) for uid, _ in flying)
        order = Order(c.order.name, tuple(args))
        uses: dict[str, float] = {"btu": float(COMMAND_BTU)}
        assert c.base is not None
        uses[f"mil:{key(c.base)}"] = float(sum(load for _, load in flying))
        for uid, _ in flying:
            uses[f"plane:{uid}"] = 1.0
        yield Force(c, Plan(order, {}, frozenset(), c.rules), uses, 0, k)


def forces(candidates: list[Candidate], levels: int = DEFAULT_LEVELS) -> list[Force]:
    """The options of every candidate: force levels × unit choices × source sets (for a
    paradrop: how many of its transports fly)."""
    shared: dict[MilSource, int] = {}
    for c in candidates:
        for s, _ in c.sources:
            if s != "ship":
                shared[s] = shared.get(s, 0) + 1
    out: list[Force] = []
    for c in candidates:
        if c.planes:
            out += _paradrops(c, levels)
            continue
        sets = [c.sources]
        if len(c.sources) > 1:
            sets += [((s, n),) for s, n in c.sources if shared.get(s, 0) > 1]
        unit_sets = [frozenset(c.units), frozenset()] if c.units else [frozenset()]
        seen: set[tuple[tuple[tuple[MilSource, int], ...], frozenset[int]]] = set()
        ladders = ((u, srcs) for u in unit_sets for srcs in sets)
        for ladder, (units, sources) in enumerate(ladders):
            for k in range(1, levels + 1):
                mil = tuple((s, math.ceil(n * k / levels)) for s, n in sources)
                if (mil, units) in seen or (not units and not any(n for _, n in mil)):
                    continue
                seen.add((mil, units))
                # Every source the command asks about is answered, unused ones with 0.
                answers = {s: 0 for s, _ in c.sources} | dict(mil)
                out.append(replace(_force(c, answers, units), ladder=ladder, level=k))
    return out


def strongest(c: Candidate) -> Force:
    """The candidate's strongest option, one of :func:`forces`'s: everything its command
    offers (every source's most, every land unit, every transport)."""
    if c.planes:
        return next(_paradrops(c, 1))
    return _force(c, dict(c.sources), frozenset(c.units))


def stronger(a: Force, b: Force) -> bool:
    """Whether ``a`` sends at least what ``b`` does at the same target: as many mil from
    every source, and every land unit and transport of ``b`` (so, the planner assumes,
    P(success) at least ``b``'s)."""
    if a.candidate is not b.candidate:
        return False
    mine, theirs = a.plan.mil or {}, b.plan.mil or {}
    if any(mine.get(src, 0) < n for src, n in theirs.items()):
        return False
    if not (b.plan.units or frozenset()) <= (a.plan.units or frozenset()):
        return False
    return all(r in a.uses for r in b.uses if r.startswith("plane:"))


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
    cap: dict[str, float] = {"btu": float(known(world.nations[country].btu, "the BTUs"))}
    for s in world.sectors.values():
        if s.owner == country:
            cap[f"mil:{s.x},{s.y}"] = float(max(0, s.mil - 1))
            cap[f"mob:{s.x},{s.y}"] = float(max(0, s.mob))
    return cap


__all__ = [
    "DEFAULT_LEVELS",
    "Candidate",
    "Force",
    "candidates",
    "capacities",
    "forces",
    "stronger",
    "strongest",
]
