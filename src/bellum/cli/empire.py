"""``bellum empire``: the Wolfpack Empire combat commands on a world file."""

from __future__ import annotations

import re
import sys
from collections.abc import Callable
from pathlib import Path
from typing import TYPE_CHECKING, Any

import click

from bellum.cli import options as shared
from bellum.cli.app import LazyGroup, cli
from bellum.cli.live_server import LiveRequest, live_options, live_request, play_live
from bellum.cli.options import Sectioned, Whole, echo_json, in_section, refuse_same_file
from bellum.dice import new_seed
from bellum.empire.answers import AboveMost, NamedAnswers, answer_ship, is_ship_key
from bellum.empire.combat import COMMANDS, CommandSpec
from bellum.empire.events import Event, EventKind, Prompt, PromptKind
from bellum.empire.geometry import Coord, Geometry
from bellum.empire.orders import Order
from bellum.empire.rules import Rules, describe, profile_names
from bellum.empire.world import LandUnit, Nation, Plane, Sector, Ship, World
from bellum.errors import InputError, UsageError
from bellum.numbers import shown, to_int
from bellum.term import safe_text

if TYPE_CHECKING:
    from bellum.empire.service import WorldSource

EXIT_BY_OUTCOME = {"usage": 2, "refused": 1, "aborted": 1}


#: The longest answer line read from standard input (the server's own input lines are
#: far shorter); a longer one is refused rather than read without end.
MAX_ANSWER = 64 * 1024


class StreamPrompter:
    """Asks on stdout; answers from named answers (``--mil``, ``--unit``...), else from
    stdin line by line.

    When stdin is not a terminal, or the answer was named, the answer is
    echoed after the prompt, so a scripted run prints the same transcript a
    player would see.  End of input (Ctrl-D, or piped input running out)
    answers ``None``, which the rules treat like the server treats it; for
    piped input a note names the question and the option that answers it.
    ``at`` writes a sector as the player sees it.
    """

    def __init__(
        self,
        quiet: bool = False,
        named: NamedAnswers | None = None,
        at: Callable[[Coord], str] | None = None,
    ) -> None:
        self.quiet = quiet
        self.echo = not sys.stdin.isatty()
        self.named = named or NamedAnswers()
        self.at = at or (lambda xy: f"{xy[0]},{xy[1]}")

    def ask(self, prompt: Prompt) -> str | None:
        out = sys.stderr if self.quiet else sys.stdout
        out.write(safe_text(prompt.text))
        out.flush()
        try:
            answer = self.named.ask(prompt)
        except AboveMost as exc:
            out.write("\n")
            option, key = answer_option(exc.prompt, self.at)
            whence = key if exc.prompt.ship is None else f"ship {key}"
            if exc.prompt.ship is not None:
                key = self.named.ship_named or key  # as the command line named it
            raise UsageError(
                f"{option} {key}={exc.n}: at most {exc.most} mil can go from {whence};"
                " nothing was saved"
            ) from None
        if answer is None:
            line = sys.stdin.readline(MAX_ANSWER + 1)
            if len(line.rstrip("\r\n")) > MAX_ANSWER:  # /dev/zero would fill the memory
                raise InputError(
                    f"standard input: an answer longer than {MAX_ANSWER:,} characters;"
                    " nothing was saved"
                )
            if not line:
                out.write("\n")
                if self.echo:  # piped input ran out: a note says what would answer it
                    click.echo(
                        f"bellum: note: standard input ended at {prompt.text.strip()!r}: end"
                        f" of input, as on the server ({answer_hint(prompt, self.at)} answers"
                        " it)",
                        err=True,
                    )
                return None
            answer = line.rstrip("\r\n")
            if not self.echo:
                return answer
        out.write(answer + "\n")
        return answer


def _live(event: Event) -> None:
    if event.kind is EventKind.TEXT:
        sys.stdout.write(safe_text(event.text))
        sys.stdout.flush()


def _country(world: World, key: str) -> Nation:
    key = key.strip()  # CoordCommand's blank before a negative number (--as -1)
    try:
        n = world.find_nation(key)
    except InputError as exc:
        raise UsageError(f"--as: {exc}") from None
    if n is None:
        names = ", ".join(f"{c.cnum} ({c.name})" for c in world.nations.values())
        if not names:
            raise UsageError(f"no country '{shown(key)}': this world has no countries")
        raise UsageError(f"no country '{shown(key)}' in this world; countries: {names}")
    return n


def _seed(seed: int | None) -> int:
    used = new_seed() if seed is None else seed
    click.echo(
        f"seed: {used}" + ("" if seed is not None else f" (replay with --seed {used})"), err=True
    )
    return used


def open_world(
    world_path: Path | None,
    db: Path | None,
    *,
    write: bool = False,
    out: Path | None = None,
    force: bool = False,
) -> WorldSource:
    """The world of one command (``--world``, ``--db`` or ``./bellum.db``), released when
    the command ends: an order that was not kept (an error, Ctrl-C) is rolled back."""
    from bellum.empire.service import DEFAULT_DB, open_source

    if world_path is not None and db is not None:
        raise UsageError("give either --world or --db, not both")
    read = {"--world": world_path} if world_path is not None else {"--db": db or DEFAULT_DB}
    refuse_same_file(out, "--out", read)
    source = open_source(world_path, db, write=write, out=out, force=force)
    ctx = click.get_current_context(silent=True)
    if ctx is not None:
        ctx.call_on_close(source.close)
    return source


_NEGATIVE_COORD = re.compile(r"^-\d+(,-?\d+)?$")


class CoordCommand(Sectioned):
    """A command whose arguments may be negative: coordinates such as ``-14,2`` or ``-1``.

    Click would take them for options; a leading blank keeps them arguments
    (the parsers ignore blanks, and the blank is stripped before it is stored).
    """

    def parse_args(self, ctx: click.Context, args: list[str]) -> list[str]:
        return super().parse_args(ctx, [" " + a if _NEGATIVE_COORD.match(a) else a for a in args])


world_option = click.option(
    "--world",
    "world_path",
    type=click.Path(dir_okay=False, path_type=Path),
    help="The world file (TOML, see docs/world-format.md).",
)
db_option = click.option(
    "--db",
    type=click.Path(dir_okay=False, path_type=Path),
    help="The world database (SQLite, see docs/store.md); default ./bellum.db.",
)
as_option = click.option(
    "--as", "country", required=True, metavar="COUNTRY", help="Your country: number or name."
)


def rules_options(f: Callable[..., None]) -> Callable[..., None]:
    """``--profile`` and ``--option`` for every command that applies the rules."""
    f = click.option(
        "--option",
        "options",
        multiple=True,
        metavar="NAME=VALUE",
        help="Override one rule option (see `bellum empire rules`); repeatable.",
    )(f)
    return click.option(
        "--profile",
        type=click.Choice(profile_names()),
        help="Rule profile (default: the world's, else server-4.4.1).",
    )(f)


@cli.group(
    cls=LazyGroup,
    lazy={
        "world": (
            "bellum.cli.world:world_group",
            "World databases: create, import and export Empire dumps, show.",
        ),
        "history": (
            "bellum.cli.world:history_cmd",
            "List the commands stored in a world database, oldest first.",
        ),
        "replay": (
            "bellum.cli.world:replay_cmd",
            "Check that stored command ID reproduces bit for bit.",
        ),
        "sync": (
            "bellum.cli.empire_sync:sync_cmd",
            "Read a live game from the server at HOST:PORT into a world database.",
        ),
        "types": (
            "bellum.cli.empire_types:types_cmd",
            "List every land unit, ship, plane and sector type with its stats.",
        ),
        "odds": (
            "bellum.cli.empire_odds:odds_cmd",
            "The odds of COMMAND before you make it: attack, assault, paradrop, board or lboard.",
        ),
        "plan": (
            "bellum.cli.empire_plan:plan_cmd",
            "The best use of this turn's forces: what to attack, with what, in what order.",
        ),
        "threats": (
            "bellum.cli.empire_plan:threats_cmd",
            "Where the enemy can hurt you this turn: the strongest strike on each of yours.",
        ),
    },
)
def empire() -> None:
    """Wolfpack Empire 4.4: attack, assault, paradrop, board and friends."""


json_option = shared.json_option()


def _rows(world: World, sectors: tuple[str, ...], n: Nation, mine: bool) -> list[Sector]:
    """The SECTORS named (each once, in order), else every sector (``mine``: yours)."""
    if sectors:
        wanted = dict.fromkeys(world.geometry.parse(s, world.origin(n.cnum)) for s in sectors)
        return [world.sector(xy) for xy in wanted]
    return [
        s
        for _, s in sorted(world.sectors.items(), key=lambda kv: kv[0][::-1])
        if not mine or s.owner == n.cnum
    ]


#: What ``show`` lists, each with the option that lists it alone.
SHOWN = ("sectors", "units", "ships", "planes")


@empire.command("show", cls=CoordCommand)
@click.argument("sectors", nargs=-1)
@world_option
@db_option
@as_option
@click.option(
    "--sectors",
    "only_sectors",
    is_flag=True,
    help="List sectors (only the kinds named are listed).",
)
@click.option(
    "--units", "only_units", is_flag=True, help="List land units (only the kinds named are listed)."
)
@click.option(
    "--ships", "only_ships", is_flag=True, help="List ships (only the kinds named are listed)."
)
@click.option(
    "--planes", "only_planes", is_flag=True, help="List planes (only the kinds named are listed)."
)
@json_option
def show_cmd(
    sectors: tuple[str, ...],
    world_path: Path | None,
    db: Path | None,
    country: str,
    as_json: bool,
    **only: bool,
) -> None:
    """List your nation, sectors, land units, ships and planes (or what is in the
    SECTORS given, as x,y).

    --sectors, --units, --ships and --planes list only those kinds.  It shows
    everything the world holds, enemy sectors included: the world is your
    planning copy, not the game's fog of war (docs/empire-cli.md).  Unit, ship
    and plane types: `bellum empire types`.
    """
    from bellum.empire.tables import plane_range

    world = open_world(world_path, db).world
    n = _country(world, country)
    kinds = [k for k in SHOWN if only[f"only_{k}"]] or list(SHOWN)
    picked = _rows(world, sectors, n, mine=True)
    where = {s.xy for s in picked}

    def listed(obj: LandUnit | Ship | Plane) -> bool:
        return obj.xy in where or (not sectors and obj.owner == n.cnum)

    def at(obj: LandUnit | Ship | Plane | Sector) -> str:
        return world.fmt(obj.xy, n.cnum)

    doc: dict[str, Any] = {
        "nation": {"cnum": n.cnum, "name": n.name, "money": n.money, "btu": n.btu, "tech": n.tech}
    }
    if "sectors" in kinds:
        doc["sectors"] = [
            {"sect": at(s), "des": s.type.name, "owner": s.owner, "oldowner": s.oldowner,
             "eff": s.eff, "mob": s.mob, "civ": s.civ, "mil": s.mil, "che": s.che,
             "loyalty": s.loyalty, "mines": s.mines, "off": s.off}
            for s in picked
        ]  # fmt: skip
    if "units" in kinds:
        doc["units"] = [
            {"id": u.uid, "type": u.type.display, "sect": at(u), "owner": u.owner, "eff": u.eff,
             "mob": u.mob, "mil": u.mil, "tech": u.tech, "fort": u.fort, "army": u.army,
             "mission": u.mission}
            for _, u in sorted(world.units.items())
            if listed(u)
        ]  # fmt: skip
    if "ships" in kinds:
        doc["ships"] = [
            {"id": sh.uid, "type": sh.type.display, "name": sh.name, "sect": at(sh),
             "owner": sh.owner, "eff": sh.eff, "mob": sh.mob, "mil": sh.mil, "tech": sh.tech,
             "fleet": sh.fleet, "mission": sh.mission,
             "units": sorted(u.uid for u in world.units.values() if u.ship == sh.uid),
             "planes": sorted(p.uid for p in world.planes.values() if p.ship == sh.uid)}
            for _, sh in sorted(world.ships.items())
            if listed(sh)
        ]  # fmt: skip
    if "planes" in kinds:
        doc["planes"] = [
            {"id": p.uid, "type": p.type.display, "sect": at(p), "owner": p.owner, "eff": p.eff,
             "mob": p.mob, "tech": p.tech, "wing": p.wing,
             "range": plane_range(p.type, p.tech), "ship": p.ship, "land": p.land,
             "mission": p.mission}
            for _, p in sorted(world.planes.items())
            if listed(p)
        ]  # fmt: skip
    if as_json:
        echo_json("bellum.empire.show", 1, doc)
        return
    _show_text(doc)


def _show_text(doc: dict[str, Any]) -> None:
    """``show``'s tables: the nation, then one table per kind listed that has rows."""
    nat = doc["nation"]
    click.echo(
        f"{nat['name']} (#{nat['cnum']}): ${nat['money']}, {nat['btu']} BTU, tech {nat['tech']:.2f}"
    )
    if "sectors" in doc:
        click.echo("    sect  des            own old eff mob   civ   mil  che loy mines off")
    for r in doc.get("sectors", []):
        click.echo(
            f"{r['sect']:>8}  {r['des'][:14]:<14} {r['owner']:>3} {r['oldowner']:>3}"
            f" {r['eff']:>3} {r['mob']:>3} {r['civ']:>5} {r['mil']:>5} {r['che']:>4}"
            f" {r['loyalty']:>3} {r['mines']:>5} {'yes' if r['off'] else 'no':>3}"
        )
    if doc.get("units"):
        click.echo("")
        click.echo("   # unit                  x,y   own eff mob mil   tech fort army mission")
    for u in doc.get("units", []):
        click.echo(
            f"{u['id']:>4} {u['type'][:20]:<20} {u['sect']:>6} {u['owner']:>4}"
            f" {u['eff']:>3} {u['mob']:>3} {u['mil']:>3} {u['tech']:>6.1f} {u['fort']:>4}"
            f" {u['army'] or '~':>4} {u['mission'] or '-'}"
        )
    if doc.get("ships"):
        click.echo("")
        click.echo(
            "   # ship                       x,y   own eff mob mil   tech flt units planes mission"
        )
    for sh in doc.get("ships", []):
        click.echo(
            f"{sh['id']:>4} {sh['type'][:25]:<25} {sh['sect']:>6} {sh['owner']:>4}"
            f" {sh['eff']:>3} {sh['mob']:>3} {sh['mil']:>3} {sh['tech']:>6.1f}"
            f" {sh['fleet'] or '~':>3} {len(sh['units']):>5} {len(sh['planes']):>6}"
            f" {sh['mission'] or '-'}"
        )
    if doc.get("planes"):
        click.echo("")
        click.echo(
            "   # plane                      x,y   own eff mob   tech wing range on        mission"
        )
    for p in doc.get("planes", []):
        on = f"ship {p['ship']}" if p["ship"] is not None else ""
        on = on or (f"unit {p['land']}" if p["land"] is not None else "-")
        click.echo(
            f"{p['id']:>4} {p['type'][:25]:<25} {p['sect']:>6} {p['owner']:>4}"
            f" {p['eff']:>3} {p['mob']:>3} {p['tech']:>6.1f} {p['wing'] or '~':>4}"
            f" {p['range']:>5} {on:<9} {p['mission'] or '-'}"
        )


@empire.command("strength", cls=CoordCommand)
@click.argument("sectors", nargs=-1)
@world_option
@db_option
@as_option
@json_option
@rules_options
def strength_cmd(
    sectors: tuple[str, ...],
    world_path: Path | None,
    db: Path | None,
    country: str,
    as_json: bool,
    profile: str | None,
    options: tuple[str, ...],
) -> None:
    """Preview the defense of your sectors (all of them, or the SECTORS given as x,y)."""
    from bellum.empire.combat.preview import strength

    world = open_world(world_path, db).world
    rules = Rules.for_world(world, profile, options)
    n = _country(world, country)
    rows = strength(world, n.cnum, _rows(world, sectors, n, mine=False), rules)
    doc = {
        "sectors": [
            {
                "sect": world.fmt(r.sector.xy, n.cnum),
                "des": r.sector.type.mnemonic,
                "eff": r.sector.eff,
                "mil": r.sector.mil,
                "units": int(r.units),
                "mines": r.mines,
                "mult": r.mult,
                "sector_defense": r.sector_defense,
                "reacting_defense": r.reacting_defense,
                "total": r.total,
            }
            for r in rows
        ]
    }
    if as_json:
        echo_json("bellum.empire.strength", 1, doc)
        return
    click.echo("DEFENSE STRENGTH               land  sect   sector  reacting    total")
    click.echo("  sect       eff  mil  units  mines  mult  defense     units  defense")
    for d in doc["sectors"]:
        mines = "?" if d["mines"] is None else str(d["mines"])
        eff = f"{d['eff']}%"
        click.echo(
            f"{d['sect']:>6} {d['des']}{eff:>8}{d['mil']:>5}"
            f"{d['units']:>7}{mines:>7}{d['mult']:>6.2f}{d['sector_defense']:>9}"
            f"{d['reacting_defense']:>10}{d['total']:>9}"
        )
    if not rows:
        click.echo("No sectors of yours there.")


@empire.command("rules")
@click.option(
    "--world",
    "world_path",
    type=click.Path(dir_okay=False, path_type=Path),
    help="Show the values this world uses.",
)
@db_option
@json_option
@rules_options
def rules_cmd(
    world_path: Path | None,
    db: Path | None,
    as_json: bool,
    profile: str | None,
    options: tuple[str, ...],
) -> None:
    """List the rule profiles, switches and options, one line each, with their values.

    The value column is what this run uses; one column per profile shows
    what that profile sets ('-': it leaves the option alone).
    """
    w = open_world(world_path, db).world if world_path or db else World(geometry=Geometry())
    rules = Rules.for_world(w, profile, options)
    current = rules.profile
    rows = describe()
    names = profile_names()
    if as_json:
        echo_json(
            "bellum.empire.rules",
            1,
            {
                "profile": current,
                "rules": [
                    {
                        "kind": r.kind,
                        "name": r.name,
                        "value": r.name == current if r.kind == "profile" else rules.value(r.name),
                        "by_profile": dict(r.by_profile),
                        "text": r.description,
                    }
                    for r in rows
                ],
            },
        )
        return
    head = "".join(f"{n:<13}" for n in names)
    click.echo(f"{'kind':<8} {'name':<22} {'value':<5} {head}description")

    def cell(v: object) -> str:
        return ("on" if v else "off") if isinstance(v, bool) else str(v)

    for r in rows:
        if r.kind == "profile":
            value, sets = "*" if r.name == current else "", ""
        else:
            value = cell(rules.value(r.name))
            sets = "".join(f"{cell(r.by_profile.get(n, '-')):<13}" for n in names)
        sets = sets or " " * len(head)
        click.echo(f"{r.kind:<8} {r.name:<22} {value:<5} {sets}{r.description}")


seed_option = shared.seed_option("Seed the server's generator (printed when not given).")
out_option = click.option(
    "--out",
    type=click.Path(dir_okay=False, path_type=Path),
    help="Write the resulting world here instead of back to --world.",
)


#: The help of each named answer, as the combat commands give it.
ANSWER_HELP = {
    "mil": "Answer 'Number of mil from SECT': your sector (x,y), or the command's ship"
    " (SHIP=N with its number, or ship=N); repeatable.",
    "unit": "Land unit ID joins; every other unit asked about stays. Repeatable.",
    "no-units": "No land unit joins.",
    "move-in": "Answer 'How many mil to move in': N from every sector, or SECT=N from"
    " one; repeatable.",
    "move-in-unit": "Land unit ID moves in after a victory; the others stay. Repeatable.",
    "no-move-in-units": "No land unit moves in.",
    "yes": "Answer yes to 'Are you sure', an ally's sector and a sneak attack's price.",
}


def answers_with(**helps: str) -> Callable[[Callable[..., None]], Callable[..., None]]:
    """The named answers (docs/empire-cli.md, "Answers"), with some helps reworded for a
    command that takes them otherwise (``empire odds``); keys use ``_`` for ``-``."""
    text = ANSWER_HELP | {k.replace("_", "-"): v for k, v in helps.items()}
    if text.keys() != ANSWER_HELP.keys():
        raise ValueError(f"no such answer: {sorted(text.keys() - ANSWER_HELP.keys())}")
    options = (
        click.option("--mil", "mil", multiple=True, metavar="SECT=N", help=text["mil"]),
        click.option(
            "--unit", "units", multiple=True, type=Whole(0), metavar="ID", help=text["unit"]
        ),
        click.option("--no-units", is_flag=True, help=text["no-units"]),
        click.option("--move-in", multiple=True, metavar="[SECT=]N", help=text["move-in"]),
        click.option(
            "--move-in-unit",
            "move_in_units",
            multiple=True,
            type=Whole(0),
            metavar="ID",
            help=text["move-in-unit"],
        ),
        click.option("--no-move-in-units", is_flag=True, help=text["no-move-in-units"]),
        click.option("--yes", is_flag=True, help=text["yes"]),
    )

    def apply(f: Callable[..., None]) -> Callable[..., None]:
        for option in reversed(options):
            f = option(f)
        return f

    return apply


answer_options = answers_with()


force_option = click.option(
    "--force", is_flag=True, help="Let --out replace a file that is not a world file."
)


#: The sections of a combat command's ``--help``, in order, and the options of each.
COMBAT_SECTIONS: tuple[tuple[str, tuple[Callable[[Any], Any], ...]], ...] = (
    ("Answers to the server's questions (docs/empire-cli.md)", (answer_options,)),
    (
        "World and output",
        (as_option, world_option, db_option, seed_option, out_option, force_option, json_option,
         rules_options),
    ),
    ("On a live server (docs/live.md)", (live_options,)),
)  # fmt: skip


def combat_options(f: Callable[..., None]) -> Callable[..., None]:
    """The options of every combat command, in the sections of :data:`COMBAT_SECTIONS`."""
    for title, options in reversed(COMBAT_SECTIONS):
        f = in_section(title, *options)(f)
    return f


#: The largest number the server reads at a prompt (its ``int``); more would wrap.
ANSWER_MAX = 2**31 - 1


def _count(text: str, option: str) -> int:
    n = to_int(text)
    if n is None:
        raise UsageError(f"{option}: expected a number of mil, not '{shown(text.strip())}'")
    if n > ANSWER_MAX:
        raise UsageError(
            f"{option}: {n} is more than the server reads at its prompts (at most {ANSWER_MAX:,})"
        )
    return n


def _pairs(values: tuple[str, ...], option: str) -> list[tuple[str, int]]:
    """``KEY=N`` values, each key once."""
    seen: dict[str, int] = {}
    for value in values:
        key, eq, n = value.partition("=")
        if not eq or not key.strip():
            raise UsageError(
                f"{option}: expected KEY=N such as 0,0=150, not '{shown(value.strip())}'"
            )
        key = key.strip()
        if key in seen:
            raise UsageError(f"{option} {shown(key)} given twice")
        seen[key] = _count(n, f"{option} {shown(key)}")
    return list(seen.items())


def _unique(ids: tuple[int, ...], option: str, none_flag: bool) -> frozenset[int] | None:
    if none_flag and ids:
        raise UsageError(f"give {option} or --no-{option[2:]}s, not both")
    for uid in ids:
        if ids.count(uid) > 1:
            raise UsageError(f"{option} {uid} given twice")
    return frozenset(ids) if ids or none_flag else None


def named_answers(
    world: World,
    nation: Nation,
    order: Order,
    *,
    mil: tuple[str, ...],
    units: tuple[int, ...],
    no_units: bool,
    move_in: tuple[str, ...],
    move_in_units: tuple[int, ...],
    no_move_in_units: bool,
    yes: bool,
) -> NamedAnswers:
    """The command line's named answers, coordinates made absolute; ``--mil SHIP=N`` and
    ``--mil ship=N`` both answer for the command's ship (:func:`answer_ship`)."""
    named = NamedAnswers(
        units=_unique(units, "--unit", no_units),
        move_in_units=_unique(move_in_units, "--move-in-unit", no_move_in_units),
        yes=yes,
    )
    for key, n in _pairs(mil, "--mil"):
        if is_ship_key(key):
            ship = answer_ship(order, key)
            if ship in named.ship_mil or (ship is None and named.own_ship_mil is not None):
                raise UsageError(f"--mil {key}: the command's ship is given twice")
            named.ship_named = shown(key.strip())
            if ship is None:
                named.own_ship_mil = n
            else:
                named.ship_mil[ship] = n
        else:
            named.mil_at[world.geometry.parse(key, world.origin(nation.cnum))] = n
    plain = [v for v in move_in if "=" not in v]
    if len(plain) > 1:
        raise UsageError("--move-in N given twice")
    if plain:
        named.move_in = _count(plain[0], "--move-in")
    for key, n in _pairs(tuple(v for v in move_in if "=" in v), "--move-in"):
        named.move_in_at[world.geometry.parse(key, world.origin(nation.cnum))] = n
    return named


def answer_option(prompt: Prompt, at: Callable[[Coord], str]) -> tuple[str, str]:
    """The option that answers a question of a number, and its key: ``("--mil", "0,0")``."""
    if prompt.kind is PromptKind.MIL and prompt.ship is not None:
        return "--mil", str(prompt.ship)
    assert prompt.at is not None
    return ("--mil" if prompt.kind is PromptKind.MIL else "--move-in"), at(prompt.at)


def answer_hint(prompt: Prompt, at: Callable[[Coord], str]) -> str:
    """Which option answers a question, for the error when standard input runs out."""
    match prompt.kind:
        case PromptKind.MIL if prompt.ship is not None or prompt.at is not None:
            return "{} {}=N".format(*answer_option(prompt, at))
        case PromptKind.UNIT:
            return f"--unit {prompt.uid} or --no-units"
        case PromptKind.MOVE_IN_MIL if prompt.at is not None:
            return "{} {}=N or --move-in N".format(*answer_option(prompt, at))
        case PromptKind.MOVE_IN_UNIT:
            return f"--move-in-unit {prompt.uid} or --no-move-in-units"
        case PromptKind.ABORT | PromptKind.ALLY | PromptKind.SNEAK:
            return "--yes"
        case PromptKind.ARGUMENT:
            return "the missing argument on the command line"
    return "one more line of input"


def stream_prompter(
    world: World, nation: Nation, named: NamedAnswers, quiet: bool
) -> StreamPrompter:
    """The command line's prompter for ``nation``, sectors written as it sees them."""
    return StreamPrompter(quiet=quiet, named=named, at=lambda xy: world.fmt(xy, nation.cnum))


def _unused_warnings(named: NamedAnswers, world: World, cnum: int) -> None:
    option = {
        "mil": "--mil",
        "ship": "--mil",
        "unit": "--unit",
        "move_in": "--move-in",
        "move_in_unit": "--move-in-unit",
    }
    for kind, key in named.unused():
        where = world.fmt(key, cnum) if isinstance(key, tuple) else str(key)
        click.echo(f"bellum: warning: {option[kind]} {where}: not asked for", err=True)


def play_order(
    name: str,
    words: list[str | None],
    *,
    world_path: Path | None,
    db: Path | None,
    country: str,
    seed: int | None,
    out: Path | None,
    force: bool,
    as_json: bool,
    profile: str | None,
    options: tuple[str, ...],
    **rest: Any,
) -> None:
    """Run the order ``name words...`` on the world and keep what it did.

    ``words`` are the command's arguments (``None`` for the missing ones, which
    the server then asks for); ``rest`` the named answers (:func:`named_answers`)
    and the ``--live`` group.  The world is saved only if the order changed it;
    with ``--live`` the server runs the order instead.
    """
    try:
        order = Order.of(name, words)
    except InputError as exc:
        raise UsageError(str(exc)) from None
    live = {k: rest.pop(k) for k in ("live", *LiveRequest.__dataclass_fields__) if k in rest}
    answers = rest
    request = live_request(live, world=world_path, seed=seed, out=out)
    if request is not None:
        from bellum.empire.service import DEFAULT_DB

        def prompter_for(view: World) -> StreamPrompter:
            me = _country(view, country)
            return stream_prompter(view, me, named_answers(view, me, order, **answers), as_json)

        code = play_live(
            request,
            order,
            country=country,
            db=db or DEFAULT_DB,
            prompter_for=prompter_for,
            sink=None if as_json else _live,
            as_json=as_json,
            profile=profile,
            options=options,
        )
        sys.exit(code)
    source = open_world(world_path, db, write=True, out=out, force=force)
    rules = Rules.for_world(source.world, profile, options)
    nation = _country(source.world, country)
    named = named_answers(source.world, nation, order, **answers)
    result = source.run(
        order,
        country=nation.cnum,
        seed=_seed(seed),
        prompter=stream_prompter(source.world, nation, named, as_json),
        sink=None if as_json else _live,
        rules=rules,
    )
    if not result.outcome.refused:
        _unused_warnings(named, source.world, nation.cnum)
    if as_json:
        echo_json("bellum.empire.combat", 1, result.to_json())
    code = EXIT_BY_OUTCOME.get(result.outcome, 0)
    if code:
        sys.exit(code)


def _combat_command(spec: CommandSpec) -> None:
    """``bellum empire NAME [ARGS]... [SUPPORT]...``: one command of the registry, its
    arguments as the server takes them and the options of every combat command."""
    slots = spec.syntax.slots

    def command(**given: Any) -> None:
        words = [given.pop(slot) for slot in slots] + list(given.pop("support", ()))
        play_order(spec.name, words, **given)

    f = combat_options(command)
    if spec.syntax.support:
        f = click.argument("support", nargs=-1)(f)
    for slot, metavar in reversed(list(zip(slots, spec.metavars, strict=True))):
        f = click.argument(slot, metavar=f"[{metavar}]", required=False)(f)
    empire.command(spec.name, cls=CoordCommand, help=spec.help)(f)


for _spec in COMMANDS.values():
    _combat_command(_spec)
