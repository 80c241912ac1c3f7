"""Any combat command from its :class:`~bellum.empire.orders.Order` (spec §16).

This is where an order's words become a command's arguments.  The command line,
replay from the store, the web application and the live check come through
:func:`run_command`, the public entry point (``bellum.empire.run_command``), which makes
the run's dice from its seed; the odds planner calls :func:`run_order` with dice of its
own (branching, or stopping at the fight with ``stop_at``).
"""

from __future__ import annotations

from collections.abc import Sequence

from bellum.dice import SEED_MAX, ServerRandom, new_seed
from bellum.empire.combat.commands import COMMANDS
from bellum.empire.combat.flows import play
from bellum.empire.combat.result import CombatResult
from bellum.empire.combat.state import Stop
from bellum.empire.events import Prompter, ReplayPrompter, Sink
from bellum.empire.orders import Order, as_order
from bellum.empire.rules import Rules
from bellum.empire.world import World
from bellum.errors import InputError


def run_command(
    world: World,
    order: str | Order,
    *,
    country: int | str,
    seed: int | None = None,
    answers: Sequence[str | None] = (),
    prompter: Prompter | None = None,
    sink: Sink | None = None,
    rules: Rules | None = None,
) -> CombatResult:
    """Run ``order`` (``"attack 2,0 y y n n"`` or an :class:`Order`) as ``country``.

    ``country`` is a number or a name.  Prompts are answered from ``answers``
    (then end of input), or by your own ``prompter``; ``sink`` sees every
    event as it happens.  Without ``seed`` a fresh one is drawn; it is in
    ``result.seed`` for replay.  ``rules`` default to the world's own
    (:meth:`Rules.of` its options).  ``world`` is changed in place.
    """
    parsed = as_order(order)
    nation = world.find_nation(str(country))
    if nation is None:
        raise InputError(f"no country '{country}' in this world")
    if seed is not None and (type(seed) is not int or not 0 <= seed <= SEED_MAX):
        raise InputError(f"seed must be a whole number from 0 to {SEED_MAX}, not {seed!r}")
    bad = [a for a in answers if a is not None and not isinstance(a, str)]
    if bad:
        raise InputError(f"answers are the text typed at each prompt (str), not {bad[0]!r}")
    dice = ServerRandom(new_seed() if seed is None else seed)
    return run_order(
        world,
        parsed,
        nation.cnum,
        dice,
        prompter or ReplayPrompter(list(answers)),
        sink=sink,
        rules=rules or Rules.of(world.options),
    )


def run_order(
    world: World,
    order: Order,
    aggressor: int,
    dice: ServerRandom,
    prompter: Prompter,
    sink: Sink | None = None,
    *,
    rules: Rules,
    stop_at: Stop | None = None,
) -> CombatResult:
    """Run ``order`` as country ``aggressor`` under ``rules``; missing arguments are
    asked for (§1.1).  ``stop_at="fight"`` stops it where its fight begins: it raises
    :class:`~bellum.empire.combat.flows.FightReached` with the combat as the fight finds
    it (the odds engine solves the fight itself)."""
    spec = COMMANDS[order.name]
    if order.conditions and order.name == "paradrop":
        raise InputError(
            f"{order.name}: bellum does not support conditions ({order.conditions[-1]}) on"
            " the planes it selects (docs/paradrop.md)"
        )
    return play(
        spec, world, aggressor, dice, prompter, order.slots(), order.support(),
        sink=sink, rules=rules, stop_at=stop_at,
    )  # fmt: skip
