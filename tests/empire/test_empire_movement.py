"""Movement costs and path costs (spec §0.6) and the land-unit conversion."""

from __future__ import annotations

import pytest
from conftest import world_from

from bellum.empire.movement import MoveKind, attcost, mcost, path_cost, unitcost
from bellum.empire.rules import Rules

RULES = Rules()
W = world_from(
    """
[[sector]]
at = [0, 0]
des = "wilderness"
owner = 1
eff = 100
mob = 127
[[sector]]
at = [2, 0]
des = "wilderness"
owner = 2
eff = 100
mob = 80
[[sector]]
at = [4, 0]
des = "wilderness"
owner = 2
eff = 100
mob = 80
[[sector]]
at = [6, 0]
des = "mountain"
owner = 2
eff = 0
mob = 80
[[sector]]
at = [8, 0]
des = "highway"
owner = 2
eff = 100
road = 100
[[unit]]
uid = 0
type = "cav"
owner = 1
at = [0, 0]
tech = 100.0
mil = 20
mob = 100
[[unit]]
uid = 1
type = "inf"
owner = 2
at = [4, 0]
tech = 100.0
mil = 100
"""
)


def test_mil_cost_into_wilderness() -> None:
    assert mcost(W, W.sector((2, 0)), MoveKind.MOVE, rules=RULES) == 0.4000000059604645


def test_attacker_pays_the_newly_taken_penalty_for_units_not_mil() -> None:
    t = W.sector((2, 0))
    assert attcost(W, 1, t, MoveKind.MOVE, rules=RULES) == 0.4000000059604645
    assert attcost(W, 1, t, MoveKind.MARCH, rules=RULES) == pytest.approx(
        0.6000000059604645, abs=1e-15
    )


def test_impassable_and_floors() -> None:
    sea = W.sector((0, 2))
    sea.type = W.tables.sector("sea")
    assert mcost(W, sea, MoveKind.MOVE, rules=RULES) < 0
    assert mcost(W, W.sector((6, 0)), MoveKind.MARCH, rules=RULES) == pytest.approx(2.4, abs=1e-6)
    hw = W.sector((8, 0))
    assert mcost(W, hw, MoveKind.MOVE, rules=RULES) == 0.001  # 0 at 100 %, floored
    assert mcost(W, hw, MoveKind.MARCH, rules=RULES) == 0.02


def test_unitcost_matches_appendix_a() -> None:
    cav, inf = W.units[0], W.units[1]
    assert unitcost(cav, 0.6000000059604645) == pytest.approx(25.946, abs=1e-3)
    assert unitcost(inf, 0.4000000059604645) == pytest.approx(22.857, abs=1e-3)


def test_path_cost_runs_through_own_sectors_only() -> None:
    assert path_cost(W, (4, 0), (2, 0), 2, MoveKind.MARCH, rules=RULES) == pytest.approx(
        0.4, abs=1e-6
    )
    assert path_cost(W, (4, 0), (4, 0), 2, MoveKind.MARCH, rules=RULES) == 0.0
    assert path_cost(W, (4, 0), (0, 0), 2, MoveKind.MARCH, rules=RULES) == -1.0
