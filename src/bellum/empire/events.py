"""What a combat reports, and how it asks.

Rules code never prints or reads: it emits :class:`Event` objects to a sink
(the CLI renders them live as the server's text) and asks questions through
a :class:`Prompter` (a terminal, piped stdin, or a list of scripted answers).
"""

from __future__ import annotations

import re
from collections.abc import Callable, Iterable
from dataclasses import dataclass, field
from typing import Any, Literal, Protocol

from bellum.empire.geometry import Geometry

#: What a question asks for.  ``argument``: a missing command argument;
#: ``mil``: how many mil from a sector (``at``) or a ship (``ship``), at most
#: ``max``; ``unit``: whether land unit ``uid`` joins (``[ynYNq?]``);
#: ``move_in_mil`` / ``move_in_unit``: the same after a victory; ``abort``:
#: the scouts' "Are you sure"; ``ally``: attacking an ally's sector; ``sneak``:
#: a sneak attack's price; ``other``: anything else.
PromptKind = Literal[
    "argument", "mil", "unit", "move_in_mil", "move_in_unit", "abort", "ally", "sneak", "other"
]


class Prompt(str):
    """A question: the exact text the server prints, plus what it asks for.

    It *is* its text, so a prompter that only reads text keeps working, while
    one that answers by meaning (a plan, named answers on the command line, a
    web form) looks at :attr:`kind` and :attr:`info` instead of the wording.
    """

    kind: PromptKind
    info: dict[str, Any]

    def __new__(cls, text: str, kind: PromptKind = "other", **info: Any) -> Prompt:
        self = super().__new__(cls, text)
        self.kind = kind
        self.info = info
        return self

    def __repr__(self) -> str:
        return f"Prompt({str(self)!r}, {self.kind!r}, **{self.info!r})"


def prompt_of(text: str, kind: PromptKind = "other") -> Prompt:
    """``text`` as a :class:`Prompt` (kept as it is when it already is one)."""
    return text if isinstance(text, Prompt) else Prompt(text, kind)


#: The server's questions by kind, as the rules word them (combat/force.py, flows.py,
#: movein.py, target.py, defenders.py and the commands' argument prompts).
_PROMPT_FORMS: tuple[tuple[PromptKind, re.Pattern[str]], ...] = (
    ("mil", re.compile(r"Number of mil from .* at (?P<at>-?\d+,-?\d+) \(max (?P<max>\d+)\) : ")),
    ("mil", re.compile(r"Number of mil from .*\(#(?P<ship>\d+)\) \(max (?P<max>\d+)\) : ")),
    ("move_in_mil",
     re.compile(r"How many mil to move in from (?P<at>-?\d+,-?\d+) \((?P<max>\d+) max\)\? ")),
    ("unit",
     re.compile(r"\S+ with .* #(?P<uid>\d+) (?:in|on) .* \((?P<army>\S+) \d+%\) \[ynYNq\?\] ")),
    ("move_in_unit",
     re.compile(r"Move in with .* #(?P<uid>\d+) \((?P<army>\S+) \d+%\) \[ynYNq\?\] ")),
    ("abort", re.compile(r"Are you sure you want to \S+ \[yn\]\? ")),
    ("ally", re.compile(r"Sector is owned by .*, your ally, \S+ \[yn\]\? ")),
    ("sneak",
     re.compile(r"Do you really want to sneak attack \(it will cost you \$(?P<cost>\d+)\)"
                r" \[yn\]\? ")),
    ("argument",
     re.compile(r"Sector :  |Assault from ship # |Victim ship #\?  |Victim land unit #\?  "
                r"|Boarding party from\? |plane\(s\)\? |escort\(s\)\? |assembly point\? ")),
)  # fmt: skip


def parse_prompt(text: str, geometry: Geometry | None = None) -> Prompt:
    """The :class:`Prompt` a question's ``text`` is, as the server (or bellum) words it:
    its kind and numbers read back from the wording, so a server's question is
    answered like the rules' own.  Unknown wording is kind ``other``.

    Sectors (``at``) are world coordinates of a viewer at ``0,0``: normalised on
    ``geometry`` (a player's synced view of the game), as written without it.
    An ``army`` of ``~`` is none (``""``).  The scouts' ``odds`` are not in the
    question's text, so a parsed ``abort`` lacks them.
    """
    for kind, form in _PROMPT_FORMS:
        m = form.fullmatch(text)
        if m is None:
            continue
        info: dict[str, Any] = {}
        for key, value in m.groupdict().items():
            if key == "at":
                x, y = (int(v) for v in value.split(","))
                info[key] = geometry.norm(x, y) if geometry is not None else (x, y)
            elif key == "army":
                info[key] = "" if value == "~" else value
            else:
                info[key] = int(value)
        return Prompt(text, kind, **info)
    return Prompt(text)


@dataclass(frozen=True)
class Event:
    """One piece of the aggressor's transcript.

    ``kind`` is ``"text"`` for output (``text`` may hold several lines or a
    partial one, like the fight's ``!@`` stream), ``"prompt"`` for a question
    and its answer, ``"telegram"`` for a message to another country (``to``).
    """

    kind: str
    text: str
    to: int = 0
    answer: str | None = None

    def transcript(self) -> str:
        """The text the aggressor saw for this event ('' for telegrams)."""
        if self.kind == "text":
            return self.text
        if self.kind == "prompt":
            return f"{self.text}{self.answer if self.answer is not None else ''}\n"
        return ""


class Prompter(Protocol):
    """Asks the player a question; ``None`` means end of input."""

    def ask(self, prompt: str) -> str | None: ...


@dataclass
class ScriptedPrompter:
    """Answers from a list, in order; runs out like end of input."""

    answers: list[str] = field(default_factory=list)
    asked: list[str] = field(default_factory=list)

    def ask(self, prompt: str) -> str | None:
        self.asked.append(prompt)
        if not self.answers:
            return None
        return self.answers.pop(0)


@dataclass
class RecordingPrompter:
    """Passes questions on and remembers every answer, so the command can be replayed."""

    inner: Prompter
    answers: list[str | None] = field(default_factory=list)

    def ask(self, prompt: str) -> str | None:
        answer = self.inner.ask(prompt)
        self.answers.append(answer)
        return answer


@dataclass
class ReplayPrompter:
    """Gives recorded answers back in order (end of input included), then end of input."""

    answers: list[str | None]
    used: int = 0

    def ask(self, prompt: str) -> str | None:
        if self.used >= len(self.answers):
            return None
        self.used += 1
        return self.answers[self.used - 1]


Sink = Callable[[Event], None]


def transcript(events: Iterable[Event]) -> str:
    """The aggressor's whole transcript as the server would show it."""
    return "".join(e.transcript() for e in events)
