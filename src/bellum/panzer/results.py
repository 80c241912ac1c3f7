"""The random half of an assault: combat results, losses, morale, outcome, retreat, advance.

Each step is a small function taking a :class:`~bellum.panzer._chance.Chance`; the resolver
calls them with seeded dice in the project's fixed draw order (spec §7.1: defenders' loss
range and rounding, attackers' likewise, per-unit losses D then A, morale D then A, then
retreat and surrender, then fatigue), and :mod:`bellum.panzer.distribution` calls the same
functions with an enumerator to get the exact outcome distribution.
"""

from __future__ import annotations

import math
from collections.abc import Collection, Mapping, Sequence
from dataclasses import dataclass
from functools import reduce
from typing import TypeVar

import numpy as np
import numpy.typing as npt

from bellum.dice import ServerRandom, new_seed
from bellum.panzer._chance import Chance, DiceChance
from bellum.panzer.assault import AssaultBreakdown, AssaultPlan, CombatRange, plan_assault
from bellum.panzer.battlefield import Hex
from bellum.panzer.rules import Rules
from bellum.panzer.scenario import Scenario
from bellum.panzer.units import Kind, State, Unit

OUTCOMES = ("failed", "eliminated", "retreated", "surrendered", "held")
"""failed: the attack was repulsed; otherwise it succeeded and the defenders were all
eliminated in combat, all retreated, at least one surrendered, or (fanatical) held on."""


@dataclass(frozen=True)
class SideLoss:
    """One combat result (§7.1): the uniform draw, its rounding and the capped loss."""

    side: str
    low: float
    high: float
    drawn: float
    rounded: int
    loss: int

    def __str__(self) -> str:
        """The loss as the assault report words it: ``US loses 115 men-equivalents (...)``."""
        text = (
            f"{self.side} loses {self.loss} men-equivalents (drawn {self.drawn:.3f}"
            f" in {self.low:.2f} .. {self.high:.2f}, rounded to {self.rounded}"
        )
        if self.loss != self.rounded:
            text += f", capped at {self.loss}"
        return text + ")"


@dataclass(frozen=True)
class MoraleCheck:
    morale: int
    roll: int
    passed: bool
    state_after: State
    check_probability: float = 1.0  # how likely the unit was to have to check (§16.2)


@dataclass(frozen=True)
class Fate:
    """What happened to a surviving defender after a successful assault (§10.2-10.5)."""

    kind: str  # "retreated", "surrendered", "held"
    destination: Hex | None
    extra_loss: int
    state_after: State
    reason: str


@dataclass(frozen=True)
class UnitOutcome:
    unit_id: str
    side: str
    attacker: bool
    strength_before: int
    share: float
    loss: int
    morale: MoraleCheck | None
    fate: Fate | None
    advanced: bool
    fatigue_gain: int
    unit_after: Unit | None
    per_point: int
    #: What the unit's strength points count: men, vehicles or guns.
    kind: Kind = Kind.PERSONNEL

    @property
    def total_loss(self) -> int:
        return self.loss + (self.fate.extra_loss if self.fate else 0)

    @property
    def loss_equivalent(self) -> int:
        return self.total_loss * self.per_point

    @property
    def eliminated(self) -> bool:
        return self.unit_after is None


@dataclass(frozen=True)
class AssaultResult:
    """Everything an assault did, with the numbers that explain it; ``scenario`` is after."""

    seed: int
    breakdown: AssaultBreakdown
    losses_to_defenders: SideLoss
    losses_to_attackers: SideLoss
    units: tuple[UnitOutcome, ...]
    success: bool
    reason: str  # which clause of the success test decided it (§16.3)
    outcome: str
    hex_taken: bool
    scenario: Scenario
    draws: int

    def side_loss_equivalent(self, attacker: bool) -> int:
        """Men-equivalents actually lost by a side, surrenders included."""
        return sum(o.loss_equivalent for o in self.units if o.attacker is attacker)


# --------------------------------------------------------------------------- §7 losses


def draw_side_loss(cr: CombatRange, units: Sequence[Unit], r: Rules, chance: Chance) -> SideLoss:
    """Uniform draw in the range, probabilistic rounding, loss cap (§7.1, §7.3)."""
    drawn, rounded = chance.uniform_rounded(cr.low, cr.high)
    cap = math.floor(r.number("combat.max_loss_fraction") * sum(u.equivalent for u in units))
    return SideLoss(cr.losing_side, cr.low, cr.high, drawn, rounded, max(0, min(rounded, cap)))


def loss_shares(loss: int, units: Sequence[Unit], r: Rules, chance: Chance) -> list[float]:
    """A side's loss in men-equivalents spread over its units (§7.3, UNKNOWN -> DEFAULT)."""
    eq = [float(u.equivalent) for u in units]
    total = sum(eq)
    if r.text("combat.distribution") == "proportional_to_equivalent_strength" or loss <= 0:
        return [e * min(1.0, loss / total) for e in eq]
    chosen = chance.pick(eq)
    shares = [0.0] * len(units)
    shares[chosen] = min(float(loss), eq[chosen])
    rest = total - eq[chosen]
    if rest > 0:
        excess = loss - shares[chosen]
        for i, e in enumerate(eq):
            if i != chosen:
                shares[i] = e * min(1.0, excess / rest)
    return shares


def unit_loss(u: Unit, share: float, chance: Chance) -> int:
    """Strength points lost: men, or share/10 vehicles or guns, randomly rounded (§7.3, EX-2)."""
    if share <= 0:
        return 0
    return min(u.strength, chance.roundavg(share / u.per_point))


# --------------------------------------------------------------------------- §9 morale


def check_probability(loss: int, strength_before: int, per_point: int, r: Rules) -> float:
    """Probability that a unit which lost ``loss`` of its ``strength_before`` points checks.

    ``morale.inferred.check_trigger`` (§16.2, superseding §9.3): the default
    ``loss_over_loss_plus_base`` is L / (L + max(25, S / 10)) with L and S in men-equivalents;
    ``cwb_25`` is L / (L + 25); ``any_loss`` (revision 1) checks after any loss; ``always``
    checks every unit; a number f checks the units that lost at least that fraction.
    """
    trigger = r["morale.inferred.check_trigger"]
    if trigger == "always":
        return 1.0
    if loss <= 0:
        return 0.0
    if trigger == "any_loss":
        return 1.0
    if not isinstance(trigger, str):
        return 1.0 if loss / strength_before >= float(trigger) else 0.0
    lost = float(loss * per_point)
    base = 25.0
    if trigger == "loss_over_loss_plus_base":
        base = max(
            r.number("morale.inferred.check_base_min"),
            strength_before * per_point / r.number("morale.inferred.check_base_divisor"),
        )
    return lost / (lost + base)


def failed_state(u: Unit, r: Rules) -> State:
    """State after a failed check: Disrupted, or Broken if already Disrupted (§9.2)."""
    if u.state is State.NORMAL:
        return State.DISRUPTED
    if u.state is State.DISRUPTED and (
        u.fatigue >= 300 or not r.flag("morale.inferred.broken_requires_max_fatigue")
    ):
        return State.BROKEN
    return u.state


def morale_check(
    u: Unit, loss: int, strength_before: int, r: Rules, chance: Chance
) -> MoraleCheck | None:
    """Whether ``u`` (after its loss) checks, then one d6 against its morale (§9, §16.2).

    A check that is neither certain nor impossible costs one draw before the die; a unit that
    does not check returns None.  Pass if roll <= morale; No Morale always fails.
    """
    p = check_probability(loss, strength_before, u.per_point, r)
    if u.strength <= 0 or p <= 0 or (p < 1 and not chance.chance(p)):
        return None
    morale = u.morale()
    roll = chance.die(6, morale)
    passed = morale > 0 and roll <= morale
    return MoraleCheck(morale, roll, passed, u.state if passed else failed_state(u, r), p)


def worsened(before: State, check: MoraleCheck | None) -> bool:
    return check is not None and check.state_after is not before


# --------------------------------------------------------------------------- §10 outcome


@dataclass(frozen=True)
class SideState:
    """What the success test reads of one side after the morale checks (§10.1, §16.3).

    A side's state is the :meth:`join` of its units' states (:func:`unit_state`), so the
    exact enumerator can fold it one unit at a time as the resolver does.
    """

    survivors: bool = False  # some unit is left
    steady: bool = False  # some survivor is neither Disrupted nor Broken
    worsened: bool = False  # a check of this assault made some unit Disrupted or Broken
    failed_check: bool = False  # some unit failed its check

    def join(self, other: SideState) -> SideState:
        return SideState(
            self.survivors or other.survivors,
            self.steady or other.steady,
            self.worsened or other.worsened,
            self.failed_check or other.failed_check,
        )


def unit_state(before: Unit, after: Unit, check: MoraleCheck | None) -> SideState:
    """One unit's contribution to its side's :class:`SideState`."""
    alive = after.strength > 0
    return SideState(
        survivors=alive,
        steady=alive and after.state is State.NORMAL,
        worsened=worsened(before.state, check),
        failed_check=check is not None and not check.passed,
    )


IntOrArray = TypeVar("IntOrArray", int, "npt.NDArray[np.int64]")


def outlost_threshold(
    defender_loss: IntOrArray, defender_strength: int, attacker_strength: int, r: Rules
) -> IntOrArray:
    """The largest attackers' loss below the defenders' ``defender_loss`` (§16.3 3b).

    ``unknowns.outcome.loss_compare``: ``absolute`` compares men-equivalents lost, ``fraction``
    the losses as fractions of each side's strength before the assault (men-equivalents).
    Works elementwise on numpy arrays, which is how the exact enumerator asks.
    """
    if r.text("unknowns.outcome.loss_compare") == "fraction":
        return (defender_loss * attacker_strength - 1) // defender_strength
    return defender_loss - 1


def defenders_outlost(
    defender_loss: int, attacker_loss: int, defender_strength: int, attacker_strength: int, r: Rules
) -> bool:
    """Whether the defenders lost more than the attackers in this assault (§16.3 3b)."""
    return attacker_loss <= outlost_threshold(
        defender_loss, defender_strength, attacker_strength, r
    )


@dataclass(frozen=True)
class Verdict:
    success: bool
    reason: str


def decide(attackers: SideState, defenders: SideState, outlost: bool, r: Rules) -> Verdict:
    """The success test: §16.3 by default, the superseded §10.1 readings by name.

    ``unknowns.outcome.success_rule``: ``defender_broken_or_outlost`` (§16.3), ``morale_only``
    (§16.3 without clause 3b), ``attacker_not_disrupted`` and
    ``attacker_not_disrupted_and_defender_failed`` (revision 1, §10.1).
    """
    if not defenders.survivors:
        return Verdict(True, "every defender was eliminated")
    rule = r.text("unknowns.outcome.success_rule")
    if rule.startswith("attacker_not_disrupted"):
        if not attackers.survivors:
            return Verdict(False, "every attacker was eliminated")
        if attackers.worsened:
            return Verdict(False, "an attacker was disrupted or broken by its morale check")
        if rule == "attacker_not_disrupted_and_defender_failed" and not defenders.failed_check:
            return Verdict(False, "no defender failed its morale check")
        return Verdict(True, "no attacker was disrupted or broken")
    if not attackers.survivors:
        return Verdict(False, "every attacker was eliminated")
    if not attackers.steady:
        return Verdict(False, "every surviving attacker is disrupted or broken")
    if not defenders.steady:
        return Verdict(True, "every surviving defender is disrupted or broken")
    if rule == "defender_broken_or_outlost" and outlost:
        return Verdict(True, "the defenders lost more than the attackers")
    if rule == "defender_broken_or_outlost":
        return Verdict(False, "the defenders held and did not lose more than the attackers")
    return Verdict(False, "the defenders held: some survivor is neither disrupted nor broken")


def assault_succeeds(attackers: SideState, defenders: SideState, outlost: bool, r: Rules) -> bool:
    return decide(attackers, defenders, outlost, r).success


def _is_fanatical(u: Unit, r: Rules) -> bool:
    return u.nation.casefold() in r.fanatical_nations()


def retreat_candidates(plan: AssaultPlan, u: Unit, placed: Mapping[Hex, int]) -> list[Hex]:
    """Legal retreat hexes for ``u`` (§10.2), best preference class only.

    The plan's :attr:`~bellum.panzer.assault.AssaultPlan.retreats` within the stacking maximum
    (counting the men-equivalents ``placed`` there by earlier retreats); hexes outside enemy
    zones of control first when ``unknowns.retreat.avoid_enemy_zoc``.
    """
    s = plan.scenario
    room = s.params.stacking_maximum - u.equivalent
    legal = [r for r in plan.retreats if r.stacked + placed.get(r.hex, 0) <= room]
    if s.rules.flag("unknowns.retreat.avoid_enemy_zoc"):
        legal = [r for r in legal if not r.in_enemy_zoc] or legal
    return [r.hex for r in legal]


def defender_fate(plan: AssaultPlan, u: Unit, placed: Mapping[Hex, int], chance: Chance) -> Fate:
    """Retreat, surrender or hold for one surviving defender of a won assault (§10.2-10.5).

    ``placed`` holds the men-equivalents already retreated into each hex by earlier units.
    """
    r = plan.scenario.rules
    fanatical = _is_fanatical(u, r)
    terrain = plan.scenario.battlefield.terrain_of(plan.breakdown.target)
    if fanatical and any(t in ("bunker", "pillbox") for t in terrain):
        return Fate(
            "held", None, 0, u.state, "fanatical unit never leaves a bunker or pillbox (§10.5)"
        )
    options = retreat_candidates(plan, u, placed)
    if options:
        dest = options[0] if len(options) == 1 else options[chance.pick([1.0] * len(options))]
        state = u.state
        if state is State.NORMAL and r.flag("unknowns.retreat.disrupt_on_retreat"):
            state = State.DISRUPTED
        return Fate("retreated", dest, 0, state, f"retreats to {dest} (§10.2)")
    if fanatical:
        return Fate("held", None, 0, u.state, "no retreat; fanatical units never surrender (§10.5)")
    if u.state is State.BROKEN and r.flag("optional_rules.optional_surrender"):
        why = "Broken with no retreat: Optional Surrender eliminates it (§10.4)"
        return Fate("surrendered", None, u.strength, u.state, why)
    extra = min(
        u.strength,
        chance.roundavg(r.number("unknowns.retreat.surrender_loss_fraction") * u.strength),
    )
    return Fate(
        "surrendered",
        None,
        extra,
        u.state,
        f"no retreat: surrenders {extra} of {u.strength} (§10.3)",
    )


def outcome_of(success: bool, kinds: Collection[str]) -> str:
    """One word for the assault's outcome (see :data:`OUTCOMES`) from the defenders' fates."""
    if not success:
        return "failed"
    if not kinds:
        return "eliminated"
    if "surrendered" in kinds:
        return "surrendered"
    return "held" if "held" in kinds else "retreated"


# --------------------------------------------------------------------------- §8 fatigue


def fatigue_gain(u: Unit, loss: int, loser: bool, r: Rules, chance: Chance) -> int:
    """Fatigue from assault losses (§8, UNKNOWN -> DEFAULT, sister-engine shape)."""
    if loss <= 0:
        return 0
    x = chance.uniform(loss, 3 * loss)
    x *= r.number(f"unknowns.fatigue.size_factor.{u.size}") * r.number(
        "unknowns.fatigue.assault_multiplier"
    )
    if loser:
        x *= r.number("unknowns.fatigue.loser_multiplier")
    return math.floor(x + 0.5)


# --------------------------------------------------------------------------- the resolver


Units = dict[str, Unit]


def _apply_losses(
    plan: AssaultPlan, sides: Sequence[tuple[Sequence[Unit], SideLoss]], chance: Chance
) -> tuple[dict[str, float], dict[str, int], Units]:
    """§7.3: each side's loss spread over its units, defenders first."""
    r = plan.scenario.rules
    shares: dict[str, float] = {}
    losses: dict[str, int] = {}
    for units, side_loss in sides:
        for u, share in zip(units, loss_shares(side_loss.loss, units, r, chance), strict=True):
            shares[u.id] = share
            losses[u.id] = unit_loss(u, share, chance)
    after = {u.id: u.replace(strength=u.strength - losses[u.id]) for u, _ in _all(plan)}
    return shares, losses, after


def _all(plan: AssaultPlan) -> list[tuple[Unit, bool]]:
    """Every participant with whether it attacks, defenders first (the draw order)."""
    return [(u, False) for u in plan.defenders] + [(u, True) for u in plan.attackers]


def _morale_checks(
    plan: AssaultPlan, losses: Mapping[str, int], after: Units, chance: Chance
) -> dict[str, MoraleCheck | None]:
    """§9: every unit that lost strength checks once, defenders first."""
    checks: dict[str, MoraleCheck | None] = {}
    for u, _ in _all(plan):
        check = checks[u.id] = morale_check(
            after[u.id], losses[u.id], u.strength, plan.scenario.rules, chance
        )
        if check is not None:
            after[u.id] = after[u.id].replace(state=check.state_after)
    return checks


def _verdict(
    plan: AssaultPlan,
    losses: Mapping[str, int],
    after: Units,
    checks: Mapping[str, MoraleCheck | None],
) -> Verdict:
    """The success test on both sides' states and combat losses (§16.3)."""
    state: dict[bool, SideState] = {}
    lost: dict[bool, int] = {}
    strength: dict[bool, int] = {}
    for attacker, units in ((True, plan.attackers), (False, plan.defenders)):
        state[attacker] = reduce(
            SideState.join, (unit_state(u, after[u.id], checks[u.id]) for u in units), SideState()
        )
        lost[attacker] = sum(losses[u.id] * u.per_point for u in units)
        strength[attacker] = sum(u.equivalent for u in units)
    r = plan.scenario.rules
    outlost = defenders_outlost(lost[False], lost[True], strength[False], strength[True], r)
    return decide(state[True], state[False], outlost, r)


def _defender_fates(
    plan: AssaultPlan, survivors: Sequence[Unit], after: Units, chance: Chance
) -> dict[str, Fate]:
    """§10.2-10.5: after a success, each surviving defender retreats, surrenders or holds."""
    fates: dict[str, Fate] = {}
    placed: dict[Hex, int] = {}
    for u in survivors:
        f = fates[u.id] = defender_fate(plan, u, placed, chance)
        if f.destination is not None:
            placed[f.destination] = placed.get(f.destination, 0) + u.equivalent
        after[u.id] = u.replace(
            strength=u.strength - f.extra_loss, state=f.state_after, hex=f.destination or u.hex
        )
    return fates


def _advance(plan: AssaultPlan, after: Units) -> set[str]:
    """§10.6: surviving, non-Disrupted attackers enter the emptied hex up to the stacking limit."""
    r, target = plan.scenario.rules, plan.breakdown.target
    room = plan.scenario.params.stacking_maximum
    advanced: set[str] = set()
    for u in plan.attackers:
        a = after[u.id]
        if a.strength <= 0 or a.state is not State.NORMAL:
            continue
        if r.flag("unknowns.advance.respect_stacking_maximum") and a.equivalent > room:
            continue
        room -= a.equivalent
        advanced.add(u.id)
        after[u.id] = a.replace(hex=target)
    return advanced


def _fatigue(
    plan: AssaultPlan, success: bool, losses: Mapping[str, int], after: Units, chance: Chance
) -> dict[str, int]:
    """§8: fatigue from this assault's losses (defenders first), then §10.6 movement spent."""
    r = plan.scenario.rules
    cap = int(r.number("unknowns.fatigue.cap"))
    gains: dict[str, int] = {}
    for u, attacker in _all(plan):
        a = after[u.id]
        loser = attacker is not success
        gain = fatigue_gain(a, losses[u.id], loser, r, chance) if a.strength > 0 else 0
        fatigue = max(a.fatigue, min(cap, a.fatigue + gain))
        gains[u.id] = fatigue - a.fatigue  # what the cap let through
        after[u.id] = a.replace(fatigue=fatigue)
    spent = r.number("unknowns.advance.attackers_movement_after")
    for u in plan.attackers:
        if after[u.id].movement_left is not None:
            after[u.id] = after[u.id].replace(movement_left=spent)
    return gains


def resolve_plan(plan: AssaultPlan, rng: ServerRandom) -> AssaultResult:
    """Resolve a checked assault with the given seeded source (spec §14), step by step."""
    s, r, bd = plan.scenario, plan.scenario.rules, plan.breakdown
    start = rng.draws
    chance = DiceChance(rng)
    to_def = draw_side_loss(bd.against_defenders, plan.defenders, r, chance)  # §6, §7.1
    to_att = draw_side_loss(bd.against_attackers, plan.attackers, r, chance)
    shares, losses, after = _apply_losses(
        plan, ((plan.defenders, to_def), (plan.attackers, to_att)), chance
    )
    checks = _morale_checks(plan, losses, after, chance)
    verdict = _verdict(plan, losses, after, checks)  # §10.1, §16.3
    success = verdict.success
    live_def = [after[u.id] for u in plan.defenders if after[u.id].strength > 0]
    fates = _defender_fates(plan, live_def, after, chance) if success else {}
    hex_taken = success and not any(
        after[u.id].strength > 0 and after[u.id].hex == bd.target for u in plan.defenders
    )
    advanced = _advance(plan, after) if hex_taken else set()
    gains = _fatigue(plan, success, losses, after, chance)
    outcomes = tuple(
        UnitOutcome(
            unit_id=u.id,
            side=u.side,
            attacker=attacker,
            strength_before=u.strength,
            share=shares[u.id],
            loss=losses[u.id],
            morale=checks[u.id],
            fate=fates.get(u.id),
            advanced=u.id in advanced,
            fatigue_gain=gains[u.id],
            unit_after=after[u.id] if after[u.id].strength > 0 else None,
            per_point=u.per_point,
            kind=u.kind,
        )
        for u, attacker in _all(plan)
    )
    new_units = tuple(after.get(u.id, u) for u in s.units if after.get(u.id, u).strength > 0)
    return AssaultResult(
        seed=rng.seed,
        breakdown=bd,
        losses_to_defenders=to_def,
        losses_to_attackers=to_att,
        units=outcomes,
        success=success,
        reason=verdict.reason,
        outcome=outcome_of(success, {f.kind for f in fates.values()}),
        hex_taken=hex_taken,
        scenario=s.replace(units=new_units, assault=None),
        draws=rng.draws - start,
    )


def resolve_assault(
    scenario: Scenario,
    *,
    seed: int | None = None,
    target: Hex | None = None,
    units: Sequence[str] | None = None,
) -> AssaultResult:
    """Resolve the scenario's assault (or ``target``/``units``) with one seeded source.

    Without ``seed`` a fresh one is chosen; the result carries it for replay.
    """
    plan = plan_assault(scenario, target, units)
    return resolve_plan(plan, ServerRandom(new_seed() if seed is None else seed))
