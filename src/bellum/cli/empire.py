"""``bellum empire``: the Wolfpack Empire combat commands on a world file."""

from __future__ import annotations

import json
import re
import sys
from collections.abc import Callable
from pathlib import Path
from statistics import mean
from typing import Any

import click

from bellum.budget import check_repeats, timed
from bellum.cli.app import cli
from bellum.dice import new_seed
from bellum.empire.combat.preview import strength
from bellum.empire.events import Event
from bellum.empire.geometry import Geometry
from bellum.empire.orders import Order
from bellum.empire.planning import fight_sides, make_plan, prepare
from bellum.empire.planning import resolver_runs as resolver_runs_of
from bellum.empire.rules import apply_rules, describe, profile_names
from bellum.empire.service import DEFAULT_DB, WorldSource, open_source
from bellum.empire.world import DEFAULT_OPTIONS, Nation, World
from bellum.errors import InputError, UsageError
from bellum.fileio import refuse_same_file
from bellum.numbers import shown
from bellum.odds import Method, fight_odds
from bellum.odds.report import plot_format, render_text, to_json_dict, write_plot
from bellum.term import use_color

EXIT_BY_OUTCOME = {"usage": 2, "refused": 1, "aborted": 1}


class StreamPrompter:
    """Asks on stdout and reads answers line by line from stdin.

    When stdin is not a terminal the answer is echoed after the prompt, so a
    piped run prints the same transcript a player would see.  End of input
    answers ``None``, which the rules treat like the server treats EOF.
    """

    def __init__(self, quiet: bool = False) -> None:
        self.quiet = quiet
        self.echo = not sys.stdin.isatty()

    def ask(self, prompt: str) -> str | None:
        out = sys.stderr if self.quiet else sys.stdout
        out.write(prompt)
        out.flush()
        line = sys.stdin.readline()
        if not line:
            out.write("\n")
            return None
        answer = line.rstrip("\r\n")
        if self.echo:
            out.write(answer + "\n")
        return answer


def _live(event: Event) -> None:
    if event.kind == "text":
        sys.stdout.write(event.text)
        sys.stdout.flush()


def _country(world: World, key: str) -> Nation:
    n = world.find_nation(key)
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


class CoordCommand(click.Command):
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
as_option = click.option("--as", "country", required=True, help="Your country: number or name.")


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


@cli.group()
def empire() -> None:
    """Wolfpack Empire 4.4: attack, assault, paradrop, board and friends."""


@empire.command("show", cls=CoordCommand)
@click.argument("sectors", nargs=-1)
@world_option
@db_option
@as_option
def show_cmd(
    sectors: tuple[str, ...], world_path: Path | None, db: Path | None, country: str
) -> None:
    """List your sectors (or the SECTORS given, as x,y), units and nation."""
    world = open_world(world_path, db).world
    n = _country(world, country)
    if sectors:
        picked = [world.sector(world.geometry.parse(s, n.origin)) for s in sectors]
    else:
        picked = [
            s
            for _, s in sorted(world.sectors.items(), key=lambda kv: kv[0][::-1])
            if s.owner == n.cnum
        ]
    click.echo(f"{n.name} (#{n.cnum}): ${n.money}, {n.btu} BTU, tech {n.tech:.2f}")
    click.echo("    sect  des            own old eff mob   civ   mil  che loy mines off")
    for s in picked:
        mines = s.mines if s.oldowner == n.cnum or s.owner == 0 else "?"
        click.echo(
            f"{world.fmt(s.xy, n.cnum):>8}  {s.type.name[:14]:<14} {s.owner:>3} {s.oldowner:>3}"
            f" {s.eff:>3} {s.mob:>3} {s.civ:>5} {s.mil:>5} {s.che:>4} {s.loyalty:>3}"
            f" {mines!s:>5} {'yes' if s.off else 'no':>3}"
        )
    where = {s.xy for s in picked}
    units = [u for _, u in sorted(world.units.items()) if u.owner == n.cnum or u.xy in where]
    if units:
        click.echo("")
        click.echo("   # unit                  x,y   own eff mob mil   tech fort army mission")
        for u in units:
            click.echo(
                f"{u.uid:>4} {u.type.display[:20]:<20} {world.fmt(u.xy, n.cnum):>6} {u.owner:>4}"
                f" {u.eff:>3} {u.mob:>3} {u.mil:>3} {u.tech:>6.1f} {u.fort:>4} {u.army or '~':>4}"
                f" {u.mission or '-'}"
            )


@empire.command("strength", cls=CoordCommand)
@click.argument("sectors", nargs=-1)
@world_option
@db_option
@as_option
@rules_options
def strength_cmd(
    sectors: tuple[str, ...],
    world_path: Path | None,
    db: Path | None,
    country: str,
    profile: str | None,
    options: tuple[str, ...],
) -> None:
    """Preview the defense of your sectors (all of them, or the SECTORS given as x,y)."""
    world = open_world(world_path, db).world
    apply_rules(world, profile, list(options))
    n = _country(world, country)
    if sectors:
        wanted = dict.fromkeys(world.geometry.parse(s, n.origin) for s in sectors)
        picked = [world.sector(xy) for xy in wanted]
    else:
        picked = [s for _, s in sorted(world.sectors.items(), key=lambda kv: kv[0][::-1])]
    rows = strength(world, n.cnum, picked)
    click.echo("DEFENSE STRENGTH               land  sect   sector  reacting    total")
    click.echo("  sect       eff  mil  units  mines  mult  defense     units  defense")
    for r in rows:
        s = r.sector
        mines = "?" if r.mines is None else str(r.mines)
        click.echo(
            f"{world.fmt(s.xy, n.cnum):>6} {s.type.mnemonic}{f'{s.eff}%':>8}{s.mil:>5}"
            f"{int(r.units):>7}{mines:>7}{r.mult:>6.2f}{r.sector_defense:>9}"
            f"{r.reacting_defense:>10}{r.total:>9}"
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
@rules_options
def rules_cmd(
    world_path: Path | None, db: Path | None, profile: str | None, options: tuple[str, ...]
) -> None:
    """List the rule profiles, switches and options, one line each, with their values."""
    world = open_world(world_path, db).world if world_path or db else None
    values: dict[str, object] = dict(DEFAULT_OPTIONS)
    if world is not None or profile or options:
        w = world or World(geometry=Geometry())
        apply_rules(w, profile, list(options))
        values.update({k: w.option(k) for k in DEFAULT_OPTIONS})
    current = values["profile"]
    for kind, name, text in describe():
        if kind == "profile":
            value = "*" if name == current else ""
        else:
            v = values.get(name)
            value = ("on" if v else "off") if isinstance(v, bool) else str(v)
        click.echo(f"{kind:<8} {name:<22} {value:<4} {text}")


seed_option = click.option(
    "--seed", type=click.IntRange(0, 2**32 - 1), help="Seed the server's generator."
)
out_option = click.option(
    "--out",
    type=click.Path(dir_okay=False, path_type=Path),
    help="Write the resulting world here instead of back to --world.",
)
json_option = click.option("--json", "as_json", is_flag=True, help="Print the result as JSON.")
force_option = click.option(
    "--force", is_flag=True, help="Let --out replace a file that is not a world file."
)


def combat_options(f: Callable[..., None]) -> Callable[..., None]:
    """The options of every combat command, in the order ``--help`` lists them."""
    f = rules_options(f)
    for option in (
        json_option,
        force_option,
        out_option,
        seed_option,
        as_option,
        db_option,
        world_option,
    ):
        f = option(f)
    return f


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
) -> None:
    """Run the order ``name words...`` on the world and keep what it did.

    ``words`` are the command's arguments (``None`` for the missing ones, which
    the server then asks for); the world is saved only if the order changed it.
    """
    try:
        order = Order.of(name, words)
    except InputError as exc:
        raise UsageError(str(exc)) from None
    source = open_world(world_path, db, write=True, out=out, force=force)
    apply_rules(source.world, profile, list(options))
    nation = _country(source.world, country)
    result = source.run(
        order,
        country=nation.cnum,
        seed=_seed(seed),
        prompter=StreamPrompter(quiet=as_json),
        sink=None if as_json else _live,
    )
    if as_json:
        click.echo(json.dumps(result.to_json(), indent=2))
    code = EXIT_BY_OUTCOME.get(result.outcome, 0)
    if code:
        sys.exit(code)


@empire.command("attack", cls=CoordCommand)
@click.argument("target", metavar="[TARGET]", required=False)
@click.argument("support", nargs=-1)
@combat_options
def attack_cmd(target: str | None, support: tuple[str, ...], **common: Any) -> None:
    """Attack the sector TARGET (x,y in your coordinates) from your adjacent sectors.

    Without TARGET you are asked for it, like on the server.

    SUPPORT are the server's four optional answers (forts, ships, arty, planes),
    e.g. `y y n n`; without them all support is requested.  Prompts are
    answered interactively, or line by line from piped input.
    """
    play_order("attack", [target, *support], **common)


@empire.command("assault", cls=CoordCommand)
@click.argument("target", metavar="[TARGET]", required=False)
@click.argument("ship", metavar="[SHIP]", required=False)
@click.argument("support", nargs=-1)
@combat_options
def assault_cmd(
    target: str | None, ship: str | None, support: tuple[str, ...], **common: Any
) -> None:
    """Assault the coastal sector TARGET from your ship number SHIP.

    SUPPORT are the four optional answers (forts, ships, arty, planes).  A
    missing TARGET or SHIP is asked for like the server does.
    """
    play_order("assault", [target, ship, *support], **common)


@empire.command("board", cls=CoordCommand)
@click.argument("victim", metavar="[VICTIM]", required=False)
@click.argument("source", metavar="[FROM]", required=False)
@combat_options
def board_cmd(victim: str | None, source: str | None, **common: Any) -> None:
    """Board the enemy ship number VICTIM from your ship (a number) or sector (x,y) FROM."""
    play_order("board", [victim, source], **common)


@empire.command("lboard", cls=CoordCommand)
@click.argument("victim", metavar="[VICTIM]", required=False)
@click.argument("source", metavar="[FROM]", required=False)
@combat_options
def lboard_cmd(victim: str | None, source: str | None, **common: Any) -> None:
    """Board the enemy land unit number VICTIM from your sector FROM (x,y)."""
    play_order("lboard", [victim, source], **common)


@empire.command("paradrop", cls=CoordCommand)
@click.argument("planes", metavar="[PLANES]", required=False)
@click.argument("escorts", metavar="[ESCORTS]", required=False)
@click.argument("ap", metavar="[AP]", required=False)
@click.argument("route", metavar="[ROUTE]", required=False)
@combat_options
def paradrop_cmd(
    planes: str | None, escorts: str | None, ap: str | None, route: str | None, **common: Any
) -> None:
    """Drop paratroopers from transport PLANES, guarded by ESCORTS ('' for none).

    PLANES and ESCORTS are plane numbers (1/4/7), a sector (x,y) or a wing
    letter; the planes gather at the assembly point AP and fly ROUTE, a path
    (e.g. jjh) or a destination sector.
    """
    play_order("paradrop", [planes, escorts, ap, route], **common)


@empire.command("odds", cls=CoordCommand)
@click.argument("target")
@world_option
@db_option
@as_option
@rules_options
@click.option(
    "--mil",
    "mil",
    multiple=True,
    metavar="SECT=N",
    help="Mil from one of your sectors; repeatable.",
)
@click.option(
    "--unit", "units", multiple=True, type=int, metavar="ID", help="A land unit; repeatable."
)
@click.option(
    "--model",
    type=click.Choice(["server", "per-casualty"]),
    default=None,
    help="server: the 4.4.1 fight loop; per-casualty: the info page's description "
    "(default: the one the world's rules use).",
)
@click.option("--exact", "force_exact", is_flag=True, help="Force the exact solver.")
@click.option("--monte-carlo", "force_mc", is_flag=True, help="Force Monte Carlo of the model.")
@click.option("--runs", type=click.IntRange(1), default=None, help="Monte Carlo runs.")
@click.option(
    "--resolver-runs",
    type=click.IntRange(1, 100_000),
    default=None,
    help="Also play the real command this many times (morale and support included).",
)
@click.option(
    "--seed", type=click.IntRange(0, 2**63 - 1), default=None, help="Seed for random runs."
)
@click.option(
    "--plot", type=click.Path(dir_okay=False, path_type=Path), help="Write a PNG of the odds."
)
@click.option("--force", is_flag=True, help="Let --plot replace a file that is not an image.")
@click.option("--json", "as_json", is_flag=True, help="Print a JSON document (docs/odds.md).")
def odds_cmd(
    target: str,
    world_path: Path | None,
    db: Path | None,
    country: str,
    profile: str | None,
    options: tuple[str, ...],
    mil: tuple[str, ...],
    units: tuple[int, ...],
    model: str | None,
    force_exact: bool,
    force_mc: bool,
    runs: int | None,
    resolver_runs: int | None,
    seed: int | None,
    plot: Path | None,
    force: bool,
    as_json: bool,
) -> None:
    """The odds of a planned attack on TARGET, before you make it.

    Give the mil (--mil 0,0=150) and units (--unit 7) you would commit.  The
    exact numbers come from the attack's own strength and casualty rules;
    morale checks and fort/ship/unit/plane support are random and are left
    out (mines are in).  --resolver-runs N plays the real command N times
    with everything included, to compare.  Nothing in the world changes.
    """
    if force_exact and force_mc:
        raise UsageError("choose one of --exact and --monte-carlo")
    if plot is not None:
        plot_format(plot, force=force)
    world = open_world(world_path, db).world
    apply_rules(world, profile, list(options))
    n = _country(world, country)
    plan = make_plan(world, n.cnum, target, list(mil), list(units))
    combat, said = prepare(world, n.cnum, plan)
    att, dfd = fight_sides(combat)
    used = new_seed() if seed is None else seed
    method: Method = "exact" if force_exact else "monte-carlo" if force_mc else "auto"
    if model is None:
        model = "per-casualty" if world.option("info_fight") else "server"
    result = fight_odds(
        att,
        dfd,
        model="server" if model == "server" else "per-casualty",
        method=method,
        runs=runs,
        seed=used,
    )
    resolver = None
    if resolver_runs:
        _, each = timed(lambda: resolver_runs_of(world, n.cnum, plan, 1, used))
        check_repeats("--resolver-runs", resolver_runs, each, "play the attack")
        resolver = resolver_runs_of(world, n.cnum, plan, resolver_runs, used)
    if plot is not None:
        write_plot(result, plot, force=force)
    if as_json:
        doc = to_json_dict(result)
        doc["plan"] = {
            "target": target,
            "mil": {world.fmt(xy, n.cnum): k for xy, k in plan.mil.items()},
            "units": sorted(plan.units),
            "final_attack": combat.ototal,
            "final_defense": combat.dtotal,
        }
        doc["assumptions"] = ["no morale checks", "no fort, ship, unit or plane support"]
        if resolver is not None:
            doc["resolver"] = {
                "runs": resolver.runs,
                "p_attacker_wins": resolver.p_win,
                "standard_error": resolver.standard_error,
                "expected_losses": {
                    "attacker": mean(resolver.attacker_losses),
                    "defender": mean(resolver.defender_losses),
                },
                "seed": used,
            }
        click.echo(json.dumps(doc))
        return
    for line in said:
        click.echo(line)
    click.echo("(exact odds leave out morale checks and fort/ship/unit/plane support)")
    click.echo(render_text(result, color=use_color()))
    if resolver is not None:
        click.echo(
            f"the real command, played {resolver.runs} times (seed {used}): "
            f"P(attacker wins) {100 * resolver.p_win:.2f}% +- {100 * resolver.standard_error:.2f}%,"
            f" losses {mean(resolver.attacker_losses):.2f} / {mean(resolver.defender_losses):.2f}"
        )
    if plot is not None:
        click.echo(f"plot written to {plot}")
