"""Support fire as data: who fires, with what draws, and how the volleys add up (§5.3).

One fire function (:func:`~bellum.empire.combat.support.fort_damage`, ``ship_damage``,
``unit_damage``) is a :class:`Salvo`: its firers in the server's order, each a
:class:`Firer` whose ``draw`` makes the firer's draws and whose ``apply`` does what its
volley does to the world (shells used, telegrams, news), and the running state its
stopping rule reads.  :meth:`Salvo.run` is the server's loop, draw by draw: the one
the real generator takes, so transcripts stay bit-exact.  :meth:`Salvo.outcomes` is the
same loop as a dynamic programme over the firers (a state per running state, merged
when equal), so that the odds branch once per distinct result instead of once per draw
(:meth:`~bellum.empire.odds.branching.BranchingDice.block`).  Both read the same
firers, so "who fires, with what chance, for what damage" is written once.

Why the result and one path to it are enough: a firer's draws have no effect but its
shot, and its side effects do not change P(success) or the losses of the command:

* the shells a fort, ship or artillery unit uses are its own, and it fires once per
  salvo; a firer helps one side only (:meth:`~bellum.empire.world.World.helps`), so
  the other side's salvo never reads them; the fight and what the odds solve after it
  read neither shells nor guns;
* telegrams and news items are text;
* the one effect that lasts is a news item's draw turning the victim hostile to the
  firer's owner: the states keep the set of owners so turned, and the results are
  distinct per set, so the relations after a salvo are exact on every branch.

A land unit short of its basic load resupplies before it fires, moving shells and
paying mobility with a draw of its own: that changes what the next unit can draw on,
so such a salvo has no key and is run draw by draw, in the odds too.
"""

from __future__ import annotations

from collections.abc import Callable, Hashable, Sequence
from dataclasses import dataclass
from typing import Generic, Protocol, TypeVar

from bellum.dice import Draws, ServerRandom

S = TypeVar("S", bound=Hashable)

#: A volley: its damage, and the owner its news turned the victim hostile to (0: none).
Shot = tuple[int, int]
#: The shot of each firer on a path (``None``: it did not fire).
Path = tuple[Shot | None, ...]


class Firer(Protocol):
    """One fort, ship or land unit that may fire in a salvo."""

    @property
    def key(self) -> Hashable | None:
        """Everything :meth:`draw` reads; ``None`` when drawing has side effects."""

    def draw(self, dice: ServerRandom) -> Shot | None:
        """The firer's draws in the server's order; its shot, ``None`` if it does not fire."""

    def apply(self, shot: Shot) -> None:
        """What the shot does to the world (no draws)."""


@dataclass
class Salvo(Generic[S]):
    """A fire function: ``firers`` in order, each shot added to the ``start`` state by
    ``add`` until ``done``; ``total`` is the function's result.  ``kind`` names the three
    rules (it is part of :attr:`key`)."""

    kind: str
    firers: Sequence[Firer]
    start: S
    add: Callable[[S, int], S]
    done: Callable[[S], bool]
    total: Callable[[S], int]

    @property
    def key(self) -> Hashable | None:
        keys = tuple(f.key for f in self.firers)
        if any(k is None for k in keys):
            return None
        return (self.kind, self.start, keys)

    def run(self, dice: ServerRandom) -> int:
        state = self.start
        for f in self.firers:
            if self.done(state):
                break
            shot = f.draw(dice)
            if shot is not None:
                f.apply(shot)
                state = self.add(state, shot[0])
        return self.total(state)

    def outcomes(self, draws: Draws) -> list[tuple[int, float, Path]]:
        """Each distinct (result, owners turned hostile) with its exact probability and
        the likeliest path to it, over the firers in order (``draws`` lists one firer's
        shots with their probabilities)."""
        states: dict[tuple[S, frozenset[int]], tuple[float, Path]] = {
            (self.start, frozenset()): (1.0, ())
        }
        for f in self.firers:
            shots = draws(f.draw)
            new: dict[tuple[S, frozenset[int]], tuple[float, Path]] = {}
            for (state, turned), (p, path) in states.items():
                if self.done(state):
                    _merge(new, (state, turned), p, (*path, None))
                    continue
                for shot, q in shots:
                    key = (state, turned)
                    if shot is not None:
                        assert isinstance(shot, tuple)
                        dmg, hostile = shot
                        key = (self.add(state, dmg), turned | {hostile} if hostile else turned)
                    _merge(new, key, p * q, (*path, shot))
            states = new
        results: dict[tuple[int, frozenset[int]], tuple[float, Path]] = {}
        for (state, turned), (p, path) in states.items():
            _merge(results, (self.total(state), turned), p, path)
        return [(total, p, path) for (total, _), (p, path) in results.items()]

    def replay(self, path: Path) -> None:
        for f, shot in zip(self.firers, path, strict=False):
            if shot is not None:
                f.apply(shot)


K = TypeVar("K", bound=Hashable)


def _merge(into: dict[K, tuple[float, Path]], key: K, p: float, path: Path) -> None:
    """Add ``p`` to ``key``'s probability, keeping the likelier path."""
    old = into.get(key)
    if old is None:
        into[key] = (p, path)
    else:
        into[key] = (old[0] + p, old[1] if old[0] >= p else path)


__all__ = ["Firer", "Path", "Salvo", "Shot"]
