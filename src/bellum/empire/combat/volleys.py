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

Two exceptions are run draw by draw, in the odds too (their salvos have no key): a land
unit short of its basic load resupplies before it fires, moving shells and paying
mobility with a draw of its own, which changes what the next unit can draw on; and a
fort, ship or unit that planes are based on, whose shells the support planes flying
later in the command arm with (:func:`~bellum.empire.combat.air.base_of`).
"""

from __future__ import annotations

from collections.abc import Callable, Hashable, Sequence
from dataclasses import dataclass
from typing import Any, Generic, Protocol, TypeVar

from bellum.dice import Draws, ServerRandom

S = TypeVar("S", bound=Hashable)

#: A volley: its damage, and the owner its news turned the victim hostile to (0: none).
Shot = tuple[int, int]
#: The shots on a path: which firer (its index) fired what.
Path = tuple[tuple[int, Shot], ...]


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
            shot = self._draw(f, dice)
            if shot is not None:
                self._apply(f, shot)
                state = self.add(state, shot[0])
        return self.total(state)

    def _draw(self, f: Firer, dice: ServerRandom) -> Shot | None:
        """``f``'s draws (a salvo whose firers need the command's state passes it)."""
        return f.draw(dice)

    def _apply(self, f: Firer, shot: Shot) -> None:
        """What ``f``'s shot does (a salvo whose firers need the command's state passes it)."""
        f.apply(shot)

    def outcomes(self, draws: Draws) -> list[tuple[int, float, Path]]:
        """Each distinct (result, owners turned hostile) with its exact probability and
        the likeliest path to it, over the firers in order (``draws`` lists one firer's
        shots with their probabilities)."""
        key = self.key
        known: list[tuple[int, float, Path]] | None = None if key is None else _KNOWN.get(key)
        if known is not None:
            return known  # a side's chain meets its salvos again under other gates
        states: dict[tuple[S, frozenset[int]], tuple[float, Path]] = {
            (self.start, frozenset()): (1.0, ())
        }
        for i, f in enumerate(self.firers):
            shots = _shots(f, draws)
            if all(shot is None for shot, _ in shots):
                continue  # it never fires (only a range roll, say)
            new: dict[tuple[S, frozenset[int]], tuple[float, Path]] = {}
            for (state, turned), (p, path) in states.items():
                if self.done(state):
                    _merge(new, (state, turned), p, path)
                    continue
                for shot, q in shots:
                    if shot is None:
                        _merge(new, (state, turned), p * q, path)
                        continue
                    assert isinstance(shot, tuple)
                    dmg, hostile = shot
                    after = (self.add(state, dmg), turned | {hostile} if hostile else turned)
                    _merge(new, after, p * q, (*path, (i, shot)))
            states = new
        results: dict[tuple[int, frozenset[int]], tuple[float, Path]] = {}
        for (state, turned), (p, path) in states.items():
            _merge(results, (self.total(state), turned), p, path)
        out = [(total, p, path) for (total, _), (p, path) in results.items()]
        if key is not None:
            _remember(_KNOWN, key, out)
        return out

    def replay(self, path: Path) -> None:
        for i, shot in path:
            self._apply(self.firers[i], shot)


#: A path through a :class:`Chain`: each salvo's total and path (``None``: it did not fire).
Stages = tuple[tuple[int | None, Path], ...]


@dataclass
class Chain:
    """One side's salvos in turn (§5.1): each adds its total / 100 to a multiplier that
    starts at 1, each after the first only while ``fires(multiplier)``; ``gate`` is
    everything ``fires`` reads.  The result is each salvo's share (0 when it did not fire).

    As one block, the side branches once per distinct multiplier (forts, ships and
    artillery together are a few hundred, where one branch per salvo multiplies their
    totals).  The salvos' firers are listed before any fires: a salvo changes nothing
    the next one's firers read (their own shells; the hostility its news turns is the
    union over the salvos, as :class:`Salvo` keeps it)."""

    salvos: Sequence[Salvo[Any] | None]
    fires: Callable[[float], bool]
    gate: Hashable

    @property
    def key(self) -> Hashable | None:
        keys = self._keys()
        return None if keys is None else ("chain", self.gate, keys)

    def _keys(self) -> tuple[Hashable, ...] | None:
        """The salvos' keys (``None`` for a salvo that does not fire); ``None`` when a
        salvo has none."""
        keys = tuple(None if s is None else s.key for s in self.salvos)
        if any(k is None for k, s in zip(keys, self.salvos, strict=True) if s is not None):
            return None
        return keys

    def _open(self, i: int, x: float) -> bool:
        return i == 0 or self.fires(x)

    def run(self, dice: ServerRandom) -> tuple[float, ...]:
        x = 1.0
        shares = []
        for i, salvo in enumerate(self.salvos):
            share = 0.0
            if salvo is not None and self._open(i, x):
                share = dice.block(salvo) / 100
                x += share
            shares.append(share)
        return tuple(shares)

    def outcomes(self, draws: Draws) -> list[tuple[tuple[float, ...], float, Stages]]:
        """Each distinct (multiplier, owners turned hostile) with its probability and the
        likeliest path to it (once per key, as :meth:`Salvo.outcomes`).

        The states after each salvo depend on the gate only through which of the states
        before it fire: they are kept by the salvos' keys and those choices, so that the
        defender's chain, whose gate moves with the attack it meets, is worked out again
        only where a new attack opens or closes a salvo to other multipliers."""
        keys = self._keys()
        key = None if keys is None else ("chain", self.gate, keys)
        known: list[tuple[tuple[float, ...], float, Stages]] | None = (
            None if key is None else _KNOWN.get(key)
        )
        if known is not None:
            return known
        states: dict[tuple[float, frozenset[int]], tuple[float, Stages]] = {
            (1.0, frozenset()): (1.0, ())
        }
        trail: tuple[tuple[bool, ...], ...] = ()
        for i, salvo in enumerate(self.salvos):
            opens = tuple(salvo is not None and self._open(i, x) for x, _ in states)
            trail = (*trail, opens)
            stage = None if keys is None else ("stages", keys, trail)
            seen = None if stage is None else _KNOWN.get(stage)
            if seen is not None:
                states = seen
                continue
            # Each outcome with the owners its news turned hostile, worked out once.
            outs = [
                (total, q, path, frozenset(shot[1] for _, shot in path if shot[1]))
                for total, q, path in ([] if salvo is None else salvo.outcomes(draws))
            ]
            new: dict[tuple[float, frozenset[int]], tuple[float, Stages]] = {}
            for fires, ((x, turned), (p, stages)) in zip(opens, states.items(), strict=True):
                if not fires:
                    _merge(new, (x, turned), p, (*stages, (None, ())))
                    continue
                for total, q, path, hostile in outs:
                    after = (x + total / 100, turned | hostile if hostile else turned)
                    _merge(new, after, p * q, (*stages, (total, path)))
            states = new
            if stage is not None:
                _remember(_KNOWN, stage, new)
        out = [(_shares(stages), p, stages) for p, stages in states.values()]
        if key is not None:
            _remember(_KNOWN, key, out)
        return out

    def replay(self, stages: Stages) -> None:
        for salvo, (total, path) in zip(self.salvos, stages, strict=True):
            if salvo is not None and total is not None:
                salvo.replay(path)


def _shares(stages: Stages) -> tuple[float, ...]:
    return tuple(0.0 if total is None else total / 100 for total, _ in stages)


#: What the odds have worked out, by key (everything it depends on): each salvo's and
#: each chain's outcomes, a chain's states after each of its salvos, and each firer's
#: shots, for the life of the process (each cache cleared when full: one rule,
#: :func:`_remember`; readers use ``get``, since another thread may clear it between a
#: test and a read).
_KNOWN: dict[Hashable, Any] = {}
_SHOTS: dict[Hashable, list[tuple[Hashable, float]]] = {}
_LIMIT = 4096


def _remember(cache: dict[Hashable, Any], key: Hashable, value: Any) -> None:
    if len(cache) >= _LIMIT:
        cache.clear()
    cache[key] = value


def _shots(f: Firer, draws: Draws) -> list[tuple[Hashable, float]]:
    """The firer's shots with their probabilities (once per key)."""
    key = (type(f).__name__, f.key)
    known = _SHOTS.get(key)
    if known is None:
        known = draws(f.draw)
        _remember(_SHOTS, key, known)
    return known


K = TypeVar("K", bound=Hashable)
P = TypeVar("P")


def _merge(into: dict[K, tuple[float, P]], key: K, p: float, path: P) -> None:
    """Add ``p`` to ``key``'s probability, keeping the likelier path."""
    old = into.get(key)
    if old is None:
        into[key] = (p, path)
    else:
        into[key] = (old[0] + p, old[1] if old[0] >= p else path)


__all__ = ["Chain", "Firer", "Path", "Salvo", "Shot"]
