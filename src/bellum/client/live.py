"""A live game in a world database: sync it from the server, fight on the server, check bellum.

:func:`sync` reads every table the account may see (:mod:`bellum.client.xdump`),
turns it into a world through the one dump import (:func:`bellum.empire.dump.dump_to_world`)
and stores it as a new version with its own history entry.  A player's sync is
a view with fog of war (:class:`bellum.empire.world.Fog`); a deity's is the
whole game.

All of these take an open :class:`~bellum.client.session.Session`, so the caller
decides how to connect and when to disconnect; they send only ``xdump`` reads
and the command they are given.
"""

from __future__ import annotations

from dataclasses import dataclass, field
from pathlib import Path

from bellum.client.session import Session
from bellum.client.xdump import SYNC_TABLES, XdumpReader
from bellum.empire.dump import dump_to_world
from bellum.empire.dumpfile import Dump, parse_dump
from bellum.empire.store import Entry, Store
from bellum.empire.world import World


@dataclass
class Synced:
    """What one sync stored: the history entry, whose view, and how much changed."""

    entry: int
    country: int
    world: World
    tables: list[str]
    refused: dict[str, str] = field(default_factory=dict)
    changed: int = 0

    def summary(self) -> str:
        w = self.world
        who = "the deity" if self.country == 0 else f"country #{self.country}"
        view = (
            "fog of war: only what this country sees is known"
            if w.fog is not None
            else "the whole game"
        )
        return (
            f"synced as {who}: {w.geometry.width}x{w.geometry.height},"
            f" {len(w.sectors)} sectors, {len(w.nations)} countries, {len(w.units)} land units,"
            f" {len(w.ships)} ships, {len(w.planes)} planes ({view});"
            f" history entry {self.entry}, {self.changed} objects changed"
        )


def read_world(reader: XdumpReader) -> tuple[World, Dump]:
    """The world as the reader's account sees it now, and the dump it came from."""
    dump = parse_dump(reader.read(SYNC_TABLES), f"xdump {reader.session.address}")
    return dump_to_world(dump), dump


def open_store(db: Path, world: World) -> Store:
    """The database at ``db``; a new one (an empty world of ``world``'s size) if there is none."""
    if not db.exists():
        Store.create(db, World(geometry=world.geometry)).close()
    return Store.open(db)


def sync(session: Session, db: Path) -> Synced:
    """Store the game as the session's account sees it as a new version of ``db``'s world."""
    reader = XdumpReader(session)
    world, dump = read_world(reader)
    country = world.fog.viewer if world.fog is not None else 0
    entry = Entry(
        "sync",
        [session.address],
        country,
        "synced",
        {
            "server": session.address,
            "tables": [t for t in SYNC_TABLES if t not in reader.refused],
            "refused": reader.refused,
            "fog": world.fog is not None,
        },
    )
    store = open_store(db, world)
    try:
        cid = store.record(entry, world, dump)
        changed = len(store.command(cid).changes)
    finally:
        store.close()
    return Synced(cid, country, world, entry.result["tables"], reader.refused, changed)
