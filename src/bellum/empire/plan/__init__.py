"""The turn planner: the best use of a turn's forces, and where the enemy will strike.

::

    from bellum.empire.plan import Settings, plan_turn, threat_map
    plan = plan_turn(world, 1, Settings(objective="value"))
    for attack in plan.attacks:
        attack.order, attack.plan.mil, attack.point.p, attack.value

Candidates come from the commands' own checks (:mod:`.candidates`), curves
from the odds engine (:mod:`.curves`), prizes and losses are priced by
:mod:`.value`, and :mod:`.allocate` chooses with HiGHS.  docs/plan.md says
what is assumed and how the prize is valued.
"""

from __future__ import annotations

import importlib
from typing import TYPE_CHECKING, Any

if TYPE_CHECKING:
    from bellum.empire.plan.allocate import Allocation, Option, Problem, greedy, solve
    from bellum.empire.plan.curves import DaskPool, LocalPool, Point
    from bellum.empire.plan.planner import Attack, Settings, TurnPlan, Wave, plan_turn
    from bellum.empire.plan.threats import Threat, ThreatMap, threat_map
    from bellum.empire.plan.value import Weights

#: Where each name lives: imported when first asked for, so that the CLI can read
#: :mod:`.precision` without loading the odds engine.
_HOMES = {
    "allocate": ("Allocation", "Option", "Problem", "greedy", "solve"),
    "curves": ("DaskPool", "LocalPool", "Point"),
    "planner": ("Attack", "Settings", "TurnPlan", "Wave", "plan_turn"),
    "threats": ("Threat", "ThreatMap", "threat_map"),
    "value": ("Weights",),
}


def __getattr__(name: str) -> Any:
    for module, names in _HOMES.items():
        if name in names:
            return getattr(importlib.import_module(f"{__name__}.{module}"), name)
    raise AttributeError(f"module {__name__!r} has no attribute {name!r}")


__all__ = [
    "Allocation",
    "Attack",
    "DaskPool",
    "LocalPool",
    "Option",
    "Point",
    "Problem",
    "Settings",
    "Threat",
    "ThreatMap",
    "TurnPlan",
    "Wave",
    "Weights",
    "greedy",
    "plan_turn",
    "solve",
    "threat_map",
]
