"""Configuration: every INFERRED / UNKNOWN rule of the spec as a named key, plus optional rules.

The spec (panzer-assault.md §0) requires that whatever the game's documentation does not
settle is a named key with the spec's default, so a better reading can be switched on
without code changes.  :data:`RULE_KEYS` is that registry; :class:`Rules` is an immutable
set of values validated against it.  Scenarios override keys in their ``[rules]`` table.
"""

from __future__ import annotations

import math
from collections.abc import Iterator, Mapping
from dataclasses import dataclass

from bellum.errors import InputError

RuleValue = bool | int | float | str

TAGS = ("EXACT", "INFERRED", "UNKNOWN", "OPTIONAL")

#: Ceiling of a numeric rule that names no maximum of its own (factors, multipliers).  No
#: reading of the rules needs a factor near it; it keeps absurd values such as 1e308, which
#: overflow to infinity in the assault arithmetic, out of a scenario.
DEFAULT_MAXIMUM = 100.0


@dataclass(frozen=True, kw_only=True)
class RuleKey:
    """One configurable rule: its default, how sure the spec is, and where it is defined."""

    name: str
    default: RuleValue
    tag: str
    section: str
    doc: str
    choices: tuple[str, ...] = ()
    minimum: float | None = None
    maximum: float | None = None
    number_or_choice: bool = False

    @property
    def upper_bound(self) -> float:
        """The highest value a number may take: :attr:`maximum` or :data:`DEFAULT_MAXIMUM`."""
        return self.maximum if self.maximum is not None else DEFAULT_MAXIMUM


def _k(
    name: str,
    default: RuleValue,
    tag: str,
    section: str,
    doc: str,
    *,
    choices: tuple[str, ...] = (),
    minimum: float | None = None,
    maximum: float | None = None,
    number_or_choice: bool = False,
) -> RuleKey:
    return RuleKey(
        name=name,
        default=default,
        tag=tag,
        section=section,
        doc=doc,
        choices=choices,
        minimum=minimum,
        maximum=maximum,
        number_or_choice=number_or_choice,
    )


# fmt: off
RULE_KEYS: tuple[RuleKey, ...] = (
    # §1.1 who may assault
    _k("unknowns.attackers.require_positive_assault", True, "INFERRED", "1.1",
       "an attacker needs an assault value above 0"),
    _k("unknowns.attackers.allow_disrupted", False, "INFERRED", "1.1",
       "Disrupted units may assault"),
    _k("unknowns.attackers.allow_max_fatigue", False, "INFERRED", "1.1",
       "units at Maximum Fatigue (300) may assault"),
    _k("unknowns.attackers.allow_towed_guns", False, "INFERRED", "1.1",
       "towed guns (units that only move in Travel Mode) may assault"),
    _k("unknowns.attackers.allow_fixed_or_digging_in", False, "INFERRED", "1.1",
       "Fixed units, units Digging-In and units building a bridge may assault"),
    _k("unknowns.attackers.cost_model", "enter_hex", "INFERRED", "1.1",
       "attackers must afford the cost of entering the target hex ('none' skips the check)",
       choices=("enter_hex", "none")),
    _k("unknowns.attackers.full_allowance_minimum_move", False, "UNKNOWN", "1.1",
       "a unit with its full movement allowance may always assault one hex"),
    _k("unknowns.attackers.limit_participants_by_stacking", False, "UNKNOWN", "1.3",
       "the target hex's stacking limit caps the assaulting men-equivalents"),
    # §3 totals
    _k("unknowns.defense.weight", "equivalent", "INFERRED", "3.2",
       "average defense weighted by equivalent strength (vehicles/guns x10) or raw strength",
       choices=("equivalent", "raw")),
    # §4 modifiers
    _k("unknowns.modifiers.combine", "multiplicative", "UNKNOWN", "5",
       "how the attackers' modifier groups combine", choices=("multiplicative", "additive")),
    _k("unknowns.modifiers.terrain_sign", "protection_positive", "INFERRED", "4.1",
       "terrain/hexside values are positive protection or signed modifiers (negative = protection)",
       choices=("protection_positive", "signed")),
    _k("unknowns.modifiers.hex_terrain_combine", "max", "UNKNOWN", "4.2",
       "several terrain features in the target hex: most protective one, or their sum",
       choices=("max", "sum")),
    _k("unknowns.modifiers.floor_factor_at", 0.0, "UNKNOWN", "5",
       "lowest value a modifier factor may take", minimum=0.0, maximum=1.0),
    _k("unknowns.modifiers.bridged_major_river_as", "river", "UNKNOWN", "4.1",
       "hexside whose protection a bridged or ferried major river uses",
       choices=("river", "none")),
    _k("quality.bonus_scale.assault", 1.0, "UNKNOWN", "4.3",
       "factor on the A/B quality assault bonuses", minimum=0.0),
    _k("assault_rules.mixed_org_penalty_pct", -20.0, "EXACT", "4.5",
       "modifier when units of different divisions (or corps) assault together",
       minimum=-100.0, maximum=0.0),
    # §4.4 combined arms
    _k("unknowns.combined_arms.defending_infantry", "infantry_class", "INFERRED", "4.4",
       "which defenders count as defending infantry", choices=("infantry_class", "all_personnel")),
    _k("unknowns.combined_arms.motorized_travel_mode_vehicles", "strength_div_10", "INFERRED",
       "4.4", "mot/mech infantry in Travel Mode counts as strength/10 vehicles, or not at all",
       choices=("strength_div_10", "none")),
    _k("unknowns.combined_arms.allocation", "proportional", "UNKNOWN", "4.4",
       "how the penalised vehicles are spread over the attack hexes",
       choices=("proportional", "weakest_hex_first")),
    # §4.7 effects the reachable documentation does not give
    _k("unknowns.effects.movement_effect", "none", "UNKNOWN", "4.7",
       "movement already spent reduces assault value", choices=("none",)),
    _k("unknowns.effects.range0_hard_attack", "unused", "UNKNOWN", "4.7",
       "range-0 hard attack values in assaults", choices=("unused",)),
    _k("unknowns.effects.cavalry_assault_mult", 1.0, "UNKNOWN", "4.7",
       "factor on cavalry units' assault value", minimum=0.0),
    _k("unknowns.effects.demolition_vs_fortification_mult", 2.0, "UNKNOWN", "4.7",
       "factor on demolition units' assault value against a fortified hex", minimum=0.0),
    _k("unknowns.effects.fortification_defense_mult", 1.0, "UNKNOWN", "4.7",
       "factor on defenders' defense value in a fortified hex", minimum=0.0),
    _k("unknowns.effects.disrupted_assault_mult", 0.5, "INFERRED", "16.4",
       "factor on Disrupted units' assault value (§16.4 gives it for defenders; revision 1: 1)",
       minimum=0.0),
    _k("unknowns.effects.broken_assault_mult", 0.25, "INFERRED", "16.4",
       "factor on Broken defenders' assault value (revision 1: 1)", minimum=0.0),
    _k("unknowns.effects.low_ammo_assault_mult", 0.5, "INFERRED", "16.4",
       "factor on Low on Ammo defenders' assault value (revision 1: 1, both sides)",
       minimum=0.0),
    _k("unknowns.effects.low_ammo_attacker_assault_mult", 0.25, "INFERRED", "16.4",
       "factor on Low on Ammo attackers' assault value (revision 1: 1)", minimum=0.0),
    _k("unknowns.effects.digging_in_defender_assault_mult", 0.5, "INFERRED", "16.4",
       "factor on the assault value of defenders Digging-In (revision 1: 1)", minimum=0.0),
    _k("unknowns.effects.travel_mode_attacker_assault_mult", 0.25, "INFERRED", "16.4",
       "factor on the assault value of attackers in Travel Mode (revision 1: 1)", minimum=0.0),
    _k("unknowns.effects.travel_or_rail_mode_defender_assault_mult", 0.25, "INFERRED", "16.4",
       "factor on the assault value of defenders in Travel or Rail Mode (revision 1: 1)",
       minimum=0.0),
    _k("unknowns.effects.night_assault_mult", 1.0, "UNKNOWN", "4.7",
       "factor on every assault value during night turns", minimum=0.0),
    # §6-7 combat results
    _k("combat.reference_combat_value", 1000.0, "INFERRED", "16.1",
       "combat value at which the losses range from LCV to HCV", minimum=1e-9, maximum=1e9),
    _k("combat.assault_pair_for_attacker_losses", "attacker", "INFERRED", "16.1",
       "which Parameter Data pair sets the losses the assaulting side suffers: attacker "
       "(assault_attacker_*; the defenders' use assault_defender_*), defender (the other "
       "reading), or single (revision 1: assault_low/assault_high for both)",
       choices=("attacker", "defender", "single")),
    _k("combat.distribution", "proportional_to_equivalent_strength", "UNKNOWN", "7.3",
       "how a side's loss is spread over its units",
       choices=("proportional_to_equivalent_strength", "single_random_weighted")),
    _k("combat.max_loss_fraction", 1.0, "UNKNOWN", "7.3",
       "cap on a side's loss as a fraction of its equivalent strength", minimum=0.0, maximum=1.0),
    # §8 fatigue
    _k("unknowns.fatigue.assault_multiplier", 1.5, "UNKNOWN", "8",
       "fatigue factor for assault losses", minimum=0.0),
    _k("unknowns.fatigue.loser_multiplier", 2.0, "UNKNOWN", "8",
       "fatigue factor for the side that lost the assault", minimum=0.0),
    _k("unknowns.fatigue.cap", 300, "UNKNOWN", "8", "highest fatigue", minimum=0, maximum=300),
    _k("unknowns.fatigue.size_factor.battalion", 2.0, "INFERRED", "16.6",
       "fatigue factor of battalions (revision 1: 1)", minimum=0.0),
    _k("unknowns.fatigue.size_factor.company", 6.0, "INFERRED", "16.6",
       "fatigue factor of companies (revision 1: 2)", minimum=0.0),
    _k("unknowns.fatigue.size_factor.platoon", 6.0, "INFERRED", "16.6",
       "fatigue factor of platoons (revision 1: 4)", minimum=0.0),
    _k("unknowns.fatigue.size_factor.other", 2.0, "INFERRED", "16.6",
       "fatigue factor of other unit sizes (revision 1: 1)", minimum=0.0),
    # §9 morale
    _k("morale.inferred.broken_requires_max_fatigue", True, "INFERRED", "9.2",
       "a Disrupted unit failing again becomes Broken only at Maximum Fatigue"),
    _k("morale.inferred.check_trigger", "loss_over_loss_plus_base", "INFERRED", "16.2",
       "who checks morale: loss_over_loss_plus_base = L/(L + max(check_base_min, "
       "S/check_base_divisor)) in men-equivalents (§16.2), cwb_25 = L/(L+25), any_loss "
       "(revision 1), always, or a loss fraction (0-1]",
       choices=("loss_over_loss_plus_base", "cwb_25", "any_loss", "always"),
       minimum=1e-9, maximum=1.0, number_or_choice=True),
    _k("morale.inferred.check_base_min", 25.0, "INFERRED", "16.2",
       "smallest B of the check probability L/(L+B)", minimum=0.0, maximum=1e6),
    _k("morale.inferred.check_base_divisor", 10.0, "INFERRED", "16.2",
       "B is at least the unit's strength before the assault divided by this",
       minimum=1e-3, maximum=1e6),
    # §10 outcome
    _k("unknowns.outcome.success_rule", "defender_broken_or_outlost", "UNKNOWN", "16.3",
       "when the assault succeeds: defender_broken_or_outlost (§16.3), morale_only (§16.3 "
       "without 3b), attacker_not_disrupted (revision 1), "
       "attacker_not_disrupted_and_defender_failed",
       choices=("defender_broken_or_outlost", "morale_only", "attacker_not_disrupted",
                "attacker_not_disrupted_and_defender_failed")),
    _k("unknowns.outcome.loss_compare", "absolute", "UNKNOWN", "16.3",
       "'the defenders lost more': in men-equivalents, or as fractions of each side's strength",
       choices=("absolute", "fraction")),
    _k("unknowns.retreat.disrupt_on_retreat", True, "UNKNOWN", "10.2",
       "retreating defenders become Disrupted"),
    _k("unknowns.retreat.avoid_enemy_zoc", True, "UNKNOWN", "10.2",
       "retreat avoids hexes adjacent to enemy units when it can"),
    _k("unknowns.retreat.surrender_loss_fraction", 0.5, "UNKNOWN", "10.3",
       "extra loss of a defender that cannot retreat, as a fraction of its strength",
       minimum=0.0, maximum=1.0),
    _k("unknowns.advance.respect_stacking_maximum", True, "UNKNOWN", "10.6",
       "advancing attackers stop at the stacking maximum"),
    _k("unknowns.advance.attackers_movement_after", 0.0, "UNKNOWN", "10.6",
       "movement points every assaulting unit is left with", minimum=0.0, maximum=1000.0),
    # §10.5 fanatical nations
    _k("fanatical_nations.nations", "Japan", "EXACT", "10.5",
       "comma-separated nations that never surrender nor leave bunkers/pillboxes"),
    # §12 optional rules
    _k("optional_rules.alternative_assault_resolution", False, "OPTIONAL", "3.3",
       "blend assault and hard attack by the opponents' share of hard targets"),
    _k("optional_rules.optional_surrender", False, "OPTIONAL", "10.4",
       "a Broken defender that lost and cannot retreat is eliminated"),
    _k("optional_rules.manual_defensive_fire", False, "OPTIONAL", "12",
       "phases the turn; no effect on the assault arithmetic"),
    _k("optional_rules.artillery_set_up", False, "OPTIONAL", "12", "no effect on assaults"),
    _k("optional_rules.recon_spotting", False, "OPTIONAL", "12", "no effect on assaults"),
    _k("optional_rules.alternative_direct_fire", False, "OPTIONAL", "12",
       "no effect on assaults"),
    _k("optional_rules.alternative_indirect_fire", False, "OPTIONAL", "12",
       "no effect on assaults"),
    _k("optional_rules.alternative_air_strike", False, "OPTIONAL", "12", "no effect on assaults"),
)
# fmt: on

_BY_NAME = {k.name: k for k in RULE_KEYS}


def flatten(table: Mapping[str, object], prefix: str = "") -> dict[str, object]:
    """Nested TOML tables to dotted keys (``{"a": {"b": 1}}`` -> ``{"a.b": 1}``)."""
    out: dict[str, object] = {}
    for key, value in table.items():
        name = f"{prefix}{key}"
        if isinstance(value, Mapping):
            out.update(flatten(value, name + "."))
        else:
            out[name] = value
    return out


def _validate(key: RuleKey, value: object, where: str) -> RuleValue:
    bad = f"{where}: rule {key.name} = {value!r}"
    if isinstance(key.default, bool):
        if not isinstance(value, bool):
            raise InputError(f"{bad} must be true or false")
        return value
    if isinstance(value, str) and (key.choices or isinstance(key.default, str)):
        if key.choices and value not in key.choices:
            raise InputError(f"{bad} must be one of {', '.join(key.choices)}")
        return value
    is_number = isinstance(value, int | float) and not isinstance(value, bool)
    if is_number and (key.number_or_choice or isinstance(key.default, int | float)):
        try:
            number = float(value)  # type: ignore[arg-type]
        except OverflowError:
            number = math.inf
        if not math.isfinite(number):
            raise InputError(f"{bad} must be a finite number")
        if key.minimum is not None and number < key.minimum:
            raise InputError(f"{bad} must be at least {key.minimum:g}")
        if number > key.upper_bound:
            raise InputError(f"{bad} must be at most {key.upper_bound:g}")
        return int(number) if isinstance(key.default, int) and number.is_integer() else number
    expected = " or ".join(key.choices) if key.choices else type(key.default).__name__
    raise InputError(f"{bad} must be {expected}")


class Rules(Mapping[str, RuleValue]):
    """An immutable, validated set of rule values (defaults plus overrides)."""

    def __init__(self, overrides: Mapping[str, object] | None = None, *, where: str = "rules"):
        values: dict[str, RuleValue] = {k.name: k.default for k in RULE_KEYS}
        for name, value in flatten(overrides or {}).items():
            key = _BY_NAME.get(name)
            if key is None:
                raise InputError(f"{where}: unknown rule key {name!r} (see 'bellum panzer rules')")
            values[name] = _validate(key, value, where)
        self._values = values

    def __getitem__(self, name: str) -> RuleValue:
        return self._values[name]

    def __iter__(self) -> Iterator[str]:
        return iter(self._values)

    def __len__(self) -> int:
        return len(self._values)

    def flag(self, name: str) -> bool:
        return bool(self._values[name])

    def number(self, name: str) -> float:
        value = self._values[name]
        assert isinstance(value, int | float)
        return float(value)

    def text(self, name: str) -> str:
        return str(self._values[name])

    def with_overrides(self, overrides: Mapping[str, object]) -> Rules:
        return Rules({**self.overrides(), **flatten(overrides)})

    def overrides(self) -> dict[str, RuleValue]:
        """Only the values that differ from the defaults (what a scenario file stores)."""
        return {n: v for n, v in self._values.items() if v != _BY_NAME[n].default}

    def fanatical_nations(self) -> frozenset[str]:
        names = self.text("fanatical_nations.nations").split(",")
        return frozenset(n.strip().casefold() for n in names if n.strip())

    def __repr__(self) -> str:
        return f"Rules({self.overrides()!r})"


def rule_key(name: str) -> RuleKey:
    return _BY_NAME[name]
