"""Answers by meaning: a script says what it wants, not in which order it will be asked.

A command's questions depend on the world: a sector without mobility is not
asked for mil, scouts add "Are you sure...?", a second unit adds a prompt.
Answers piped line by line then shift and land on the wrong question.
:class:`NamedAnswers` answers a :class:`~bellum.empire.events.Prompt` by its
:attr:`~bellum.empire.events.Prompt.kind` and fields instead (the command
line's ``--mil 0,0=150``, ``--unit 3``, ``--no-units``, ``--move-in 0``,
``--yes``), and returns ``None`` for a question it has no answer for, which
the caller then asks the player (or standard input).

The answer given is the text a player would have typed, so it is recorded
and replayed like any other answer: the history stays exact.
"""

from __future__ import annotations

from collections.abc import Mapping
from dataclasses import dataclass, field
from typing import Any

from bellum.empire.events import AnswersByKind, Prompt
from bellum.empire.geometry import Coord
from bellum.empire.orders import Order
from bellum.errors import InputError
from bellum.numbers import is_digits, parse_int, shown


class AboveMost(InputError):
    """A number named for a question above the most the question allows (about the
    ``mil``: each edge words it, the command line with the option that named it)."""

    def __init__(self, prompt: Prompt, n: int, most: int) -> None:
        super().__init__(f"{n} where {str(prompt).strip()!r} allows at most {most}", field="mil")
        self.prompt = prompt
        self.n = n
        self.most = most


@dataclass
class NamedAnswers(AnswersByKind):
    """What to answer, by kind of question (``None``: nothing was named for it).
    Coordinates are absolute.

    ``units`` and ``move_in_units`` are ``None`` when nothing was said (the
    question is asked), else the complete set of units that go (others stay).
    ``move_in`` answers every sector's move-in question, ``move_in_at`` one
    sector's (it wins).

    A number of mil to send above the most the question allows is refused
    (:class:`AboveMost`): the server would take the most instead, or read a number
    past its ``int`` as another one.  A move-in answer is given as named: how many
    may move in depends on the fight's casualties, and the server moves in the most
    it allows when the answer is more, as it does for a typed one.
    """

    mil_at: dict[Coord, int] = field(default_factory=dict)
    ship_mil: dict[int, int] = field(default_factory=dict)
    #: Mil from the command's ship when its number is not known yet (it will be asked).
    own_ship_mil: int | None = None
    #: How the ship's answer was named (``ship`` or its number), to word a mistake as given.
    ship_named: str | None = None
    units: frozenset[int] | None = None
    move_in: int | None = None
    move_in_at: dict[Coord, int] = field(default_factory=dict)
    move_in_units: frozenset[int] | None = None
    yes: bool = False
    #: The answers used so far, as ``(kind, key)``: see :meth:`unused`.
    used: set[tuple[str, object]] = field(default_factory=set)

    def mil(self, prompt: Prompt) -> str | None:
        if prompt.ship is not None:
            if prompt.ship in self.ship_mil or self.own_ship_mil is None:
                return self._number(prompt, self._take("ship", prompt.ship, self.ship_mil))
            self.used.add(("ship", "ship"))
            return self._number(prompt, self.own_ship_mil)
        return self._number(prompt, self._take("mil", prompt.at, self.mil_at))

    def move_in_mil(self, prompt: Prompt) -> str | None:
        n = self._take("move_in", prompt.at, self.move_in_at)
        if n is None:
            n = self.move_in
        return None if n is None else str(n)

    def unit(self, prompt: Prompt) -> str | None:
        return self._choose("unit", prompt.uid, self.units)

    def move_in_unit(self, prompt: Prompt) -> str | None:
        return self._choose("move_in_unit", prompt.uid, self.move_in_units)

    def confirm(self, prompt: Prompt) -> str | None:
        return "y" if self.yes else None

    @staticmethod
    def _number(prompt: Prompt, n: int | None) -> str | None:
        if n is not None and prompt.most is not None and n > prompt.most:
            raise AboveMost(prompt, n, prompt.most)
        return None if n is None else str(n)

    def _take(self, kind: str, key: object, table: Mapping[Any, int]) -> int | None:
        if key not in table:
            return None
        self.used.add((kind, key))
        return table[key]

    def _choose(self, kind: str, uid: object, chosen: frozenset[int] | None) -> str | None:
        if chosen is None:
            return None
        self.used.add((kind, uid))
        return "y" if uid in chosen else "n"

    def unused(self) -> list[tuple[str, object]]:
        """The named answers no question asked for, as ``(kind, key)``: a sector that
        had no mil to give, a unit that could not join, a typo in a coordinate."""
        named: list[tuple[str, object]] = [
            *(("mil", xy) for xy in self.mil_at),
            *(("ship", uid) for uid in self.ship_mil),
            *([("ship", "ship")] if self.own_ship_mil is not None else []),
            *(("unit", uid) for uid in sorted(self.units or ())),
            *(("move_in", xy) for xy in self.move_in_at),
            *(("move_in_unit", uid) for uid in sorted(self.move_in_units or ())),
        ]
        return [k for k in named if k not in self.used]


def is_ship_key(key: str) -> bool:
    """Whether ``KEY`` of a mil answer ``KEY=N`` names a ship: ``ship`` or a number."""
    key = key.strip()
    return key.lower() == "ship" or is_digits(key)


def answer_ship(order: Order, key: str) -> int | None:
    """The ship a mil answer ``KEY=N`` names, ``KEY`` being ``ship`` (the command's ship)
    or the ship's number: both mean the command's ship, so an answer reads the same in a
    command and in its odds.

    Returns the ship's number, or ``None`` for ``ship`` when the command will ask which
    ship.  A command that takes no mil from a ship, or a number that is not the
    command's ship, is an :class:`~bellum.errors.InputError` about the ``mil``.
    """
    key = key.strip()
    said = shown(key)
    if not order.takes_ship_mil:
        source = " from a sector" if order.name == "board" else ""
        raise InputError(
            f"{order.name}{source} takes no mil from a ship, only from a sector (SECT=N)",
            field="mil",
            value=said,
        )
    ship = order.ship
    if key.lower() == "ship":
        return ship
    try:
        number = parse_int(key, "the ship")
    except InputError as exc:
        raise InputError(str(exc), field="mil", value=said) from None
    if ship is not None and number != ship:
        raise InputError(
            f"ship {number} is not the command's ship ({ship}): give {ship}=N or ship=N",
            field="mil",
            value=said,
        )
    return number


__all__ = ["AboveMost", "NamedAnswers", "answer_ship", "is_ship_key"]
