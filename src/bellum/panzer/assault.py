"""The seed's assault formula, step by step (spec §1, §3-§7).

:func:`plan_assault` checks who may assault (§1.1) and computes every number the seed
names, returning an :class:`AssaultBreakdown` that carries each modifier with its reason.
Nothing here is random: the two combat results are drawn in :mod:`bellum.panzer.results`.
"""

from __future__ import annotations

import math
from collections.abc import Sequence
from dataclasses import dataclass

from bellum.errors import CommandError
from bellum.panzer.battlefield import Hex
from bellum.panzer.rules import Rules
from bellum.panzer.scenario import Scenario
from bellum.panzer.units import MEN_PER_VEHICLE, Kind, Mode, State, Unit

# --------------------------------------------------------------------------- result types


@dataclass(frozen=True)
class Modifier:
    """One percentage applied to a side's total assault value, with why."""

    name: str
    pct: float
    reason: str


@dataclass(frozen=True)
class UnitTerm:
    """A unit's share of its side's totals (§3.1, §3.2)."""

    unit_id: str
    equivalent: int
    assault_value: float
    assault_note: str
    penalised_vehicles: float  # vehicles attacking at half strength (§4.4)
    vehicle_note: str  # why men count as vehicles (mot/mech infantry in Travel Mode), or ""
    assault_total: float
    defense_value: float
    defense_note: str
    defense_weight: float
    unit_modifier_pct: float


@dataclass(frozen=True)
class CombinedArmsHex:
    hex: Hex
    vehicles: float
    infantry: int
    support: float
    exempt: bool
    unsupported: float
    penalised: float


@dataclass(frozen=True)
class CombinedArms:
    """The combined-arms penalty (§4.4): how many vehicles attack at half strength, and why."""

    applies: bool
    reason: str
    defending_infantry: int = 0
    supporting_infantry: float = 0.0
    deficit: float = 0.0
    required: int = 0
    penalised: float = 0.0
    hexes: tuple[CombinedArmsHex, ...] = ()
    per_unit: tuple[tuple[str, float], ...] = ()


@dataclass(frozen=True)
class SideTotals:
    """A side's assault total, average defense and modified assault value (§3, §5)."""

    side: str
    units: tuple[UnitTerm, ...]
    total_assault: float
    average_defense: float
    modifiers: tuple[Modifier, ...]
    factor: float
    modified_assault: float


@dataclass(frozen=True)
class LossPair:
    """A Parameter Data pair of combat losses per reference combat value (§7.1, §16.1)."""

    name: str  # the Parameter Data keys are name_low and name_high
    low: float
    high: float


@dataclass(frozen=True)
class CombatRange:
    """One combat result's range (§6, §7.1): losses to ``losing_side``."""

    losing_side: str
    assault: float
    defense: float
    combat_value: float
    low: float
    high: float
    pair: LossPair


@dataclass(frozen=True)
class AssaultBreakdown:
    target: Hex
    attack_hexes: tuple[Hex, ...]
    attackers: SideTotals
    defenders: SideTotals
    combined_arms: CombinedArms
    against_defenders: CombatRange
    against_attackers: CombatRange
    hard_share: tuple[float, float] | None
    reference_combat_value: float

    @property
    def odds(self) -> float:
        """Attackers' modified assault over the defenders' (inf when the defenders have none)."""
        a, d = self.attackers.modified_assault, self.defenders.modified_assault
        return a / d if d > 0 else (math.inf if a > 0 else math.nan)


def odds_text(ratio: float, sep: str = " : ") -> str:
    """Odds as a player says them: ``3.2 : 1``, ``1 : 2.5``, ``12 : 1``."""

    def number(x: float) -> str:
        return f"{x:.1f}" if x < 9.95 else f"{x:,.0f}"

    if math.isnan(ratio):
        return f"0{sep}0"
    if math.isinf(ratio):
        return f"\u221e{sep}1"
    if ratio <= 0:
        return f"0{sep}1"
    return f"{number(ratio)}{sep}1" if ratio >= 1 else f"1{sep}{number(1 / ratio)}"


@dataclass(frozen=True)
class RetreatHex:
    """A hex the defenders could retreat into if they lose (§10.2), before stacking."""

    hex: Hex
    stacked: int  # men-equivalents already in it
    in_enemy_zoc: bool  # adjacent to an enemy unit (positions before the assault)


@dataclass(frozen=True)
class AssaultPlan:
    """The participants, frozen before any die is rolled, and the breakdown of the numbers."""

    scenario: Scenario
    attackers: tuple[Unit, ...]
    defenders: tuple[Unit, ...]
    breakdown: AssaultBreakdown
    retreats: tuple[RetreatHex, ...]


def retreat_hexes(
    s: Scenario, target: Hex, attack_hexes: Sequence[Hex], side: str
) -> tuple[RetreatHex, ...]:
    """Neighbours of ``target`` the defenders of ``side`` may retreat into (§10.2, DEFAULT).

    On the map, free of enemy units, crossable, and at distance 2 or more from every attack
    hex.  Only stacking depends on the retreating unit; it is checked when one retreats.
    """
    enemy_hexes = {v.hex for v in s.units if v.side != side}
    return tuple(
        RetreatHex(
            h,
            sum(v.equivalent for v in s.units_at(h)),
            any(h.adjacent(e) for e in enemy_hexes),
        )
        for h in s.battlefield.neighbors_on_map(target)
        if h not in enemy_hexes
        and s.battlefield.crossable(target, h, s.params)
        and all(h.distance(a) > 1 for a in attack_hexes)
    )


# --------------------------------------------------------------------------- §1.1 eligibility


def _entry_cost(s: Scenario, u: Unit, target: Hex) -> float:
    """Movement points to enter ``target`` from the unit's hex (§1.1 item 9, INFERRED)."""
    p = s.params
    terrain = max(
        p.movement_cost.get(t, p.default_movement_cost) for t in s.battlefield.terrain_of(target)
    )
    sides = sum(
        p.hexside_movement_cost.get(f, 0.0) for f in s.battlefield.hexside_features(u.hex, target)
    )
    return terrain + sides


def refusal(s: Scenario, u: Unit, target: Hex) -> str | None:
    """Why ``u`` may not assault ``target`` (§1.1), or None when it may."""
    r = s.rules
    checks: Sequence[tuple[bool, str]] = (
        (not u.hex.adjacent(target),
         f"is at {u.hex}, not adjacent to the target hex {target} (§1.1.9)"),
        (u.hq, "is a headquarters; HQs cannot assault (§1.1.4)"),
        (u.state is State.BROKEN, "is Broken; Broken units cannot assault (§1.1.2)"),
        (u.state is State.DISRUPTED and not r.flag("unknowns.attackers.allow_disrupted"),
         "is Disrupted (§1.1.3, rule unknowns.attackers.allow_disrupted)"),
        (u.mode is Mode.RAIL, "is in Rail Mode (§1.1.5)"),
        (u.towed and not r.flag("unknowns.attackers.allow_towed_guns"),
         "is a towed gun that only moves in Travel Mode (§1.1.8)"),
        ((u.fixed or u.digging_in or u.building_bridge)
         and not r.flag("unknowns.attackers.allow_fixed_or_digging_in"),
         "is Fixed, Digging-In or building a bridge (§1.1.6)"),
        (u.fatigue >= 300 and not r.flag("unknowns.attackers.allow_max_fatigue"),
         "is at Maximum Fatigue (§1.1.7)"),
        (u.assault <= 0 and r.flag("unknowns.attackers.require_positive_assault"),
         "has assault value 0 (§1.1.1)"),
        (not s.battlefield.crossable(u.hex, target, s.params),
         f"cannot cross the {'/'.join(s.battlefield.hexside_features(u.hex, target))} hexside "
         f"{u.hex}|{target} (§1.1.9)"),
    )  # fmt: skip
    for failed, why in checks:
        if failed:
            return why
    if r.text("unknowns.attackers.cost_model") == "enter_hex" and u.movement_left is not None:
        cost = _entry_cost(s, u, target)
        fresh = u.movement_allowance is not None and u.movement_left >= u.movement_allowance
        minimum_move = fresh and r.flag("unknowns.attackers.full_allowance_minimum_move")
        if u.movement_left < cost and not minimum_move:
            return (f"has {u.movement_left:g} movement points left, entering {target} costs "
                    f"{cost:g} (§1.1.9)")  # fmt: skip
    return None


def _participants(
    s: Scenario, target: Hex, ids: Sequence[str]
) -> tuple[tuple[Unit, ...], tuple[Unit, ...]]:
    where = s.source
    if not s.battlefield.on_map(target):
        raise CommandError(f"{where}: target hex {target} is off the map")
    if not ids:
        raise CommandError(f"{where}: an assault needs at least one assaulting unit")
    attackers: list[Unit] = []
    for uid in ids:
        try:
            u = s.unit(uid)
        except KeyError:
            raise CommandError(f"{where}: assaulting unit {uid!r} does not exist") from None
        if u in attackers:
            raise CommandError(f"{where}: unit {u.label} is listed twice in the assault")
        attackers.append(u)
    side = attackers[0].side
    for u in attackers:
        if u.side != side:
            raise CommandError(
                f"{where}: unit {u.label} is on side {u.side}, not {side}; one side assaults"
            )
    occupants = s.units_at(target)
    if not occupants:
        raise CommandError(f"{where}: target hex {target} holds no units to assault")
    if any(u.side == side for u in occupants):
        raise CommandError(
            f"{where}: target hex {target} holds units of the assaulting side {side}"
        )
    for u in attackers:
        why = refusal(s, u, target)
        if why is not None:
            raise CommandError(f"{where}: unit {u.label} may not assault hex {target}: {why}")
    if s.rules.flag("unknowns.attackers.limit_participants_by_stacking"):
        total = sum(u.equivalent for u in attackers)
        if total > s.params.stacking_maximum:
            raise CommandError(
                f"{where}: assaulting {total} men-equivalents exceed the stacking maximum "
                f"{s.params.stacking_maximum:g} "
                "(rule unknowns.attackers.limit_participants_by_stacking)"
            )
    return tuple(attackers), occupants


# --------------------------------------------------------------------------- §3 unit terms


def hard_share(opponents: Sequence[Unit]) -> float:
    """h: the opponents' share of equivalent strength that is hard targets (§3.3, EX-6)."""
    total = sum(v.equivalent for v in opponents)
    return sum(v.equivalent for v in opponents if v.is_hard_target) / total if total else 0.0


def _assault_value(
    s: Scenario, u: Unit, h: float | None, attacking: bool, target: Hex
) -> tuple[float, str]:
    """Assault value per equivalent strength point, with §3.3 blending and the §4.7 hooks
    (values from §16.4: each is a factor on one unit's assault value)."""
    r = s.rules
    notes: list[str] = []
    value = u.assault
    if h is not None:
        value = (1 - h) * u.assault + h * u.hard_attack
        notes.append(
            f"alternative resolution: {1 - h:.3g} x {u.assault:g} + {h:.3g} x {u.hard_attack:g}"
        )
    defending = not attacking
    factors = (
        (u.cavalry, "unknowns.effects.cavalry_assault_mult", "cavalry"),
        (attacking and u.demolition and s.battlefield.is_fortified(target),
         "unknowns.effects.demolition_vs_fortification_mult", "demolition vs fortification"),
        (u.state is State.DISRUPTED, "unknowns.effects.disrupted_assault_mult", "disrupted"),
        (defending and u.state is State.BROKEN, "unknowns.effects.broken_assault_mult", "broken"),
        (defending and u.low_ammo, "unknowns.effects.low_ammo_assault_mult", "low on ammo"),
        (attacking and u.low_ammo, "unknowns.effects.low_ammo_attacker_assault_mult",
         "low on ammo"),
        (defending and u.digging_in, "unknowns.effects.digging_in_defender_assault_mult",
         "digging in"),
        (attacking and u.mode is Mode.TRAVEL, "unknowns.effects.travel_mode_attacker_assault_mult",
         "travel mode"),
        (defending and u.mode in (Mode.TRAVEL, Mode.RAIL),
         "unknowns.effects.travel_or_rail_mode_defender_assault_mult", f"{u.mode.value} mode"),
        (s.night, "unknowns.effects.night_assault_mult", "night"),
    )  # fmt: skip
    for applies, key, label in factors:
        mult = r.number(key)
        if applies and mult != 1.0:
            value *= mult
            notes.append(f"{label} x{mult:g} ({key})")
    return value, "; ".join(notes)


def _defense_value(s: Scenario, u: Unit, attacking: bool, target: Hex) -> tuple[float, str]:
    """Defense value: Infantry Defense for Deployed mot/mech (§2), bocage (§4.6), §4.7 hook."""
    value, notes = u.defense, []
    if u.motorized_infantry and u.mode is Mode.DEPLOYED:
        value = s.params.infantry_defense
        notes.append(f"deployed mot/mech infantry uses Parameter Data Infantry Defense {value:g}")
    if attacking and u.counts_as_vehicle and s.battlefield.is_bocage(target):
        value /= 2
        notes.append("halved: vehicles assaulting into bocage (§4.6)")
    mult = s.rules.number("unknowns.effects.fortification_defense_mult")
    if not attacking and mult != 1.0 and s.battlefield.is_fortified(target):
        value *= mult
        notes.append(f"fortified hex x{mult:g}")
    return value, "; ".join(notes)


# --------------------------------------------------------------------------- §4.4 combined arms


def _vehicle_count(u: Unit, r: Rules) -> float:
    """Vehicles a unit brings to the combined-arms count (§4.4)."""
    if u.kind is Kind.VEHICLE:
        return float(u.strength)
    if (
        u.motorized_in_travel
        and r.text("unknowns.combined_arms.motorized_travel_mode_vehicles") == "strength_div_10"
    ):
        return u.strength / 10
    return 0.0


def _is_defending_infantry(u: Unit, r: Rules) -> bool:
    if r.text("unknowns.combined_arms.defending_infantry") == "all_personnel":
        return u.kind is Kind.PERSONNEL
    return u.is_infantry


def combined_arms(
    s: Scenario, attackers: Sequence[Unit], defenders: Sequence[Unit], target: Hex
) -> CombinedArms:
    """Vehicles without enough infantry support attack at half strength (seed; §4.4)."""
    r = s.rules
    if s.battlefield.is_clear(target):
        return CombinedArms(False, f"target hex {target} is Clear")
    if not any(_vehicle_count(u, r) > 0 for u in attackers):
        return CombinedArms(False, "no assaulting unit counts as vehicles")
    di = sum(u.strength for u in defenders if _is_defending_infantry(u, r))
    hexes = sorted({u.hex for u in attackers})
    veh = {h: sum(_vehicle_count(u, r) for u in attackers if u.hex == h) for h in hexes}
    inf = {h: sum(u.strength for u in attackers if u.hex == h and u.is_infantry) for h in hexes}
    sup = {h: min(float(inf[h]), 10 * veh[h]) for h in hexes}
    support = sum(sup.values())
    if support >= di:
        rows = tuple(CombinedArmsHex(h, veh[h], inf[h], sup[h], False, 0.0, 0.0) for h in hexes)
        why = f"supporting infantry {support:g} >= defending infantry {di}"
        return CombinedArms(False, why, di, support, hexes=rows)
    deficit = di - support
    required = math.ceil(deficit / 10)
    exempt = {h: inf[h] > 10 * veh[h] for h in hexes}
    unsupported = {h: 0.0 if exempt[h] else max(0.0, veh[h] - inf[h] // 10) for h in hexes}
    pool = sum(unsupported.values())
    penalised_total = min(float(required), pool)
    per_hex = _allocate_penalty(penalised_total, hexes, unsupported, inf, veh, r)
    per_unit: list[tuple[str, float]] = []
    for h in hexes:
        if per_hex[h] <= 0:
            continue
        for u in attackers:
            if u.hex == h and _vehicle_count(u, r) > 0:
                per_unit.append((u.id, per_hex[h] * _vehicle_count(u, r) / veh[h]))
    rows = tuple(
        CombinedArmsHex(h, veh[h], inf[h], sup[h], exempt[h], unsupported[h], per_hex[h])
        for h in hexes
    )
    reason = (
        f"defending infantry {di} exceeds supporting infantry {support:g} by {deficit:g}: "
        f"one vehicle per 10 men or fraction -> {required}; {pool:g} unsupported vehicles "
        f"-> {penalised_total:g} attack at half strength"
    )
    for h in hexes:
        if exempt[h] and veh[h] > 0:
            reason += f"; hex {h} exempt ({inf[h]} infantry > 10 x {veh[h]:g} vehicles)"
    return CombinedArms(
        True, reason, di, support, deficit, required, penalised_total, rows, tuple(per_unit)
    )


def _allocate_penalty(
    total: float,
    hexes: Sequence[Hex],
    unsupported: dict[Hex, float],
    inf: dict[Hex, int],
    veh: dict[Hex, float],
    r: Rules,
) -> dict[Hex, float]:
    """Spread the penalised vehicles over the attack hexes (§4.4, UNKNOWN -> DEFAULT)."""
    pool = sum(unsupported.values())
    if pool <= 0:
        return dict.fromkeys(hexes, 0.0)
    if r.text("unknowns.combined_arms.allocation") == "proportional":
        return {h: total * unsupported[h] / pool for h in hexes}
    out = dict.fromkeys(hexes, 0.0)
    left = total
    for h in sorted(hexes, key=lambda h: (inf[h] / veh[h] if veh[h] else math.inf, h)):
        take = min(left, unsupported[h])
        out[h], left = take, left - take
    return out


# --------------------------------------------------------------------------- §4 modifiers


def _protection(value: float, r: Rules) -> float:
    """Stored terrain/hexside value -> protection percent (§4.1 sign convention)."""
    return -value if r.text("unknowns.modifiers.terrain_sign") == "signed" else value


def hexside_modifier(s: Scenario, attack_hexes: Sequence[Hex], target: Hex) -> Modifier:
    """The largest hexside protection between an attack hex and the target (§4.1, EXACT)."""
    p, r = s.params, s.rules
    best, why = 0.0, "no hexside feature between the attack hexes and the target"
    for h in attack_hexes:
        for f in s.battlefield.hexside_features(h, target):
            if f in p.impassable_hexsides:
                bridged_as = r.text("unknowns.modifiers.bridged_major_river_as")
                value = _protection(p.hexside_protection_pct.get(bridged_as, 0.0), r)
            else:
                value = _protection(p.hexside_protection_pct[f], r)
            if value > best:
                best, why = (
                    value,
                    f"{f} on hexside {h}|{target} (largest of {len(attack_hexes)} attack hexsides)",
                )
    return Modifier("hexside", 0.0 - best, why)


def terrain_modifier(s: Scenario, attackers: Sequence[Unit], target: Hex) -> Modifier:
    """Target-hex terrain, only when an attacker counts as vehicles (§4.2, EXACT)."""
    vehicles = [u for u in attackers if u.counts_as_vehicle]
    names = s.battlefield.terrain_of(target)
    if not vehicles:
        return Modifier(
            "terrain", 0.0, f"no attacker counts as vehicles; {'/'.join(names)} not applied"
        )
    values = [_protection(s.params.terrain_protection_pct[t], s.rules) for t in names]
    combine = s.rules.text("unknowns.modifiers.hex_terrain_combine")
    value = sum(values) if combine == "sum" else max(values)
    who = ", ".join(u.id + (" (travel mode)" if u.motorized_in_travel else "") for u in vehicles)
    return Modifier(
        "terrain", 0.0 - value, f"{'/'.join(names)} at {target}; vehicles attacking: {who}"
    )


def unit_modifier(units: Sequence[Unit], lowest: bool, r: Rules) -> Modifier:
    """Lowest attacker / highest defender quality+fatigue modifier (§4.3, EXACT)."""
    scale = r.number("quality.bonus_scale.assault")
    mods = [(u.unit_modifier_pct(scale), u) for u in units]
    pct, u = (min if lowest else max)(mods, key=lambda m: m[0])
    which = "lowest attacker" if lowest else "highest defender"
    reason = (
        f"{which}: {u.label} quality {u.quality} ({u.quality_modifier_pct(scale):+g}%) "
        f"+ fatigue {u.fatigue} ({u.fatigue_modifier_pct():+g}%)"
    )
    return Modifier("unit", pct, reason)


def mixed_organization(attackers: Sequence[Unit], r: Rules) -> Modifier:
    """−20 % when attackers come from different divisions or corps (§4.5)."""
    for i, a in enumerate(attackers):
        fa = a.organization.formation()
        for b in attackers[i + 1 :]:
            fb = b.organization.formation()
            if fa[: len(fb)] != fb and fb[: len(fa)] != fa:
                reason = f"{a.id} ({a.organization.label()}) with {b.id} ({b.organization.label()})"
                return Modifier(
                    "mixed organization", r.number("assault_rules.mixed_org_penalty_pct"), reason
                )
    return Modifier("mixed organization", 0.0, "all attackers belong to one formation")


def combine_factor(modifiers: Sequence[Modifier], r: Rules) -> float:
    """How the modifier percentages act on a total (§5; UNKNOWN -> multiplicative)."""
    floor = r.number("unknowns.modifiers.floor_factor_at")
    if r.text("unknowns.modifiers.combine") == "additive":
        return max(floor, 1 + sum(m.pct for m in modifiers) / 100)
    return math.prod(max(floor, 1 + m.pct / 100) for m in modifiers)


# --------------------------------------------------------------------------- §3, §6, §7.1


def _vehicle_note(u: Unit) -> str:
    if u.kind is Kind.PERSONNEL and u.counts_as_vehicle:
        return (
            f"mot/mech infantry in Travel Mode counts as vehicles (§4.2, §4.4): "
            f"{u.strength} men = {u.strength / MEN_PER_VEHICLE:g} vehicles"
        )
    return ""


def _side(
    s: Scenario,
    units: Sequence[Unit],
    opponents: Sequence[Unit],
    attacking: bool,
    target: Hex,
    penalised: dict[str, float],
    modifiers: Sequence[Modifier],
) -> SideTotals:
    r = s.rules
    h = hard_share(opponents) if r.flag("optional_rules.alternative_assault_resolution") else None
    raw_weight = r.text("unknowns.defense.weight") == "raw"
    scale = r.number("quality.bonus_scale.assault")
    terms = []
    for u in units:
        value, anote = _assault_value(s, u, h, attacking, target)
        pen = penalised.get(u.id, 0.0)
        dvalue, dnote = _defense_value(s, u, attacking, target)
        terms.append(
            UnitTerm(
                unit_id=u.id,
                equivalent=u.equivalent,
                assault_value=value,
                assault_note=anote,
                penalised_vehicles=pen,
                vehicle_note=_vehicle_note(u),
                assault_total=value * (u.equivalent - 0.5 * MEN_PER_VEHICLE * pen),
                defense_value=dvalue,
                defense_note=dnote,
                defense_weight=float(u.strength if raw_weight else u.equivalent),
                unit_modifier_pct=u.unit_modifier_pct(scale),
            )
        )
    total = sum(t.assault_total for t in terms)
    weight = sum(t.defense_weight for t in terms)
    avg = sum(t.defense_value * t.defense_weight for t in terms) / weight if weight else 0.0
    factor = combine_factor(modifiers, r)
    return SideTotals(
        units[0].side, tuple(terms), total, avg, tuple(modifiers), factor, total * factor
    )


def combat_range(
    assault: float,
    defense: float,
    pair: LossPair,
    reference: float,
    losing: str,
    strength: int = 0,
) -> CombatRange:
    """Losses range from the pair's LCV and HCV scaled by combat value / reference (§7.1, EX-1).

    A side whose every unit has defense 0 cannot resist an assault value above 0: its whole
    ``strength`` (men-equivalents) is lost.
    """
    if defense <= 0:
        whole = float(strength) if assault > 0 else 0.0
        cv = math.inf if assault > 0 else 0.0
        return CombatRange(losing, assault, defense, cv, whole, whole, pair)
    cv = assault / defense
    return CombatRange(
        losing, assault, defense, cv, pair.low * cv / reference, pair.high * cv / reference, pair
    )


def loss_pairs(s: Scenario) -> tuple[LossPair, LossPair]:
    """The Parameter Data pairs of the losses to the defenders and to the attackers (§16.1).

    ``combat.assault_pair_for_attacker_losses``: ``attacker`` (default) reads the dialog's
    "Attacker" pair as the losses the assaulting side suffers; ``defender`` is the other
    reading; ``single`` is revision 1's one pair (``assault_low``/``assault_high``) for both.
    """
    p = s.params
    reading = s.rules.text("combat.assault_pair_for_attacker_losses")
    if reading == "single":
        single = LossPair("assault", p.assault_low, p.assault_high)
        return single, single
    attacker = LossPair("assault_attacker", p.assault_attacker_low, p.assault_attacker_high)
    defender = LossPair("assault_defender", p.assault_defender_low, p.assault_defender_high)
    return (attacker, defender) if reading == "defender" else (defender, attacker)


def _no_assault(s: Scenario) -> str:
    """Why a scenario without ``[assault]`` cannot be assaulted, saying what the file is.

    A state written by ``assault --out`` has no ``[assault]`` table on purpose (the assault
    is over); saying so beats a bare "no [assault] table" when it is fed back.
    """
    last = s.last_assault
    if last is None:
        return f"{s.source}: no [assault] table says which hex to assault"
    what = ", ".join(f"{key} {last[key]}" for key in ("target", "outcome", "seed") if key in last)
    return (
        f"{s.source}: this is the state after an assault ([last_assault]: {what}) and orders "
        "no new one: add an [assault] table (target, units) to assault again"
    )


def plan_assault(
    s: Scenario, target: Hex | None = None, units: Sequence[str] | None = None
) -> AssaultPlan:
    """Check the assault and compute its breakdown: the deterministic half of the resolver."""
    if target is None or units is None:
        if s.assault is None:
            raise CommandError(_no_assault(s))
        target = s.assault.target if target is None else target
        units = s.assault.units if units is None else units
    attackers, defenders = _participants(s, target, units)
    r = s.rules
    attack_hexes = tuple(sorted({u.hex for u in attackers}))
    arms = combined_arms(s, attackers, defenders, target)
    att_mods = (
        unit_modifier(attackers, True, r),
        hexside_modifier(s, attack_hexes, target),
        terrain_modifier(s, attackers, target),
        mixed_organization(attackers, r),
    )
    att = _side(s, attackers, defenders, True, target, dict(arms.per_unit), att_mods)
    dfd = _side(s, defenders, attackers, False, target, {}, (unit_modifier(defenders, False, r),))
    ref = r.number("combat.reference_combat_value")
    to_defenders, to_attackers = loss_pairs(s)
    aar = r.flag("optional_rules.alternative_assault_resolution")
    breakdown = AssaultBreakdown(
        target=target,
        attack_hexes=attack_hexes,
        attackers=att,
        defenders=dfd,
        combined_arms=arms,
        against_defenders=combat_range(
            att.modified_assault, dfd.average_defense, to_defenders, ref, dfd.side,
            sum(u.equivalent for u in defenders),
        ),
        against_attackers=combat_range(
            dfd.modified_assault, att.average_defense, to_attackers, ref, att.side,
            sum(u.equivalent for u in attackers),
        ),
        hard_share=(hard_share(defenders), hard_share(attackers)) if aar else None,
        reference_combat_value=ref,
    )  # fmt: skip
    _check_finite(s, breakdown)
    retreats = retreat_hexes(s, target, attack_hexes, defenders[0].side)
    return AssaultPlan(s, attackers, defenders, breakdown, retreats)


def _check_finite(s: Scenario, bd: AssaultBreakdown) -> None:
    """Refuse an assault whose arithmetic overflowed, in one line, before any die is rolled.

    Every input is finite and bounded, but extreme combinations (a defense of 1e-300, a
    reference combat value of 1e-9 with large assault values) can still divide their way
    to infinity, which would otherwise crash the loss draw with an OverflowError.
    """
    checks = (
        ("the attackers' modified assault", bd.attackers.modified_assault),
        ("the defenders' modified assault", bd.defenders.modified_assault),
        (f"the losses to {bd.against_defenders.losing_side}", bd.against_defenders.high),
        (f"the losses to {bd.against_attackers.losing_side}", bd.against_attackers.high),
    )
    for what, value in checks:
        if not math.isfinite(value):
            raise CommandError(
                f"{s.source}: {what} came out as {value}: the scenario's values are too far "
                "apart (a defense near 0, a tiny combat.reference_combat_value, huge factors)"
            )
