"""What a combat command returns (spec §15 outcomes, the ``--json`` schema)."""

from __future__ import annotations

from dataclasses import dataclass, field
from enum import StrEnum
from typing import Any

from bellum.empire.events import Event, EventKind, Refusal, transcript
from bellum.empire.rules import Rules

COMMAND_BTU = 3
#: The version of :meth:`CombatResult.to_json`'s document.
SCHEMA_VERSION = 1


class Outcome(StrEnum):
    """How a combat command ended (spec §15, §16)."""

    CAPTURED = "captured"
    DEFEATED = "defeated"
    UNOCCUPIED = "unoccupied"
    #: An assault on one's own sector.
    REINFORCED = "reinforced"
    #: Spies sneaked ashore.
    LANDED = "landed"
    ABORTED = "aborted"
    #: A legality check failed.
    REFUSED = "refused"
    USAGE = "usage"

    @property
    def refused(self) -> bool:
        """The command did not start: a refusal or a usage error."""
        return self in (Outcome.REFUSED, Outcome.USAGE)


@dataclass
class CombatResult:
    """What a combat command did: its outcome, numbers, transcript and seed.

    ``world_changed`` tells whether the world should be saved: only a
    command that reached the fight changes anything.
    """

    command: str
    seed: int
    outcome: Outcome
    aggressor: int
    defender: int = 0
    target: str = ""
    attacker_casualties: int = 0
    defender_casualties: int = 0
    initial_attack: int = 0
    final_attack: int = 0
    final_defense: int = 0
    odds_percent: int = 0
    btu_charged: int = 0
    money_made: int = 0
    world_changed: bool = False
    events: list[Event] = field(default_factory=list)
    #: The rules it ran under (the history keeps them with the order).
    rules: Rules = field(default_factory=Rules)

    @property
    def success(self) -> bool:
        return self.outcome is Outcome.CAPTURED

    def transcript(self) -> str:
        return transcript(self.events)

    @property
    def refusal(self) -> str:
        """Why the command refused, in its own words ('' if it did not): the last line
        the rules marked as a refusal (its usage line after a usage error)."""
        said = [e.text.strip() for e in self.events if isinstance(e.fact, Refusal)]
        return said[-1] if said else ""

    def to_json(self) -> dict[str, Any]:
        """The documented ``--json`` schema (docs/empire-cli.md)."""
        return {
            "schema": "bellum.empire.combat",
            "schema_version": SCHEMA_VERSION,
            "command": self.command,
            "seed": self.seed,
            "outcome": self.outcome,
            "success": self.success,
            "aggressor": self.aggressor,
            "defender": self.defender,
            "target": self.target,
            "casualties": {
                "attacker": self.attacker_casualties,
                "defender": self.defender_casualties,
            },
            "strength": {
                "initial_attack": self.initial_attack,
                "final_attack": self.final_attack,
                "final_defense": self.final_defense,
                "odds_percent": self.odds_percent,
            },
            "btu_charged": self.btu_charged,
            "money_made": self.money_made,
            "world_changed": self.world_changed,
            "transcript": self.transcript(),
            "telegrams": [
                {"to": e.to, "text": e.text} for e in self.events if e.kind is EventKind.TELEGRAM
            ],
        }
