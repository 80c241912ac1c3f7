"""What a combat reports, and how it asks.

Rules code never prints or reads: it emits :class:`Event` objects to a sink
(the CLI renders them live as the server's text) and asks questions through
a :class:`Prompter` (a terminal, piped stdin, or a list of scripted answers).
"""

from __future__ import annotations

from collections.abc import Callable, Iterable
from dataclasses import dataclass, field
from typing import Any, Literal, Protocol

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
