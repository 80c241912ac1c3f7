"""What a combat command returns (spec §15 outcomes, the ``--json`` schema)."""

from __future__ import annotations

from dataclasses import dataclass, field
from typing import Any

from bellum.empire.events import Event, transcript

COMMAND_BTU = 3


@dataclass
class CombatResult:
    """What a combat command did: its outcome, numbers, transcript and seed.

    ``outcome`` is one of ``captured``, ``defeated``, ``unoccupied``,
    ``reinforced`` (an assault on one's own sector), ``landed`` (spies sneaked
    ashore), ``aborted``, ``refused`` (a legality check failed) or ``usage``.
    ``world_changed`` tells whether the world should be saved: only a
    command that reached the fight changes anything.
    """

    command: str
    seed: int
    outcome: str
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

    @property
    def success(self) -> bool:
        return self.outcome == "captured"

    def transcript(self) -> str:
        return transcript(self.events)

    def to_json(self) -> dict[str, Any]:
        """The documented ``--json`` schema (docs/empire-cli.md)."""
        return {
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
                {"to": e.to, "text": e.text} for e in self.events if e.kind == "telegram"
            ],
        }
