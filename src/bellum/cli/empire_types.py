"""``bellum empire types``: every land unit, ship, plane and sector type with its stats.

The stats are the type's own, at the tech it is built with, as the server's
``show land stats`` (and ``show ship``, ``show plane``, ``show sect``) print them;
a unit built above that tech is stronger (spec §0.5), which ``show`` gives per unit.
"""

from __future__ import annotations

import dataclasses
from collections.abc import Callable, Sequence
from pathlib import Path
from typing import Any

import click

from bellum.cli.empire import db_option, empire, json_option, open_world, world_option
from bellum.cli.options import echo_json
from bellum.empire.tables import LandType, PlaneType, SectorType, ShipType, Tables, stock

Stat = tuple[str, Callable[[Any], object]]


def _attr(name: str) -> Callable[[Any], object]:
    return lambda t: getattr(t, name)


def _flags(t: Any) -> str:
    return " ".join(sorted(t.flags if hasattr(t, "flags") else t.tags)) or "-"


def _stats(*names: str) -> list[Stat]:
    """Columns named as the server's ``show`` heads them (``head=attribute``, or the
    attribute's name), then the flags."""
    return [
        *((n.partition("=")[0], _attr(n.partition("=")[2] or n)) for n in names),
        ("flags", _flags),
    ]


#: The kinds listed, in order: the option that picks each, its types and its columns.
KINDS: dict[str, tuple[str, Callable[[Tables], dict[str, Any]], list[Stat]]] = {
    "units": (
        "land units",
        lambda t: t.land,
        _stats("type=mnemonic", "name", "tech", "att", "def=defense", "vul", "spd", "vis",
               "spy", "rad", "frg", "acc", "dam", "amm=ammo", "aaf", "mil=milit", "lnd=nland",
               "xpl=nxl"),
    ),
    "ships": (
        "ships",
        lambda t: t.ships,
        _stats("type=mnemonic", "name", "tech", "armor", "spd=speed", "vis", "rng=vrange",
               "frg", "glim", "mil=milit", "lnd=nland", "pln=nplanes", "hel=nchoppers",
               "xpl=nxl"),
    ),
    "planes": (
        "planes",
        lambda t: t.planes,
        _stats("type=mnemonic", "name", "tech", "crew", "acc", "load", "att", "def=defense",
               "ran=range", "fuel", "stlth=stealth"),
    ),
    "sectors": (
        "sectors",
        lambda t: t.sectors,
        _stats("des=mnemonic", "name", "off=offense", "def=defense", "pop=max_pop",
               "nav=navigation", "pack=packing"),
    ),
}  # fmt: skip


def type_json(t: LandType | ShipType | PlaneType | SectorType) -> dict[str, Any]:
    """Every field of a type; flags (a sector's tags) as a sorted list."""
    doc = {f.name: getattr(t, f.name) for f in dataclasses.fields(t)}
    for key in ("flags", "tags"):
        if key in doc:
            doc[key] = sorted(doc[key])
    return doc


def _table(rows: Sequence[Sequence[object]], heads: Sequence[str]) -> list[str]:
    """Aligned columns: numbers to the right (floats as the tables give them), text left."""
    right = [all(isinstance(r[i], int | float) for r in rows) for i in range(len(heads))]
    cells = [
        list(heads),
        *[[f"{c:.4g}" if isinstance(c, float) else str(c) for c in r] for r in rows],
    ]
    widths = [max(len(r[i]) for r in cells) for i in range(len(heads))]
    return [
        "  ".join(
            c.rjust(w) if right[i] else c.ljust(w)
            for i, (c, w) in enumerate(zip(r, widths, strict=True))
        ).rstrip()
        for r in cells
    ]


@empire.command("types")
@world_option
@db_option
@click.option("--units", "only_units", is_flag=True, help="List land unit types.")
@click.option("--ships", "only_ships", is_flag=True, help="List ship types.")
@click.option("--planes", "only_planes", is_flag=True, help="List plane types.")
@click.option("--sectors", "only_sectors", is_flag=True, help="List sector types.")
@json_option
def types_cmd(world_path: Path | None, db: Path | None, as_json: bool, **only: bool) -> None:
    """List every land unit, ship, plane and sector type with its stats.

    The stats are the type's at the tech it is built with (a unit of higher tech
    is stronger: `bellum empire show` gives each one's).  Without --world or --db,
    the stock 4.4.1 tables, which every world uses unless it says otherwise.
    """
    tables = open_world(world_path, db).world.tables if world_path or db else stock()
    kinds = [k for k in KINDS if only[f"only_{k}"]] or list(KINDS)
    if as_json:
        docs = {k: [type_json(t) for t in KINDS[k][1](tables).values()] for k in kinds}
        echo_json("bellum.empire.types", 1, docs)
        return
    for n, kind in enumerate(kinds):
        title, of, stats = KINDS[kind]
        types = of(tables).values()
        if n:
            click.echo("")
        click.echo(f"{title} ({len(types)} types)")
        rows = [[get(t) for _, get in stats] for t in types]
        for line in _table(rows, [head for head, _ in stats]):
            click.echo(line)
