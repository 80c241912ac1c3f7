"""How closely the planner solves each option's odds (the one place its defaults are set).

This module imports nothing, so that ``bellum empire plan --help`` can show the defaults
without loading the odds engine.
"""

from __future__ import annotations

from dataclasses import dataclass


@dataclass(frozen=True)
class Precision:
    """How closely each option's odds are solved: the odds engine's bounds on its work.

    At a planning precision the planner never passes ``samples`` or ``target_error``
    (either makes the engine sample even a fight it can solve exactly); it bounds the
    samples the engine draws where it samples (``max_runs``) and the size of a fight it
    solves exactly (``max_memory``, in MB: beyond it, the fight's morale histories are
    drawn and a big one is simulated).  Both are ``bellum empire odds`` options
    (``--max-runs``, ``--max-memory``), which every printed odds line repeats, so it gives
    the plan's figures.

    ``samples`` is the planner's screening pass (:data:`SCREENING`): it makes the engine
    draw exactly that many paths to the fight, skipping its probes of how many there are,
    for a rough figure with its standard error at a fraction of the cost.  Such figures
    only decide which options are solved again at the planning precision; none is printed.
    Where the option has a single path to the fight, its screen is its figure at the
    planning precision (the engine's ``branching_only``: nothing to sample).
    """

    max_runs: int = 60
    max_memory: float = 1 / 32
    samples: int | None = None

    @property
    def memory_bytes(self) -> int:
        """``max_memory`` as :func:`~bellum.empire.odds.plan_odds` takes it."""
        return int(self.max_memory * 2**20)

    def words(self) -> list[str]:
        """The same bounds as ``bellum empire odds`` options."""
        if self.samples is not None:
            raise ValueError("screening figures are never printed")
        return ["--max-runs", str(self.max_runs), "--max-memory", f"{self.max_memory:g}"]

    def screening(self) -> Precision:
        """The screening pass of this precision: :data:`SCREENING`'s samples, this
        exact solver's memory."""
        return Precision(self.max_runs, self.max_memory, SCREENING.samples)


#: The planner's default (docs/plan.md): about a fifth of a second of CPU per option on
#: the realistic worlds, P(success) within a few points (each figure's standard error is
#: reported).
PLANNING = Precision()
#: The screening pass: every option's rough figure first (about a quarter of its planning
#: cost on the realistic worlds); only options that could be in the plan are solved again
#: at the planning precision (docs/plan.md).
SCREENING = Precision(samples=8)
#: ``bellum empire odds``'s own defaults: the engine's full answer.
FULL = Precision(500, 1024)
#: Complete worlds the threat map draws per threatened thing from a player's view (every
#: combination of the unknowns when there are no more).
THREAT_DRAWS = 8

__all__ = ["FULL", "PLANNING", "SCREENING", "THREAT_DRAWS", "Precision"]
