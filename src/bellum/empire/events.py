"""What a combat reports, and how it asks.

Rules code never prints or reads: it emits :class:`Event` objects to a sink
(the CLI renders them live as the server's text) and asks questions through
a :class:`Prompter` (a terminal, piped stdin, or a list of scripted answers).
"""

from __future__ import annotations

import re
from collections.abc import Callable, Iterable
from dataclasses import dataclass, field
from enum import StrEnum
from typing import Any, Protocol

from bellum.empire.geometry import Coord, Geometry


class PromptKind(StrEnum):
    """What a question asks for."""

    #: A missing command argument (``Sector :  ``, ``plane(s)? ``...).
    ARGUMENT = "argument"
    #: How many mil from a sector (``at``) or a ship (``ship``), at most ``most``.
    MIL = "mil"
    #: Whether land unit ``uid`` (army ``army``) joins (``[ynYNq?]``).
    UNIT = "unit"
    #: How many mil move in from ``at`` after a victory, at most ``most``.
    MOVE_IN_MIL = "move_in_mil"
    #: Whether land unit ``uid`` moves in after a victory.
    MOVE_IN_UNIT = "move_in_unit"
    #: The scouts' "Are you sure" (their estimate in ``odds``).
    ABORT = "abort"
    #: Attacking an ally's sector.
    ALLY = "ally"
    #: A sneak attack's price (``cost``).
    SNEAK = "sneak"
    #: Anything else.
    OTHER = "other"

    @property
    def confirms(self) -> bool:
        """Whether the question is a yes/no confirmation (``--yes`` answers it)."""
        return self in (PromptKind.ABORT, PromptKind.ALLY, PromptKind.SNEAK)


@dataclass(frozen=True)
class Prompt:
    """A question: the exact text the server prints, and what it asks for.

    A prompter that answers by meaning (a plan, named answers on the command
    line, a web form) reads :attr:`kind` and the typed fields, never the
    wording; ``str(prompt)`` is the text.  Sectors (``at``) are absolute.
    """

    text: str
    kind: PromptKind = PromptKind.OTHER
    at: Coord | None = None
    ship: int | None = None
    most: int | None = None
    uid: int | None = None
    army: str | None = None
    odds: int | None = None
    cost: int | None = None

    def __post_init__(self) -> None:
        object.__setattr__(self, "kind", PromptKind(self.kind))

    def __str__(self) -> str:
        return self.text


#: The server's questions by kind, as the rules word them (combat/force.py, flows.py,
#: movein.py, target.py, defenders.py and the commands' argument prompts).
_PROMPT_FORMS: tuple[tuple[PromptKind, re.Pattern[str]], ...] = (
    (PromptKind.MIL,
     re.compile(r"Number of mil from .* at (?P<at>-?\d+,-?\d+) \(max (?P<most>\d+)\) : ")),
    (PromptKind.MIL,
     re.compile(r"Number of mil from .*\(#(?P<ship>\d+)\) \(max (?P<most>\d+)\) : ")),
    (PromptKind.MOVE_IN_MIL,
     re.compile(r"How many mil to move in from (?P<at>-?\d+,-?\d+) \((?P<most>\d+) max\)\? ")),
    (PromptKind.UNIT,
     re.compile(r"\S+ with .* #(?P<uid>\d+) (?:in|on) .* \((?P<army>\S+) \d+%\) \[ynYNq\?\] ")),
    (PromptKind.MOVE_IN_UNIT,
     re.compile(r"Move in with .* #(?P<uid>\d+) \((?P<army>\S+) \d+%\) \[ynYNq\?\] ")),
    (PromptKind.ABORT, re.compile(r"Are you sure you want to \S+ \[yn\]\? ")),
    (PromptKind.ALLY, re.compile(r"Sector is owned by .*, your ally, \S+ \[yn\]\? ")),
    (PromptKind.SNEAK,
     re.compile(r"Do you really want to sneak attack \(it will cost you \$(?P<cost>\d+)\)"
                r" \[yn\]\? ")),
    (PromptKind.ARGUMENT,
     re.compile(r"Sector :  |Assault from ship # |Victim ship #\?  |Victim land unit #\?  "
                r"|Boarding party from\? |plane\(s\)\? |escort\(s\)\? |assembly point\? ")),
)  # fmt: skip


def parse_prompt(text: str, geometry: Geometry | None = None) -> Prompt:
    """The :class:`Prompt` a live server's question ``text`` is: its kind and numbers
    read back from the wording, so a server's question is answered like the rules' own.
    Unknown wording is kind ``other``.

    Sectors (``at``) are world coordinates of a viewer at ``0,0``: normalised on
    ``geometry`` (a player's synced view of the game), as written without it.
    An ``army`` of ``~`` is none (``""``).  The scouts' ``odds`` are not in the
    question's text, so a parsed ``abort`` lacks them.
    """
    for kind, form in _PROMPT_FORMS:
        m = form.fullmatch(text)
        if m is None:
            continue
        fields: dict[str, Any] = {}
        for key, value in m.groupdict().items():
            if key == "at":
                x, y = (int(v) for v in value.split(","))
                fields[key] = geometry.norm(x, y) if geometry is not None else (x, y)
            elif key == "army":
                fields[key] = "" if value == "~" else value
            else:
                fields[key] = int(value)
        return Prompt(text, kind, **fields)
    return Prompt(text)


# -- facts: what a line of the transcript says, for readers that must not parse it -----


@dataclass(frozen=True)
class Refusal:
    """The command refused: a legality check's reason (§1.2), the BTUs (§15), or
    (``usage``) its usage line."""

    usage: bool = False


@dataclass(frozen=True)
class Closing:
    """A line that ends a command short: ``Attack aborted``, ``No troops for attack...``,
    ``command failed``."""


@dataclass(frozen=True)
class UnitNote:
    """About one of the aggressor's land units before the fight (§2.4): why it cannot
    join, or its base value when it may."""

    uid: int


@dataclass(frozen=True)
class SourceNote:
    """About a source of mil before the fight (§2.3): a sector ``at`` or a ship."""

    at: Coord | None = None
    ship: int | None = None


@dataclass(frozen=True)
class PlaneStatus:
    """Whether a plane stands by for a mission (§16.4 item 3), or why not."""

    uid: int
    ready: bool


@dataclass(frozen=True)
class ScoutReport:
    """What the scouts make out of a unit (§4.4): random, drawn by the server."""


@dataclass(frozen=True)
class Sneaking:
    """Spies try to slip ashore (§13.5)."""


#: The typed meaning of an event beside its text; a question's is its :class:`Prompt`.
Fact = Prompt | Refusal | Closing | UnitNote | SourceNote | PlaneStatus | ScoutReport | Sneaking


class EventKind(StrEnum):
    """Output, a question and its answer, or a telegram to another country."""

    TEXT = "text"
    PROMPT = "prompt"
    TELEGRAM = "telegram"


@dataclass(frozen=True)
class Event:
    """One piece of the aggressor's transcript.

    ``kind`` is ``text`` for output (``text`` may hold several lines or a
    partial one, like the fight's ``!@`` stream), ``prompt`` for a question
    and its answer, ``telegram`` for a message to another country (``to``).
    """

    kind: EventKind
    text: str
    to: int = 0
    answer: str | None = None
    #: What the event means, for a reader that must not parse :attr:`text`.  It is
    #: not stored with the history and not compared: the text is the record.
    fact: Fact | None = field(default=None, compare=False)

    def transcript(self) -> str:
        """The text the aggressor saw for this event ('' for telegrams)."""
        if self.kind is EventKind.TEXT:
            return self.text
        if self.kind is EventKind.PROMPT:
            return f"{self.text}{self.answer if self.answer is not None else ''}\n"
        return ""


class Prompter(Protocol):
    """Asks the player a question; ``None`` means end of input."""

    def ask(self, prompt: Prompt) -> str | None: ...


class AnswersByKind:
    """A prompter that answers each kind of question in a method of its own.

    Every method answers ``None`` (end of input) unless a subclass says more;
    the yes/no confirmations share :meth:`confirm`.
    """

    def ask(self, prompt: Prompt) -> str | None:
        match prompt.kind:
            case PromptKind.MIL:
                return self.mil(prompt)
            case PromptKind.UNIT:
                return self.unit(prompt)
            case PromptKind.MOVE_IN_MIL:
                return self.move_in_mil(prompt)
            case PromptKind.MOVE_IN_UNIT:
                return self.move_in_unit(prompt)
            case PromptKind.ABORT | PromptKind.ALLY | PromptKind.SNEAK:
                return self.confirm(prompt)
        return self.other(prompt)

    def mil(self, prompt: Prompt) -> str | None:
        return self.other(prompt)

    def unit(self, prompt: Prompt) -> str | None:
        return self.other(prompt)

    def move_in_mil(self, prompt: Prompt) -> str | None:
        return self.other(prompt)

    def move_in_unit(self, prompt: Prompt) -> str | None:
        return self.other(prompt)

    def confirm(self, prompt: Prompt) -> str | None:
        return self.other(prompt)

    def other(self, prompt: Prompt) -> str | None:
        return None


@dataclass
class ScriptedPrompter:
    """Answers from a list, in order; runs out like end of input."""

    answers: list[str] = field(default_factory=list)
    asked: list[Prompt] = field(default_factory=list)

    def ask(self, prompt: Prompt) -> str | None:
        self.asked.append(prompt)
        if not self.answers:
            return None
        return self.answers.pop(0)


@dataclass
class RecordingPrompter:
    """Passes questions on and remembers every answer, so the command can be replayed."""

    inner: Prompter
    answers: list[str | None] = field(default_factory=list)

    def ask(self, prompt: Prompt) -> str | None:
        answer = self.inner.ask(prompt)
        self.answers.append(answer)
        return answer


@dataclass
class ReplayPrompter:
    """Gives recorded answers back in order (end of input included), then end of input."""

    answers: list[str | None]
    used: int = 0

    def ask(self, prompt: Prompt) -> str | None:
        if self.used >= len(self.answers):
            return None
        self.used += 1
        return self.answers[self.used - 1]


Sink = Callable[[Event], None]


def transcript(events: Iterable[Event]) -> str:
    """The aggressor's whole transcript as the server would show it."""
    return "".join(e.transcript() for e in events)


def said(events: Iterable[Event]) -> list[tuple[str, Fact | None]]:
    """Every line of output that is not blank, with the fact of the event that said it."""
    return [
        (line, e.fact)
        for e in events
        if e.kind is EventKind.TEXT
        for line in e.text.split("\n")
        if line.strip()
    ]
