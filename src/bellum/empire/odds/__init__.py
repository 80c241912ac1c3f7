"""Odds of a planned Empire command, from the command's own rules (issue 11, spec §3-§16).

::

    from bellum.empire.odds import make_plan, plan_odds
    plan = make_plan(world, 1, Order.parse("attack 2,0"), ["0,0=150"], [])
    odds = plan_odds(world, 1, plan)
    odds.p_success, odds.method, odds.odds.losses["defender"].mean()

A whole study (plans compared, the force needed, the defense as seen, plays of the
real command) is one :class:`Request` and one :class:`Study` (:mod:`.study`).  See
:mod:`.engine` for how the pieces fit and ``docs/odds.md`` for what is exact, what is a
mixture and what is sampled.
"""

from bellum.empire.odds.engine import SUCCESS, EmpireOdds, plan_odds, world_model
from bellum.empire.odds.plan import MilSource, Plan, PlanPrompter, make_plan
from bellum.empire.odds.resolver import ResolverRuns, resolver_runs
from bellum.empire.odds.study import Request, Study, Sweep, prepare, study

__all__ = [
    "SUCCESS",
    "EmpireOdds",
    "MilSource",
    "Plan",
    "PlanPrompter",
    "Request",
    "ResolverRuns",
    "Study",
    "Sweep",
    "make_plan",
    "plan_odds",
    "prepare",
    "resolver_runs",
    "study",
    "world_model",
]
