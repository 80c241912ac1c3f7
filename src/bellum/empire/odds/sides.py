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
"""

from __future__ import annotations

from dataclasses import dataclass
from typing import Any

import numpy as np
import numpy.typing as npt

from bellum.empire.combat import capture, fight
from bellum.empire.combat.state import Combat, Fighter
from bellum.empire.combat.strength import defense_total, offense_total
from bellum.empire.odds.branching import BranchingDice, enumerate_runs
from bellum.errors import InputError

FloatArray = npt.NDArray[np.float64]
IntArray = npt.NDArray[np.int64]

#: Most states one side may have before the exact solution gives way to sampling.
MAX_SIDE_STATES = 20_000


class TooManyStates(Exception):
    """A side's state graph outgrew the limit (the caller samples instead)."""


@dataclass(frozen=True, eq=False)
class SideGraph:
    """A side's states in order of rounds lost, and the chance of moving between them.

    Node 0 is the side when the fight begins.  ``strength[n]`` is the strength
    that sets the odds (0: beaten, and the node has no successor);
    ``casualties[n]`` the dead counted so far; the successors of node ``n``
    are ``to[ptr[n]:ptr[n+1]]`` with probabilities ``p[...]``.  ``occupies``
    (attacker only) tells whether a victory in that state takes the target
    (someone can move in, spec §10.1).
    """

    depth: IntArray
    strength: FloatArray
    casualties: IntArray
    ptr: IntArray
    to: IntArray
    p: FloatArray
    occupies: npt.NDArray[np.bool_]

    @property
    def size(self) -> int:
        return int(self.depth.size)

    @property
    def beaten(self) -> npt.NDArray[np.bool_]:
        return self.strength <= 0

    @property
    def is_chain(self) -> bool:
        """Every state has at most one successor: no morale draw can change the side."""
        return bool(np.all(np.diff(self.ptr) <= 1))


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

    def strength(self) -> int:
        return defense_total(self.c) if self.defender else offense_total(self.c)

    def lose_round(self, dice: BranchingDice) -> int:
        """One lost round by the fight's own rule (§6.3); returns the casualties it counts."""
        self.c.dice = dice
        return fight.casualty(self.c, defender=self.defender)


def side_graph(
    c: Combat,
    defender: bool,
    *,
    rng: np.random.Generator | None = None,
    max_states: int = MAX_SIDE_STATES,
) -> SideGraph:
    """The state graph of one side of the combat ``c`` (see the module notes).

    ``c`` must be the combat as its fight begins; it is used as scratch space
    and put back as it was (its events and the world's telegrams aside).
    Raises :class:`TooManyStates` past ``max_states`` states.
    """
    saved = c.channels()
    c.sink = None
    c.morale = True
    side = _Side(c, defender)
    root = side.state()
    keys: dict[tuple[Any, ...], int] = {(root, 0, 0): 0}
    states = [root]
    depth = [0]
    cas = [0]
    strength = [float(side.strength())]
    occupies = [not defender and capture.can_occupy(c)]
    succ: list[list[tuple[int, float]]] = []
    try:
        _explore(
            c, side, defender, rng, max_states, keys, states, depth, cas, strength, occupies, succ
        )
    finally:
        side.load(root)
        c.restore(saved)
    ptr = np.zeros(len(states) + 1, dtype=np.int64)
    ptr[1:] = np.cumsum([len(s) for s in succ])
    to = np.array([t for s in succ for t, _ in s], dtype=np.int64)
    p = np.array([q for s in succ for _, q in s], dtype=np.float64)
    if int(np.asarray(depth).max()) > 10_000_000:
        raise InputError("a side that can lose more than 10,000,000 rounds is too big")
    return SideGraph(
        depth=np.asarray(depth, dtype=np.int64),
        strength=np.asarray(strength, dtype=np.float64),
        casualties=np.asarray(cas, dtype=np.int64),
        ptr=ptr,
        to=to,
        p=p,
        occupies=np.asarray(occupies, dtype=bool),
    )


def _explore(
    c: Combat,
    side: _Side,
    defender: bool,
    rng: np.random.Generator | None,
    max_states: int,
    keys: dict[tuple[Any, ...], int],
    states: list[tuple[Any, ...]],
    depth: list[int],
    cas: list[int],
    strength: list[float],
    occupies: list[bool],
    succ: list[list[tuple[int, float]]],
) -> None:
    """Breadth first from the root: each state's successors by one lost round."""
    n = 0
    while n < len(states):
        if strength[n] <= 0:
            succ.append([])
            n += 1
            continue
        here = states[n]

        def step(dice: BranchingDice, here: tuple[Any, ...] = here) -> tuple[Any, ...]:
            side.load(here)
            taken = side.lose_round(dice)
            occ = not defender and capture.can_occupy(c)
            return side.state(), taken, side.strength(), occ

        if rng is None:
            ends = enumerate_runs(step)
            assert ends is not None
        else:
            ends = [(step(BranchingDice(rng=rng)), 1.0)]
        out: dict[int, float] = {}
        for (state, taken, s, occ), p in ends:
            key = (state, cas[n] + taken, depth[n] + 1)
            i = keys.get(key)
            if i is None:
                i = keys[key] = len(states)
                if i >= max_states:
                    raise TooManyStates(f"more than {max_states} states on one side")
                states.append(state)
                depth.append(depth[n] + 1)
                cas.append(cas[n] + taken)
                strength.append(float(s))
                occupies.append(occ)
            out[i] = out.get(i, 0.0) + p
        succ.append(sorted(out.items()))
        n += 1


__all__ = ["MAX_SIDE_STATES", "SideGraph", "TooManyStates", "side_graph"]
