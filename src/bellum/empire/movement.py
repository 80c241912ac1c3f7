"""Movement costs (spec §0.6): what entering a sector costs mil, land units and trains."""

from __future__ import annotations

import heapq
import math
from dataclasses import replace
from enum import Enum

from bellum.empire.geometry import Coord
from bellum.empire.rules import Rules
from bellum.empire.tables import land_spd, techfact
from bellum.empire.world import LandUnit, Sector, World


class MoveKind(Enum):
    MOVE = "move"
    MARCH = "march"
    RAIL = "rail"


def _has_rail(world: World, s: Sector) -> bool:
    """Track exists in railway sectors and in owned >= 60 % sectors next to one."""

    def railway(t: Sector) -> bool:
        return t.type.mob1 == 0 and t.eff >= 5

    if railway(s):
        return True
    return s.eff >= 60 and any(
        railway(n) and n.owner == s.owner
        for n in (world.sector(c) for c in world.geometry.neighbours(s.xy))
    )


def mcost(world: World, s: Sector, kind: MoveKind, *, rules: Rules) -> float:
    """Cost to enter ``s``; negative means impassable."""
    b0 = s.type.mob0
    if b0 < 0:
        return -1.0
    if kind is MoveKind.RAIL:
        if rules.RAILWAYS:
            if not _has_rail(world, s):
                return -1.0
            kind = MoveKind.MARCH
        else:
            if s.rail <= 0:
                return -1.0
            base = b0 + (s.type.mob1 - b0) * s.eff / 100
            return base - base * 0.0099 * s.rail
    base = b0 + (s.type.mob1 - b0) * s.eff / 100
    cost = base - base * 0.009 * s.road
    if kind is MoveKind.MOVE:
        return max(cost, 0.001)
    if s.owner != s.oldowner and s.mob <= 0:
        return cost + 0.2
    return max(cost, 0.02)


def attcost(world: World, aggressor: int, target: Sector, kind: MoveKind, *, rules: Rules) -> float:
    """The aggressor's view of entering the target: owned by it, with no mobility."""
    return mcost(world, replace(target, owner=aggressor, mob=0), kind, rules=rules)


def unit_kind(u: LandUnit) -> MoveKind:
    return MoveKind.RAIL if u.type.has("train") else MoveKind.MARCH


def unitcost(u: LandUnit, cost: float) -> float:
    """Sector cost converted into a land unit's mobility, by its speed and tech."""
    e: float = land_spd(u.type, u.tech)
    if u.type.has("supply"):
        e = e * u.eff / 100
    return cost * 5.0 * 480 / (e + techfact(u.tech, e))


def path_cost(
    world: World, start: Coord, goal: Coord, country: int, kind: MoveKind, *, rules: Rules
) -> float:
    """Cheapest cost through ``country``'s sectors (start is free); -1 if there is none."""
    geo = world.geometry
    start, goal = geo.norm(*start), geo.norm(*goal)
    if start == goal:
        return 0.0
    best: dict[Coord, float] = {start: 0.0}
    heap: list[tuple[float, Coord]] = [(0.0, start)]
    while heap:
        d, c = heapq.heappop(heap)
        if c == goal:
            return d
        if d > best.get(c, math.inf):
            continue
        for n in geo.neighbours(c):
            s = world.sectors.get(n)
            if s is None or s.owner != country:
                continue
            step = mcost(world, s, kind, rules=rules)
            if step < 0:
                continue
            nd = d + step
            if nd < best.get(n, math.inf):
                best[n] = nd
                heapq.heappush(heap, (nd, n))
    return -1.0
