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
from typing import Protocol, TypeVar

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
    order) whose plan succeeds with probability at least ``target``: :func:`least_total`
    over the plans taking that many mil from the sources in order.  ``odds`` solves
    plans (several at once when ``width``, asked before each step, says it may);
    ``progress`` hears the fraction of the search done after each step.
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

    def solve(totals: Sequence[int]) -> Sequence[EmpireOdds]:
        return odds([plan_of(t) for t in totals])

    total, found, best = least_total(sum(order.values()), target, solve, width, progress)
    if total is None:
        return Need(target, None, None, None, best)
    return Need(target, total, plan_of(total), found, best)


class _Chance(Protocol):
    @property
    def p_success(self) -> float: ...


C = TypeVar("C", bound=_Chance)


def least_total(
    most: int,
    target: float,
    solve: Callable[[Sequence[int]], Sequence[C]],
    width: Callable[[], int] | None = None,
    progress: Progress | None = None,
) -> tuple[int | None, C | None, C]:
    """The least total in 0..``most`` whose answer (``solve`` of totals, in order) has a
    ``p_success`` of at least ``target``, that answer, and the answer at ``most``
    (``None`` and ``None`` when even ``most`` falls short).

    The range [``short`` + 1, ``hi``] between the largest total known to fall short and
    the least known to reach the target shrinks until it is one total, so the total
    found reaches the target and the one below it was solved and falls short.  Each
    step solves where a straight line through the logits of the two ends' chances meets
    the target's (:func:`_guess`): a chance rising with the force like a logistic curve
    needs three to seven plans where halving needed eight or nine (w96x48-attack-1 at
    0.9: 3 plans, not 9).  When two steps did not halve the range together, the next
    step halves it, so no search takes more than about three times halving's steps (a
    chance that jumps from 0 to 1, which the line fits worst).  This assumes more mil
    never lowers the chance (reserve units react to the attack's size, and sampled
    chances wobble, so this can fail by a little: another search may then find another
    total with the same property).  With ``width`` above 1 (a worker process to spare)
    each step also solves the totals just below and above its probe, which the next
    step often probes; the search itself is the same, so it finds the same total with
    a worker as without.
    """
    known: dict[int, C] = {}
    hi = most
    short = -1  # nothing fell short yet: below 0 mil, as if sure to
    steps = 1
    widths = [hi - short]  # the range's width after each step

    def answer(total: int) -> C:
        """The answer at ``total``, solved with the neighbours a worker may take."""
        if total not in known:
            extra = (total - 1, total + 1)[: (1 if width is None else max(1, width())) - 1]
            batch = [total, *(t for t in extra if short < t < hi and t not in known)]
            known.update(zip(batch, solve(batch), strict=True))
        return known[total]

    def step_done() -> None:
        """The steps done, of those done and, at most, left by halving."""
        if progress is not None:
            left = math.log2(hi - short)
            progress(min(1.0, steps / (steps + left)))

    best = answer(hi)
    step_done()
    if best.p_success < target:
        return None, None, best
    while short + 1 < hi:
        if len(widths) >= 3 and 2 * widths[-1] > widths[-3]:
            total = (short + 1 + hi) // 2
        else:
            p_short = 0.0 if short < 0 else known[short].p_success
            total = _guess(short, p_short, hi, known[hi].p_success, target)
        if answer(total).p_success >= target:
            hi = total
        else:
            short = total
        widths.append(hi - short)
        steps += 1
        step_done()
    return hi, known[hi], best


def _guess(short: int, p_short: float, hi: int, p_hi: float, target: float) -> int:
    """The total to probe in [``short`` + 1, ``hi`` - 1]: where the straight line through
    (``short``, logit ``p_short``) and (``hi``, logit ``p_hi``) reaches logit ``target``,
    rounded up (the least total whose chance the line puts at the target or above).  The
    chances are taken at least a little from 0 and 1, where the logit is infinite."""
    edge = min(1e-3, target / 2, (1 - target) / 2)

    def logit(p: float) -> float:
        p = min(1 - edge, max(edge, p))
        return math.log(p / (1 - p))

    low, high, goal = logit(p_short), logit(p_hi), logit(target)
    share = (goal - low) / (high - low) if high > low else 0.5
    return min(hi - 1, max(short + 1, math.ceil(short + share * (hi - short))))


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
