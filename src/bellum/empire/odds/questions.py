"""The questions players ask before an attack (issue 11 item 4).

* :func:`need`: the smallest force that reaches a chance of success, mil
  taken from the command's sources in the order the command asks for them;
* :func:`as_seen`: the odds from what the attacker can see.  The command
  shows the target's mil only as "approximately M" (``roundint10``, spec
  §1.3), so the true value is one of ``M-5 .. M+4``; the odds are averaged
  over them with a prior (:data:`UNIFORM` by default, any weights allowed);
* plans side by side are just several :func:`~.engine.plan_odds` calls.
"""

from __future__ import annotations

import math
from collections.abc import Callable, Sequence
from dataclasses import dataclass, replace
from functools import partial

import numpy as np

from bellum.empire.combat.state import roundint10
from bellum.empire.odds.branching import BranchingDice
from bellum.empire.odds.engine import (
    EmpireOdds,
    FightOutcome,
    Mixture,
    PlanRunner,
    plan_odds,
    share_work,
)
from bellum.empire.odds.plan import MilSource, Plan
from bellum.empire.scratch import WorldTemplate
from bellum.empire.world import LandUnit, Sector, Ship, World
from bellum.errors import CommandError, InputError
from bellum.odds.result import LossDistribution

#: The offsets of the true mil from the value shown, ``M + offset``.
OFFSETS = tuple(range(-5, 5))
#: Every true value consistent with what is shown is as likely as any other.
UNIFORM = (1.0,) * len(OFFSETS)

Progress = Callable[[float], None]
#: Solves plans, in order.
Odds = Callable[[Sequence[Plan]], Sequence[EmpireOdds]]


def part_progress(progress: Progress, i: int, n: int) -> Progress:
    """The progress of part ``i`` of ``n`` equal parts, as a fraction of the whole."""
    return lambda f: progress((i + min(1.0, max(0.0, f))) / n)


@dataclass(frozen=True)
class Need:
    """The smallest plan found that reaches ``target`` (``None`` if even everything fails)."""

    target: float
    total: int | None
    plan: Plan | None
    odds: EmpireOdds | None
    best: EmpireOdds


def sources_in_order(
    world: World, country: int, plan: Plan, template: WorldTemplate | None = None
) -> dict[MilSource, int]:
    """The mil prompts of ``plan``'s command in the order it asks them, with their limits
    (the command run on ``template``, ``world`` frozen, if given)."""
    leaf = PlanRunner(world, country, replace(plan, mil=None), template)(
        BranchingDice(rng=np.random.default_rng(0))
    )
    return dict(leaf.prompter.asked)


def _fill(order: dict[MilSource, int], total: int) -> dict[MilSource, int]:
    """``total`` mil taken from the sources in order, each up to its limit."""
    out: dict[MilSource, int] = {}
    left = total
    for source, most in order.items():
        take = min(most, left)
        out[source] = take
        left -= take
    return out


def need_sources(
    world: World,
    country: int,
    plan: Plan,
    sources: Sequence[MilSource] | None = None,
    template: WorldTemplate | None = None,
) -> dict[MilSource, int]:
    """The sources :func:`need` takes mil from, in the order the command asks, with their
    limits: ``sources`` (each must be asked about), else every source asked about."""
    order = sources_in_order(world, country, plan, template)
    if sources is not None:
        for s in sources:
            if s not in order:
                where = "the ship" if s == "ship" else world.fmt(s, country)
                raise CommandError(f"{plan.order} never asks for mil from {where}", field="need")
        order = {s: order[s] for s in sources}
    if not order:
        raise CommandError(f"{plan.order} asks for no mil", field="need")
    return order


def need(
    world: World,
    country: int,
    plan: Plan,
    target: float,
    odds: Odds,
    sources: Sequence[MilSource] | None = None,
    progress: Progress | None = None,
    width: Callable[[], int] | None = None,
    template: WorldTemplate | None = None,
) -> Need:
    """The smallest number of mil (from ``sources``, else every source in the command's
    order) whose plan succeeds with probability at least ``target``.

    Found by bisection, which assumes more mil never lowers the chance (reserve units
    react to the attack's size, so this can fail by a little; the result is checked).
    ``odds`` solves plans (several at once when ``width``, asked before each step, says
    it may: then each step splits the range into ``width + 1`` parts, one plan at each
    cut, and finds the same total in fewer steps).  ``progress`` hears the fraction of
    the search done after each step.
    """
    if not 0 < target < 1:
        raise InputError(
            f"must be a probability between 0 and 1 (exclusive), not {target:g}:"
            " a certainty cannot be shown by computation that prunes or samples",
            field="need",
        )
    order = need_sources(world, country, plan, sources, template)
    fixed = {k: v for k, v in (plan.mil or {}).items() if k not in order}
    units = plan.units if plan.units is not None else frozenset()

    def plan_of(total: int) -> Plan:
        return replace(plan, mil={**fixed, **_fill(order, total)}, units=units)

    # One plan with everything, then steps until the range [lo, hi] is one total.
    lo, hi = 0, sum(order.values())
    steps = cuts = 1

    def step_done() -> None:
        """The steps done, of those done and left (each cuts the range in cuts + 1)."""
        if progress is not None:
            left = math.log(hi - lo + 1, cuts + 1)
            progress(min(1.0, steps / (steps + left)))

    (best,) = odds([plan_of(hi)])
    step_done()
    if best.p_success < target:
        return Need(target, None, None, None, best)
    found = best
    while lo < hi:
        cuts = 1 if width is None else max(1, width())
        totals = sorted({lo + (hi - lo) * j // (cuts + 1) for j in range(1, cuts + 1)})
        for total, o in zip(totals, odds([plan_of(t) for t in totals]), strict=True):
            if o.p_success >= target:
                hi, found = total, o
                break
            lo = total + 1
        steps += 1
        step_done()
    return Need(target, hi, plan_of(hi), found, best)


def _target(
    world: World, country: int, plan: Plan, template: WorldTemplate
) -> Sector | Ship | LandUnit:
    leaf = PlanRunner(world, country, plan, template)(BranchingDice(rng=np.random.default_rng(0)))
    c = leaf.combat
    if c is None:
        raise CommandError("the command does not reach a fight", field="defense_as_seen")
    victim = c.target_ship or c.target_unit or c.target
    assert victim is not None
    return victim


def as_seen(
    world: World,
    country: int,
    plan: Plan,
    *,
    weights: Sequence[float] = UNIFORM,
    seed: int | None = None,
    progress: Progress | None = None,
    template: WorldTemplate | None = None,
    **options: object,
) -> EmpireOdds:
    """The odds averaged over every true garrison consistent with "approximately M".

    ``weights`` (one per offset in :data:`OFFSETS`, not necessarily normalised)
    is the prior; values below 0 are impossible and left out.  Times and samples
    are those of all the garrisons together.  Each garrison is ``template`` (``world``
    frozen, else a freeze of its own) edited, not a new freeze.
    """
    if (
        len(weights) != len(OFFSETS)
        or not all(0 <= w < math.inf for w in weights)
        or not any(weights)
    ):
        raise InputError(f"needs {len(OFFSETS)} finite weights >= 0, not all 0", field="prior")
    base = template if template is not None else WorldTemplate(world)
    victim = _target(world, country, plan, base)
    shown = roundint10(victim.mil)
    mix = Mixture()
    total = 0.0
    parts: list[tuple[int, float, EmpireOdds]] = []
    garrisons = [
        (shown + offset, w)
        for offset, w in zip(OFFSETS, weights, strict=True)
        if shown + offset >= 0 and w > 0
    ]
    for i, (mil, w) in enumerate(garrisons):
        garrison = base.edited(partial(_set_mil, victim, mil))
        w2 = garrison.frozen
        share_work(w2, world)  # the garrisons differ only in the victim's mil, a key
        part = None if progress is None else part_progress(progress, i, len(garrisons))
        o = plan_odds(w2, country, plan, seed=seed, progress=part, template=garrison, **options)  # type: ignore[arg-type]
        parts.append((mil, w, o))
        total += w
    for _mil, w, o in parts:
        mix.add(
            FightOutcome(
                dict(o.odds.outcomes),
                dict(
                    zip(
                        o.odds.losses["attacker"].values.tolist(),
                        o.odds.losses["attacker"].probs.tolist(),
                        strict=True,
                    )
                ),
                dict(
                    zip(
                        o.odds.losses["defender"].values.tolist(),
                        o.odds.losses["defender"].probs.tolist(),
                        strict=True,
                    )
                ),
                o.odds.pruned_mass or 0.0,
            ),
            w / total,
        )
    first = parts[0][2]
    sampled = [o for _, _, o in parts if o.samples is not None]
    samples = sum(o.samples or 0 for o in sampled) if sampled else None
    method = "exact mixture"
    if sampled:
        how = sorted({o.method.partition(": ")[2].rstrip(")") for o in sampled})
        exact = len(parts) - len(sampled)
        method = f"mixture ({samples} samples: {'; '.join(how)}"
        method += f"; {exact} of {len(parts)} garrisons exact)" if exact else ")"

    def error(errors: list[float]) -> float:
        """The standard error of the prior-weighted mean of independent estimates."""
        share = [w / total for _, w, _ in parts]
        return math.sqrt(sum((s * e) ** 2 for s, e in zip(share, errors, strict=True)))

    se = error([o.standard_error for _, _, o in parts])
    errors = {
        side: error([o.expected_errors[side] for _, _, o in parts])
        for side in ("attacker", "defender")
    }
    losses = {
        side: LossDistribution.from_weights(
            np.array(list(d.keys()), dtype=np.int64), np.array(list(d.values()))
        )
        for side, d in (("attacker", mix.attacker), ("defender", mix.defender))
    }
    odds = replace(
        first.odds,
        outcomes={k: v for k, v in mix.outcomes.items() if v > 0},
        losses=losses,
        method=method,
        pruned_mass=mix.pruned,
        runs=samples,
        standard_error=se if sampled else None,
        seconds=sum(o.odds.seconds or 0.0 for _, _, o in parts),
    )
    note = f"defense as seen: true mil {parts[0][0]}..{parts[-1][0]} around the {shown} shown"
    notes = dict.fromkeys(n for _, _, o in parts for n in o.notes)
    return replace(
        first,
        odds=odds,
        method=method,
        standard_error=se,
        expected_errors=errors,
        samples=samples,
        notes=(*notes, note),
        cpu_seconds=sum(o.cpu_seconds or 0.0 for _, _, o in parts),
    )


def _set_mil(victim: Sector | Ship | LandUnit, mil: int, world: World) -> None:
    _victim_in(world, victim).mil = mil


def _victim_in(world: World, victim: Sector | Ship | LandUnit) -> Sector | Ship | LandUnit:
    if isinstance(victim, Ship):
        return world.ships[victim.uid]
    if isinstance(victim, LandUnit):
        return world.units[victim.uid]
    return world.sector(victim.xy)


__all__ = [
    "OFFSETS",
    "UNIFORM",
    "Need",
    "as_seen",
    "need",
    "need_sources",
    "part_progress",
    "sources_in_order",
]
