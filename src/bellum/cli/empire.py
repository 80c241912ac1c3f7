"""``bellum empire``: the Wolfpack Empire combat commands on a world file."""

from __future__ import annotations

import json
import sys
from pathlib import Path

import click

from bellum.cli.app import cli
from bellum.dice import ServerRandom, new_seed
from bellum.empire.combat import CombatResult, attack
from bellum.empire.events import Event
from bellum.empire.store import Invocation, WorldSource, open_world
from bellum.empire.world import Nation, World
from bellum.errors import UsageError

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
        raise UsageError(f"no country '{key}' in this world; countries: {names}")
    return n


def _seed(seed: int | None) -> int:
    used = new_seed() if seed is None else seed
    click.echo(
        f"seed: {used}" + ("" if seed is not None else f" (replay with --seed {used})"), err=True
    )
    return used


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


@cli.group()
def empire() -> None:
    """Wolfpack Empire 4.4: attack, assault, paradrop, board and friends."""


@empire.command("attack")
@click.argument("target")
@click.argument("support", nargs=-1)
@world_option
@db_option
@as_option
@click.option("--seed", type=click.IntRange(0, 2**32 - 1), help="Seed the server's generator.")
@click.option(
    "--out",
    type=click.Path(dir_okay=False, path_type=Path),
    help="Write the resulting world here instead of back to --world.",
)
@click.option("--json", "as_json", is_flag=True, help="Print the result as JSON.")
def attack_cmd(
    target: str,
    support: tuple[str, ...],
    world_path: Path | None,
    db: Path | None,
    country: str,
    seed: int | None,
    out: Path | None,
    as_json: bool,
) -> None:
    """Attack the sector TARGET (x,y in your coordinates) from your adjacent sectors.

    SUPPORT are the server's four optional answers (forts, ships, arty, planes),
    e.g. `y y n n`; without them all support is requested.  Prompts are
    answered interactively, or line by line from piped input.
    """
    call = Invocation("attack", [target], {"support_args": list(support)})
    source = open_world(world_path, db, command=call, out=out)
    world = source.world
    nation = _country(world, country)
    used = _seed(seed)
    result = attack(
        world,
        target,
        nation.cnum,
        ServerRandom(used),
        source.prompter(StreamPrompter(quiet=as_json)),
        list(support),
        sink=None if as_json else _live,
    )
    _finish(result, source, as_json)


def _finish(result: CombatResult, source: WorldSource, as_json: bool) -> None:
    source.commit(result)
    if as_json:
        click.echo(json.dumps(result.to_json(), indent=2))
    code = EXIT_BY_OUTCOME.get(result.outcome, 0)
    if code:
        sys.exit(code)


@empire.command("show")
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
