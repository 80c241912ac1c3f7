"""The random half of an assault: combat results, losses, morale, outcome, retreat, advance.

Each step is a small function taking a :class:`~bellum.panzer.chance.Chance`; the resolver
calls them with seeded dice in the project's fixed draw order (spec §7.1: defenders' loss
range and rounding, attackers' likewise, per-unit losses D then A, morale D then A, then
retreat and surrender, then fatigue), and :mod:`bellum.panzer.distribution` calls the same
functions with an enumerator to get the exact outcome distribution.
"""

from __future__ import annotations

import math
from collections.abc import Collection, Mapping, Sequence
from dataclasses import dataclass

from bellum.dice import ServerRandom, new_seed
from bellum.panzer.assault import AssaultBreakdown, AssaultPlan, CombatRange, plan_assault
from bellum.panzer.battlefield import Hex
from bellum.panzer.chance import Chance, DiceChance
from bellum.panzer.rules import Rules
from bellum.panzer.scenario import Scenario
from bellum.panzer.units import State, Unit

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


@dataclass(frozen=True)
class MoraleCheck:
    morale: int
    roll: int
    passed: bool
    state_after: State


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


def must_check(loss: int, strength_before: int, r: Rules) -> bool:
    """Who checks morale (§9.3, UNKNOWN -> DEFAULT: any unit that lost strength)."""
    trigger = r["morale.inferred.check_trigger"]
    if trigger == "always":
        return True
    if trigger == "any_loss":
        return loss > 0
    return loss > 0 and loss / strength_before >= float(trigger)


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
    """One d6 against the morale value; pass if roll <= morale, No Morale always fails (§9)."""
    if u.strength <= 0 or not must_check(loss, strength_before, r):
        return None
    morale = u.morale()
    roll = chance.die(6, morale)
    passed = morale > 0 and roll <= morale
    return MoraleCheck(morale, roll, passed, u.state if passed else failed_state(u, r))


def worsened(before: State, check: MoraleCheck | None) -> bool:
    return check is not None and check.state_after is not before


# --------------------------------------------------------------------------- §10 outcome


def assault_succeeds(
    defenders_left: bool,
    attackers_left: bool,
    attacker_worsened: bool,
    defender_failed: bool,
    r: Rules,
) -> bool:
    """§10.1 (INFERRED): all defenders gone wins; an attacker newly Disrupted/Broken loses."""
    if not defenders_left:
        return True
    if not attackers_left or attacker_worsened:
        return False
    if r.text("unknowns.outcome.success_rule") == "attacker_not_disrupted_and_defender_failed":
        return defender_failed
    return True


def _is_fanatical(u: Unit, r: Rules) -> bool:
    return u.nation.casefold() in r.fanatical_nations()


def retreat_candidates(plan: AssaultPlan, u: Unit, placed: Mapping[Hex, int]) -> list[Hex]:
    """Legal retreat hexes for ``u`` (§10.2), best preference class only."""
    s, target = plan.scenario, plan.breakdown.target
    enemies = [v for v in s.units if v.side != u.side]
    enemy_hexes = {v.hex for v in enemies}
    legal = []
    for h in s.battlefield.neighbors_on_map(target):
        if h in enemy_hexes or not s.battlefield.crossable(target, h, s.params):
            continue
        if any(h.distance(a) <= 1 for a in plan.breakdown.attack_hexes):
            continue
        stacked = sum(v.equivalent for v in s.units_at(h)) + placed.get(h, 0)
        if stacked + u.equivalent > s.params.stacking_maximum:
            continue
        legal.append(h)
    if s.rules.flag("unknowns.retreat.avoid_enemy_zoc"):
        free = [h for h in legal if not any(h.adjacent(e) for e in enemy_hexes)]
        legal = free or legal
    return legal


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
    live_def = [after[u.id] for u in plan.defenders if after[u.id].strength > 0]
    success = assault_succeeds(  # §10.1
        bool(live_def),
        any(after[u.id].strength > 0 for u in plan.attackers),
        any(worsened(u.state, checks[u.id]) for u in plan.attackers),
        any(c is not None and not c.passed for u in plan.defenders if (c := checks[u.id])),
        r,
    )
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
