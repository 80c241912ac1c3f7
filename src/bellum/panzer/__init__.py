"""Panzer Campaigns assault resolution: the seed's formula, explained, with exact odds.

Three lines from Python::

    from bellum.panzer import load_scenario, resolve_assault
    result = resolve_assault(load_scenario("examples/panzer/terrain-vehicles.toml"), seed=1)
    print(result.outcome, result.breakdown.against_defenders)
"""

from __future__ import annotations

from typing import TYPE_CHECKING

from bellum import lazy_names

if TYPE_CHECKING:
    from bellum.panzer.assault import AssaultBreakdown, AssaultPlan, Modifier, plan_assault
    from bellum.panzer.battlefield import Battlefield, Hex, ParameterData
    from bellum.panzer.distribution import (
        Distribution,
        compare,
        exact_distribution,
        monte_carlo,
    )
    from bellum.panzer.results import OUTCOMES, AssaultResult, resolve_assault
    from bellum.panzer.rules import RULE_KEYS, Rules
    from bellum.panzer.scenario import Scenario, load_scenario, save_scenario, scenario_from_dict
    from bellum.panzer.units import Kind, Mode, Organization, State, Unit

#: Each module of the stable names, and the names.  The package imports a name on first
#: use, so that importing one module of the package (``bellum.panzer.rules``, as
#: ``bellum panzer rules`` does) does not import the distributions and numpy.
_MODULES = {
    "bellum.panzer.assault": ("AssaultBreakdown", "AssaultPlan", "Modifier", "plan_assault"),
    "bellum.panzer.battlefield": ("Battlefield", "Hex", "ParameterData"),
    "bellum.panzer.distribution": ("Distribution", "compare", "exact_distribution", "monte_carlo"),
    "bellum.panzer.results": ("OUTCOMES", "AssaultResult", "resolve_assault"),
    "bellum.panzer.rules": ("RULE_KEYS", "Rules"),
    "bellum.panzer.scenario": ("Scenario", "load_scenario", "save_scenario", "scenario_from_dict"),
    "bellum.panzer.units": ("Kind", "Mode", "Organization", "State", "Unit"),
}
__getattr__ = lazy_names(__name__, _MODULES, globals())


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
