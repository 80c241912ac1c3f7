"""Rule profiles and options (spec §18 and each step's "Server vs info page" note).

A *profile* is a named set of rule switches.  ``server-4.4.1`` (the default)
is the real server, bit for bit: it prints what 4.4.1 prints and draws what it
draws; ``info-page`` takes the seed document literally wherever the server
changed it, scouts' estimate included.  *Options* are independent switches
and econfig values.

A :class:`Rules` value holds them all, typed and checked once.  An order runs
under one (``run_order(..., rules=...)``) and the history keeps it with the
order.  Precedence, later wins: stock defaults, the profile, the world's own
``[options]``, then what one run gives (``--profile``, then ``--option``).
"""

from __future__ import annotations

from collections.abc import Mapping, Sequence
from dataclasses import asdict, dataclass, fields
from typing import TYPE_CHECKING, Any

from bellum.errors import InputError
from bellum.numbers import shown, to_int

if TYPE_CHECKING:
    from bellum.empire.world import World

#: The default profile: the real server.
SERVER = "server-4.4.1"


@dataclass(frozen=True)
class Rules:
    """Every rule one order runs under: the profile, its switches, the econfig values.

    Make one with :meth:`of` or :meth:`for_world`, which check every value; the
    fields are then plain typed attributes (``rules.land_mob_max``).  ``Rules()`` is
    the stock server.
    """

    profile: str = SERVER
    land_mob_max: int = 127
    combat_mob: float = 5.0
    assault_penalty: float = 0.5
    etu_per_update: int = 60
    land_mob_scale: float = 1.0
    morale_base: int = 42
    people_damage: float = 1.0
    unit_damage: float = 0.3
    collateral_dam: float = 0.1
    fire_range_factor: float = 1.0
    flakscale: float = 1.75
    max_btus: int = 640
    INTERDICT_ATT: bool = True
    MOB_ACCESS: bool = False
    NOFOOD: bool = True
    NO_FORT_FIRE: bool = False
    RAILWAYS: bool = True
    HIDDEN: bool = False
    MARKET: bool = False
    BLITZ: bool = False
    fix_movein_mobility: bool = False
    scout_estimate: bool = False
    SLOW_WAR: bool = False
    SNEAK_ATTACK: bool = False
    info_attackers: bool = False
    info_reaction: bool = False
    info_mission_fire: bool = False
    info_unit_mobility: bool = False
    info_sector_mobility: bool = False
    info_efficiency: bool = False
    info_fight: bool = False
    info_capture: bool = False
    info_march_mobility: bool = False
    info_no_landing_mines: bool = False
    info_lrange: bool = False

    @classmethod
    def of(
        cls,
        options: Mapping[str, Any] | None = None,
        *,
        profile: str | None = None,
        overrides: Mapping[str, Any] | None = None,
    ) -> Rules:
        """The rules of a world whose own options are ``options`` (its ``[options]``,
        profile included), with a ``profile`` and ``overrides`` for one run on top.

        A run's profile replaces the world's: its switches win over the world's own
        options, which win over the world profile's switches.  An unknown option, or a
        value of the wrong type or out of range, is an :class:`InputError` naming it.
        """
        own = check_options(dict(options or {}), "rules")
        if profile is not None:
            _check_profile(profile)
        chosen = profile or own.get("profile") or SERVER
        values = {**PROFILE_SWITCHES[chosen], **own}
        if profile is not None:
            values.update(PROFILE_SWITCHES[profile])
        values.update(overrides or {})
        values["profile"] = chosen
        return cls(**check_options(values, "rules"))

    @classmethod
    def for_world(
        cls, world: World, profile: str | None = None, options: Sequence[str] = ()
    ) -> Rules:
        """``world``'s own rules with ``--profile`` and ``--option NAME=VALUE`` words on top."""
        run_profile, overrides = parse_options(options, profile)
        return cls.of(world.options, profile=run_profile, overrides=overrides)

    def to_dict(self) -> dict[str, Any]:
        """Every value by name, the profile's too: what the history keeps with an order."""
        return asdict(self)

    def value(self, name: str) -> Any:
        """The value of option ``name`` (see :data:`DEFAULT_OPTIONS`)."""
        return getattr(self, name)


#: Stock econfig values and options (spec §0.4), by name: the fields of :class:`Rules`.
DEFAULT_OPTIONS: dict[str, Any] = {f.name: f.default for f in fields(Rules)}

#: Where the seed document and the 4.4.1 server disagree (spec §18.3).
INFO_SWITCHES = tuple(name for name in DEFAULT_OPTIONS if name.startswith("info_"))
#: What each rule profile sets: the info-page switches, and the scouts' estimate that
#: 4.4.1 never prints (spec §18.1) but the seed's info page shows.
PROFILE_SWITCHES: dict[str, dict[str, bool]] = {
    SERVER: {"scout_estimate": False, **dict.fromkeys(INFO_SWITCHES, False)},
    "info-page": {
        "scout_estimate": True,
        "fix_movein_mobility": True,
        **dict.fromkeys(INFO_SWITCHES, True),
    },
}

#: No econfig value of a real game comes near this; larger ones overflow the rules' arithmetic.
OPTION_MAX = 1e6

#: Econfig values that must be positive (a zero would divide or freeze the rules).
POSITIVE_OPTIONS = ("land_mob_max", "etu_per_update", "land_mob_scale", "max_btus")


def check_option(key: str, value: Any) -> str | None:
    """What is wrong with ``value`` for option ``key``, or None if it is fine."""
    if isinstance(value, bool) or not isinstance(value, int | float):
        return None
    if value != value or value in (float("inf"), float("-inf")):
        return f"{value} is not a number bellum can use"
    if value < 0:
        return f"{value} is negative"
    if key in POSITIVE_OPTIONS and value == 0:
        return "must be more than 0"
    if value > OPTION_MAX:
        return f"{value} is too large (at most {OPTION_MAX:g})"
    return None


def check_options(opts: dict[str, Any], where: str) -> dict[str, Any]:
    """``opts`` if every one is a rule option with a value of its type and range; else one
    :class:`InputError` line naming ``where`` and the option."""
    for k, v in opts.items():
        if k not in DEFAULT_OPTIONS:
            raise InputError(f"{where}: {shown(k)}: unknown option")
        default = DEFAULT_OPTIONS[k]
        if type(v) is not type(default) and not (isinstance(default, float) and type(v) is int):
            raise InputError(f"{where}: {k}: expected {type(default).__name__}")
        problem = check_option(k, v)
        if problem:
            raise InputError(f"{where}: {k}: {problem}")
        if k == "profile" and v not in PROFILE_SWITCHES:
            raise InputError(f"{where}: profile: unknown profile '{shown(v)}'")
    return opts


def _check_profile(name: str) -> None:
    if name not in PROFILE_SWITCHES:
        raise InputError(
            f"unknown profile '{shown(name)}'; profiles: {', '.join(PROFILE_SWITCHES)}",
            field="profile",
        )


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
        raise InputError(f"takes on/off, not '{shown(text)}'", field="option", value=name)
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
        raise InputError(f"takes {kind}, not '{shown(text)}'", field="option", value=name)
    problem = check_option(name, value)
    if problem:
        raise InputError(problem, field="option", value=name)
    return value


def econfig_options(values: Mapping[str, str], where: str) -> dict[str, Any]:
    """The options bellum models among a game's configuration values (``econfig`` keys,
    or the ``version`` table of an xdump); the rest of the configuration is ignored."""
    options = {}
    for key, text in values.items():
        if key in DEFAULT_OPTIONS and key != "profile":
            try:
                options[key] = parse_value(key, text)
            except InputError as exc:
                raise InputError(f"{where}: {exc.worded({'option': 'option'})}") from None
    return options


def parse_options(
    words: Sequence[str], profile: str | None = None
) -> tuple[str | None, dict[str, Any]]:
    """A run's ``--profile`` and ``--option NAME=VALUE`` words, checked: the profile (or
    ``None``) and the typed options.  ``profile=NAME`` among the options is the profile,
    as in a world file's ``[options]``."""
    named = [v.strip() for k, _, v in (w.partition("=") for w in words) if k.strip() == "profile"]
    if named:
        if len(set(named)) > 1 or (profile is not None and profile != named[0]):
            raise InputError("give the profile once (or option profile=NAME)", field="profile")
        profile = named[0]
    if profile is not None:
        _check_profile(profile)
    options: dict[str, Any] = {}
    for item in words:
        key, sep, value = item.partition("=")
        key = key.strip()
        if key == "profile":
            continue
        if not sep:
            raise InputError(f"needs NAME=VALUE, not '{shown(item)}'", field="option")
        if key not in DEFAULT_OPTIONS:
            valid = ", ".join(sorted(k for k in DEFAULT_OPTIONS if k != "profile"))
            raise InputError(f"unknown option '{shown(key)}'; options: {valid}", field="option")
        options[key] = parse_value(key, value)
    return profile, options


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
