"""The registry: every combat command bellum runs, in the order of spec §16.

Each command's module holds its flow and its :class:`~.state.CommandSpec` (its
wording, what its arguments are, its help); this table lists them.  The
dispatcher (:func:`~.dispatch.run_order`), the command line (one ``bellum empire``
command each), the web page and the odds planner iterate it, so a new command is
its module, a row here, its grammar in :data:`bellum.empire.orders.SYNTAX` and its
verb in :class:`~.state.Mode` (docs/architecture.md, "Adding a command").
"""

from __future__ import annotations

from bellum.empire.combat.assault import ASSAULT
from bellum.empire.combat.attack import ATTACK
from bellum.empire.combat.board import BOARD, LBOARD
from bellum.empire.combat.paradrop import PARADROP
from bellum.empire.combat.state import CommandSpec

COMMANDS: dict[str, CommandSpec] = {
    spec.name: spec for spec in (ATTACK, ASSAULT, PARADROP, BOARD, LBOARD)
}


def spec_of(name: str) -> CommandSpec:
    """The command ``name`` (a name :class:`~bellum.empire.orders.Order` has checked)."""
    return COMMANDS[name]


__all__ = ["COMMANDS", "CommandSpec", "spec_of"]
