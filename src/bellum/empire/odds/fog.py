"""Odds under fog of war: the odds of a plan integrated over what the country cannot see.

A player's view (a world with :class:`~bellum.empire.world.Fog`) does not hold
the numbers a fight needs.  :func:`fog_odds` builds the country's
:class:`~bellum.empire.intel.belief.Belief` around the plan's target, draws
complete worlds from it (every combination when there are few, else a
Latin-hypercube sample), solves each with :func:`~.engine.plan_odds` and mixes
the results with their weights, as ``--defense-as-seen`` mixes its garrisons.
The result lists every input: whether it was seen, when, and how it was treated.
"""

from __future__ import annotations

import time
from collections.abc import Callable
from dataclasses import dataclass, replace
from typing import Any

import numpy as np

from bellum.dice import new_seed
from bellum.empire.geometry import DIRECTION_KEYS, DIRECTIONS, Coord
from bellum.empire.intel.belief import Assumptions, Belief, Input, believe
from bellum.empire.odds.drawn import drawn_mixture_error
from bellum.empire.odds.engine import EmpireOdds, plan_odds
from bellum.empire.odds.plan import Plan
from bellum.empire.world import World
from bellum.errors import CommandError, InputError
from bellum.odds.result import LossDistribution

#: Complete worlds solved at most (every combination when there are no more).
DRAWS = 40
#: Paths to the fight sampled in all, over every world drawn, when a world's events before
#: its fight are too many to visit (each world gets its share, at least 3).
SAMPLE_BUDGET = 240
Progress = Callable[[float], None]


@dataclass(frozen=True)
class FogOdds:
    """The odds of a plan as the country can know them, and what they rest on."""

    odds: EmpireOdds
    inputs: list[Input]
    draws: int
    exhaustive: bool

    @property
    def p_success(self) -> float:
        return self.odds.p_success

    def inputs_json(self) -> list[dict[str, Any]]:
        return [i.to_json() for i in self.inputs]


def target_of(world: World, country: int, plan: Plan) -> Coord:
    """Where the plan's fight happens, in the world's coordinates: the target sector,
    the end of a paradrop's route, or where the ship or unit to board was seen."""
    order = plan.order
    words = order.slots()
    geo = world.geometry
    origin = world.origin(country)
    if order.name in ("attack", "assault"):
        return geo.parse(str(words[0]), origin)
    if order.name == "paradrop":
        here = geo.parse(str(words[2]), origin)
        route = str(words[3] or "")
        for i, key in enumerate(route):
            if key == "h":
                break
            if key not in DIRECTION_KEYS:
                return geo.parse(route[i:], origin)
            dx, dy = DIRECTIONS[DIRECTION_KEYS.index(key)]
            here = geo.norm(here[0] + dx, here[1] + dy)
        return here
    kind = "ship" if order.name == "board" else "unit"
    uid = str(words[0]).strip()
    own = world.ships if kind == "ship" else world.units
    if uid.isdigit() and int(uid) in own:
        return own[int(uid)].xy
    seen = world.observations.get(f"{kind} {uid}")
    at = seen.get("at") if seen is not None else None
    if at is None or not isinstance(at.value, str):
        raise CommandError(f"{kind} #{uid} is unknown: country {country} has not seen it")
    x, _, y = at.value.partition(",")
    return geo.norm(int(x), int(y))


def belief_for(world: World, country: int, plan: Plan, assume: Assumptions | None = None) -> Belief:
    """The country's belief about the fight ``plan`` starts."""
    return believe(world, country, target_of(world, country, plan), assume=assume)


def fog_odds(
    world: World,
    country: int,
    plan: Plan,
    *,
    assume: Assumptions | None = None,
    draws: int = DRAWS,
    seed: int | None = None,
    progress: Progress | None = None,
    **options: Any,
) -> FogOdds:
    """The odds of ``plan`` for ``country`` from its view ``world`` (see the module notes).

    ``draws`` bounds the complete worlds solved; ``seed`` fixes the draws and each
    world's sampling; ``options`` go to :func:`~.engine.plan_odds`.
    """
    if draws < 1:
        raise InputError("the fog odds need at least one draw", field="draws")
    clock = (time.perf_counter(), time.process_time())
    belief = belief_for(world, country, plan, assume)
    seed = new_seed() if seed is None else seed
    rows = list(belief.draws(draws, seed))
    exhaustive = belief.combinations() <= draws
    if "samples" not in options:
        options.setdefault("max_samples", max(3, SAMPLE_BUDGET // len(rows)))
    parts: list[tuple[float, EmpireOdds]] = []
    for i, (values, weight) in enumerate(rows):
        done = plan_odds(belief.world(values), country, plan, seed=seed + i, **options)
        parts.append((weight, done))
        if progress is not None:
            progress((i + 1) / len(rows))
    mixed = _mix(parts, exhaustive, len(rows))
    mixed = replace(
        mixed,
        odds=replace(mixed.odds, seconds=time.perf_counter() - clock[0]),
        cpu_seconds=time.process_time() - clock[1],
    )
    return FogOdds(mixed, belief.inputs, len(rows), exhaustive)


def _mix(parts: list[tuple[float, EmpireOdds]], exhaustive: bool, n: int) -> EmpireOdds:
    """The weighted mixture of the odds of each drawn world (outcomes and losses).
    ``samples`` means what it means in the plain odds, the number of random values the
    estimate averages: the paths to the fight drawn, summed over the worlds, where a
    world drawn (not every combination) and solved exactly counts one; ``None`` when
    nothing was drawn.  The worlds are :attr:`FogOdds.draws`, and the method says them."""
    total = sum(w for w, _ in parts)
    outcomes: dict[str, float] = {}
    losses: dict[str, dict[int, float]] = {"attacker": {}, "defender": {}}
    pruned = 0.0
    for w, o in parts:
        share = w / total
        for k, p in o.odds.outcomes.items():
            outcomes[k] = outcomes.get(k, 0.0) + share * p
        for side, acc in losses.items():
            dist = o.odds.losses[side]
            for v, p in zip(dist.values.tolist(), dist.probs.tolist(), strict=True):
                acc[v] = acc.get(v, 0.0) + share * p
        pruned += share * (o.odds.pruned_mass or 0.0)
    ps = np.array([o.p_success for _, o in parts])
    first = max(parts, key=lambda p: p[0])[1]
    drawn = [o.samples if o.samples is not None else 1 for _, o in parts]
    sampled = [o.samples for _, o in parts if o.samples is not None]
    samples = sum(drawn) if not exhaustive else sum(sampled) if sampled else None
    se = drawn_mixture_error(
        [(w / total, o.p_success, o.standard_error) for w, o in parts], n, exhaustive
    )
    method = (
        f"fog: {n} worlds, every combination of the unknowns"
        if exhaustive
        else f"fog: {n} worlds drawn from the unknowns (Latin hypercube)"
    )
    mixed = replace(
        first.odds,
        outcomes={k: v for k, v in outcomes.items() if v > 0},
        losses={
            side: LossDistribution.from_weights(
                np.array(list(acc.keys()), dtype=np.int64), np.array(list(acc.values()))
            )
            for side, acc in losses.items()
        },
        method=method,
        pruned_mass=pruned,
        runs=samples,
        standard_error=se if samples else None,
    )
    return replace(
        first,
        odds=mixed,
        method=method,
        standard_error=se,
        samples=samples,
        notes=(*first.notes, f"{method}; P(success) from {ps.min():.3f} to {ps.max():.3f}"),
    )


def inputs_text(inputs: list[Input], turn: int) -> str:
    """The list of inputs as the report prints it: seen or not, when, how treated.  Inputs
    treated alike (the sectors never seen around the target) share a line."""
    lines = [f"inputs (now: update {turn}; known: seen since the update, stale: before it,"
             " unknown: never seen)"]  # fmt: skip
    groups: dict[tuple[str, str, str], list[str]] = {}
    for i in inputs:
        when = "never seen" if i.turn is None else f"{i.source}, update {i.turn}"
        groups.setdefault((i.status, when, i.treatment), []).append(i.name)
    shown = {k: names[0] if len(names) == 1 else f"{names[0]} and {len(names) - 1} more"
             for k, names in groups.items()}  # fmt: skip
    width = max((len(n) for n in shown.values()), default=4)
    for (status, when, treatment), name in shown.items():
        lines.append(f"  {name:<{width}}  {status:<7}  {when:<22}  {treatment}")
    return "\n".join(lines)


__all__ = ["DRAWS", "FogOdds", "belief_for", "fog_odds", "inputs_text", "target_of"]
