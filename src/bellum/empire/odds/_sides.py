"""Each side of a fight as a graph of its states, built by the fight's own casualty rule.

During the fight a side changes only when it loses a round (spec §6.3-§6.4):
one soldier dies (the biggest pile of mil first, then the unit with the
most mil), and a unit below its retreat percentage checks its morale, which
may send it away (retreat, leave the battlefield) or cost it extra men
(nowhere to retreat).  Those morale draws depend only on the side's own
losses, never on the other side, so each side is a Markov chain over its
own states, indexed by the rounds it has lost.  :func:`side_graph` explores
that chain by calling :func:`bellum.empire.combat.fight.casualty` itself on
the combat as the fight finds it, with :class:`BranchingDice` for the morale
checks; identical states (same troops, same units, same casualties so far)
are merged.  A side without a unit below its retreat percentage is a single
chain, which is what the plain odds engine calls a
:class:`~bellum.odds.Side`.

With ``rng`` given, one random path is followed instead: a sampled morale
history, as a chain, for the sampling fallback.

The graph's shape (states, moves, casualties, morale draws) does not depend on
the support multiplier, only the strengths do: ``ldround(mult * sum)`` of the
side's sum before support (§3.4).  :func:`side_shape` explores a side once,
down to its last soldier, with those sums; :meth:`SideShape.graph` gives the
graph :func:`side_graph` would build under any multiplier (a state whose
rounded strength is 0 is beaten there, so a small multiplier may end the
side early), and :meth:`SideShape.sample` one morale history drawn from it.
Paths to a fight that differ only in their support share one exploration.

What one lost round does from a state depends on nothing but the state and the side
(what the engine's side key holds), so a :class:`SideMoves` keeps it as found: every
end of the round with its chance, and the tree of its morale draws.  Every exploration
of the same side (its shape, its graph under a multiplier too small for the shape, the
morale histories drawn for sampled fights) then runs the fight's casualty rule once per
state, and a history drawn through known states runs nothing: it makes the same draws
of the generator as the run it replaces.
"""

from __future__ import annotations

from collections.abc import Callable, Sequence
from dataclasses import dataclass
from functools import cached_property
from typing import Any, TypeVar

import numpy as np
import numpy.typing as npt

from bellum.empire.combat import capture, fight
from bellum.empire.combat.state import Combat, Fighter, ldround
from bellum.empire.combat.strength import defense_sum, offense_sum
from bellum.empire.odds.branching import BranchingDice, enumerate_runs, pick
from bellum.errors import InputError

T = TypeVar("T")
FloatArray = npt.NDArray[np.float64]
IntArray = npt.NDArray[np.int64]

#: Most states one side may have before the exact solution gives way to sampling.
MAX_SIDE_STATES = 20_000


class TooManyStates(Exception):
    """A side's state graph outgrew the limit (the caller samples instead).

    ``least``, from an exploration down to the last soldier (:func:`side_shape`): the
    least strength before the multiplier of the states whose lost rounds it had explored.
    Under any multiplier that leaves that strength above 0, :func:`side_graph` explores
    the same states in the same order and outgrows the limit at the same one.
    """

    def __init__(self, message: str, least: float | None = None) -> None:
        super().__init__(message)
        self.least = least


def _unit_state(f: Fighter) -> tuple[Any, ...]:
    u = f.unit
    return (u.uid, u.mil, u.eff, u.mob, u.mission, u.fort, u.x, u.y, f.pending)


class _Side:
    """Reads and writes the part of a combat that one side's casualties change."""

    def __init__(self, c: Combat, defender: bool) -> None:
        self.c = c
        self.defender = defender
        units = c.d_units if defender else c.a_units
        self.fighters = {f.unit.uid: f for f in units}

    def state(self) -> tuple[Any, ...]:
        c = self.c
        if self.defender:
            return (c.d_troops, tuple(_unit_state(f) for f in c.d_units))
        return (tuple(o.troops for o in c.offs), tuple(_unit_state(f) for f in c.a_units))

    def load(self, state: tuple[Any, ...]) -> None:
        c = self.c
        troops, units = state
        if self.defender:
            c.d_troops = troops
        else:
            for o, n in zip(c.offs, troops, strict=True):
                o.troops = n
        fighters = []
        for uid, mil, eff, mob, mission, fort, x, y, pending in units:
            f = self.fighters[uid]
            u = f.unit
            u.mil, u.eff, u.mob, u.mission, u.fort, u.x, u.y = mil, eff, mob, mission, fort, x, y
            f.pending = pending
            fighters.append(f)
        if self.defender:
            c.d_units = fighters
        else:
            c.a_units = fighters
        c.events = []
        c.world.telegrams.clear()

    def total(self) -> float:
        """The side's strength before its support multiplier."""
        return defense_sum(self.c) if self.defender else offense_sum(self.c)

    def multiplier(self) -> float:
        return self.c.dsup if self.defender else self.c.osup

    def occupies(self) -> bool:
        """Whether an attacker's victory now takes the target (someone can move in)."""
        return not self.defender and capture.can_occupy(self.c)

    def lose_round(self, dice: BranchingDice) -> int:
        """One lost round by the fight's own rule (§6.3); returns the casualties it counts."""
        self.c.dice = dice
        return fight.casualty(self.c, defender=self.defender)


#: What one lost round leads to: the side's state, the casualties it counts, its
#: strength before the multiplier, and whether a victory there takes the target.
End = tuple[tuple[Any, ...], int, float, bool]


class _Draw:
    """A morale draw met in a lost round: its options' chances, and what each leads to."""

    __slots__ = ("next", "weights")

    def __init__(self, weights: list[float]) -> None:
        self.weights = weights
        self.next: dict[int, _Draw | End] = {}


class _Recording(BranchingDice):
    """Branching dice that keep the chances of each choice they branch on."""

    def __init__(self, path: Sequence[int], rng: np.random.Generator | None = None) -> None:
        super().__init__(path, rng)
        self.weights: list[list[float]] = []

    def _choose(self, options: Sequence[tuple[T, float]]) -> T:
        branches = len(self.widths)
        value = super()._choose(options)
        if len(self.widths) > branches:
            self.weights.append([p for _, p in options if p > 0])
        return value


class SideMoves:
    """What one lost round does from each state of one side met so far (module notes):
    its ends with their chances (:meth:`ends`), and one end drawn (:meth:`draw`).

    Only a side's own states may be asked: the caller keeps one per side (the engine's
    side key).  At most :data:`LIMIT` states are kept; past them, rounds are run again.
    """

    LIMIT = 20_000

    def __init__(self) -> None:
        self._ends: dict[tuple[Any, ...], list[tuple[End, float]]] = {}
        self._draws: dict[tuple[Any, ...], _Draw | End] = {}

    def ends(
        self, state: tuple[Any, ...], step: Callable[[BranchingDice], End]
    ) -> list[tuple[End, float]]:
        """Every end of a lost round from ``state`` with its chance, as
        :func:`~bellum.empire.odds.branching.enumerate_runs` of ``step`` lists them."""
        known = self._ends.get(state)
        if known is None:

            def run(dice: BranchingDice) -> tuple[End, _Recording]:
                assert isinstance(dice, _Recording)
                return step(dice), dice

            runs = enumerate_runs(run, dice_of=_Recording)
            assert runs is not None
            for (end, dice), _ in runs:
                self._keep(state, dice, end)
            known = [(end, p) for (end, _), p in runs]
            if len(self._ends) < self.LIMIT:
                self._ends[state] = known
        return known

    def draw(
        self, state: tuple[Any, ...], step: Callable[[BranchingDice], End], rng: np.random.Generator
    ) -> End:
        """One end of a lost round from ``state``, each morale draw made with ``rng`` as
        ``step(BranchingDice(rng=rng))`` makes it (the same draws of the generator, the
        same end), running ``step`` only past the draws met before."""
        node = self._draws.get(state)
        path: list[int] = []
        while isinstance(node, _Draw):
            path.append(pick(node.weights, float(rng.random())))
            node = node.next.get(path[-1])
        if node is not None:
            return node
        dice = _Recording(path, rng)
        end = step(dice)
        self._keep(state, dice, end)
        return end

    def _keep(self, state: tuple[Any, ...], dice: _Recording, end: End) -> None:
        """Add one run's draws (the options it took, their chances) and its end."""
        path = dice.path[: len(dice.widths)]
        if state not in self._draws and len(self._draws) >= self.LIMIT:
            return
        if not path:
            self._draws[state] = end
            return
        node = self._draws.get(state)
        if node is None:
            node = self._draws[state] = _Draw(dice.weights[0])
        assert isinstance(node, _Draw)
        for i, j in enumerate(path[:-1]):
            child = node.next.get(j)
            if child is None:
                child = node.next[j] = _Draw(dice.weights[i + 1])
            assert isinstance(child, _Draw)
            node = child
        node.next[path[-1]] = end


def side_graph(
    c: Combat,
    defender: bool,
    *,
    rng: np.random.Generator | None = None,
    max_states: int = MAX_SIDE_STATES,
    moves: SideMoves | None = None,
) -> SideGraph:
    """The state graph of one side of the combat ``c`` (see the module notes).

    ``c`` must be the combat as its fight begins; it is used as scratch space
    and put back as it was (its events and the world's telegrams aside).
    Raises :class:`TooManyStates` past ``max_states`` states.  ``moves``: what is
    known of this side's lost rounds (kept for the next exploration of it).
    """
    mult = c.dsup if defender else c.osup
    return _explore(c, defender, rng, max_states, mult, moves).graph(mult, max_states)


def side_shape(
    c: Combat,
    defender: bool,
    *,
    max_states: int = MAX_SIDE_STATES,
    moves: SideMoves | None = None,
) -> SideShape:
    """One side of ``c`` explored for every support multiplier (see the module notes).

    Raises :class:`TooManyStates` past ``max_states`` states (counted down to the
    last soldier, so possibly more than one multiplier's graph has).
    """
    return _explore(c, defender, None, max_states, None, moves)


def _explore(
    c: Combat,
    defender: bool,
    rng: np.random.Generator | None,
    max_states: int,
    mult: float | None,
    moves: SideMoves | None,
) -> SideShape:
    saved = c.channels()
    c.sink = None
    c.morale = True
    side = _Side(c, defender)
    root = side.state()
    explorer = _Explorer(side, rng, max_states, mult, moves or SideMoves())
    try:
        explorer.explore()
    finally:
        side.load(root)
        c.restore(saved)
    return explorer.shape()


@dataclass(frozen=True, eq=False)
class SideShape:
    """A side's states in order of rounds lost, and the chance of moving between them,
    whatever its support multiplier.

    Node 0 is the side when the fight begins.  ``total[n]`` is its strength before the
    multiplier; ``casualties[n]`` the dead counted so far; the successors of node ``n``
    are ``to[ptr[n]:ptr[n+1]]`` with probabilities ``p[...]``, listed in the order the
    exploration first met them, so that :meth:`graph` numbers the states as
    :func:`side_graph` does.  ``occupies`` (attacker only) tells whether a victory in
    that state takes the target (someone can move in, spec §10.1).
    """

    depth: IntArray
    total: FloatArray
    casualties: IntArray
    ptr: IntArray
    to: IntArray
    p: FloatArray
    occupies: npt.NDArray[np.bool_]

    @property
    def size(self) -> int:
        return int(self.depth.size)

    def strengths(self, mult: float) -> FloatArray:
        """``ldround(mult * total)`` of every state, as the server rounds (§3.4)."""
        return np.trunc(mult * self.total + 0.5)

    def graph(self, mult: float, max_states: int = MAX_SIDE_STATES) -> SideGraph:
        """The graph under multiplier ``mult``: the states reached before a beaten one,
        breadth first as :func:`side_graph` finds them."""
        strength = self.strengths(mult)
        if np.array_equal(strength > 0, self.total > 0):  # nothing cut: every state, in order
            if self.size > max_states:
                raise TooManyStates(f"more than {max_states} states on one side")
            return self._graph(np.arange(self.size), strength, self.ptr, self._sorted)
        ptr, to, p = self.ptr.tolist(), self.to.tolist(), self.p.tolist()
        alive = (strength > 0).tolist()
        new = {0: 0}
        order = [0]
        succ: list[list[tuple[int, float]]] = []
        n = 0
        while n < len(order):
            s = order[n]
            n += 1
            out: list[tuple[int, float]] = []
            if alive[s]:
                for e in range(ptr[s], ptr[s + 1]):
                    j = new.get(to[e])
                    if j is None:
                        j = new[to[e]] = len(order)
                        if j >= max_states:
                            raise TooManyStates(f"more than {max_states} states on one side")
                        order.append(to[e])
                    out.append((j, p[e]))
                out.sort()
            succ.append(out)
        ptr_out = np.zeros(len(order) + 1, dtype=np.int64)
        ptr_out[1:] = np.cumsum([len(x) for x in succ])
        edges = (
            np.array([t for x in succ for t, _ in x], dtype=np.int64),
            np.array([q for x in succ for _, q in x], dtype=np.float64),
        )
        return self._graph(np.asarray(order, dtype=np.int64), strength, ptr_out, edges)

    @cached_property
    def _sorted(self) -> tuple[IntArray, FloatArray]:
        """The moves with each state's successors in the order of their numbers."""
        node = np.repeat(np.arange(self.size), np.diff(self.ptr))
        order = np.lexsort((self.to, node))
        return self.to[order], self.p[order]

    def _graph(
        self,
        keep: IntArray,
        strength: FloatArray,
        ptr: IntArray,
        edges: tuple[IntArray, FloatArray],
    ) -> SideGraph:
        if int(self.depth[keep].max()) > 10_000_000:
            raise InputError("a side that can lose more than 10,000,000 rounds is too big")
        return SideGraph(
            depth=self.depth[keep],
            total=self.total[keep],
            casualties=self.casualties[keep],
            ptr=ptr,
            to=edges[0],
            p=edges[1],
            occupies=self.occupies[keep],
            strength=strength[keep],
        )

    def sample(self, mult: float, rng: np.random.Generator) -> SideGraph:
        """One morale history under multiplier ``mult``, drawn with its chances, as a chain."""
        strength = self.strengths(mult)
        ptr, to, p = self.ptr.tolist(), self.to.tolist(), self.p.tolist()
        alive = (strength > 0).tolist()
        path = [0]
        s = 0
        while alive[s]:
            first, last = ptr[s], ptr[s + 1]
            e = first
            if last - first > 1:
                e += pick(p[first:last], float(rng.random()))
            s = to[e]
            path.append(s)
        keep = np.asarray(path, dtype=np.int64)
        n = keep.size
        return SideGraph(
            depth=np.arange(n, dtype=np.int64),
            total=self.total[keep],
            casualties=self.casualties[keep],
            ptr=np.minimum(np.arange(n + 1, dtype=np.int64), n - 1),
            to=np.arange(1, n, dtype=np.int64),
            p=np.ones(n - 1),
            occupies=self.occupies[keep],
            strength=strength[keep],
        )


@dataclass(frozen=True, eq=False)
class SideGraph(SideShape):
    """A side's shape under one support multiplier: the states it reaches before a
    beaten one, and ``strength[n]``, the strength that sets the odds (0: beaten, and the
    node has no successor)."""

    strength: FloatArray

    @property
    def beaten(self) -> npt.NDArray[np.bool_]:
        return self.strength <= 0

    @property
    def is_chain(self) -> bool:
        """Every state has at most one successor: no morale draw can change the side."""
        return bool(np.all(np.diff(self.ptr) <= 1))


class _Explorer:
    """The graph as it grows, breadth first from the side as the fight begins: every
    state found (merged by its troops, casualties and rounds lost), its numbers, and the
    chance of each successor.  A state is explored while its strength under ``mult``
    is above 0 (``mult=None``: while anything is left of the side)."""

    def __init__(
        self,
        side: _Side,
        rng: np.random.Generator | None,
        max_states: int,
        mult: float | None,
        moves: SideMoves,
    ) -> None:
        self.side = side
        self.rng = rng
        self.max_states = max_states
        self.mult = mult
        self.moves = moves
        root = side.state()
        self.keys: dict[tuple[Any, ...], int] = {(root, 0, 0): 0}
        self.states = [root]
        self.depth = [0]
        self.cas = [0]
        self.total = [side.total()]
        self.occupies = [side.occupies()]
        self.succ: list[list[tuple[int, float]]] = []

    def alive(self, n: int) -> bool:
        t = self.total[n]
        return (ldround(self.mult * t) if self.mult is not None else t) > 0

    def explore(self) -> None:
        """Each state's successors by one lost round, until no new state appears."""
        n = 0
        while n < len(self.states):
            try:
                self.succ.append(self._successors(n) if self.alive(n) else [])
            except TooManyStates as too_many:
                if self.mult is None and self.rng is None:
                    too_many.least = min(t for t in self.total[: n + 1] if t > 0)
                raise
            n += 1

    def _successors(self, n: int) -> list[tuple[int, float]]:
        side, here = self.side, self.states[n]

        def step(dice: BranchingDice) -> End:
            side.load(here)
            taken = side.lose_round(dice)
            return side.state(), taken, side.total(), side.occupies()

        if self.rng is None:
            ends = self.moves.ends(here, step)
        else:
            ends = [(self.moves.draw(here, step, self.rng), 1.0)]
        out: dict[int, float] = {}
        for (state, taken, t, occ), p in ends:
            i = self._index(state, self.cas[n] + taken, self.depth[n] + 1, t, occ)
            out[i] = out.get(i, 0.0) + p
        return list(out.items())

    def _index(self, state: tuple[Any, ...], cas: int, depth: int, t: float, occ: bool) -> int:
        """The node of ``state`` reached after ``depth`` rounds with ``cas`` dead (new or not)."""
        key = (state, cas, depth)
        i = self.keys.get(key)
        if i is None:
            i = self.keys[key] = len(self.states)
            if i >= self.max_states:
                raise TooManyStates(f"more than {self.max_states} states on one side")
            self.states.append(state)
            self.depth.append(depth)
            self.cas.append(cas)
            self.total.append(t)
            self.occupies.append(occ)
        return i

    def shape(self) -> SideShape:
        ptr = np.zeros(len(self.states) + 1, dtype=np.int64)
        ptr[1:] = np.cumsum([len(s) for s in self.succ])
        return SideShape(
            depth=np.asarray(self.depth, dtype=np.int64),
            total=np.asarray(self.total, dtype=np.float64),
            casualties=np.asarray(self.cas, dtype=np.int64),
            ptr=ptr,
            to=np.array([t for s in self.succ for t, _ in s], dtype=np.int64),
            p=np.array([q for s in self.succ for _, q in s], dtype=np.float64),
            occupies=np.asarray(self.occupies, dtype=bool),
        )


__all__ = [
    "MAX_SIDE_STATES",
    "SideGraph",
    "SideMoves",
    "SideShape",
    "TooManyStates",
    "side_graph",
    "side_shape",
]
