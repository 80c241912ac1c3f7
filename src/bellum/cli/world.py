"""``bellum empire world``: world databases (new, import, export, show), plus the
``history`` and ``replay`` commands that read a database's command history."""

from __future__ import annotations

import sys
from pathlib import Path
from typing import Any

import click

from bellum.cli.empire import CoordCommand
from bellum.cli.options import Whole, echo_json, refuse_same_file
from bellum.cli.progress import progress
from bellum.empire.geometry import Geometry
from bellum.empire.io.sqlite.store import Store
from bellum.empire.io.toml import dumps, load_world, world_to_data
from bellum.empire.io.xdump.mapping import dump_to_world, read_dump, world_to_dump
from bellum.empire.rules import econfig_options
from bellum.empire.service import DEFAULT_DB, history, replay
from bellum.empire.world import Sector, World
from bellum.errors import InputError, UsageError
from bellum.fileio import DUMP, WORLD, check_overwrite, read_input, write_atomic
from bellum.numbers import shown, to_int

db_option = click.option(
    "--db",
    type=click.Path(dir_okay=False, path_type=Path),
    default=DEFAULT_DB,
    show_default=True,
    help="The world database (SQLite).",
)
replace_option = click.option(
    "--replace", is_flag=True, help="Start an existing database over (drops its history)."
)


def _size(text: str | None) -> tuple[int, int] | None:
    if text is None:
        return None
    sides = [to_int(v) for v in text.lower().split("x")]
    if len(sides) != 2 or None in sides:
        raise UsageError(f"--size: expected WIDTHxHEIGHT, both even (64x32), not '{shown(text)}'")
    w, h = (v or 0 for v in sides)
    try:
        Geometry(w, h)
    except ValueError as exc:
        raise UsageError(f"--size: {exc}") from None
    return w, h


size_option = click.option(
    "--size", help="World size WIDTHxHEIGHT (the game's WORLD_X x WORLD_Y), e.g. 64x32."
)


def read_econfig(path: Path) -> tuple[tuple[int, int] | None, dict[str, Any]]:
    """The world size and the options bellum knows from an Empire ``econfig`` file.

    Keys bellum does not model are ignored: an econfig holds much more than combat reads.
    """
    try:
        lines = read_input(path, "econfig file").decode("utf-8").splitlines()
    except UnicodeDecodeError:
        raise InputError(f"{path}: not a UTF-8 text file") from None
    values: dict[str, str] = {}
    for n, line in enumerate(lines, 1):
        words = line.split("#", 1)[0].split(None, 1)
        if not words:
            continue
        if len(words) != 2:
            raise InputError(f"{path}:{n}: expected 'key value'")
        values[words[0]] = words[1].strip().strip('"')
    size = None
    if "WORLD_X" in values or "WORLD_Y" in values:
        text = f"{values.get('WORLD_X', '64')}x{values.get('WORLD_Y', '32')}"
        try:
            size = _size(text)
        except UsageError as exc:
            problem = str(exc).removeprefix("--size: ")
            raise InputError(f"{path}: WORLD_X and WORLD_Y: {problem}") from None
    options = econfig_options(values, str(path))
    return size, options


@click.group("world")
def world_group() -> None:
    """World databases: create, import and export Empire dumps, show."""


@world_group.command("new")
@db_option
@click.option(
    "--from",
    "source",
    type=click.Path(dir_okay=False, path_type=Path),
    help="Start from this world file (TOML).",
)
@size_option
@replace_option
def new_cmd(db: Path, source: Path | None, size: str | None, replace: bool) -> None:
    """Create a world database from a world file, or an empty sea of --size."""
    if source is not None:
        if size is not None:
            raise UsageError("give --from or --size, not both")
        world = load_world(source)
    else:
        w, h = _size(size or "64x32") or (64, 32)
        world = World(geometry=Geometry(w, h))
        sea = world.tables.sector("sea")
        for y in range(h):
            for x in range(y % 2, w, 2):
                world.sectors[(x, y)] = Sector(x=x, y=y, type=sea)
    Store.create(db, world, replace=replace).close()
    click.echo(f"{db}: new world {world.geometry.width}x{world.geometry.height}")


@world_group.command("import")
@click.argument("dump", type=click.Path(dir_okay=False, path_type=Path))
@db_option
@size_option
@click.option(
    "--econfig",
    type=click.Path(dir_okay=False, path_type=Path),
    help="The game's econfig: world size and options.",
)
@replace_option
def import_cmd(dump: Path, db: Path, size: str | None, econfig: Path | None, replace: bool) -> None:
    """Import an Empire dump (empdump -x or xdump output) into a new database.

    Dumps do not say how big the world is; without --size or --econfig it is
    inferred from a complete sector table.
    """
    wanted = _size(size)
    options: dict[str, Any] = {}
    if econfig is not None:
        from_config, options = read_econfig(econfig)
        wanted = wanted or from_config
    # Three steps of about equal length (read, build the world, write the database):
    # a large game's dump takes a while, and the bar shows which step it is in.
    with progress(f"importing {dump.name}", total=3, unit="step") as advance:
        parsed = read_dump(dump)
        advance(1)
        world = dump_to_world(parsed, wanted, options)
        advance(1)
        Store.create(db, world, parsed, replace=replace).close()
        advance(1)
    click.echo(
        f"{db}: imported {dump.name}: {world.geometry.width}x{world.geometry.height},"
        f" {len(world.nations)} countries, {len(world.units)} land units,"
        f" {len(world.ships)} ships, {len(world.planes)} planes"
    )


@world_group.command("export")
@db_option
@click.option(
    "--out",
    required=True,
    type=click.Path(dir_okay=False, path_type=Path),
    help="Write here ('-' for standard output).",
)
@click.option("--toml", "as_toml", is_flag=True, help="Write a bellum world file instead.")
@click.option("--force", is_flag=True, help="Let --out replace a file of another kind.")
def export_cmd(db: Path, out: Path, as_toml: bool, force: bool) -> None:
    """Export the world as an Empire dump (or as a TOML world file)."""
    refuse_same_file(out, "--out", {"--db": db})
    kind = WORLD if as_toml else DUMP
    if str(out) != "-":
        check_overwrite(out, kind, force)
    store = Store.open(db)
    try:
        world = store.world()
        text = dumps(world_to_data(world)) if as_toml else world_to_dump(world, store.dump())
    finally:
        store.close()
    if str(out) == "-":
        sys.stdout.write(text)
        return
    write_atomic(out, text, encoding="utf-8" if as_toml else "ascii", kind=kind, force=force)


@world_group.command("show")
@db_option
def show_cmd(db: Path) -> None:
    """Summarise a world database: schema, size, contents, history."""
    store = Store.open(db)
    try:
        s = store.summary()
    finally:
        store.close()
    c = s["counts"]
    click.echo(f"database:   {db} (schema {s['schema_version']})")
    click.echo(f"source:     {s['source']} (created {s['created']})")
    click.echo(f"world:      {s['size'][0]}x{s['size'][1]}, {c.get('sector', 0)} sectors")
    click.echo(
        f"objects:    {c.get('nation', 0)} countries, {c.get('unit', 0)} land units,"
        f" {c.get('ship', 0)} ships, {c.get('plane', 0)} planes"
    )
    click.echo(f"dump:       {s['dump_tables']} tables kept for export")
    click.echo(f"history:    {s['commands']} commands")


@click.command("history")
@db_option
@click.option("--json", "as_json", is_flag=True, help="Print the history as JSON.")
def history_cmd(db: Path, as_json: bool) -> None:
    """List the commands stored in a world database, oldest first."""
    records = history(db)
    if as_json:
        echo_json("bellum.empire.history", 1, {"commands": [r.to_json() for r in records]})
        return
    click.echo("  id  at (UTC)             command  as  seed        outcome     arguments")
    for r in records:
        at = r.at[:19].replace("T", " ")
        click.echo(
            f"{r.id:>4}  {at:<19}  {r.command:<8} {r.country:>2}  {r.seed:<11}"
            f" {r.outcome:<11} {' '.join(r.words())}"
        )


@click.command("replay", cls=CoordCommand)
@click.argument("command_id", metavar="ID", type=Whole(1, 2**63 - 1))
@db_option
@click.option("--show", is_flag=True, help="Print the replayed transcript.")
def replay_cmd(command_id: int, db: Path, show: bool) -> None:
    """Check that stored command ID reproduces bit for bit.

    Re-runs it on the world as it was, with its seed and answers, and compares
    the transcript and the changes with the record (exit 1 if they differ).
    """
    store = Store.open(db)
    try:
        report = replay(store, command_id)
    finally:
        store.close()
    if show:
        click.echo(report.transcript, nl=False)
    rec = report.command
    if report.ok:
        click.echo(
            f"command {rec.id} ({' '.join([rec.command, *rec.words()])},"
            f" seed {rec.seed}): reproduced"
            f" ({len(report.transcript)} characters, {len(rec.changes)} objects changed)",
            err=show,
        )
        return
    click.echo(f"command {rec.id}: NOT reproduced", err=True)
    for d in report.differences:
        click.echo(f"  {d}", err=True)
    sys.exit(1)
