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

from bellum.empire.plan.allocate import Allocation, Option, Problem, greedy, solve
from bellum.empire.plan.curves import DaskPool, LocalPool, Point
from bellum.empire.plan.planner import Attack, Settings, TurnPlan, Wave, plan_turn
from bellum.empire.plan.threats import Threat, ThreatMap, threat_map
from bellum.empire.plan.value import Weights

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
