"""Wolfpack Empire 4.4: the world model and the combat commands.

Three lines resolve an attack::

    from bellum import empire
    world = empire.load_world("examples/empire/vector-a.toml")
    result = empire.attack(world, "2,0", country=1, seed=1, answers=["150", "0"])

``result.transcript()`` is what the server would print; ``world`` now holds the
state after the command (save it with :func:`save_world`).
"""

from __future__ import annotations

from collections.abc import Sequence
from typing import TYPE_CHECKING

from bellum.dice import ServerRandom, new_seed
from bellum.empire.io.toml import load_world, save_world

if TYPE_CHECKING:
    from bellum.empire.combat import CombatResult
    from bellum.empire.events import Prompter, Sink
    from bellum.empire.world import World


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
    """Run ``attack <target>`` as ``country`` (number or name), answering prompts from ``answers``.

    Without ``seed`` a fresh one is drawn; it is in ``result.seed`` for replay.
    Pass your own ``prompter`` to answer interactively instead.
    """
    from bellum.empire.combat import attack as run_attack
    from bellum.empire.events import ScriptedPrompter
    from bellum.errors import UsageError

    nation = world.find_nation(str(country))
    if nation is None:
        raise UsageError(f"no country '{country}' in this world")
    dice = ServerRandom(new_seed() if seed is None else seed)
    return run_attack(
        world,
        target,
        nation.cnum,
        dice,
        prompter or ScriptedPrompter(list(answers)),
        list(support),
        sink=sink,
    )


__all__ = ["attack", "load_world", "save_world"]
