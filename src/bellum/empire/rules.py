"""Rule profiles and options (spec §18 and each step's "Server vs info page" note).

A *profile* is a named set of rule switches.  ``server-4.4.1`` (the default)
is the real server, bit for bit: it prints what 4.4.1 prints and draws what it
draws; ``info-page`` takes the seed document literally wherever the server
changed it, scouts' estimate included.  *Options* are independent
switches and econfig values.  Everything ends up in the world's option
table, with this precedence (later wins): stock defaults, the profile, the
world file's ``[options]``, then ``--option NAME=VALUE`` on the command line.
"""

from __future__ import annotations

from collections.abc import Mapping
from dataclasses import dataclass
from typing import Any

from bellum.empire.world import DEFAULT_OPTIONS, PROFILE_SWITCHES, World, check_option
from bellum.errors import InputError, UsageError
from bellum.numbers import shown, to_int


@dataclass(frozen=True)
class Switch:
    """One rule switch that profiles set."""

    name: str
    description: str


#: Where the seed document and the 4.4.1 server disagree; False = the server's rule.
SWITCHES: tuple[Switch, ...] = (
    Switch("info_attackers", "security, flak and artillery units may not attack (§2.6)"),
    Switch(
        "info_reaction", "reserve units get +2 reaction radius and need eff above retreat % (§4.5)"
    ),
    Switch("info_mission_fire", "ships and units on missions fire no support (§5.6)"),
    Switch(
        "info_unit_mobility", "units lose 10 x loss factor (reserve half) and may use supplies (§8)"
    ),
    Switch("info_sector_mobility", "the target loses max(20, proportional) mobility (§11)"),
    Switch("info_efficiency", "the target loses casualties/10 percent efficiency (§11)"),
    Switch("info_fight", "odds recomputed after every casualty, no jitter or windows (§6.6)"),
    Switch("info_capture", "land units aboard a captured ship are reduced to 10 % too (§10.5)"),
    Switch(
        "info_march_mobility",
        "an attacking unit needs the mobility of its whole march into the target (§2.4)",
    ),
    Switch(
        "info_no_landing_mines",
        "no land mines for units landing by assault (post-attack interdiction is attack's, §14)",
    ),
    Switch(
        "info_lrange", "a unit reacts no farther than its lrange; lrange 0 keeps it home (§4.5)"
    ),
)

PROFILES: dict[str, tuple[str, dict[str, bool]]] = {
    "server-4.4.1": (
        "the real Wolfpack Empire 4.4.1 server, bit for bit (default)",
        PROFILE_SWITCHES["server-4.4.1"],
    ),
    "info-page": (
        "the seed's info page taken literally where the server changed it",
        PROFILE_SWITCHES["info-page"],
    ),
}

#: Independent options with one line each (econfig values are listed in the docs).
OPTION_HELP: dict[str, str] = {
    "scout_estimate": "scouts estimate the odds and ask before a bad attack (seed step 3, §18.1)",
    "SLOW_WAR": "only sectors of countries you are at war with may be attacked (§18.2)",
    "SNEAK_ATTACK": "with SLOW_WAR: one sneak attack for $5000, then war (§18.2)",
    "INTERDICT_ATT": "interdiction and land mines on the move-in after an attack (§14)",
    "fix_movein_mobility": "charge the mil move-in mobility that 4.4.1 forgets (§13.1)",
    "NO_FORT_FIRE": "forts never fire support",
    "NOFOOD": "land units need no food to be in supply",
    "MOB_ACCESS": "sector mobility may go below zero",
    "RAILWAYS": "trains run on railway sectors",
    "BLITZ": "commands cost no BTUs",
    "HIDDEN": "the HIDDEN option (read, not used by combat)",
    "MARKET": "the MARKET option (read, not used by combat)",
    "land_mob_max": "most mobility a land unit can have; also the fortification cap",
    "combat_mob": "mobility a unit loses per unit of its side's loss factor (§8)",
    "assault_penalty": "non-marines' share of their value in assault and board (§3.1)",
    "etu_per_update": "ETUs per update: the mobility units gain (§13.3)",
    "land_mob_scale": "land mobility gained per ETU",
    "morale_base": "retreat percentage of captured units (§10.2)",
    "people_damage": "how hard people are hit by shells and mines (§0.8)",
    "unit_damage": "how hard land units are hit (§0.8)",
    "collateral_dam": "share of interdiction damage that hits the sector (§14.1)",
    "fire_range_factor": "scales fortress firing ranges (§0.5)",
    "flakscale": "flak damage multiplier (§16.5)",
    "max_btus": "most BTUs a nation can hold",
}


def profile_names() -> list[str]:
    return list(PROFILES)


def parse_value(name: str, text: str) -> Any:
    """An option value typed on the command line, checked against the option's type."""
    default = DEFAULT_OPTIONS[name]
    low = text.strip().lower()
    if isinstance(default, bool):
        if low in ("1", "on", "true", "yes", "y"):
            return True
        if low in ("0", "off", "false", "no", "n"):
            return False
        raise UsageError(f"option {name} takes on/off, not '{shown(text)}'")
    if isinstance(default, str):
        return text
    value: int | float | None
    if isinstance(default, int):
        value = to_int(text, signed=True)
    else:
        try:
            value = float(text)
        except ValueError:
            value = None
    if value is None:
        kind = "a whole number" if isinstance(default, int) else "a number"
        raise UsageError(f"option {name} takes {kind}, not '{shown(text)}'")
    problem = check_option(name, value)
    if problem:
        raise UsageError(f"option {name}: {problem}")
    return value


def econfig_options(values: Mapping[str, str], where: str) -> dict[str, Any]:
    """The options bellum models among a game's configuration values (``econfig`` keys,
    or the ``version`` table of an xdump); the rest of the configuration is ignored."""
    options = {}
    for key, text in values.items():
        if key in DEFAULT_OPTIONS and key != "profile":
            try:
                options[key] = parse_value(key, text)
            except UsageError as exc:
                raise InputError(f"{where}: {exc}") from None
    return options


def apply_rules(world: World, profile: str | None = None, options: list[str] | None = None) -> None:
    """Rules for this run only: ``profile`` and then ``options`` override the world's own.

    They go into ``world.overrides``, which is never saved, so a world file or
    database keeps its own rules.  ``profile=NAME`` among the options is the
    profile, as in a world file's ``[options]``: it applies before the others.
    """
    named = [
        v.strip() for k, _, v in (o.partition("=") for o in options or []) if k.strip() == "profile"
    ]
    options = [o for o in options or [] if o.partition("=")[0].strip() != "profile"]
    if named:
        if len(set(named)) > 1 or (profile is not None and profile != named[0]):
            raise UsageError("give the profile once (--profile or --option profile=NAME)")
        profile = named[0]
    if profile is not None:
        if profile not in PROFILES:
            raise UsageError(f"unknown profile '{profile}'; profiles: {', '.join(PROFILES)}")
        world.overrides.update(PROFILES[profile][1])
        world.overrides["profile"] = profile
    for item in options:
        key, sep, value = item.partition("=")
        key = key.strip()
        if not sep:
            raise UsageError(f"--option needs NAME=VALUE, not '{item}'")
        if key not in DEFAULT_OPTIONS or key == "profile":
            valid = ", ".join(sorted(k for k in DEFAULT_OPTIONS if k != "profile"))
            raise UsageError(f"unknown option '{key}'; options: {valid}")
        world.overrides[key] = parse_value(key, value)


@dataclass(frozen=True)
class Rule:
    """One line of ``bellum empire rules``: a profile, switch or option.

    ``by_profile`` holds the value each profile sets (absent: the profile
    leaves it alone).
    """

    kind: str
    name: str
    description: str
    by_profile: dict[str, Any]


def describe() -> list[Rule]:
    """Every profile, switch and option, with what each profile sets."""
    rows = [Rule("profile", n, d, {}) for n, (d, _) in PROFILES.items()]
    named = [("switch", s.name, s.description) for s in SWITCHES]
    named += [("option", k, v) for k, v in OPTION_HELP.items()]
    for kind, name, text in named:
        sets = {p: values[name] for p, (_, values) in PROFILES.items() if name in values}
        rows.append(Rule(kind, name, text, sets))
    return rows
