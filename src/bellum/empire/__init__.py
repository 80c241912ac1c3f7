"""Wolfpack Empire 4.4: the world model and the combat commands.

Three lines resolve an attack::

    from bellum import empire
    world = empire.load_world("examples/empire/vector-a.toml")
    result = empire.attack(world, "2,0", country=1, seed=1, answers=["150", "0"])

``result.transcript()`` is what the server would print; ``world`` now holds the
state after the command (save it with :func:`save_world`).  Every command runs
the same way, from the text a player would type::

    result = empire.run_command(world, "attack 2,0 y y n n", country=1, seed=1)

The package, by concern (docs/architecture.md):

* rules: :mod:`.world` (the objects), :mod:`.tables`, :mod:`.geometry`,
  :mod:`.movement`, :mod:`.supply`, :mod:`.rules` (profiles);
* combat: :mod:`.combat`, one module per step and per command, and
  :mod:`.orders` (the command text); :mod:`.odds` (odds of any combat command);
* formats and storage: :mod:`.io` (world files, game dumps, the database);
* :mod:`.service`: open a world, run an order, keep it, history, replay.

The names below are the stable API; other modules are internal.
"""

from __future__ import annotations

from collections.abc import Sequence
from typing import TYPE_CHECKING

from bellum import lazy_names

if TYPE_CHECKING:
    from bellum.empire.combat import COMMANDS, CombatResult, CommandSpec, Outcome
    from bellum.empire.combat.dispatch import run_command
    from bellum.empire.events import (
        AnswersByKind,
        Closing,
        Event,
        EventKind,
        Fact,
        PlaneStatus,
        Prompt,
        Prompter,
        PromptKind,
        Refusal,
        ScoutReport,
        ScriptedPrompter,
        Sink,
        Sneaking,
        SourceNote,
        UnitNote,
    )
    from bellum.empire.io.toml import load_world, save_world
    from bellum.empire.orders import Order
    from bellum.empire.rules import Rules
    from bellum.empire.world import World

#: Each module of the stable names, and the names.  The package imports a name on
#: first use, so that importing one module of the package (``bellum.empire.orders``,
#: as the command line does to check an order) does not import all of them.
_MODULES = {
    "bellum.empire.combat": ("COMMANDS", "CombatResult", "CommandSpec", "Outcome"),
    "bellum.empire.combat.dispatch": ("run_command",),
    "bellum.empire.events": (
        "AnswersByKind",
        "Closing",
        "Event",
        "EventKind",
        "Fact",
        "PlaneStatus",
        "Prompt",
        "Prompter",
        "PromptKind",
        "Refusal",
        "ScoutReport",
        "ScriptedPrompter",
        "Sink",
        "Sneaking",
        "SourceNote",
        "UnitNote",
    ),
    "bellum.empire.io.toml": ("load_world", "save_world"),
    "bellum.empire.orders": ("Order",),
    "bellum.empire.rules": ("Rules",),
    "bellum.empire.world": ("World",),
}
__getattr__ = lazy_names(__name__, _MODULES, globals())


def attack(
    world: World,
    target: str,
    *,
    country: int | str,
    seed: int | None = None,
    answers: Sequence[str] = (),
    support: Sequence[str] = (),
    prompter: Prompter | None = None,
    sink: Sink | None = None,
) -> CombatResult:
    """``attack <target> [support]``: :func:`run_command` for the commonest order."""
    from bellum.empire.combat.dispatch import run_command
    from bellum.empire.orders import Order

    return run_command(
        world,
        Order("attack", (target, *support)),
        country=country,
        seed=seed,
        answers=answers,
        prompter=prompter,
        sink=sink,
    )


__all__ = [
    "COMMANDS",
    "AnswersByKind",
    "Closing",
    "CombatResult",
    "CommandSpec",
    "Event",
    "EventKind",
    "Fact",
    "Order",
    "Outcome",
    "PlaneStatus",
    "Prompt",
    "PromptKind",
    "Prompter",
    "Refusal",
    "Rules",
    "ScoutReport",
    "ScriptedPrompter",
    "Sink",
    "Sneaking",
    "SourceNote",
    "UnitNote",
    "World",
    "attack",
    "load_world",
    "run_command",
    "save_world",
]
