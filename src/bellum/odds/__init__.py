"""The odds engine: exact and Monte Carlo outcome distributions of fights.

Three lines compute the odds of 150 mil attacking 40 mil in 2x terrain::

    from bellum.odds import Side, fight_odds
    result = fight_odds(Side.troops(150), Side.troops(40, 2.0))
    result.p_attacker_wins

A :class:`Side` is the side's strength and casualties as functions of the
rounds it has lost, so any ruleset that allocates casualties
deterministically (Empire units, several piles of mil) can be fed in through
:meth:`Side.from_arrays`.  :mod:`bellum.odds.report` renders any
:class:`OddsResult`, whatever produced it.

The names below are imported on first use: importing one module of the package
(``bellum.odds.result``) does not import the engines, and a command that never
runs one never imports numpy through here.
"""

from __future__ import annotations

from typing import TYPE_CHECKING

from bellum import lazy_names

if TYPE_CHECKING:
    from bellum.odds.engine import EXACT_LIMITS, choose_method, fight_odds
    from bellum.odds.limits import Method, Model
    from bellum.odds.montecarlo import server_fight
    from bellum.odds.result import QUANTILES, FightEndStates, LossDistribution, OddsResult
    from bellum.odds.side import Side

#: Each module of the stable names, and the names.
_MODULES = {
    "bellum.odds.engine": ("EXACT_LIMITS", "choose_method", "fight_odds"),
    "bellum.odds.limits": ("Method", "Model"),
    "bellum.odds.montecarlo": ("server_fight",),
    "bellum.odds.result": ("QUANTILES", "FightEndStates", "LossDistribution", "OddsResult"),
    "bellum.odds.side": ("Side",),
}
__getattr__ = lazy_names(__name__, _MODULES, globals())


__all__ = [
    "EXACT_LIMITS",
    "QUANTILES",
    "FightEndStates",
    "LossDistribution",
    "Method",
    "Model",
    "OddsResult",
    "Side",
    "choose_method",
    "fight_odds",
    "server_fight",
]
