"""A plan: the command a player would type and what they would answer (spec §16).

A :class:`Plan` is an :class:`~bellum.empire.orders.Order` (``attack 2,0``,
``assault 2,0 5``, ``paradrop 0/1 . 0,0 4,0``, ``board 5 0,0``, ``lboard 3
0,0``) plus the answers to its questions, given by what they ask for, never
by their wording: the mil from each sector (``mil`` keyed by absolute
coordinates) or from the command's ship (key ``"ship"``), and the land units
that join.  :class:`PlanPrompter` answers the command's structured prompts
(:class:`~bellum.empire.events.Prompt`) from it, like a player who has made
up their mind: it goes on when the scouts warn or the target is an ally's,
and moves nothing in after a victory.
"""

from __future__ import annotations

from collections.abc import Mapping
from dataclasses import dataclass, field
from typing import Literal

from bellum.empire.answers import answer_ship, is_ship_key
from bellum.empire.events import AnswersByKind, Prompt
from bellum.empire.geometry import Coord
from bellum.empire.orders import Order
from bellum.empire.rules import Rules
from bellum.empire.world import World
from bellum.errors import InputError
from bellum.numbers import shown, to_int

#: Where mil come from: a sector (absolute coordinates) or the command's ship.
MilSource = Coord | Literal["ship"]


@dataclass(frozen=True)
class Plan:
    """A command and the answers to its questions.

    ``mil`` maps each source to the number of mil it sends (sources not named
    send none); ``None`` sends as many as each prompt allows.  ``units`` are
    the land units that join; ``None`` takes every unit offered.  ``rules`` are
    those the command runs under; ``None``: the world's own.
    """

    order: Order
    mil: Mapping[MilSource, int] | None = None
    units: frozenset[int] | None = None
    rules: Rules | None = None

    def rules_in(self, world: World) -> Rules:
        """The rules the plan runs under in ``world``."""
        return self.rules if self.rules is not None else Rules.of(world.options)

    @property
    def everything(self) -> bool:
        """Whether the plan sends everything the command offers (no mil or units named)."""
        return self.mil is None and self.units is None


@dataclass
class PlanPrompter(AnswersByKind):
    """Answers a command's prompts from a :class:`Plan`, by their kind."""

    plan: Plan
    #: The mil prompts seen: source -> the most the prompt allowed.
    asked: dict[MilSource, int] = field(default_factory=dict)
    #: The land units the command offered.
    offered: set[int] = field(default_factory=set)

    def mil(self, prompt: Prompt) -> str | None:
        source: MilSource | None = "ship" if prompt.ship is not None else prompt.at
        if source is None or prompt.most is None:
            return None
        self.asked[source] = prompt.most
        if self.plan.mil is None:
            return str(prompt.most)
        return str(self.plan.mil.get(source, 0))

    def unit(self, prompt: Prompt) -> str | None:
        if prompt.uid is None:
            return None
        self.offered.add(prompt.uid)
        units = self.plan.units
        return "y" if units is None or prompt.uid in units else "n"

    def confirm(self, prompt: Prompt) -> str | None:
        return "y"

    def move_in_mil(self, prompt: Prompt) -> str | None:
        return "0"

    def move_in_unit(self, prompt: Prompt) -> str | None:
        return "n"


def parse_mil(
    world: World, country: int, items: list[str], order: Order | None = None
) -> dict[MilSource, int]:
    """``--mil SECT=N`` (a sector in the player's coordinates), ``--mil ship=N`` or
    ``--mil SHIP=N`` with ``order``'s ship number (the form the command itself takes)."""
    origin = world.origin(country)
    out: dict[MilSource, int] = {}
    for item in items:
        where, sep, n = item.partition("=")
        count = to_int(n, signed=True)
        if not sep or count is None:
            raise InputError(
                "needs SECT=N or ship=N, such as 0,0=150", field="mil", value=shown(item)
            )
        source: MilSource
        if where.strip().lower() == "ship" and order is None:
            source = "ship"
        elif order is not None and is_ship_key(where):
            answer_ship(order, where)
            source = "ship"
        else:
            source = world.geometry.parse(where, origin)
        if source in out:
            raise InputError("given twice", field="mil", value=shown(where.strip()))
        if count < 0:
            raise InputError(
                f"the number of mil cannot be negative, not {count}",
                field="mil",
                value=shown(where.strip()),
            )
        out[source] = count
    return out


def parse_units(units: list[int]) -> frozenset[int]:
    """``--unit ID``, repeatable; naming a unit twice is an error like a repeated ``--mil``."""
    seen: set[int] = set()
    for uid in units:
        if uid in seen:
            raise InputError("given twice", field="unit", value=uid)
        seen.add(uid)
    return frozenset(seen)


def make_plan(
    world: World,
    country: int,
    order: Order,
    mil: list[str],
    units: list[int],
    rules: Rules | None = None,
) -> Plan:
    """The plan from the command line: nothing named means everything the command offers."""
    if not mil and not units:
        return Plan(order, rules=rules)
    return Plan(order, parse_mil(world, country, mil, order), parse_units(units), rules)


__all__ = ["MilSource", "Plan", "PlanPrompter", "make_plan", "parse_mil", "parse_units"]
