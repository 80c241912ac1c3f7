"""Threats: the strongest single strike the enemy can make this turn on each of your things.

For every other country not allied to you, the planner's candidates are
listed *as that country* (:mod:`.candidates`: the same commands, the same
checks), kept where the target is yours, and each is solved with everything
the command offers (every mil the prompts allow, every land unit): the
strongest single strike.  A target's threat is its likeliest strike.

What the enemy has is known only in a deity's view of the game.  A player's
view (a world with :class:`~bellum.empire.world.Fog`) shows no enemy ships,
land units or planes; :func:`enemy_view` is the one place that decides what
is assumed about them (issue 26's rules plug in there).  Until then the
strikes counted are those the view shows, and the result says so.
"""

from __future__ import annotations

from collections.abc import Callable
from dataclasses import dataclass
from typing import Any

from bellum.empire.odds import Plan
from bellum.empire.orders import Order
from bellum.empire.plan.candidates import candidates
from bellum.empire.plan.curves import CurveCache, Point, Pool, solve_points
from bellum.empire.plan.planner import prize, shown_target
from bellum.empire.rules import Rules
from bellum.empire.world import Relation, World

Progress = Callable[[str, float], None]

SCHEMA = "bellum.empire.threats"
SCHEMA_VERSION = 1


@dataclass(frozen=True)
class Threat:
    """The likeliest strike on one of the country's sectors, ships or land units."""

    target: str
    where: str
    enemy: int
    order: Order
    point: Point
    #: What the target is worth (the planner's prize formula): what is at risk.
    worth: float

    @property
    def risk(self) -> float:
        return self.worth * self.point.p


@dataclass(frozen=True)
class ThreatMap:
    country: int
    threats: tuple[Threat, ...]
    notes: tuple[str, ...]
    strikes: int
    seconds_solved: int


def enemy_view(world: World, country: int) -> tuple[World, tuple[str, ...]]:
    """The world the enemy's strikes are computed on, and what it assumes (the fog seam)."""
    if world.fog is None:
        return world, ()
    return world, (
        "a player's view: enemy ships, land units and planes are unknown and not counted;"
        " only strikes from the enemy sectors the view shows are",
    )


def _owner(world: World, target: str) -> int:
    kind, _, ident = target.partition(":")
    if kind == "sector":
        x, y = (int(v) for v in ident.split(","))
        return world.sector((x, y)).owner
    if kind == "ship":
        return world.ships[int(ident)].owner
    return world.units[int(ident)].owner


def enemies_of(world: World, country: int) -> list[int]:
    return sorted(
        c
        for c, n in world.nations.items()
        if c not in (0, country) and n.active and world.rel(c, country) != Relation.ALLIED
    )


def threat_map(
    world: World,
    country: int,
    *,
    seed: int = 1,
    pool: Pool | None = None,
    cache: CurveCache | None = None,
    version: str = "",
    progress: Progress | None = None,
    rules: Rules | None = None,
) -> ThreatMap:
    """Every threatened sector, ship and land unit of ``country``, likeliest strike first,
    under ``rules`` (by default the world's own)."""
    view, notes = enemy_view(world, country)
    chosen = rules or Rules.of(world.options)
    best: dict[str, Threat] = {}
    strikes = solved = 0
    for enemy in enemies_of(view, country):
        mine = [c for c in candidates(view, enemy, chosen) if _owner(view, c.target) == country]
        plans = [Plan(c.order, rules=c.rules) for c in mine]
        strikes += len(plans)

        def tick(f: float, enemy: int = enemy) -> None:
            if progress is not None:
                progress(f"strikes of country {enemy}", f)

        points, n = solve_points(view, enemy, plans, seed=seed, pool=pool, cache=cache,
                                 version=version, progress=tick)  # fmt: skip
        solved += n
        for c, pt in zip(mine, points, strict=True):
            if pt is None:
                continue
            old = best.get(c.target)
            if old is None or (pt.p, pt.defender) > (old.point.p, old.point.defender):
                where = shown_target(view, country, c.target)
                worth = prize(view, c.target, {})
                best[c.target] = Threat(c.target, where, enemy, c.order, pt, worth)
    ranked = sorted(best.values(), key=lambda t: (-t.point.p, -t.risk, t.target))
    return ThreatMap(country, tuple(ranked), notes, strikes, solved)


def to_json(world: World, tm: ThreatMap) -> dict[str, Any]:
    def r(x: float) -> float:
        return float(f"{x:.6g}")

    return {
        "schema": SCHEMA,
        "schema_version": SCHEMA_VERSION,
        "country": tm.country,
        "notes": list(tm.notes),
        "strikes": tm.strikes,
        "threats": [
            {
                "target": t.where,
                "kind": t.target.partition(":")[0],
                "enemy": t.enemy,
                "order": t.order.text(),
                "p_success": r(t.point.p),
                "standard_error": r(t.point.se),
                "method": t.point.method,
                "expected_losses": {
                    "attacker": r(t.point.attacker),
                    "defender": r(t.point.defender),
                },
                "worth": r(t.worth),
                "risk": r(t.risk),
            }
            for t in tm.threats
        ],
    }


__all__ = ["SCHEMA", "SCHEMA_VERSION", "Threat", "ThreatMap", "enemy_view", "threat_map", "to_json"]
