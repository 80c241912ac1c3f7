"""Panzer Campaigns assault resolution: the seed's formula, explained, with exact odds.

Three lines from Python::

    from bellum.panzer import load_scenario, resolve_assault
    result = resolve_assault(load_scenario("examples/panzer/terrain-vehicles.toml"), seed=1)
    print(result.outcome, result.breakdown.against_defenders)
"""

from __future__ import annotations

from bellum.panzer.assault import AssaultBreakdown, AssaultPlan, Modifier, plan_assault
from bellum.panzer.battlefield import Battlefield, Hex, ParameterData
from bellum.panzer.distribution import Distribution, compare, exact_distribution, monte_carlo
from bellum.panzer.results import OUTCOMES, AssaultResult, resolve_assault
from bellum.panzer.rules import RULE_KEYS, Rules
from bellum.panzer.scenario import Scenario, load_scenario, save_scenario, scenario_from_dict
from bellum.panzer.units import Kind, Mode, Organization, State, Unit

__all__ = [
    "OUTCOMES",
    "RULE_KEYS",
    "AssaultBreakdown",
    "AssaultPlan",
    "AssaultResult",
    "Battlefield",
    "Distribution",
    "Hex",
    "Kind",
    "Mode",
    "Modifier",
    "Organization",
    "ParameterData",
    "Rules",
    "Scenario",
    "State",
    "Unit",
    "compare",
    "exact_distribution",
    "load_scenario",
    "monte_carlo",
    "plan_assault",
    "resolve_assault",
    "save_scenario",
    "scenario_from_dict",
]
