"""The exact outcome distribution of an assault, and a Monte Carlo of the resolver to check it.

The exact law is built from the resolver's own step functions (``draw_side_loss``,
``loss_shares``, ``unit_loss``, ``morale_check``, ``assault_succeeds``, ``defender_fate``)
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

import numpy as np

from bellum.dice import ServerRandom
from bellum.errors import CommandError
from bellum.odds.result import ATTACKER, DEFENDER, LossDistribution, OddsResult
from bellum.panzer.assault import AssaultPlan, CombatRange, plan_assault
from bellum.panzer.battlefield import Hex
from bellum.panzer.chance import Chance, enumerate_outcomes
from bellum.panzer.results import (
    OUTCOMES,
    assault_succeeds,
    defender_fate,
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

#: The ``model`` an assault's :class:`~bellum.odds.result.OddsResult` names: the §7-§10 resolver.
ODDS_MODEL = "panzer-assault"
FAILED = "failed"
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
        return 1.0 - self.outcome(FAILED)

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

    def loss_distribution(self, attacker: bool) -> LossDistribution:
        """One side's loss law as the odds engine's pmf (men-equivalents, ascending)."""
        law = self.losses(attacker)
        return LossDistribution.from_weights(
            np.fromiter(law.keys(), dtype=np.int64, count=len(law)),
            np.fromiter(law.values(), dtype=np.float64, count=len(law)),
        )

    def odds_result(self, *, seed: int | None = None, seconds: float | None = None) -> OddsResult:
        """This law as a generic :class:`~bellum.odds.result.OddsResult`.

        So that an assault is shown exactly like a fight (``bellum.odds.report``: summary, loss
        table with quantiles, histograms, JSON, plot).  Every outcome of :data:`OUTCOMES` is
        kept, the ways of succeeding first: they are what the report totals as P(attacker
        wins), and they still add up to 1 with "failed".  Sides are named as in a fight
        (``attacker``/``defender``) so one consumer reads both; losses stay in
        men-equivalents.  An exact law prunes nothing (``pruned_mass`` 0); a Monte Carlo one
        reports its runs, ``seed`` and the standard error of P(success).
        """
        wins = tuple(name for name in OUTCOMES if name != FAILED)
        exact = self.runs == 0
        p = self.p_success
        return OddsResult(
            outcomes={name: self.outcome(name) for name in (*wins, FAILED)},
            losses={
                ATTACKER: self.loss_distribution(True),
                DEFENDER: self.loss_distribution(False),
            },
            method="exact" if exact else "monte-carlo",
            model=ODDS_MODEL,
            seed=None if exact else seed,
            runs=None if exact else self.runs,
            standard_error=None if exact else math.sqrt(max(0.0, p * (1 - p)) / self.runs),
            pruned_mass=0.0 if exact else None,
            seconds=seconds,
            details={"loss_unit": "men-equivalents", "total_probability": self.total},
            attacker_wins=wins,
        )


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


def _unit_end(u: Unit, share: float, r: Rules, chance: Chance) -> UnitEnd:
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


def _shares(loss: int, units: Sequence[Unit], r: Rules, chance: Chance) -> tuple[float, ...]:
    return tuple(loss_shares(loss, units, r, chance))


def fold_side(
    units: Sequence[Unit],
    cr: CombatRange,
    r: Rules,
    start: K,
    step: Callable[[K, UnitEnd], Iterable[tuple[K, float]]],
) -> dict[K, float]:
    """Law of a side's summary after its combat result, losses and morale checks (§7, §9).

    Given the side's loss (and the shares), units are independent, so the summary is folded
    one unit at a time: ``step`` maps a summary and a unit's end to the next summaries.
    """
    out: dict[K, float] = defaultdict(float)
    losses = _merge(
        (sl.loss, p) for sl, p in enumerate_outcomes(partial(draw_side_loss, cr, units, r))
    )
    for loss, p_loss in losses.items():
        for shares, p_shares in _merge(
            enumerate_outcomes(partial(_shares, loss, units, r))
        ).items():
            acc: dict[K, float] = {start: 1.0}
            for u, share in zip(units, shares, strict=True):
                ends = _merge(enumerate_outcomes(partial(_unit_end, u, share, r)))
                nxt: dict[K, float] = defaultdict(float)
                for key, p in acc.items():
                    for end, q in ends.items():
                        for key2, w in step(key, end):
                            nxt[key2] += p * q * w
                acc = nxt
            for key, p in acc.items():
                out[key] += p_loss * p_shares * p
    return dict(out)


# Attackers: (loss, any survivor, any unit newly Disrupted/Broken)
Attackers = tuple[int, bool, bool]
# Defenders: (loss, any survivor of the combat, any unit failed morale, fate kinds, placed)
Defenders = tuple[int, bool, bool, frozenset[str], tuple[tuple[Hex, int], ...]]


def _attacker_step(key: Attackers, end: UnitEnd) -> list[tuple[Attackers, float]]:
    return [((key[0] + end[0], key[1] or end[1] is not None, key[2] or end[3]), 1.0)]


def _stacking_can_bind(plan: AssaultPlan) -> bool:
    """Whether earlier retreats can ever crowd a later defender out of a hex (§10.2)."""
    s = plan.scenario
    all_defenders = sum(u.equivalent for u in plan.defenders)
    return any(
        sum(v.equivalent for v in s.units_at(h)) + all_defenders > s.params.stacking_maximum
        for h in s.battlefield.neighbors_on_map(plan.breakdown.target)
    )


def _defender_step(
    plan: AssaultPlan, success: bool, track_placed: bool, key: Defenders, end: UnitEnd
) -> list[tuple[Defenders, float]]:
    """One defender's end folded in; with ``success`` its retreat or surrender too (§10)."""
    loss, survivor, failed, kinds, placed = key
    loss, failed = loss + end[0], failed or end[2]
    unit = end[1]
    if unit is None or not success:
        return [((loss, survivor or unit is not None, failed, kinds, placed), 1.0)]
    out = []
    for fate, q in enumerate_outcomes(partial(defender_fate, plan, unit, dict(placed))):
        new_placed = placed
        if track_placed and fate.destination is not None:
            grown = dict(placed)
            grown[fate.destination] = grown.get(fate.destination, 0) + unit.equivalent
            new_placed = tuple(sorted(grown.items()))
        extra = fate.extra_loss * unit.per_point
        out.append(((loss + extra, True, failed, kinds | {fate.kind}, new_placed), q))
    return out


#: Rough costs on a 2-core machine, measured on the examples and on synthetic stacks: one
#: enumerated value of a side's rounded loss draw, one step of folding a unit into a side's
#: summary, and one resolution of the resolver per unit (``--check``).
SECONDS_PER_LOSS_VALUE = 5e-6
SECONDS_PER_FOLD_STEP = 6e-6
SECONDS_PER_RESOLVED_UNIT = 5e-5
#: Longest estimated computation started without being asked to change the input.
MAX_SECONDS = 30.0
#: Most rounded losses one combat result may span: the enumeration holds them all in memory
#: at once (about 100 bytes each), whatever the time estimate says.
MAX_LOSS_VALUES = 1_000_000


def _loss_values(cr: CombatRange) -> int:
    """How many rounded losses the enumeration of one combat result visits (§7.1)."""
    if cr.high - cr.low < 1e-12:
        return 2
    return math.floor(cr.high) - math.floor(cr.low) + 2


def exact_seconds(plan: AssaultPlan) -> float:
    """An estimate of :func:`exact_distribution`'s run time, before spending it.

    Each side enumerates every rounded loss of its range, then folds its units in once per
    distinct capped loss (and per share pattern under ``single_random_weighted``); the
    summaries grow with the units folded so far, hence the cube.
    """
    r, bd = plan.scenario.rules, plan.breakdown
    single = r.text("combat.distribution") != "proportional_to_equivalent_strength"
    total = 0.0
    for units, cr, copies in (
        (plan.attackers, bd.against_attackers, 1),
        (plan.defenders, bd.against_defenders, 2),  # as if the assault was won, and lost
    ):
        values = _loss_values(cr)
        capped = min(values, sum(u.equivalent for u in units) + 2)
        n = len(units)
        patterns = n if single else 1
        total += SECONDS_PER_LOSS_VALUE * values * copies
        total += SECONDS_PER_FOLD_STEP * capped * patterns * n**3 * copies
    return total


def check_exact_size(plan: AssaultPlan) -> None:
    """Refuse, in one line, an assault whose exact law would take minutes to enumerate."""
    seconds = exact_seconds(plan)
    bd = plan.breakdown
    widest = max(_loss_values(bd.against_defenders), _loss_values(bd.against_attackers))
    if seconds <= MAX_SECONDS and widest <= MAX_LOSS_VALUES:
        return
    widths = " and ".join(
        f"{cr.high - cr.low:.3g} ({cr.losing_side})"
        for cr in (bd.against_defenders, bd.against_attackers)
    )
    raise CommandError(
        f"{plan.scenario.source}: the exact odds of this assault would take about "
        f"{seconds:,.0f} s (limit {MAX_SECONDS:g} s, at most {MAX_LOSS_VALUES:,} losses per "
        f"side; loss ranges {widths} men-equivalents wide, "
        f"{len(plan.attackers)} attackers, {len(plan.defenders)} defenders): lower the units' "
        "strengths or assault values, the Parameter Data assault_high, or the number of units"
    )


def check_runs(plan: AssaultPlan, runs: int, option: str = "--check") -> None:
    """Refuse a Monte Carlo of the resolver that would run for minutes (one line)."""
    per_run = SECONDS_PER_RESOLVED_UNIT * (len(plan.attackers) + len(plan.defenders))
    if runs * per_run > MAX_SECONDS:
        most = max(1, math.floor(MAX_SECONDS / per_run))
        raise CommandError(
            f"{option} {runs} would resolve the assault for about {runs * per_run:,.0f} s "
            f"(limit {MAX_SECONDS:g} s): use {option} {most} or fewer"
        )


def exact_distribution(source: Scenario | AssaultPlan) -> Distribution:
    """The exact law of (attacker loss, defender loss, outcome) of the scenario's assault.

    Refused with a :class:`~bellum.errors.CommandError` when :func:`exact_seconds` says it
    would take more than :data:`MAX_SECONDS`.
    """
    plan = source if isinstance(source, AssaultPlan) else plan_assault(source)
    check_exact_size(plan)
    r, bd = plan.scenario.rules, plan.breakdown
    attackers = fold_side(
        plan.attackers, bd.against_attackers, r, (0, False, False), _attacker_step
    )
    track = _stacking_can_bind(plan)
    start: Defenders = (0, False, False, frozenset(), ())
    # The defenders' law as if the assault succeeded (fates applied) and as if it failed; the
    # attackers' summary then says which of the two each combination really is.
    if_won = fold_side(
        plan.defenders, bd.against_defenders, r, start, partial(_defender_step, plan, True, track)
    )
    if_lost = fold_side(
        plan.defenders, bd.against_defenders, r, start, partial(_defender_step, plan, False, track)
    )
    groups: dict[tuple[bool, bool], dict[int, float]] = defaultdict(lambda: defaultdict(float))
    for (loss, alive, worse), p in attackers.items():
        groups[(alive, worse)][loss] += p
    joint: dict[tuple[int, int, str], float] = defaultdict(float)
    for (alive, worse), a_losses in groups.items():
        d_part: dict[tuple[int, str], float] = defaultdict(float)
        for law, won in ((if_won, True), (if_lost, False)):
            for (d_loss, survivor, failed, kinds, _), p in law.items():
                if assault_succeeds(survivor, alive, worse, failed, r) is won:
                    d_part[(d_loss, outcome_of(won, kinds))] += p
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
