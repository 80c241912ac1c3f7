"""The exact outcome distribution of an assault, and a Monte Carlo of the resolver to check it.

The exact law is computed from the resolver's own step functions, run under
:func:`~bellum.panzer._chance.enumerate_outcomes`; only the composition is done here:

* **Rows.**  A side's combat result (``draw_side_loss``) and how it is shared among the units
  (``loss_shares``) are enumerated: one *row* per side loss and sharing, with its probability.
* **Units.**  Given a row, the units are independent.  Each unit's loss (``unit_loss``), its
  morale check (``morale_check``) and, for a defender of a won assault, its fate
  (``defender_fate``) are enumerated once per distinct input and cached.
* **Fold.**  A side is folded one unit at a time.  The state of the fold is what the outcome
  reads: the side's :class:`~bellum.panzer.results.SideState` (reduced to the parts the
  configured success rule looks at), the kinds of the defenders' fates and, when stacking can
  crowd retreats, where earlier defenders went.  Losses are not part of the state: for each
  state, a numpy array holds the probability by row and by loss above the row's smallest
  possible loss, so folding a unit is a few array additions instead of a loop over losses.
  Defenders carry two loss axes, the combat loss (which the success test compares) and the
  extra loss of surrenders.
* **Meeting.**  The success test (``decide``) reads the two states and whether the defenders
  lost more (``outlost_threshold``); with each side's law in hand that is a cumulative sum
  over the attackers' losses for every defenders' loss.

The joint law of (attacker loss, defender loss, outcome) stays factored: written out it can
hold millions of cells, and the outcome probabilities and loss laws do not need it.
:meth:`Distribution.probability` reads one cell, :attr:`Distribution.joint` writes it all out.
Fatigue gain is drawn after everything the distribution tracks and is not enumerated.
"""

from __future__ import annotations

import itertools
import math
from collections import defaultdict
from collections.abc import Callable, Hashable, Iterable, Iterator, Mapping, Sequence
from dataclasses import dataclass, field
from functools import cache, partial
from typing import Generic, TypeVar

import numpy as np
import numpy.typing as npt

from bellum.dice import ServerRandom
from bellum.errors import CommandError
from bellum.odds.result import ATTACKER, DEFENDER, LossDistribution, OddsResult
from bellum.panzer._chance import Chance, enumerate_outcomes
from bellum.panzer.assault import AssaultBreakdown, AssaultPlan, CombatRange, plan_assault
from bellum.panzer.battlefield import Hex
from bellum.panzer.results import (
    OUTCOMES,
    Fate,
    SideState,
    decide,
    defender_fate,
    draw_side_loss,
    loss_shares,
    morale_check,
    outcome_of,
    outlost_threshold,
    resolve_plan,
    unit_loss,
    unit_state,
)
from bellum.panzer.rules import Rules
from bellum.panzer.scenario import Scenario
from bellum.panzer.units import Unit

FloatArray = npt.NDArray[np.float64]
IntArray = npt.NDArray[np.int64]
K = TypeVar("K", bound=Hashable)
S = TypeVar("S", bound=Hashable)

#: The ``model`` an assault's :class:`~bellum.odds.result.OddsResult` names: the §7-§10 resolver.
ODDS_MODEL = "panzer-assault"
FAILED = "failed"


# --------------------------------------------------------------------------- the law


def _sorted_law(law: Mapping[int, float]) -> dict[int, float]:
    return {k: p for k, p in sorted(law.items()) if p > 0}


def _moments(law: Mapping[int, float]) -> tuple[float, float]:
    mean = sum(k * p for k, p in law.items())
    var = sum((k - mean) ** 2 * p for k, p in law.items())
    return mean, math.sqrt(max(0.0, var))


class Distribution:
    """P(attacker loss, defender loss, outcome); losses in men-equivalents, surrenders included.

    Holds the outcome probabilities and each side's loss law.  The joint law behind them is
    read cell by cell with :meth:`probability`, or written out whole with :attr:`joint`
    (fine for small assaults; an exact law keeps it factored).  ``runs`` is 0 for the exact
    law, else the Monte Carlo sample size.
    """

    def __init__(
        self,
        outcomes: Mapping[str, float],
        attacker_losses: Mapping[int, float],
        defender_losses: Mapping[int, float],
        *,
        runs: int = 0,
        joint: Mapping[tuple[int, int, str], float] | _FactoredJoint | None = None,
    ) -> None:
        self._outcomes = {name: float(outcomes.get(name, 0.0)) for name in OUTCOMES}
        self._losses = {True: _sorted_law(attacker_losses), False: _sorted_law(defender_losses)}
        self._moments = {side: _moments(law) for side, law in self._losses.items()}
        self._joint = joint
        self.runs = runs

    @classmethod
    def from_joint(cls, joint: Mapping[tuple[int, int, str], float], runs: int = 0) -> Distribution:
        """The law of an explicit joint table (a Monte Carlo sample, a test's hand-made law)."""
        outcomes: dict[str, float] = defaultdict(float)
        laws: dict[bool, dict[int, float]] = {True: defaultdict(float), False: defaultdict(float)}
        for (a, d, o), p in joint.items():
            outcomes[o] += p
            laws[True][a] += p
            laws[False][d] += p
        return cls(outcomes, laws[True], laws[False], runs=runs, joint=dict(joint))

    def outcome(self, name: str) -> float:
        return self._outcomes.get(name, 0.0)

    @property
    def outcomes(self) -> dict[str, float]:
        return dict(self._outcomes)

    @property
    def p_success(self) -> float:
        return 1.0 - self.outcome(FAILED)

    def losses(self, attacker: bool) -> dict[int, float]:
        """Marginal law of one side's loss, ascending."""
        return dict(self._losses[attacker])

    def expected_loss(self, attacker: bool) -> float:
        return self._moments[attacker][0]

    def loss_sd(self, attacker: bool) -> float:
        return self._moments[attacker][1]

    @property
    def total(self) -> float:
        return sum(self._outcomes.values())

    def probability(self, attacker_loss: int, defender_loss: int, outcome: str) -> float:
        """P(attackers lose ``attacker_loss``, defenders ``defender_loss``, and ``outcome``)."""
        if isinstance(self._joint, _FactoredJoint):
            return self._joint.probability(attacker_loss, defender_loss, outcome)
        return (
            0.0
            if self._joint is None
            else self._joint.get((attacker_loss, defender_loss, outcome), 0.0)
        )

    @property
    def joint(self) -> dict[tuple[int, int, str], float]:
        """The whole joint law written out (possibly millions of cells for a large assault)."""
        if isinstance(self._joint, _FactoredJoint):
            return self._joint.table()
        return dict(self._joint or {})

    def loss_distribution(self, attacker: bool) -> LossDistribution:
        """One side's loss law as the odds engine's pmf (men-equivalents, ascending)."""
        law = self._losses[attacker]
        return LossDistribution.from_weights(
            np.fromiter(law.keys(), dtype=np.int64, count=len(law)),
            np.fromiter(law.values(), dtype=np.float64, count=len(law)),
        )

    def odds_result(self, *, seed: int | None = None, seconds: float | None = None) -> OddsResult:
        """This law as a generic :class:`~bellum.odds.result.OddsResult`.

        So that an assault is shown exactly like a fight (``bellum.odds.report``: summary, loss
        table with quantiles, histograms, plot).  Every outcome of :data:`OUTCOMES` is kept, the
        ways of succeeding first: they are what the report totals as P(attacker wins), and they
        still add up to 1 with "failed".  Sides are named as in a fight
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


# --------------------------------------------------------------------------- the factored joint


@dataclass(frozen=True)
class _AttackerClass:
    """The attackers' loss law within one state of the success test."""

    values: IntArray
    probs: FloatArray
    cumulative: FloatArray = field(init=False)

    def __post_init__(self) -> None:
        object.__setattr__(self, "cumulative", np.concatenate(([0.0], np.cumsum(self.probs))))

    @property
    def mass(self) -> float:
        return float(self.cumulative[-1])

    def at_most(self, x: IntArray) -> FloatArray:
        """P(state and loss <= x), elementwise."""
        result: FloatArray = self.cumulative[np.searchsorted(self.values, x, side="right")]
        return result

    def at(self, loss: int) -> float:
        i = int(np.searchsorted(self.values, loss))
        return float(self.probs[i]) if i < self.values.size and self.values[i] == loss else 0.0


@dataclass(frozen=True)
class _DefenderBlock:
    """Defenders' cells sharing one state: combat loss, loss with surrenders, probability."""

    state: SideState
    won_outcome: str  # the outcome's name if the assault succeeds
    combat: IntArray
    total: IntArray
    mass: FloatArray


@dataclass(frozen=True)
class _FactoredJoint:
    """The joint law as the product of the two sides' laws and the success test."""

    attackers: Mapping[SideState, _AttackerClass]
    defenders: tuple[_DefenderBlock, ...]
    succeeds: Mapping[tuple[SideState, SideState, bool], bool]
    strengths: tuple[int, int]  # defenders', attackers' men-equivalents before the assault
    rules: Rules

    def threshold(self, combat: IntArray) -> IntArray:
        d, a = self.strengths
        return outlost_threshold(combat, d, a, self.rules)

    def success_weight(self, block: _DefenderBlock) -> FloatArray:
        """P(success | the defenders' cell), cell by cell."""
        limit = self.threshold(block.combat)
        weight = np.zeros(block.combat.shape)
        for state, law in self.attackers.items():
            outlost = law.at_most(limit)
            if self.succeeds[(state, block.state, True)]:
                weight += outlost
            if self.succeeds[(state, block.state, False)]:
                weight += law.mass - outlost
        return weight

    def marginals(self) -> tuple[dict[str, float], dict[int, float], dict[int, float]]:
        """Outcome probabilities, attackers' and defenders' loss laws."""
        outcomes: dict[str, float] = defaultdict(float)
        attacker: dict[int, float] = defaultdict(float)
        for law in self.attackers.values():
            for k, p in zip(law.values.tolist(), law.probs.tolist(), strict=True):
                attacker[k] += p
        everything = sum(law.mass for law in self.attackers.values())
        defender = np.zeros(1 + max((int(b.total.max()) for b in self.defenders), default=0))
        for block in self.defenders:
            won = block.mass * self.success_weight(block)
            lost = block.mass * everything - won
            outcomes[block.won_outcome] += float(won.sum())
            outcomes[FAILED] += float(lost.sum())
            defender += np.bincount(block.total, won, minlength=defender.size)
            defender += np.bincount(block.combat, lost, minlength=defender.size)
        return dict(outcomes), dict(attacker), dict(enumerate(defender.tolist()))

    def _cells(self, attacker_loss: int) -> Iterator[tuple[_DefenderBlock, FloatArray]]:
        """Per block, the probability of each cell together with success, at one attacker loss."""
        for block in self.defenders:
            outlost = attacker_loss <= self.threshold(block.combat)
            weight = np.zeros(block.combat.shape)
            for state, law in self.attackers.items():
                p = law.at(attacker_loss)
                if p == 0:
                    continue
                for flag in (True, False):
                    if self.succeeds[(state, block.state, flag)]:
                        weight += p * (outlost == flag)
            yield block, weight

    def probability(self, attacker_loss: int, defender_loss: int, outcome: str) -> float:
        p_attacker = sum(law.at(attacker_loss) for law in self.attackers.values())
        total = 0.0
        for block, weight in self._cells(attacker_loss):
            if outcome == block.won_outcome:
                total += float((block.mass * weight)[block.total == defender_loss].sum())
            if outcome == FAILED:
                lost = block.mass * (p_attacker - weight)
                total += float(lost[block.combat == defender_loss].sum())
        return total

    def table(self) -> dict[tuple[int, int, str], float]:
        out: dict[tuple[int, int, str], float] = defaultdict(float)
        losses = sorted({k for law in self.attackers.values() for k in law.values.tolist()})
        for a in losses:
            p_attacker = sum(law.at(a) for law in self.attackers.values())
            for block, weight in self._cells(a):
                for losses_of, mass, name in (
                    (block.total, block.mass * weight, block.won_outcome),
                    (block.combat, block.mass * (p_attacker - weight), FAILED),
                ):
                    for d, p in zip(losses_of.tolist(), mass.tolist(), strict=True):
                        if p > 0:
                            out[(a, d, name)] += p
        return dict(out)


# --------------------------------------------------------------------------- per-unit laws


def _merge(items: Iterable[tuple[K, float]]) -> dict[K, float]:
    out: dict[K, float] = defaultdict(float)
    for key, p in items:
        out[key] += p
    return dict(out)


def _shares(loss: int, units: Sequence[Unit], r: Rules, chance: Chance) -> tuple[float, ...]:
    return tuple(loss_shares(loss, units, r, chance))


def _unit_end(u: Unit, k: int, r: Rules, chance: Chance) -> tuple[SideState, Unit]:
    """A unit after losing ``k`` points and its morale check (§7.3, §9, §16.2)."""
    after = u.replace(strength=u.strength - k)
    check = morale_check(after, k, u.strength, r, chance)
    if check is not None:
        after = after.replace(state=check.state_after)
    return unit_state(u, after, check), after


class _UnitLaws:
    """The resolver's per-unit steps, each enumerated once per distinct input."""

    def __init__(self, plan: AssaultPlan) -> None:
        self.plan = plan
        self.rules = plan.scenario.rules
        self._loss: dict[tuple[str, float], list[tuple[int, float]]] = {}
        self._end: dict[tuple[str, int], list[tuple[tuple[SideState, Unit], float]]] = {}
        self._fate: dict[tuple[Unit, tuple[tuple[Hex, int], ...]], list[tuple[Fate, float]]] = {}

    def loss(self, u: Unit, share: float) -> list[tuple[int, float]]:
        key = (u.id, share)
        law = self._loss.get(key)
        if law is None:
            law = self._loss[key] = list(
                _merge(enumerate_outcomes(partial(unit_loss, u, share))).items()
            )
        return law

    def end(self, u: Unit, k: int) -> list[tuple[tuple[SideState, Unit], float]]:
        key = (u.id, k)
        law = self._end.get(key)
        if law is None:
            step = partial(_unit_end, u, k, self.rules)
            law = self._end[key] = list(_merge(enumerate_outcomes(step)).items())
        return law

    def fate(self, u: Unit, placed: tuple[tuple[Hex, int], ...]) -> list[tuple[Fate, float]]:
        key = (u, placed)
        law = self._fate.get(key)
        if law is None:
            step = partial(defender_fate, self.plan, u, dict(placed))
            law = self._fate[key] = list(_merge(enumerate_outcomes(step)).items())
        return law


# --------------------------------------------------------------------------- the fold

Row = tuple[float, tuple[float, ...]]  # probability, each unit's share of the side loss
# One way a unit ends in one row: (what the fold's state takes from it, combat loss, extra
# loss in men-equivalents, probability).
Ending = tuple[Hashable, int, int, float]


def _rows(units: Sequence[Unit], cr: CombatRange, r: Rules) -> list[Row]:
    """Every side loss and sharing of it, with its probability (§7.1, §7.3)."""
    losses = _merge(
        (sl.loss, p) for sl, p in enumerate_outcomes(partial(draw_side_loss, cr, units, r))
    )
    rows: list[Row] = []
    for loss, p_loss in sorted(losses.items()):
        shares = _merge(enumerate_outcomes(partial(_shares, loss, units, r)))
        rows.extend((p_loss * p, share) for share, p in shares.items())
    return rows


@dataclass
class _Folded(Generic[S]):
    """A side folded so far: per state, P(row, combat loss - base, extra loss - base)."""

    base_combat: IntArray
    base_extra: IntArray
    mass: dict[S, FloatArray]


def _fold(
    rows: Sequence[Row],
    units: Sequence[Unit],
    start: S,
    endings: Callable[[Unit, float, S], list[Ending]],
    context: Callable[[S], Hashable],
    join: Callable[[S, Hashable], S],
) -> _Folded[S]:
    """Fold the units of a side into the law of its state and losses.

    ``endings(u, share, state)`` lists how unit ``u`` ends given its share of the row's loss;
    it may depend on the state only through ``context(state)``.  ``join`` adds a unit's ending
    to a state.
    """
    n = len(rows)
    folded: _Folded[S] = _Folded(
        np.zeros(n, dtype=np.int64),
        np.zeros(n, dtype=np.int64),
        {start: np.array([w for w, _ in rows], dtype=np.float64).reshape(n, 1, 1)},
    )
    for i, u in enumerate(units):
        contexts: dict[Hashable, S] = {}
        for state in folded.mass:
            contexts.setdefault(context(state), state)
        per_row = {
            cx: [endings(u, shares[i], state) for _, shares in rows]
            for cx, state in contexts.items()
        }
        low_c = np.array(
            [min(c for rows_of in per_row.values() for _, c, _, _ in rows_of[j]) for j in range(n)],
            dtype=np.int64,
        )
        low_e = np.array(
            [min(e for rows_of in per_row.values() for _, _, e, _ in rows_of[j]) for j in range(n)],
            dtype=np.int64,
        )
        tables: dict[Hashable, list[tuple[Hashable, int, int, FloatArray]]] = {}
        width_c = width_e = 1
        for cx, rows_of in per_row.items():
            vectors: dict[tuple[Hashable, int, int], FloatArray] = {}
            for j, ends in enumerate(rows_of):
                for key, c, e, p in ends:
                    slot = (key, c - int(low_c[j]), e - int(low_e[j]))
                    vec = vectors.get(slot)
                    if vec is None:
                        vec = vectors[slot] = np.zeros(n)
                    vec[j] += p
            tables[cx] = [(key, oc, oe, vec) for (key, oc, oe), vec in vectors.items()]
            width_c = max(width_c, 1 + max(oc for _, oc, _, _ in tables[cx]))
            width_e = max(width_e, 1 + max(oe for _, _, oe, _ in tables[cx]))
        new: dict[S, FloatArray] = {}
        for state, arr in folded.mass.items():
            _, wc, we = arr.shape
            for key, oc, oe, vec in tables[context(state)]:
                target_state = join(state, key)
                target = new.get(target_state)
                if target is None:
                    shape = (n, wc + width_c - 1, we + width_e - 1)
                    target = new[target_state] = np.zeros(shape)
                target[:, oc : oc + wc, oe : oe + we] += arr * vec[:, None, None]
        folded = _Folded(folded.base_combat + low_c, folded.base_extra + low_e, new)
    return folded


@cache
def _relevant(rule: str) -> tuple[tuple[bool, ...], tuple[bool, ...]]:
    """Which :class:`SideState` fields the success rule reads, for attackers and defenders.

    Found by asking :func:`decide` itself: a field matters to a side when flipping it changes
    some verdict.  The fold then forgets the others, which keeps its states few.
    """
    r = Rules({"unknowns.outcome.success_rule": rule})
    states = [SideState(*bits) for bits in itertools.product((False, True), repeat=4)]

    def flip(state: SideState, f: int) -> SideState:
        bits = list(vars(state).values())
        bits[f] = not bits[f]
        return SideState(*bits)

    def reads(attacker: bool, f: int) -> bool:
        for a, d, outlost in itertools.product(states, states, (False, True)):
            a2, d2 = (flip(a, f), d) if attacker else (a, flip(d, f))
            if decide(a, d, outlost, r).success != decide(a2, d2, outlost, r).success:
                return True
        return False

    return tuple(reads(True, f) for f in range(4)), tuple(reads(False, f) for f in range(4))


@cache
def _project(state: SideState, keep: tuple[bool, ...]) -> SideState:
    return SideState(*(b and k for b, k in zip(vars(state).values(), keep, strict=True)))


# Defenders' fold state: (side state, kinds of fates, men-equivalents retreated into each hex)
Defenders = tuple[SideState, frozenset[str], tuple[tuple[Hex, int], ...]]


def _stacking_can_bind(plan: AssaultPlan) -> bool:
    """Whether earlier retreats can ever crowd a later defender out of a hex (§10.2)."""
    if len(plan.defenders) < 2:
        return False
    everyone = sum(u.equivalent for u in plan.defenders)
    limit = plan.scenario.params.stacking_maximum
    return any(r.stacked + everyone > limit for r in plan.retreats)


def _attackers(
    plan: AssaultPlan, laws: _UnitLaws, keep: tuple[bool, ...]
) -> dict[SideState, _AttackerClass]:
    """The attackers' loss law within each state the success test reads (§7, §9)."""
    rows = _rows(plan.attackers, plan.breakdown.against_attackers, laws.rules)

    def endings(u: Unit, share: float, _: SideState) -> list[Ending]:
        out: list[Ending] = []
        for k, pk in laws.loss(u, share):
            for (state, _after), pe in laws.end(u, k):
                out.append((_project(state, keep), k * u.per_point, 0, pk * pe))
        return out

    def join(state: SideState, key: Hashable) -> SideState:
        assert isinstance(key, SideState)
        return state.join(key)

    folded = _fold(rows, plan.attackers, SideState(), endings, lambda _: None, join)
    classes: dict[SideState, _AttackerClass] = {}
    for state, arr in folded.mass.items():
        losses = folded.base_combat[:, None] + np.arange(arr.shape[1])
        law = np.bincount(losses.ravel(), arr[:, :, 0].ravel())
        values = np.flatnonzero(law)
        classes[state] = _AttackerClass(values.astype(np.int64), law[values].astype(np.float64))
    return classes


def _defenders(
    plan: AssaultPlan, laws: _UnitLaws, keep: tuple[bool, ...]
) -> tuple[_DefenderBlock, ...]:
    """The defenders' law by state, with combat losses and the fates of a won assault (§10)."""
    rows = _rows(plan.defenders, plan.breakdown.against_defenders, laws.rules)
    track = _stacking_can_bind(plan)

    def endings(u: Unit, share: float, state: Defenders) -> list[Ending]:
        out: list[Ending] = []
        for k, pk in laws.loss(u, share):
            for (side, after), pe in laws.end(u, k):
                side = _project(side, keep)
                if after.strength <= 0:
                    out.append(((side, None, None), k * u.per_point, 0, pk * pe))
                    continue
                for fate, pf in laws.fate(after, state[2]):
                    where = (fate.destination, after.equivalent) if track else None
                    key = (side, fate.kind, where)
                    out.append((key, k * u.per_point, fate.extra_loss * u.per_point, pk * pe * pf))
        return out

    def join(state: Defenders, key: Hashable) -> Defenders:
        assert isinstance(key, tuple)
        side, kind, where = key
        kinds = state[1] | {kind} if kind is not None else state[1]
        placed = state[2]
        if where is not None and where[0] is not None:
            grown = dict(placed)
            grown[where[0]] = grown.get(where[0], 0) + where[1]
            placed = tuple(sorted(grown.items()))
        return state[0].join(side), kinds, placed

    start: Defenders = (SideState(), frozenset(), ())
    folded = _fold(rows, plan.defenders, start, endings, lambda s: s[2], join)
    cells: dict[tuple[SideState, frozenset[str]], list[tuple[IntArray, IntArray, FloatArray]]]
    cells = defaultdict(list)
    for (side, kinds, _), arr in folded.mass.items():
        _, wc, we = arr.shape
        combat = folded.base_combat[:, None, None] + np.arange(wc)[None, :, None]
        total = combat + folded.base_extra[:, None, None] + np.arange(we)[None, None, :]
        held = arr > 0
        cells[(side, kinds)].append(
            (np.broadcast_to(combat, arr.shape)[held], total[held], arr[held])
        )
    blocks = []
    for (side, kinds), parts in cells.items():
        combat, total, mass = (np.concatenate(x) for x in zip(*parts, strict=True))
        if mass.size == 0:
            continue
        span = int(total.max()) + 1
        pairs, inverse = np.unique(combat * span + total, return_inverse=True)
        blocks.append(
            _DefenderBlock(
                side,
                outcome_of(True, kinds),
                (pairs // span).astype(np.int64),
                (pairs % span).astype(np.int64),
                np.bincount(inverse, mass).astype(np.float64),
            )
        )
    return tuple(blocks)


# --------------------------------------------------------------------------- cost and refusal

#: Rough costs on a 2-core machine: enumerating one unit's loss in one row of a side, and one
#: cell of a fold array touched when a unit is folded in; one resolution of the resolver per
#: unit (``--resolver-runs``).
SECONDS_PER_UNIT_ROW = 4e-5
SECONDS_PER_CELL = 2e-9
SECONDS_PER_RESOLVED_UNIT = 5e-5
#: Longest estimated computation started without being asked to change the input.
MAX_SECONDS = 30.0
#: Most probability cells a fold may hold at once (8 bytes each): bounds the memory.
MAX_CELLS = 30_000_000


def _loss_values(cr: CombatRange) -> int:
    """How many rounded losses the enumeration of one combat result visits (§7.1)."""
    if cr.high - cr.low < 1e-12:
        return 2
    return math.floor(cr.high) - math.floor(cr.low) + 2


def _work(plan: AssaultPlan) -> tuple[float, int]:
    """Estimated seconds and largest number of cells of :func:`exact_distribution`.

    A side has one row per rounded loss (times its units when the loss falls on one random
    unit); a fold array is rows x (sum of the units' loss spreads), the spread of a unit being
    one strength point (and, for a defender that may surrender, as much again).
    """
    r, bd = plan.scenario.rules, plan.breakdown
    single = r.text("combat.distribution") != "proportional_to_equivalent_strength"
    seconds, cells = 0.0, 0
    for units, cr in (
        (plan.attackers, bd.against_attackers),
        (plan.defenders, bd.against_defenders),
    ):
        rows = _loss_values(cr) * (len(units) if single else 1)
        width = 1 + sum(2 * u.per_point for u in units)
        side_cells = rows * width * 3
        seconds += SECONDS_PER_UNIT_ROW * rows * len(units)
        seconds += SECONDS_PER_CELL * side_cells * len(units) * 8
        cells = max(cells, side_cells)
    return seconds, cells


def exact_seconds(plan: AssaultPlan) -> float:
    """An estimate of :func:`exact_distribution`'s run time, before spending it."""
    return _work(plan)[0]


def check_exact_size(plan: AssaultPlan) -> None:
    """Refuse, in one line, an assault whose exact law would take minutes or gigabytes."""
    seconds, cells = _work(plan)
    if seconds <= MAX_SECONDS and cells <= MAX_CELLS:
        return
    bd = plan.breakdown
    widths = " and ".join(
        f"{cr.high - cr.low:.3g} ({cr.losing_side})"
        for cr in (bd.against_defenders, bd.against_attackers)
    )
    raise CommandError(
        f"{plan.scenario.source}: the exact odds of this assault would take about "
        f"{seconds:,.0f} s and {cells * 8 / 1e6:,.3g} MB (limits {MAX_SECONDS:g} s, "
        f"{MAX_CELLS * 8 / 1e6:,.3g} MB; loss ranges {widths} men-equivalents wide, "
        f"{len(plan.attackers)} attackers, {len(plan.defenders)} defenders): lower the units' "
        f"strengths or assault values, the Parameter Data {_high_keys(bd)}, or the number of units"
    )


def _high_keys(bd: AssaultBreakdown) -> str:
    """The Parameter Data keys that set how wide the loss ranges are."""
    names = dict.fromkeys(
        f"{cr.pair.name}_high" for cr in (bd.against_defenders, bd.against_attackers)
    )
    return " and ".join(names)


def check_runs(plan: AssaultPlan, runs: int, option: str = "--check") -> None:
    """Refuse a Monte Carlo of the resolver that would run for minutes (one line)."""
    per_run = SECONDS_PER_RESOLVED_UNIT * (len(plan.attackers) + len(plan.defenders))
    if runs * per_run > MAX_SECONDS:
        most = max(1, math.floor(MAX_SECONDS / per_run))
        raise CommandError(
            f"{option} {runs} would resolve the assault for about {runs * per_run:,.0f} s "
            f"(limit {MAX_SECONDS:g} s): use {option} {most} or fewer"
        )


# --------------------------------------------------------------------------- entry points


def exact_distribution(source: Scenario | AssaultPlan) -> Distribution:
    """The exact law of (attacker loss, defender loss, outcome) of the scenario's assault.

    Refused with a :class:`~bellum.errors.CommandError` when :func:`check_exact_size` says it
    would take more than :data:`MAX_SECONDS` or :data:`MAX_CELLS`.
    """
    plan = source if isinstance(source, AssaultPlan) else plan_assault(source)
    check_exact_size(plan)
    r = plan.scenario.rules
    keep_att, keep_def = _relevant(r.text("unknowns.outcome.success_rule"))
    laws = _UnitLaws(plan)
    attackers = _attackers(plan, laws, keep_att)
    defenders = _defenders(plan, laws, keep_def)
    succeeds = {
        (a, d.state, outlost): decide(a, d.state, outlost, r).success
        for a in attackers
        for d in defenders
        for outlost in (True, False)
    }
    strengths = (
        sum(u.equivalent for u in plan.defenders),
        sum(u.equivalent for u in plan.attackers),
    )
    joint = _FactoredJoint(attackers, defenders, succeeds, strengths, r)
    outcomes, attacker, defender = joint.marginals()
    return Distribution(outcomes, attacker, defender, joint=joint)


def monte_carlo(
    source: Scenario | AssaultPlan,
    runs: int,
    seed: int,
    progress: Callable[[float], None] | None = None,
) -> Distribution:
    """Empirical law from ``runs`` resolutions by the resolver itself, one seeded stream;
    ``progress`` hears the fraction done every hundredth of the runs."""
    plan = source if isinstance(source, AssaultPlan) else plan_assault(source)
    rng = ServerRandom(seed)
    counts: dict[tuple[int, int, str], int] = defaultdict(int)
    every = max(1, runs // 100)
    for i in range(runs):
        if progress is not None and i % every == 0:
            progress(i / runs)
        res = resolve_plan(plan, rng)
        counts[(res.side_loss_equivalent(True), res.side_loss_equivalent(False), res.outcome)] += 1
    return Distribution.from_joint({k: c / runs for k, c in counts.items()}, runs=runs)


#: How a sweep scales the attacking force: 0.25x to 4x in steps of sqrt(2) (each step half
#: again as strong, two steps twice).
SWEEP_SCALES: tuple[float, ...] = tuple(2 ** (k / 2) for k in range(-4, 5))


@dataclass(frozen=True)
class SweepRow:
    scale: float
    strength: int  # the attackers' men-equivalents at this scale
    breakdown: AssaultBreakdown
    distribution: Distribution


@dataclass(frozen=True)
class Sweep:
    """The exact odds of an assault as its attacking force is scaled (``odds --sweep``)."""

    target: Hex
    rows: tuple[SweepRow, ...]


def scaled(plan: AssaultPlan, scale: float) -> AssaultPlan:
    """The same assault with every attacker's strength times ``scale`` (at least 1)."""
    ids = [u.id for u in plan.attackers]
    units = tuple(
        u.replace(strength=max(1, math.floor(u.strength * scale + 0.5))) if u.id in ids else u
        for u in plan.scenario.units
    )
    return plan_assault(plan.scenario.replace(units=units), plan.breakdown.target, ids)


def odds_sweep(source: Scenario | AssaultPlan, scales: Sequence[float] = SWEEP_SCALES) -> Sweep:
    """Exact odds and expected losses with the attacking force scaled by each of ``scales``.

    So a player sees how much more force buys how much more certainty.  Refused in one line,
    before any work, when the whole sweep is estimated above :data:`MAX_SECONDS`.
    """
    plan = source if isinstance(source, AssaultPlan) else plan_assault(source)
    plans = [scaled(plan, f) for f in scales]
    seconds = sum(exact_seconds(p) for p in plans)
    if seconds > MAX_SECONDS:
        raise CommandError(
            f"{plan.scenario.source}: the sweep's exact odds would take about {seconds:,.0f} s "
            f"(limit {MAX_SECONDS:g} s; the largest force is {max(scales):g}x): run "
            "'bellum panzer odds' without --sweep, or lower the strengths"
        )
    rows = tuple(
        SweepRow(f, sum(u.equivalent for u in p.attackers), p.breakdown, exact_distribution(p))
        for f, p in zip(scales, plans, strict=True)
    )
    return Sweep(plan.breakdown.target, rows)


@dataclass(frozen=True)
class Agreement:
    """How far a Monte Carlo sample lies from the exact law, in standard errors."""

    runs: int
    rows: tuple[tuple[str, float, float, float], ...]  # (quantity, exact, sampled, z)

    @property
    def max_abs_z(self) -> float:
        return max((abs(z) for *_, z in self.rows), default=0.0)


def _z(exact: float, sampled: float, se: float) -> float:
    """Standard errors between a sample and the exact value; rounding noise counts as 0."""
    if abs(sampled - exact) <= 1e-9 * max(1.0, abs(exact)):
        return 0.0
    return (sampled - exact) / se if se > 0 else math.inf


def compare(exact: Distribution, sample: Distribution) -> Agreement:
    """z-scores of every outcome probability and both expected losses."""
    n = sample.runs
    rows: list[tuple[str, float, float, float]] = []
    for name in OUTCOMES:
        p, q = exact.outcome(name), sample.outcome(name)
        rows.append((f"P({name})", p, q, _z(p, q, math.sqrt(max(0.0, p * (1 - p)) / n))))
    for attacker, label in ((True, "attackers"), (False, "defenders")):
        m, q = exact.expected_loss(attacker), sample.expected_loss(attacker)
        rows.append((f"E[loss {label}]", m, q, _z(m, q, exact.loss_sd(attacker) / math.sqrt(n))))
    return Agreement(n, tuple(rows))
