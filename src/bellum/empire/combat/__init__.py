"""Empire combat, one module per stage of the seed's 15 steps.

=========  ==========================================================
step       module
=========  ==========================================================
1          :mod:`~bellum.empire.combat.target`
2          :mod:`~bellum.empire.combat.force`
3          :mod:`~bellum.empire.combat.strength`
4          :mod:`~bellum.empire.combat.defenders`
5          :mod:`~bellum.empire.combat.support` (:mod:`.guns`, :mod:`.missions`,
           :mod:`.air`)
6, 7, 8    :mod:`~bellum.empire.combat.fight`
9-12       :mod:`~bellum.empire.combat.capture` and :mod:`.conclude`
13, 14     :mod:`~bellum.empire.combat.movein`
15         :mod:`~bellum.empire.combat.flows` (BTUs) and :mod:`.result`
=========  ==========================================================

Each command is a flow over those steps in its own module (:mod:`.attack`,
:mod:`.assault`, :mod:`.paradrop`, :mod:`.board` for ``board`` and
``lboard``), with its :class:`~.state.CommandSpec`; :mod:`.commands` is the
registry of them.  :func:`~bellum.empire.combat.dispatch.run_order` runs any of
them from an :class:`~bellum.empire.orders.Order`, through
:func:`~bellum.empire.combat.flows.play` and ``run_flow``.
"""

from bellum.empire.combat.assault import assault
from bellum.empire.combat.attack import attack
from bellum.empire.combat.board import board, lboard
from bellum.empire.combat.commands import COMMANDS, CommandSpec
from bellum.empire.combat.dispatch import run_order
from bellum.empire.combat.paradrop import paradrop
from bellum.empire.combat.result import CombatResult, Outcome

__all__ = [
    "COMMANDS",
    "CombatResult",
    "CommandSpec",
    "Outcome",
    "assault",
    "attack",
    "board",
    "lboard",
    "paradrop",
    "run_order",
]
