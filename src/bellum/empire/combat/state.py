"""The state of one combat: who fights, from where, with what (spec §0.9).

A :class:`Combat` is created by a command flow, filled in step by step and
finally written back to the world.  It also carries the output channels:
every line the aggressor sees goes through :meth:`Combat.say`.
"""

from __future__ import annotations

import re
from collections.abc import Callable
from dataclasses import dataclass, field
from enum import Enum
from typing import TYPE_CHECKING, Literal

from bellum.dice import ServerRandom
from bellum.empire.events import Event, EventKind, Fact, Prompt, Prompter, Sink
from bellum.empire.geometry import Coord
from bellum.empire.orders import CONTROL, SYNTAX, Syntax
from bellum.empire.rules import Rules
from bellum.empire.world import (
    LandUnit,
    NewsItem,
    Plague,
    Relation,
    Sector,
    Ship,
    Telegram,
    World,
    known,
)

if TYPE_CHECKING:
    from bellum.empire.combat.result import CombatResult

#: The terminal bell the server sends before its loudest news (``Incoming shells``,
#: ``Blammo!``) to players with the beep flag, which every new country has; the
#: byte is written and the terminal decides what to do with it.
BELL = "\a"


_NON_ASCII = re.compile(r"[^\x00-\x7f]")


def as_read(answer: str) -> str:
    """An answer as the server reads it: control characters but the tab dropped, and
    each character that is not ASCII a ``?`` (``copy_utf8_to_ascii_no_funny``)."""
    return _NON_ASCII.sub("?", CONTROL.sub("", answer))


class Mode(Enum):
    """The command, with the verb the server uses in its messages."""

    ATTACK = "attack"
    ASSAULT = "assault"
    PARADROP = "paradrop"
    BOARD = "board"
    LBOARD = "lboard"
    DEFEND = "defend"


@dataclass(frozen=True)
class Ending:
    """One row of the outcome table of §15 for a command: what is said, told and news."""

    won: str
    lost: str
    news_won: str
    goodwill_won: int
    news_unowned: str
    news_lost: str
    goodwill_lost: int
    action_won: str
    action_lost: str


@dataclass(frozen=True)
class Wording:
    """What a command says in the server's own words, where the commands differ."""

    #: The line that ends it when it is aborted (§16).
    aborted: str
    #: The ``-ing`` form in "considered ...ing you" (the server's spelling, §3.4).
    considering: str
    #: The label of the final attack strength, as the header prints it (§6.1).
    strength: str
    #: The verb of "dies ...ing" for an attacking unit (§6.4).
    dies: str
    #: The outcome table's row (§15).
    ending: Ending


#: Where a run may stop short of its end: where the fight begins (the odds engine).
Stop = Literal["fight"]

#: What one argument is to a planner: the target, where the force comes from (a sector
#: or the command's ship, or a paradrop's assembly point), the transport planes, the escorts.
Role = Literal["target", "source", "planes", "escorts"]

#: A command's flow: the combat, its argument words (``None``: to be asked for), its
#: support words, and the result it fills in.
Flow = Callable[["Combat", list["str | None"], list[str], "CombatResult"], None]


@dataclass(frozen=True)
class CommandSpec:
    """One combat command: its words, its flow, what it says, and how the edges offer it.

    The registry (:data:`bellum.empire.combat.commands.COMMANDS`) lists every one; the
    dispatcher, the command line, the web page and the odds planner iterate it.
    """

    mode: Mode
    flow: Flow
    wording: Wording
    #: What each argument slot is (:data:`Role`), in the order of the syntax's slots.
    roles: tuple[Role, ...]
    #: What it takes: a sector, a ship or a land unit.
    takes: Literal["sector", "ship", "unit"]
    #: How the command line shows each argument slot (``TARGET``, ``FROM``...).
    metavars: tuple[str, ...]
    #: The command as a player types it, for help and errors (``attack 2,0``).
    example: str
    #: The command line's help: the first line is its summary.
    help: str

    @property
    def name(self) -> str:
        return self.mode.value

    @property
    def syntax(self) -> Syntax:
        """What a player types (:mod:`bellum.empire.orders`)."""
        return SYNTAX[self.name]

    @property
    def summary(self) -> str:
        return self.help.split("\n", 1)[0]


class Aborted(Exception):
    """The command ends normally (BTUs are charged) after its abort messages.

    ``no_troops`` adds the server's ``No troops for <verb>...`` line.
    """

    def __init__(self, no_troops: bool = True) -> None:
        super().__init__()
        self.no_troops = no_troops


class UsageFailure(Exception):
    """The command line was malformed: ``Usage: ...`` and no BTUs charged.

    ``reason``, when there is one, is printed before the usage line.
    """

    def __init__(self, usage: str, *, reason: str = "") -> None:
        super().__init__(usage)
        self.usage = usage
        self.reason = reason


class Failure(Exception):
    """The command failed a legality check: its reason, BTUs charged.

    The server follows the reason with ``command failed``, except for the
    few checks after which a command ends normally (``ended_ok``) or is
    aborted (``aborted``: the command's abort line follows).
    """

    def __init__(self, reason: str, *, ended_ok: bool = False, aborted: bool = False) -> None:
        super().__init__(reason)
        self.reason = reason
        self.ended_ok = ended_ok or aborted
        self.aborted = aborted


@dataclass
class OffObject:
    """One source of attacking mil: a sector (up to six for attack) or a ship."""

    sector: Sector | None = None
    ship: Ship | None = None
    troops: int = 0
    troops0: int = 0
    pending: int = 0
    om: float = 1.0
    infected: bool = False

    @property
    def xy(self) -> Coord:
        obj = self.sector or self.ship
        assert obj is not None
        return obj.xy

    @property
    def mil(self) -> int:
        obj = self.sector or self.ship
        assert obj is not None
        return obj.mil

    @mil.setter
    def mil(self, n: int) -> None:
        obj = self.sector or self.ship
        assert obj is not None
        obj.mil = n


@dataclass
class Fighter:
    """A land unit in a combat, with what the fight needs to remember about it."""

    unit: LandUnit
    pending: float = 0.0
    supplied: bool = True
    origin: Coord | None = None
    #: The efficiency the server last saw (an attacker's at the start of the fight).
    eff: int | None = None


@dataclass(frozen=True)
class Channels:
    """A combat's dice, sink, morale switch and events (:meth:`Combat.channels`)."""

    dice: ServerRandom
    sink: Sink | None
    morale: bool
    events: list[Event]


@dataclass
class Combat:
    """Everything one combat command reads, decides and reports."""

    world: World
    dice: ServerRandom
    prompter: Prompter
    aggressor: int
    mode: Mode
    rules: Rules
    wording: Wording
    sink: Sink | None = None
    events: list[Event] = field(default_factory=list)
    target: Sector | None = None
    target_ship: Ship | None = None
    target_unit: LandUnit | None = None
    defender: int = 0
    offs: list[OffObject] = field(default_factory=list)
    a_units: list[Fighter] = field(default_factory=list)
    d_units: list[Fighter] = field(default_factory=list)
    d_troops: int = 0
    d_mil0: int = 0
    target_infected: bool = False
    osup: float = 1.0
    dsup: float = 1.0
    a_spy: int = 0
    d_spy: int = 0
    a_engineer: int = 0
    a_cas: int = 0
    d_cas: int = 0
    a_bodies: int = 0
    d_bodies: int = 0
    ototal: int = 0
    dtotal: int = 0
    odds0: float = 0.0
    success: bool = False
    target_pending: int = 0
    money_made: int = 0
    sneak: bool = False
    #: False while the odds engine replays casualties: no morale checks, no draws.
    morale: bool = True
    #: The player's input ended (or ``q`` quit) at a question: the server's
    #: ``player->aborted``, after which the move-in asks nothing more (§13).
    aborted: bool = False
    #: Where the run stops short (``run_order(..., stop_at=...)``), if anywhere.
    stop_at: Stop | None = None

    # -- scratch space ----------------------------------------------------------

    def channels(self) -> Channels:
        """What the combat draws with and says through, to put back with :meth:`restore`
        after borrowing it as scratch space (the odds engine replays a side's
        casualties on it with dice of its own, morale on and no sink)."""
        return Channels(self.dice, self.sink, self.morale, self.events)

    def restore(self, saved: Channels) -> None:
        self.dice, self.sink, self.morale, self.events = (
            saved.dice, saved.sink, saved.morale, saved.events
        )  # fmt: skip

    # -- output ---------------------------------------------------------------

    def emit(self, event: Event) -> None:
        self.events.append(event)
        if self.sink is not None:
            self.sink(event)

    def say(self, text: str = "", fact: Fact | None = None) -> None:
        """A full line to the aggressor, and what it means (:mod:`~bellum.empire.events`)."""
        self.emit(Event(EventKind.TEXT, text + "\n", fact=fact))

    def put(self, text: str) -> None:
        """Text without a newline (the ``!@`` stream)."""
        self.emit(Event(EventKind.TEXT, text))

    def tell(self, to: int, text: str) -> None:
        """A telegram to country ``to`` (nothing for the deity)."""
        if to == 0 or to not in self.world.nations:
            return
        self.world.telegrams.append(Telegram(to, text))
        self.emit(Event(EventKind.TELEGRAM, text, to=to))

    def notify(self, owner: int, text: str, fact: Fact | None = None) -> None:
        """A message about ``owner``'s object: printed for the aggressor, else a telegram."""
        if owner == self.aggressor:
            self.say(text, fact)
        else:
            self.tell(owner, text)

    def ask(self, prompt: Prompt) -> str | None:
        """Ask through the prompter; the answer goes into the transcript after the question.

        Once the command is aborted the server still prints its questions but reads
        nothing (``recvclient``): such a question is output, and its answer ``None``.
        """
        if self.aborted:
            self.put(f"{prompt.text}\n")
            return None
        answer = self.prompter.ask(prompt)
        self.aborted = self.aborted or answer is None
        self.emit(Event(EventKind.PROMPT, prompt.text, answer=answer, fact=prompt))
        return None if answer is None else as_read(answer)

    def news(
        self,
        victim: int,
        text: str,
        goodwill: int,
        actor: int | None = None,
        *,
        hit: bool | None = None,
    ) -> None:
        """A news item (by the aggressor unless ``actor``); bad news may turn the victim
        hostile (spec §15).  ``hit`` is the outcome of that draw when it was drawn
        already (:func:`news_chance`)."""
        actor = self.aggressor if actor is None else actor
        self.world.news.append(NewsItem(actor, victim, text))
        chance = news_chance(victim, goodwill, actor)
        if chance is None:
            return
        if not self.may_turn_hostile(victim, actor):
            if hit is None:
                with self.dice.text_only():  # drawn, but it can change nothing
                    self.dice.chance(chance)
            return
        if self.dice.chance(chance) if hit is None else hit:
            self._turn_hostile(victim, actor)

    def may_turn_hostile(self, victim: int, actor: int) -> bool:
        """Whether bad news by ``actor`` can still turn ``victim`` hostile."""
        vn = self.world.nations.get(victim)
        return vn is not None and vn.rel(actor) > Relation.HOSTILE

    def _turn_hostile(self, victim: int, actor: int) -> None:
        """The victim of bad news downgrades its relations with the actor (and says so)."""
        vn = self.world.nations[victim]
        old = vn.rel(actor)
        vn.relations[actor] = Relation.HOSTILE
        self.notify(
            victim, f'Diplomatic relations with {self.name(actor)} downgraded to "Hostile".'
        )
        self.notify(
            actor,
            f'Country {self.natid(victim)} has downgraded their relations with you to "Hostile"!',
        )
        if old == Relation.ALLIED:
            self.news(
                actor,
                f"{self.name(victim)} diplomats disavow former alliance with {self.name(actor)}",
                0,
                actor=victim,
            )
        self.news(
            actor,
            f"{self.name(victim)} downgrades relations with {self.name(actor)} to hostile",
            3,
            actor=victim,
        )

    # -- names ----------------------------------------------------------------

    def at(self, c: Coord, viewer: int | None = None) -> str:
        """``x,y`` in the viewer's coordinates (default: the aggressor's)."""
        return self.world.fmt(c, self.aggressor if viewer is None else viewer)

    def name(self, cnum: int) -> str:
        return self.world.name_of(cnum)

    def natid(self, cnum: int) -> str:
        """A country as telegrams name it: ``name (#n)``."""
        return f"{self.name(cnum)} (#{cnum})"

    @property
    def verb(self) -> str:
        return self.mode.value

    def target_name(self, viewer: int | None = None) -> str:
        if self.target_ship is not None:
            return self.target_ship.title()
        if self.target_unit is not None:
            return self.target_unit.name()
        assert self.target is not None
        return self.at(self.target.xy, viewer)

    def off_name(self, o: OffObject) -> str:
        """How the server names an off-object: ``x,y`` for a sector, the name of a ship,
        ``your forces`` for paratroopers."""
        if o.ship is not None:
            return o.ship.title()
        return self.at(o.xy) if o.sector is not None else "your forces"


def news_chance(victim: int, goodwill: int, actor: int) -> float | None:
    """The chance that bad news turns its victim hostile (drawn once per item); ``None``
    when the item makes no draw: good news, news about oneself, or about no one."""
    if not victim or goodwill >= 0 or victim == actor:
        return None
    return -goodwill / 20


def infected(stage: Plague | None) -> bool:
    """Whether an object at this plague stage infects those it fights; an unknown stage
    (a player's view) is an :class:`~bellum.empire.world.Unknown` error."""
    return known(stage, "the plague stage") == Plague.INFECT


def ldround(x: float) -> int:
    """The server's round half up (``trunc(x + 0.5)``)."""
    return int(x + 0.5)


def roundint10(n: int) -> int:
    return ((n + 5) // 10) * 10


def roundint5(n: int) -> int:
    return ((n + 2) // 5) * 5
