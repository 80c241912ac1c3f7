"""The odds of a planned command: the real flow up to the fight, then exact fights.

1. **Before the fight** the command's own code runs on scratch copies of the
   world (:class:`~bellum.empire.scratch.WorldTemplate`) with
   :class:`~bellum.empire.odds.branching.BranchingDice`, stopped where the
   fight begins (``run_order(..., stop_at="fight")`` raises ``FightReached``).
   Every random event on the way —
   reacting units' supply, fort, ship, unit and plane support, flak and
   interception on a paradrop's route, a boarding's approach fire — is a
   branch.  When the tree is small enough (estimated first from random
   probes) every end ("leaf") is visited with its exact probability;
   otherwise leaves are sampled.  Leaves that end without a fight (a ship
   sunk, every transport shot down) are outcomes in their own right.
2. **The fight** of each distinct leaf is solved exactly with morale folded
   in (:mod:`.sides`, :mod:`.solver`).  When a side's morale graph is too
   big, its morale histories are sampled instead, each solved exactly.
3. **The mixture**: outcomes and casualty distributions are summed over
   leaves, weighted by their probabilities (or averaged over samples, with
   standard errors from the spread of the per-sample values).

``method`` says which: ``exact`` (one leaf, exact fight), ``exact mixture``
(every leaf, exact fights), or ``mixture (N samples: …)`` naming what was exact
and what was drawn.  ``samples`` is always the number of values the estimate
averages (one per leaf drawn), ``None`` when nothing was drawn.
"""

from __future__ import annotations

import math
import threading
import time
import weakref
from collections.abc import Callable, Hashable, Sequence
from dataclasses import dataclass, field
from typing import Any, TypeVar

import numpy as np

from bellum.collector import fewer_collections
from bellum.dice import new_seed
from bellum.empire.combat.dispatch import run_order
from bellum.empire.combat.flows import FightReached
from bellum.empire.combat.result import CombatResult, Outcome
from bellum.empire.combat.state import Combat, ldround
from bellum.empire.combat.strength import target_multiplier
from bellum.empire.events import Refusal, ScoutReport, UnitNote, said, transcript
from bellum.empire.odds._sides import (
    SideGraph,
    SideMoves,
    SideShape,
    TooManyStates,
    side_graph,
    side_shape,
)
from bellum.empire.odds._solver import GraphEnds, kernel_ends, per_casualty_ends, server_ends
from bellum.empire.odds.branching import BranchingDice, enumerate_runs, pick, tree_size
from bellum.empire.odds.plan import MilSource, Plan, PlanPrompter
from bellum.empire.rules import Rules
from bellum.empire.scratch import WorldTemplate
from bellum.empire.world import World
from bellum.errors import CommandError, InputError
from bellum.odds._common import numba_importable, numba_wanted
from bellum.odds.montecarlo import many_fights
from bellum.odds.result import LossDistribution, OddsResult

Progress = Callable[[float], None]
T = TypeVar("T")

#: Most leaves visited one by one before the events before the fight are sampled.
MAX_LEAVES = 400
#: Random probes that estimate the number of leaves.
PROBES = 24
#: When sampling: at least this many samples, then until the standard error of
#: P(success) is at most DEFAULT_ERROR (or ``target_error``).
MIN_SAMPLES = 20
#: Below this many samples their spread is not trusted alone (see Mixture.errors).
TRUSTED_SAMPLES = 100
DEFAULT_ERROR = 0.01
#: Most pairs of side states solved exactly (about a second of work per 10,000).
EXACT_PAIRS = 12_000
#: Most pairs solved exactly when neither side has a morale draw (sampling would not help).
CHAIN_PAIRS = 250_000
#: Most pairs solved exactly for one sample (beyond, the sample's fight is simulated).
SAMPLE_PAIRS = 2_000
#: With numba: most pairs of a fight with morale draws the compiled kernel solves
#: exactly (about a second per 500,000 on the realistic suite), for plans whose paths
#: reach at most ``BIG_FIGHTS`` distinct fights over ``exact_pairs`` (a plan whose
#: support varies has tens to hundreds of them: those stay sampled).
BIG_PAIRS = 1_000_000
BIG_FIGHTS = 2
#: Cone products after which the kernel gives up on a big fight and the plan is sampled
#: (its cost per pair varies twentyfold with the width of the morale graphs: 2·10⁸ are
#: w128x64-assault-2's whole fight, 0.5 s at load 9; a wider one of 10⁶ pairs took 7 s).
BIG_WORK = 3e8
#: Pairs of side states with less probability are dropped (their mass is ``pruned_mass``).
TAU = 1e-18
#: Bytes the exact solver needs per pair of side states (three arrays of doubles).
PAIR_BYTES = 24
#: Monte Carlo runs of one sampled fight too big to solve exactly.  Their noise is part
#: of the per-sample spread the standard error comes from; 400 runs add at most
#: 0.25 / 400 to a sample's variance of P, small beside the spread between paths
#: where fights are big (4,000 runs cost 3.5 times the CPU for the same error).
FIGHT_RUNS = 400
#: Outcomes in which the attacker got what it came for.
SUCCESS = ("captured", "unoccupied", "reinforced", "landed")


@dataclass
class Leaf:
    """One end of the command before its fight: the combat as the fight finds it, or the end."""

    result: CombatResult
    combat: Combat | None
    prompter: PlanPrompter
    #: How many draws on the way had more than one outcome.
    branches: int = 0

    @property
    def text(self) -> str:
        return transcript(self.result.events if self.combat is None else self.combat.events)


@dataclass(frozen=True)
class FightOutcome:
    """What one fight (or one leaf without a fight) gives: outcome and loss weights."""

    outcomes: dict[str, float]
    attacker: dict[int, float]
    defender: dict[int, float]
    pruned: float = 0.0


@dataclass(frozen=True)
class EmpireOdds:
    """The odds of a :class:`Plan`: an :class:`~bellum.odds.OddsResult` and how it was found.

    ``odds.outcomes`` names the command's outcomes (``captured``,
    ``unoccupied``, ``defeated``, ``aborted``…); ``p_success`` is the chance
    the attacker wins (``captured`` or ``unoccupied``).  ``standard_error``
    is 0 for exact methods.  ``lines`` is what the command prints before its
    fight on its likeliest path; ``final`` the range of final strengths over
    all paths.  ``leaves`` counts the distinct paths to the fight the answer met: all
    of them when it walked them, those drawn when it sampled (once the runner stops
    keeping paths, where they hardly repeat, each sample after that is one).
    """

    plan: Plan
    odds: OddsResult
    method: str
    model: str
    standard_error: float
    expected_errors: dict[str, float]
    lines: list[str]
    leaves: int
    fights: int
    samples: int | None = None
    #: The command never branches before its fight: every sample is the same path.
    one_path: bool = False
    seed: int | None = None
    final: dict[str, tuple[int, int]] = field(default_factory=dict)
    notes: tuple[str, ...] = ()
    #: The processor time the odds took (``odds.seconds`` is the wall time).
    cpu_seconds: float | None = None

    @property
    def p_success(self) -> float:
        return min(1.0, sum(self.odds.outcomes.get(k, 0.0) for k in SUCCESS))

    def expected(self, side: str) -> float:
        return self.odds.losses[side].mean()


class PlanRunner:
    """Runs the plan's command on scratch worlds of ``template`` (``world`` frozen; a
    study freezes its world once for all its plans and checks), stopping at the fight."""

    def __init__(
        self, world: World, country: int, plan: Plan, template: WorldTemplate | None = None
    ) -> None:
        self.template = template if template is not None else WorldTemplate(world)
        self.country = country
        self.plan = plan
        self.rules = plan.rules_in(world)
        self._root: _Choice | Leaf | None = None
        #: Paths drawn by :meth:`sample`, runs of the command they needed, and whether
        #: the paths are kept.
        self.samples = 0
        self.runs = 0
        self.keeping = True

    def sample(self, rng: np.random.Generator) -> Leaf:
        """``self(BranchingDice(rng=rng))``: a leaf on a path drawn with its choices'
        probabilities, with the same draws of ``rng``, but the command runs only on a path
        not met before.  A sampled plan meets the same few paths again and again
        (w32x16-attack-2: 160 samples, 37 paths); the tree of choices the runs met
        (``_root``: each choice's weights, each path's leaf) draws the known part
        without running anything.  Where paths do not repeat (a paradrop's dogfights:
        as many paths as samples) the tree is dropped for good once the runs number
        more than :data:`KEEP_PATHS` and more than three for every four samples."""
        self.samples += 1
        if self.keeping and self.runs > KEEP_PATHS and 4 * self.runs > 3 * self.samples:
            self.keeping, self._root = False, None
        if not self.keeping:
            return self(BranchingDice(rng=rng))
        path: list[int] = []
        node = self._root
        while isinstance(node, _Choice):
            path.append(pick(node.weights, float(rng.random())))
            node = node.next.get(path[-1])
        if node is None:
            dice = _Recording(tuple(path), rng)
            node = self(dice)
            self.runs += 1
            self._keep(dice.path[: len(dice.widths)], dice.choices, node)
        # A path met again is the same leaf: ``EmpireOdds.leaves`` counts distinct paths.
        return node

    def _keep(
        self, path: list[int], choices: list[Sequence[tuple[Any, float]]], leaf: Leaf
    ) -> None:
        """Add a run's path: the choices it made (their options) and where it ended."""
        if not path:
            self._root = leaf
            return
        if self._root is None:
            self._root = _Choice(choices[0])
        node = self._root
        assert isinstance(node, _Choice)
        for i, j in enumerate(path[:-1]):
            child = node.next.get(j)
            if child is None:
                child = node.next[j] = _Choice(choices[i + 1])
            assert isinstance(child, _Choice)
            node = child
        node.next[path[-1]] = leaf

    def __call__(self, dice: BranchingDice) -> Leaf:
        w = self.template.scratch()
        prompter = PlanPrompter(self.plan)
        try:
            result = run_order(
                w, self.plan.order, self.country, dice, prompter, rules=self.rules, stop_at="fight"
            )
        except FightReached as stop:
            return Leaf(stop.result, stop.combat, prompter, len(dice.widths))
        return Leaf(result, None, prompter, len(dice.widths))


#: Runs of the command :meth:`PlanRunner.sample` keeps before it checks that paths repeat.
KEEP_PATHS = 20


class _Choice:
    """A choice met on the way to the fight: its options' weights, and what each leads to."""

    __slots__ = ("next", "weights")

    def __init__(self, options: Sequence[tuple[Any, float]]) -> None:
        self.weights = [p for _, p in options if p > 0]
        self.next: dict[int, _Choice | Leaf] = {}


class _Recording(BranchingDice):
    """Branching dice that keep the options of each choice they branch on."""

    def __init__(self, path: tuple[int, ...], rng: np.random.Generator) -> None:
        super().__init__(path, rng)
        self.choices: list[Sequence[tuple[Any, float]]] = []

    def _choose(self, options: Sequence[tuple[T, float]]) -> T:
        branches = len(self.widths)
        value = super()._choose(options)
        if len(self.widths) > branches:
            self.choices.append(options)
        return value


class CommandUsage(CommandError):
    """The command's own ``Usage:`` refusal, in its words: the command line printed
    it as the game does and exits with status 2, like the command itself."""

    exit_status = 2


class MoreThanAsked(CommandError):
    """A plan's mil from a source above the most the command's question there allows: the
    edges word it as the command does for the same answer named to it (the command line:
    a usage error)."""

    def __init__(self, source: MilSource, n: int, most: int, where: str, name: str) -> None:
        super().__init__(
            f"at most {most} mil can go from {where}, not {n}", field="mil", value=name
        )
        self.source = source
        self.n = n
        self.most = most
        self.where = where


def check_plan(
    world: World, country: int, plan: Plan, template: WorldTemplate | None = None
) -> list[str]:
    """Raise what :func:`plan_odds` would raise about ``plan`` before any work (one run up
    to the fight, on ``template`` if given); return what it will say about the answers
    (:func:`_check_plan`)."""
    leaf = PlanRunner(world, country, plan, template)(BranchingDice())
    return _check_plan(world, country, plan, leaf)


def _check_plan(world: World, country: int, plan: Plan, leaf: Leaf) -> list[str]:
    """The command's refusals, raised as one line; else what the command says about the
    answers, as notes.

    The command refuses more mil than a question allows, and so do the odds.  An answer
    no question asks for, the command warns about and goes on: so do the odds; a unit
    it did not take gets the command's own line about it ("… is out of supply, and
    cannot assault").  A question the plan does not answer gets 0 mil, and a yes to
    the command's yes-or-no questions unless the plan says ``yes``; the notes say so.
    Those remarks come before an abort's line: a plan whose only mil come from a
    sector the command never asks about ends in "No troops for attack", but the
    mistake to name is the answer.
    """
    r = leaf.result
    lines = [ln for ln in r.transcript().splitlines() if ln.strip()]
    if leaf.combat is None and r.outcome is Outcome.USAGE:
        usage = [ln for ln, fact in said(r.events) if fact == Refusal(usage=True)]
        raise CommandUsage("\n".join(usage) or lines[-1])
    if leaf.combat is None and r.outcome is Outcome.REFUSED:
        raise CommandError("; ".join(lines[-2:]) if lines else f"{plan.order.name} refused")
    asked = leaf.prompter.asked
    ship = "the ship" if plan.order.ship is None else f"ship {plan.order.ship}"
    remarks: list[str] = []
    for source, n in (plan.mil or {}).items():
        where = ship if source == "ship" else world.fmt(source, country)
        name = _name(world, country, source)
        if source not in asked:
            if n > 0:
                remarks.append(f"--mil {name}: not asked for (no mil can go from {where})")
        elif n > asked[source]:
            raise MoreThanAsked(source, n, asked[source], where, name)
    events = r.events if leaf.combat is None else leaf.combat.events
    for uid in sorted((plan.units or frozenset()) - leaf.prompter.offered):
        about = [ln for ln, fact in said(events) if fact == UnitNote(uid)]
        remarks.extend(about or [f"--unit {uid}: not asked for"])
    if leaf.combat is None and r.outcome is Outcome.ABORTED and not r.world_changed:
        end = " / ".join(lines[-2:]) if lines else "the command was aborted"
        raise CommandError("; ".join([*remarks, end]))
    if plan.mil is not None:
        for source in asked:
            if source not in plan.mil:
                where = ship if source == "ship" else world.fmt(source, country)
                remarks.append(f"assumed: 0 mil from {where}")
    if not plan.yes:
        for prompt in leaf.prompter.confirmed:
            remarks.append(f"assumed: yes to '{prompt.text.strip()}' (--yes)")
    return remarks


def _name(world: World, country: int, source: MilSource) -> str:
    return "ship" if source == "ship" else world.fmt(source, country)


def _side_key(c: Combat, defender: bool) -> Hashable:
    """Everything a side's state graph depends on but its support multiplier (leaves with
    equal keys share one :class:`~bellum.empire.odds._sides.SideShape`)."""
    w = c.world
    units = c.d_units if defender else c.a_units

    def unit(f: Any) -> tuple[Any, ...]:
        u = f.unit
        around: tuple[Any, ...] = ()
        if defender and u.eff - 1 < u.retreat:
            around = tuple(
                (s.owner, s.civ, s.type.name, s.eff, s.road, s.rail, s.mob)
                for s in (w.sector(n) for n in w.geometry.neighbours(u.xy))
            )
        return (
            u.uid, u.type.name, u.tech, u.mil, u.eff, u.mob, u.retreat, u.fort, u.x, u.y,
            u.ship, u.land, u.mission, f.supplied, f.pending, around,
        )  # fmt: skip

    if defender:
        return (target_multiplier(c), c.d_troops, tuple(unit(f) for f in units))
    offs = tuple((o.troops, o.om, o.xy, o.sector is None or o.sector.mob != 0) for o in c.offs)
    return (c.mode, offs, tuple(unit(f) for f in units))


class _Shared:
    """Side shapes, graphs and moves and solved fights, shared by every odds of one world
    in this process (a sweep's plans, the ``--need`` search, a web page asking again, the
    planner's options of one target, which share their defender): their keys hold
    everything they depend on, so a plan meets the work of the plans before it."""

    #: Entries kept of each kind before the oldest half is dropped.
    LIMIT = 4096
    #: Sides whose moves are kept, each up to ``SideMoves.LIMIT`` states (w96x48's plan in one
    #: process: 18,000 states of 56 sides, 20 MB more at its peak; 256 sides kept 40,000).
    MOVES = 64

    def __init__(self) -> None:
        self.shapes: dict[Hashable, SideShape | None] = _Bounded(self.LIMIT)
        self.graphs: dict[Hashable, SideGraph | None] = _Bounded(self.LIMIT)
        self.too_big: dict[Hashable, float] = _Bounded(self.LIMIT)
        self.least: dict[Hashable, float] = _Bounded(self.LIMIT)
        self.moves: dict[Hashable, SideMoves] = _Bounded(self.MOVES)
        self.fights: dict[Hashable, FightOutcome | None] = _Bounded(self.LIMIT)
        self.ends: dict[Hashable, tuple[Any, Any, float]] = _Bounded(self.LIMIT)


#: What a cache's ``get`` gives for a key it does not hold (``None`` is a value there).
_UNKNOWN: Any = object()


class _Bounded(dict[Hashable, Any]):
    """A dict that forgets its oldest half when it grows past ``limit``.

    The web server answers odds from a thread pool on one shared world, so two threads
    may store at once: eviction is locked, and readers take what :meth:`get` gives them
    (an entry may be forgotten between a store and a later read)."""

    def __init__(self, limit: int) -> None:
        super().__init__()
        self.limit = limit
        self._lock = threading.Lock()

    def __setitem__(self, key: Hashable, value: Any) -> None:
        with self._lock:
            if len(self) >= self.limit:
                for old in list(self)[: self.limit // 2]:
                    self.pop(old, None)
            super().__setitem__(key, value)


#: The shared work of each world still alive (by ``id``, with a weak reference to
#: check it is the same world: worlds are mutable, so not hashable).
_WORLDS: dict[int, tuple[weakref.ref[World], _Shared]] = {}


def _shared(world: World, like: _Shared | None = None) -> _Shared:
    """The cache of ``world``'s odds (dropped with the world); a new one is ``like``."""
    ref, shared = _WORLDS.get(id(world), (None, None))
    if ref is None or shared is None or ref() is not world:
        shared = like if like is not None else _Shared()
        key = id(world)
        _WORLDS[key] = (weakref.ref(world, lambda _: _WORLDS.pop(key, None)), shared)
    return shared


def share_work(copy: World, world: World) -> None:
    """Let the odds on ``copy`` use (and add to) the side shapes and fights of ``world``:
    for a copy that differs only in what their keys hold, such as a garrison's mil."""
    _shared(copy, _shared(world))


class _Solver:
    """Solves the fights of leaves, sharing side graphs and fights between equal leaves.

    Each side is explored once per :func:`_side_key` (its shape), and its graph
    under each support multiplier taken from that shape; a side too big for a shape
    keeps its lost rounds (:class:`~bellum.empire.odds._sides.SideMoves`) for its graphs
    and drawn morale histories.  All of it is the world's (:class:`_Shared`), so the
    options of one target explore their defender once.  A fight is solved
    exactly when its pairs of states are at most ``exact_pairs``
    (``CHAIN_PAIRS`` when neither side has a morale draw, since sampling would
    only repeat the same fight), within ``max_pairs``.  A sampled fight (one
    morale history per side) is solved exactly when small (``SAMPLE_PAIRS``),
    else by Monte Carlo of the two chains.
    """

    def __init__(
        self,
        model: str,
        tau: float,
        exact_pairs: int,
        max_pairs: int,
        progress: Progress | None,
        shared: _Shared | None = None,
    ) -> None:
        self.model = model
        self.tau = tau
        self.exact_pairs = exact_pairs
        self.chain_pairs = max(exact_pairs, min(CHAIN_PAIRS, max_pairs))
        self.progress = progress
        shared = shared if shared is not None else _Shared()
        self.shapes = shared.shapes
        self.graphs = shared.graphs
        self.too_big = shared.too_big
        self.least = shared.least
        self.moves = shared.moves
        self.fights = shared.fights
        self.ends = shared.ends
        self.settings = (model, tau, exact_pairs, self.chain_pairs)
        #: Most pairs of a big fight the compiled kernel may solve (0: none), set by
        #: :meth:`allow_big` once the plan's distinct big fights are known to be few.
        self.big_pairs = 0
        self.max_pairs = max_pairs
        #: Big fights the kernel gave up on (past ``BIG_WORK``).
        self.given_up: set[Hashable] = set()
        #: The fights this answer used that are solved exactly (now or before).
        self.used: set[Hashable] = set()
        self.monte_carlo = 0

    def _moves(self, key: Hashable, c: Combat) -> SideMoves:
        """What is known of the side's lost rounds (kept for every exploration of it)."""
        full = (c.rules, key)
        moves = self.moves.get(full)
        if moves is None:
            moves = self.moves[full] = SideMoves()
        return moves

    def _shape(self, key: Hashable, c: Combat, defender: bool) -> SideShape | None:
        """The side's shape, ``None`` when it has more states than an exact fight could use."""
        full = (c.rules, self.exact_pairs, key)
        shape: SideShape | None = self.shapes.get(full, _UNKNOWN)
        if shape is _UNKNOWN:
            try:
                shape = side_shape(
                    c, defender, max_states=self.exact_pairs, moves=self._moves(key, c)
                )
            except TooManyStates as too_many:
                shape = None
                if too_many.least is not None:
                    self.least[full] = too_many.least
            self.shapes[full] = shape
        return shape

    def _graph(self, key: Hashable, c: Combat, defender: bool) -> SideGraph | None:
        """The side's graph under its multiplier; ``None`` when it has too many states.

        A bigger multiplier keeps every state a smaller one keeps, so once a side is
        too big under one multiplier it is under every bigger one (``too_big``); and a
        side too big for its shape is too big under every multiplier that keeps alive
        the states its shape's exploration had gone through (``least``: that exploration
        again, cut by nothing before the limit, which w96x48's plan ran 93 times).
        """
        mult = c.dsup if defender else c.osup
        side = (c.rules, self.exact_pairs, key)
        graph: SideGraph | None = self.graphs.get((side, mult), _UNKNOWN)
        if graph is _UNKNOWN:
            shape = self._shape(key, c, defender)
            graph = None
            try:
                if shape is not None:
                    graph = shape.graph(mult, max_states=self.exact_pairs)
                elif mult < self.too_big.get(side, math.inf):
                    # Too big down to the last soldier: this multiplier may end it sooner.
                    least = self.least.get(side)
                    if least is not None and ldround(mult * least) > 0:
                        raise TooManyStates("cut by nothing before the shape's limit")
                    graph = side_graph(
                        c, defender, max_states=self.exact_pairs, moves=self._moves(key, c)
                    )
            except TooManyStates:
                self.too_big[side] = min(mult, self.too_big.get(side, math.inf))
            self.graphs[(side, mult)] = graph
        return graph

    def exact(self, leaf: Leaf) -> FightOutcome | None:
        """The leaf's outcome, exactly; ``None`` when its fight is too big to solve so."""
        c = leaf.combat
        if c is None:
            return _no_fight(leaf.result)
        extra = leaf.result.attacker_casualties
        ka, kd = _side_key(c, False), _side_key(c, True)
        key = (self.settings, c.rules, ka, c.osup, kd, c.dsup, extra)
        # The shared cache may hold a big fight another answer was allowed to solve: this
        # answer takes it only within its own limits, so its figures never depend on what
        # was asked before (the graphs are cached, so asking costs two lookups).
        fits = self._fits(c, ka, kd)
        if fits is None or key in self.given_up:
            return None
        out = self.fights.get(key)
        if out is None:
            a, d = self._sides(c, ka, kd)
            ends = self._ends(a, d) if fits == "small" else self._big_ends(a, d)
            if ends is None:
                self.given_up.add(key)
                return None
            out = self.fights[key] = _fight_outcome(ends, extra)
        self.used.add(key)
        return out

    def big(self, leaf: Leaf) -> Hashable | None:
        """The key of the leaf's fight when only the compiled kernel could solve it: more
        pairs than ``exact_pairs`` (and not two chains), at most ``BIG_PAIRS``."""
        c = leaf.combat
        most = min(BIG_PAIRS, self.max_pairs)
        if c is None or self.model != "server" or most <= self.exact_pairs or not numba_wanted():
            return None
        ka, kd = _side_key(c, False), _side_key(c, True)
        if self._fits(c, ka, kd, most) in (None, "small"):
            return None
        return (c.rules, ka, c.osup, kd, c.dsup)

    def allow_big(self) -> bool:
        """Let the compiled kernel solve fights up to ``BIG_PAIRS`` (if numba imports)."""
        if numba_importable() is not None:
            return False
        self.big_pairs = min(BIG_PAIRS, self.max_pairs)
        return True

    def _sides(self, c: Combat, ka: Hashable, kd: Hashable) -> tuple[SideGraph, SideGraph]:
        a, d = self._graph(ka, c, False), self._graph(kd, c, True)
        assert a is not None and d is not None
        return a, d

    def _fits(self, c: Combat, ka: Hashable, kd: Hashable, big: int = 0) -> str | None:
        """``small`` when the fight is solved exactly as it comes, ``big`` when only under
        the limit ``big`` (or ``big_pairs``), ``None`` when it is too big to solve."""
        a = self._graph(ka, c, False)
        d = self._graph(kd, c, True) if a is not None else None
        if a is None or d is None:
            return None
        pairs = a.size * d.size
        # Without morale draws sampling would only repeat the same fight: solve it.
        if pairs <= (self.chain_pairs if a.is_chain and d.is_chain else self.exact_pairs):
            return "small"
        return "big" if pairs <= max(big, self.big_pairs) else None

    def _history(self, c: Combat, defender: bool, rng: np.random.Generator) -> SideGraph:
        """One morale history of a side, drawn from its shape when it has one."""
        key = _side_key(c, defender)
        shape = self._shape(key, c, defender)
        if shape is None:
            return side_graph(c, defender, rng=rng, moves=self._moves(key, c))
        return shape.sample(c.dsup if defender else c.osup, rng)

    def sampled(self, leaves: list[Leaf], rng: np.random.Generator) -> list[FightOutcome]:
        """The leaves' outcomes with each side's morale history drawn at random: solved
        exactly when small, else simulated, all the simulated fights in one pass."""
        out: list[FightOutcome | None] = []
        big: list[tuple[int, SideGraph, SideGraph, int]] = []
        for leaf in leaves:
            c = leaf.combat
            assert c is not None
            extra = leaf.result.attacker_casualties
            a = self._history(c, False, rng)
            d = self._history(c, True, rng)
            small = a.size * d.size <= min(SAMPLE_PAIRS, self.exact_pairs)
            if small or d.strength[0] <= 0 or a.size == 1:
                out.append(_fight_outcome(self._ends(a, d), extra))
            else:
                big.append((len(out), a, d, extra))
                out.append(None)
        if big:
            self.monte_carlo += len(big)
            pairs = [(a.strength, d.strength) for _, a, d, _ in big]
            ends = many_fights(pairs, FIGHT_RUNS, rng, server=self.model == "server")
            for (i, a, d, extra), (won, lost) in zip(big, ends, strict=True):
                wa = np.zeros((a.size, d.size))
                wd = np.zeros((a.size, d.size))
                wa[:-1, -1] = won
                wd[-1, :-1] = lost
                out[i] = _fight_outcome(GraphEnds(a, d, wa, wd, 0.0), extra)
        return [f for f in out if f is not None]

    def _ends(self, a: SideGraph, d: SideGraph) -> GraphEnds:
        """The fight's ends, once per pair of sides: the fights of paths whose multipliers
        differ are often the same fight, the multipliers rounding to the same strengths
        (w128x64-paradrop-3: 179 fights, 84 of them different).  The ends depend on the
        sides' strengths and moves, not on their casualties."""
        if d.strength[0] <= 0:
            wins = np.zeros((a.size, d.size))
            wins[0, 0] = 1.0
            return GraphEnds(a, d, wins, np.zeros_like(wins), 0.0)
        key = self._ends_key(a, d)
        known = self.ends.get(key)
        if known is not None:
            return GraphEnds(a, d, *known)
        if self.model == "per-casualty":
            ends = per_casualty_ends(a, d, progress=self.progress)
        elif a.is_chain and d.is_chain:
            ends = _chain_ends(a, d)
        else:
            ends = server_ends(a, d, tau=self.tau, progress=self.progress, backend="numpy")
        self.ends[key] = (ends.attacker_wins, ends.defender_wins, ends.pruned_mass)
        return ends

    def _big_ends(self, a: SideGraph, d: SideGraph) -> GraphEnds | None:
        """A fight over ``exact_pairs`` by the compiled kernel (server model, morale draws);
        ``None`` when it gives up past ``BIG_WORK`` cone products.  Kept apart from
        :meth:`_ends`'s: the kernel sums in another order, so its last bits differ."""
        key = ("kernel", self._ends_key(a, d))
        known = self.ends.get(key)
        if known is not None:
            return GraphEnds(a, d, *known)
        ends = kernel_ends(a, d, tau=self.tau, budget=BIG_WORK)
        if ends is not None:
            self.ends[key] = (ends.attacker_wins, ends.defender_wins, ends.pruned_mass)
        return ends

    def _ends_key(self, a: SideGraph, d: SideGraph) -> Hashable:
        arrays = (x for g in (a, d) for x in (g.strength, g.depth, g.ptr, g.to, g.p))
        return (self.model, self.tau, *(x.tobytes() for x in arrays))


def _chain_ends(a: SideGraph, d: SideGraph) -> GraphEnds:
    """Two sides without morale draws: the plain server solver (:mod:`bellum.odds.exact`)."""
    from bellum.odds import Side
    from bellum.odds.engine import choose_backend
    from bellum.odds.exact import server_exact

    att = Side.from_arrays(a.strength, a.casualties)
    dfd = Side.from_arrays(d.strength, d.casualties)
    # numba only for fights big enough to repay its import (a third of a second).
    backend = choose_backend("auto", "server", att, dfd, exact=True, runs=0)
    states, pruned = server_exact(att, dfd, backend=backend)
    wa = np.zeros((a.size, d.size))
    wd = np.zeros((a.size, d.size))
    wa[: att.rounds, dfd.rounds] = states.attacker_wins
    wd[att.rounds, : dfd.rounds] = states.defender_wins
    return GraphEnds(a, d, wa, wd, pruned)


def _no_fight(r: CombatResult) -> FightOutcome:
    return FightOutcome({r.outcome: 1.0}, {r.attacker_casualties: 1.0}, {0: 1.0})


def _fight_outcome(ends: GraphEnds, extra: int) -> FightOutcome:
    a, d = ends.attacker, ends.defender
    wa, wd = ends.attacker_wins, ends.defender_wins
    won = wa.sum(axis=1)
    captured = float(won[a.occupies].sum())
    outcomes = {
        "captured": captured,
        "unoccupied": float(won.sum()) - captured,
        "defeated": float(wd.sum()),
    }
    return FightOutcome(
        {k: v for k, v in outcomes.items() if v > 0},
        _weights(a.casualties + extra, won + wd.sum(axis=1)),
        _weights(d.casualties, wa.sum(axis=0) + wd.sum(axis=0)),
        ends.pruned_mass,
    )


def _weights(values: Any, probs: Any) -> dict[int, float]:
    out: dict[int, float] = {}
    for v, p in zip(values.tolist(), probs.tolist(), strict=True):
        if p > 0:
            out[v] = out.get(v, 0.0) + p
    return out


class Mixture:
    """Sums of fight outcomes, weighted; and per-sample values for standard errors."""

    def __init__(self) -> None:
        self.outcomes: dict[str, float] = {}
        self.attacker: dict[int, float] = {}
        self.defender: dict[int, float] = {}
        self.pruned = 0.0
        self.per_sample: list[tuple[float, float, float]] = []

    def add(self, f: FightOutcome, w: float, *, sample: bool = False) -> None:
        for name, p in f.outcomes.items():
            self.outcomes[name] = self.outcomes.get(name, 0.0) + w * p
        for src, dst in ((f.attacker, self.attacker), (f.defender, self.defender)):
            for k, v in src.items():
                dst[k] = dst.get(k, 0.0) + w * v
        self.pruned += w * f.pruned
        if sample:
            win = sum(f.outcomes.get(k, 0.0) for k in SUCCESS)
            self.per_sample.append((win, _mean(f.attacker), _mean(f.defender)))

    def errors(self) -> tuple[float, dict[str, float]]:
        """The standard errors of P(success) and of each side's expected losses.

        A few values of a skewed spread (most paths near-sure, a rare one lost) often
        miss the rare paths and claim an error far too small: on the realistic suite,
        20 samples gave P 0.9892 +/- 0.0046 where the command wins 0.963 of 1,000 plays,
        and a defender's losses 230.7 +/- 1.6 where 1,000 plays lose 235.9 (a quarter of
        the paths lose 247 or more, three of the twenty drawn).  So, below
        ``TRUSTED_SAMPLES``, each error is at least the largest the spread between paths
        can have given the mean m and the range [lo, hi] of the outcome (Bhatia-Davis):
        sqrt((hi - m)(m - lo)/n), with [0, 1] for P(success) and the range of losses the
        mixture holds for each side.  It is 0 only when every sample was sure, as sure
        plans are."""
        n = len(self.per_sample)
        if n == 0:
            return 0.0, {"attacker": 0.0, "defender": 0.0}
        arr = np.array(self.per_sample)
        se = arr.std(axis=0, ddof=1) / math.sqrt(n) if n > 1 else np.zeros(3)
        if n < TRUSTED_SAMPLES:
            m = float(arr[:, 0].mean())
            var = np.array(
                [m * (1.0 - m), _most_variance(self.attacker), _most_variance(self.defender)]
            )
            se = np.maximum(se, np.sqrt(np.maximum(var, 0.0) / n))
        return float(se[0]), {"attacker": float(se[1]), "defender": float(se[2])}

    def stop_error(self) -> float:
        """The standard error of P(success) that sampling may stop on (:meth:`errors`)."""
        return self.errors()[0]


def _mean(weights: dict[int, float]) -> float:
    total = sum(weights.values())
    return sum(k * v for k, v in weights.items()) / total if total else 0.0


def _most_variance(weights: dict[int, float]) -> float:
    """The largest variance values between the least and the most of ``weights``'s with
    its mean can have (the Bhatia-Davis bound)."""
    live = [k for k, v in weights.items() if v > 0]
    if not live:
        return 0.0
    m = _mean(weights)
    return (max(live) - m) * (m - min(live))


def _lines(leaf: Leaf) -> list[str]:
    """What the command printed before its fight, without the prompts' echo."""
    if leaf.combat is None:
        return [ln for ln in leaf.result.transcript().splitlines()]
    # The scouts' reports are random text (drawn once here, not branched on).
    return [ln for ln, fact in said(leaf.combat.events) if not isinstance(fact, ScoutReport)]


def world_model(rules: Rules) -> str:
    """The fight the rules use: the server's loop or the info page's."""
    return "per-casualty" if rules.info_fight else "server"


@fewer_collections()
def plan_odds(
    world: World,
    country: int,
    plan: Plan,
    *,
    seed: int | None = None,
    samples: int | None = None,
    target_error: float | None = None,
    max_samples: int = 500,
    exact_pairs: int = EXACT_PAIRS,
    max_memory: int = 1 << 30,
    progress: Progress | None = None,
    template: WorldTemplate | None = None,
    branching_only: bool = False,
) -> EmpireOdds:
    """The odds of ``plan`` by ``country`` in ``world`` (see the module notes).

    ``world`` is not changed; the command runs on scratch copies of ``template``
    (``world`` frozen: a study's plans share one), else of a freeze of its own.  A fight
    is solved exactly when it has at most ``exact_pairs`` pairs of side states and fits
    in ``max_memory`` bytes, else its morale histories are sampled.  ``samples`` forces
    sampling with that many samples; ``target_error`` samples until the standard error
    of P(success) is at most that (at most ``max_samples``).  Raises
    :class:`~bellum.errors.CommandError` with the command's own words when it
    would refuse (answers it never asks for are notes).  With ``branching_only``,
    ``samples`` holds only where the paths to the fight branch: a plan with one path is
    solved as without it (the planner's screen, which would solve such a plan again at
    once; its ``leaves`` say 1).
    """
    start = (time.perf_counter(), time.process_time())
    model = world_model(plan.rules_in(world))
    runner = PlanRunner(world, country, plan, template)
    first = runner(BranchingDice())
    notes = _check_plan(world, country, plan, first)
    if branching_only and first.branches == 0:
        samples = None
    used_seed = seed if seed is not None else new_seed()
    rng = np.random.default_rng(np.random.SeedSequence(used_seed))
    max_pairs = max_memory // PAIR_BYTES
    solver = _Solver(model, TAU, min(exact_pairs, max_pairs), max_pairs, progress, _shared(world))
    forced = samples is not None or target_error is not None
    one = first.branches == 0
    leaves: list[tuple[Leaf, float]] | None = None
    if first.branches == 0:
        leaves = [(first, 1.0)]
    elif (
        not forced
        # A fight too big to solve exactly is sampled whatever the paths: walking them
        # all first would only draw the same samples later (w96x48-assault-1: 2.4 s
        # CPU walking 800 paths, 0.8 s drawing 20).
        and solver.exact(first) is not None
        and tree_size(runner, rng, PROBES, limit=MAX_LEAVES) <= MAX_LEAVES
    ):
        leaves = enumerate_runs(runner, limit=4 * MAX_LEAVES)
    mix = Mixture()
    if leaves is not None and not forced:
        # A few distinct fights too big for the numpy sweep: the compiled kernel.
        big = {solver.big(leaf) for leaf, _ in leaves} - {None}
        if big and len(big) <= BIG_FIGHTS:
            solver.allow_big()
        exact = [(solver.exact(leaf), p) for leaf, p in leaves]
        if all(f is not None for f, _ in exact):
            for f, p in exact:
                assert f is not None
                mix.add(f, p)
            method = "exact" if len(leaves) == 1 else "exact mixture"
            return _finish(
                plan, mix, method, model, leaves, solver, None, used_seed, start, notes, one
            )
        notes.append("morale histories sampled: the fight has too many states to solve exactly")
    goal = target_error if target_error is not None else (None if samples else DEFAULT_ERROR)
    want = samples or max_samples
    taken: list[tuple[Leaf, float]] = []
    morale_drawn = 0
    n = 0
    while n < want:
        block: list[Leaf] = []
        for _ in range(_block(n, want, mix, goal)):
            if leaves is not None:
                block.append(leaves[_pick(leaves, rng)][0])
            else:
                block.append(runner.sample(rng))
            if progress is not None:
                progress(min(1.0, (n + len(block)) / want))
        known = [solver.exact(leaf) for leaf in block]
        unsolved = [leaf for leaf, f in zip(block, known, strict=True) if f is None]
        drawn = iter(solver.sampled(unsolved, rng))
        morale_drawn += len(unsolved)
        for leaf, f in zip(block, known, strict=True):
            mix.add(f if f is not None else next(drawn), 1.0, sample=True)
            taken.append((leaf, 1.0))
        n = len(taken)
        if goal is not None and n >= MIN_SAMPLES and mix.stop_error() <= goal:
            break
    for key in list(mix.outcomes):
        mix.outcomes[key] /= n
    for d in (mix.attacker, mix.defender):
        for k in list(d):
            d[k] /= n
    mix.pruned /= n
    method = _sampled_method(n, leaves is not None, morale_drawn, solver.monte_carlo)
    if goal is not None and mix.stop_error() > goal:
        notes.append(
            f"sampling stopped at {n} samples, before the standard error of P(success)"
            f" reached {goal:g}"
        )
    return _finish(plan, mix, method, model, taken, solver, n, used_seed, start, notes, one)


def _block(n: int, want: int, mix: Mixture, goal: float | None) -> int:
    """How many samples to draw next: ``MIN_SAMPLES`` first, then as many as the
    standard error so far says the goal needs (at least a tenth more, at most as many
    again), so that the fights too big to solve are simulated together.

    Below ``TRUSTED_SAMPLES`` the error is a bound on what unseen paths could do, not
    their spread, so it asks for more than the spread will: the blocks stop at
    ``TRUSTED_SAMPLES`` to read the spread there, instead of doubling 80 to 160."""
    if n < MIN_SAMPLES:
        return min(want, MIN_SAMPLES) - n
    more = n
    se = mix.stop_error()
    if goal is not None and se > 0:
        more = min(n, max(2, n // 10, math.ceil(n * (se / goal) ** 2) - n))
        if n < TRUSTED_SAMPLES:
            more = min(more, TRUSTED_SAMPLES - n)
    return max(1, min(want - n, more))


def _sampled_method(n: int, known: bool, morale_drawn: int, simulated: int) -> str:
    """``mixture (N samples: …)``: what was exact and what was drawn."""
    how = "paths to the fight drawn by their exact chances" if known else "paths to the fight drawn"
    if not morale_drawn:
        how += ", their fights exact"
    else:
        how += f", morale histories drawn in {morale_drawn} of the {n} fights"
    if simulated:
        how += f", {simulated} of them simulated ({FIGHT_RUNS} runs each)"
    return f"mixture ({n} samples: {how})"


def _pick(leaves: list[tuple[Leaf, float]], rng: np.random.Generator) -> int:
    p = np.array([q for _, q in leaves])
    return int(rng.choice(len(leaves), p=p / p.sum()))


def _finish(
    plan: Plan,
    mix: Mixture,
    method: str,
    model: str,
    leaves: list[tuple[Leaf, float]],
    solver: _Solver,
    samples: int | None,
    seed: int | None,
    start: tuple[float, float],
    notes: list[str],
    one_path: bool,
) -> EmpireOdds:
    order = [k for k in ("captured", "unoccupied", "reinforced", "landed", "defeated", "aborted")]
    names = order + sorted(k for k in mix.outcomes if k not in order)
    outcomes = {k: mix.outcomes[k] for k in names if mix.outcomes.get(k, 0.0) > 0}
    losses = {
        side: LossDistribution.from_weights(
            np.array(list(w.keys()), dtype=np.int64), np.array(list(w.values()))
        )
        for side, w in (("attacker", mix.attacker), ("defender", mix.defender))
    }
    se, errs = mix.errors()
    likeliest = max(leaves, key=lambda lp: lp[1])[0]
    fought = [leaf for leaf, _ in leaves if leaf.combat is not None]
    final: dict[str, tuple[int, int]] = {}
    if fought:
        att = [leaf.result.final_attack for leaf in fought]
        dfd = [leaf.result.final_defense for leaf in fought]
        final = {"attack": (min(att), max(att)), "defense": (min(dfd), max(dfd))}
    odds = OddsResult(
        outcomes=outcomes,
        losses=losses,
        method=method,
        model=model,
        seed=seed,
        runs=samples,
        standard_error=se if samples else None,
        pruned_mass=mix.pruned,
        seconds=time.perf_counter() - start[0],
        notes=tuple(notes),
        attacker_wins=SUCCESS,
    )
    if not outcomes:
        raise InputError("the plan has no outcome (nothing to solve)")
    return EmpireOdds(
        plan=plan,
        odds=odds,
        method=method,
        model=model,
        standard_error=se,
        expected_errors=errs,
        lines=_lines(likeliest),
        leaves=len(leaves) if samples is None else len({id(x) for x, _ in leaves}),
        one_path=one_path,
        fights=len(solver.used),
        samples=samples,
        seed=seed,
        final=final,
        notes=tuple(notes),
        cpu_seconds=time.process_time() - start[1],
    )


__all__ = [
    "DEFAULT_ERROR",
    "MAX_LEAVES",
    "SUCCESS",
    "CommandUsage",
    "EmpireOdds",
    "Leaf",
    "Mixture",
    "MoreThanAsked",
    "PlanRunner",
    "check_plan",
    "plan_odds",
    "share_work",
    "world_model",
]
