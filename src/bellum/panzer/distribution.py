"""The exact outcome distribution of an assault, and a Monte Carlo of the resolver to check it.

The exact law is built from the resolver's own step functions (``draw_side_loss``,
``loss_shares``, ``unit_loss``, ``morale_check``, ``assault_succeeds``, ``defender_fates``)
run under :func:`~bellum.panzer.chance.enumerate_outcomes`.  Only the composition is done
here, using two independences the rules guarantee:

* given a side's loss, each unit's rounding and morale die are independent of the others';
* the attackers' and defenders' results are independent until the outcome is decided, and
  the outcome depends on the attackers only through "any survivor" and "any unit newly
  Disrupted/Broken".

Fatigue gain is drawn after everything the distribution tracks and is not enumerated.
"""

from __future__ import annotations

import math
from collections import defaultdict
from collections.abc import Callable, Hashable, Iterable, Mapping, Sequence
from dataclasses import dataclass
from functools import partial
from typing import TypeVar

from bellum.dice import ServerRandom
from bellum.panzer.assault import AssaultPlan, CombatRange, plan_assault
from bellum.panzer.chance import Chance, enumerate_outcomes
from bellum.panzer.results import (
    OUTCOMES,
    assault_succeeds,
    defender_fates,
    draw_side_loss,
    loss_shares,
    morale_check,
    outcome_of,
    resolve_plan,
    unit_loss,
    worsened,
)
from bellum.panzer.rules import Rules
from bellum.panzer.scenario import Scenario
from bellum.panzer.units import Unit

K = TypeVar("K", bound=Hashable)
T = TypeVar("T")


@dataclass(frozen=True)
class Distribution:
    """P(attacker loss, defender loss, outcome); losses in men-equivalents (surrenders included)."""

    joint: Mapping[tuple[int, int, str], float]
    runs: int = 0  # 0 for the exact law, else the Monte Carlo sample size

    def outcome(self, name: str) -> float:
        return sum(p for (_, _, o), p in self.joint.items() if o == name)

    @property
    def outcomes(self) -> dict[str, float]:
        return {name: self.outcome(name) for name in OUTCOMES}

    @property
    def p_success(self) -> float:
        return 1.0 - self.outcome("failed")

    def losses(self, attacker: bool) -> dict[int, float]:
        """Marginal law of one side's loss."""
        out: dict[int, float] = defaultdict(float)
        for (a, d, _), p in self.joint.items():
            out[a if attacker else d] += p
        return dict(sorted(out.items()))

    def expected_loss(self, attacker: bool) -> float:
        return sum(k * p for k, p in self.losses(attacker).items())

    def loss_sd(self, attacker: bool) -> float:
        mean = self.expected_loss(attacker)
        return math.sqrt(
            max(0.0, sum((k - mean) ** 2 * p for k, p in self.losses(attacker).items()))
        )

    @property
    def total(self) -> float:
        return sum(self.joint.values())


def _merge(items: Iterable[tuple[K, float]]) -> dict[K, float]:
    out: dict[K, float] = defaultdict(float)
    for key, p in items:
        out[key] += p
    return dict(out)


def _convolve(
    acc: Mapping[K, float], options: Mapping[T, float], join: Callable[[K, T], K]
) -> dict[K, float]:
    out: dict[K, float] = defaultdict(float)
    for key, p in acc.items():
        for opt, q in options.items():
            out[join(key, opt)] += p * q
    return dict(out)


# A unit after its loss and morale check: (men-equivalents lost, unit if alive, failed, worsened)
UnitEnd = tuple[int, Unit | None, bool, bool]


def _unit_end(u: Unit, share: float, r: Rules) -> dict[UnitEnd, float]:
    def step(chance: Chance) -> UnitEnd:
        loss = unit_loss(u, share, chance)
        after = u.replace(strength=u.strength - loss)
        check = morale_check(after, loss, u.strength, r, chance)
        if check is not None:
            after = after.replace(state=check.state_after)
        failed = check is not None and not check.passed
        return (
            loss * u.per_point,
            after if after.strength > 0 else None,
            failed,
            worsened(u.state, check),
        )

    return _merge(enumerate_outcomes(step))


# A side after the combat result: (loss, survivors, any unit failed, any unit worsened)
SideEnd = tuple[int, tuple[Unit, ...], bool, bool]


def side_ends(units: Sequence[Unit], cr: CombatRange, r: Rules) -> dict[SideEnd, float]:
    """Law of a side's state after its combat result, losses and morale checks (§7, §9)."""
    out: dict[SideEnd, float] = defaultdict(float)
    losses = _merge(
        (sl.loss, p) for sl, p in enumerate_outcomes(lambda ch: draw_side_loss(cr, units, r, ch))
    )
    for loss, p_loss in losses.items():
        share_law = _merge(enumerate_outcomes(partial(_shares, loss, units, r)))
        for shares, p_shares in share_law.items():
            acc: dict[SideEnd, float] = {(0, (), False, False): 1.0}
            for u, share in zip(units, shares, strict=True):
                acc = _convolve(
                    acc,
                    _unit_end(u, share, r),
                    lambda k, e: (
                        k[0] + e[0],
                        (*k[1], e[1]) if e[1] else k[1],
                        k[2] or e[2],
                        k[3] or e[3],
                    ),
                )
            for key, p in acc.items():
                out[key] += p_loss * p_shares * p
    return dict(out)


def _shares(loss: int, units: Sequence[Unit], r: Rules, chance: Chance) -> tuple[float, ...]:
    return tuple(loss_shares(loss, units, r, chance))


def _fates_law(plan: AssaultPlan, survivors: tuple[Unit, ...]) -> dict[tuple[int, str], float]:
    """Law of (surrender losses, outcome) when the assault has succeeded (§10.2-10.5)."""
    law = enumerate_outcomes(partial(defender_fates, plan, survivors))
    return _merge(
        (
            (
                sum(f.extra_loss * u.per_point for u, f in zip(survivors, fates, strict=True)),
                outcome_of(True, fates),
            ),
            q,
        )
        for fates, q in law
    )


def exact_distribution(source: Scenario | AssaultPlan) -> Distribution:
    """The exact law of (attacker loss, defender loss, outcome) of the scenario's assault."""
    plan = source if isinstance(source, AssaultPlan) else plan_assault(source)
    r, bd = plan.scenario.rules, plan.breakdown
    defenders = side_ends(plan.defenders, bd.against_defenders, r)
    attackers = side_ends(plan.attackers, bd.against_attackers, r)
    # The outcome sees the attackers only through (any alive, any worsened).
    groups: dict[tuple[bool, bool], dict[int, float]] = defaultdict(lambda: defaultdict(float))
    for (loss, alive, _failed, worse), p in attackers.items():
        groups[(bool(alive), worse)][loss] += p
    fates_cache: dict[tuple[Unit, ...], dict[tuple[int, str], float]] = {}
    joint: dict[tuple[int, int, str], float] = defaultdict(float)
    for (alive_any, worse), a_losses in groups.items():
        d_part: dict[tuple[int, str], float] = defaultdict(float)
        for (d_loss, survivors, failed, _), p in defenders.items():
            success = assault_succeeds(bool(survivors), alive_any, worse, failed, r)
            if not success or not survivors:
                d_part[(d_loss, outcome_of(success, []))] += p
                continue
            if survivors not in fates_cache:
                fates_cache[survivors] = _fates_law(plan, survivors)
            for (extra, outcome), q in fates_cache[survivors].items():
                d_part[(d_loss + extra, outcome)] += p * q
        for a_loss, pa in a_losses.items():
            for (d_loss, outcome), pd in d_part.items():
                joint[(a_loss, d_loss, outcome)] += pa * pd
    return Distribution(dict(joint))


def monte_carlo(source: Scenario | AssaultPlan, runs: int, seed: int) -> Distribution:
    """Empirical law from ``runs`` resolutions by the resolver itself, one seeded stream."""
    plan = source if isinstance(source, AssaultPlan) else plan_assault(source)
    rng = ServerRandom(seed)
    counts: dict[tuple[int, int, str], int] = defaultdict(int)
    for _ in range(runs):
        res = resolve_plan(plan, rng)
        counts[(res.side_loss_equivalent(True), res.side_loss_equivalent(False), res.outcome)] += 1
    return Distribution({k: c / runs for k, c in counts.items()}, runs=runs)


@dataclass(frozen=True)
class Agreement:
    """How far a Monte Carlo sample lies from the exact law, in standard errors."""

    runs: int
    rows: tuple[tuple[str, float, float, float], ...]  # (quantity, exact, sampled, z)

    @property
    def max_abs_z(self) -> float:
        return max((abs(z) for *_, z in self.rows), default=0.0)


def compare(exact: Distribution, sample: Distribution) -> Agreement:
    """z-scores of every outcome probability and both expected losses."""
    n = sample.runs
    rows: list[tuple[str, float, float, float]] = []
    for name in OUTCOMES:
        p, q = exact.outcome(name), sample.outcome(name)
        se = math.sqrt(p * (1 - p) / n)
        rows.append((f"P({name})", p, q, (q - p) / se if se > 0 else (0.0 if q == p else math.inf)))
    for attacker, label in ((True, "attackers"), (False, "defenders")):
        m, s = exact.expected_loss(attacker), exact.loss_sd(attacker)
        q = sample.expected_loss(attacker)
        se = s / math.sqrt(n)
        rows.append(
            (f"E[loss {label}]", m, q, (q - m) / se if se > 0 else (0.0 if q == m else math.inf))
        )
    return Agreement(n, tuple(rows))
