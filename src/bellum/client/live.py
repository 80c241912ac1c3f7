"""A live game in a world database: sync it from the server, fight on the server, check bellum.

:func:`sync` reads every table the account may see (:mod:`bellum.client.xdump`),
turns it into a world through the one dump import
(:func:`bellum.empire.io.xdump.mapping.dump_to_world`) and stores it as a new
version with its own history entry.  A player's sync is a view with fog of war
(:class:`bellum.empire.world.Fog`); a deity's is the whole game.

:class:`LiveGame` (or :func:`play` for one order) sends a combat order
(``attack``, ``assault``, ``board``, ``lboard``, ``paradrop``: an
:class:`~bellum.empire.orders.Order`) to the server, relays its questions to a
prompter, syncs the world back and records the order, with the server's
transcript, in the history.  With ``check``, a deity session on a test-mode
server (``running_test_suite 1``), it first reads the whole game and takes the
seed the server is about to use; once the server has answered, bellum resolves
the same order on that world with that seed and the answers the player gave
(:func:`bellum.empire.run_command`) and compares the transcripts line by line:
any test-mode game becomes an oracle for bellum.

All of these take open :class:`~bellum.client.session.Session` objects, so the
caller decides how to connect and when to disconnect; they send only reads
(``xdump``, a player's ``bmap``) and the order they are given.
"""

from __future__ import annotations

from collections.abc import Mapping
from dataclasses import dataclass, field
from pathlib import Path
from typing import Any

from bellum.client.intel import Gather, gather
from bellum.client.protocol import Awaiting
from bellum.client.session import Session, Transcript
from bellum.client.xdump import SYNC_TABLES, XdumpReader
from bellum.empire import run_command
from bellum.empire.events import Prompter, Sink
from bellum.empire.intel.model import merge_all
from bellum.empire.intel.reports import bmap_of, map_area
from bellum.empire.io.sqlite import ServerEntry
from bellum.empire.io.xdump.mapping import dump_to_world
from bellum.empire.io.xdump.syntax import Dump, parse_dump
from bellum.empire.orders import Order, as_order
from bellum.empire.rules import Rules
from bellum.empire.service import record
from bellum.empire.world import World
from bellum.errors import BellumError, UsageError


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
            f"fog of war: only what this country sees is known; {len(w.observations)} objects"
            " of others seen"
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
    """The world as the reader's account sees it now, and the dump it came from.

    A player's view also holds the country's bmap (``bmap`` of the whole world,
    which reads and changes nothing): the server draws it in a flight's path
    questions.
    """
    dump = parse_dump(reader.read(SYNC_TABLES), f"xdump {reader.session.address}")
    world = dump_to_world(dump, telegrams=True)
    if world.fog is not None:
        world.fog.time = reader.stamps.get("game", reader.stamps.get("nat", 0))
        out = reader.session.command(f"bmap {map_area(world.geometry)}")
        world.bmaps[world.fog.viewer] = bmap_of(out.text(), world.geometry, world.fog.viewer)
    return world, dump


def viewer(world: World) -> int:
    """The country whose view ``world`` is (0, the deity, for the whole game)."""
    return world.fog.viewer if world.fog is not None else 0


def _sync_entry(reader: XdumpReader, world: World) -> ServerEntry:
    tables = [t for t in SYNC_TABLES if t not in reader.refused]
    result = {"tables": tables, "refused": reader.refused, "fog": world.fog is not None}
    return ServerEntry(reader.session.address, viewer(world), "synced", result)


def sync(session: Session, db: Path, how: Gather | None = None) -> Synced:
    """Store the game as the session's account sees it as a new version of ``db``'s world.

    A player's view also gathers intelligence (:func:`bellum.client.intel.gather`:
    the free reads, and the costly commands ``how`` allows); what it saw is merged
    into what the database knew, each field keeping its freshest sighting.
    """
    reader = XdumpReader.of(session)
    world, dump = read_world(reader)
    gathered = None
    if world.fog is not None:
        gathered = gather(session, world, how or Gather())
        world.observations = merge_all({}, gathered.observations)
    entry = _sync_entry(reader, world)
    if gathered is not None:
        entry.result["intelligence"] = {
            "commands": gathered.commands,
            "btus": gathered.btus,
            "observations": len(gathered.observations),
            "refused": gathered.refused,
        }
    stored = record(db, entry, world, dump)
    assert stored is not None
    return Synced(
        stored.id, entry.country, world, entry.result["tables"], reader.refused,
        len(stored.changes),
    )  # fmt: skip


# -- fighting on the server ----------------------------------------------------------


@dataclass
class Check:
    """bellum's prediction of an order the server ran, and how it compares."""

    seed: int
    transcript: str
    differences: list[str] = field(default_factory=list)

    @property
    def same(self) -> bool:
        return not self.differences

    def to_json(self) -> dict[str, object]:
        return {"seed": self.seed, "same": self.same, "differences": self.differences}


@dataclass
class Played:
    """An order played on the server: what the player saw, its history entry, the check."""

    order: Order
    transcript: Transcript
    entry: int
    world: World
    check: Check | None = None

    def to_json(self) -> dict[str, Any]:
        """The ``--live --json`` document (docs/live.md)."""
        return {
            "schema": "bellum.empire.live",
            "schema_version": 1,
            "order": self.order.text(),
            "seed": self.transcript.seed,
            "answers": self.transcript.answers,
            "transcript": self.transcript.text(),
            "history_entry": self.entry,
            "check": self.check.to_json() if self.check is not None else None,
        }


def compare(server: str, local: str, limit: int = 10) -> list[str]:
    """Where two transcripts differ, byte for byte: the differing lines (at most
    ``limit``, numbered from 1, control characters escaped), then their lengths."""
    if server == local:
        return []
    a, b = _lines(server), _lines(local)
    out = []
    for i, (x, y) in enumerate(zip(a, b, strict=False), 1):
        if x != y:
            if x.rstrip("\n") != y.rstrip("\n"):  # else only a line feed tells them apart
                x, y = x.rstrip("\n"), y.rstrip("\n")
            out.append(f"line {i}: server {x!r}, bellum {y!r}")
    if len(a) != len(b):
        out.append(f"length: server {len(a)} lines, bellum {len(b)} lines")
    return out[:limit]


def _lines(text: str) -> list[str]:
    """``text`` cut after each line feed, and only there (``str.splitlines`` also cuts
    at other control characters, which are text here)."""
    *whole, last = text.split("\n")
    return [line + "\n" for line in whole] + ([last] if last else [])


def resolve(
    world: World,
    order: Order,
    country: int,
    seed: int,
    answers: list[str | None],
    rules: Rules | None = None,
) -> str:
    """bellum's transcript of ``order`` on ``world`` with the server's ``seed`` and the
    player's ``answers``, under ``rules`` (by default the world's: the game's own options)."""
    r = run_command(world, order, country=country, seed=seed, answers=answers, rules=rules)
    return r.transcript()


class LiveGame:
    """One account's view of a live game, kept in a world database.

    Opening it reads the account's view (:attr:`world`) and stores it as a new
    version if anything changed since the last one, so the history shows what
    the next order changes; :meth:`play` plays orders on the server.
    """

    def __init__(self, session: Session, db: Path) -> None:
        self.session = session
        self.db = db
        self._reader = XdumpReader.of(session)
        #: The history entry of the last order :meth:`play` recorded, if any.
        self.entry: int | None = None
        self.world, dump = read_world(self._reader)
        record(db, _sync_entry(self._reader, self.world), self.world, dump, only_if_changed=True)

    @property
    def country(self) -> int:
        """The account's country number (0: the deity)."""
        return viewer(self.world)

    def play(
        self,
        order: str | Order,
        *,
        prompter: Prompter | None = None,
        sink: Sink | None = None,
        check: Session | None = None,
        profile: str | None = None,
        overrides: Mapping[str, Any] | None = None,
    ) -> Played:
        """Send ``order`` to the server as the account, relaying its questions to
        ``prompter`` (none: they are aborted) as :class:`~bellum.empire.events.Prompt`
        objects in the coordinates of :attr:`world`, and its output to ``sink``; then
        sync the world back and record the order with the server's transcript.

        With ``check`` (see the module notes) bellum resolves the order too;
        ``profile`` and ``overrides`` are rules for that resolution only (``--profile``,
        ``--option``), on top of the game's own.
        If the connection fails during the order, nothing about it is written.
        """
        parsed = as_order(order)
        truth, rules, seed = None, None, None
        if check is not None:
            seeds = self.session.seeds
            if seeds is None or check.seeds is not seeds:
                raise UsageError(
                    "check mode needs the server's command count: give both sessions one"
                    " SeedCounter (a server in test mode seeds each command with it)"
                )
            truth = read_world(XdumpReader.of(check))[0]
            rules = Rules.of(truth.options, profile=profile, overrides=overrides)
            if self.country in self.world.bmaps and self.country in truth.nations:
                origin = truth.origin(self.country)
                truth.bmaps[self.country] = self.world.bmaps[self.country].moved(origin)
            seed = seeds.next_seed
        try:
            done = self.session.command(
                parsed.text(), prompter=prompter, sink=sink, geometry=self.world.geometry
            )
        except BaseException as exc:
            # bellum's side stopped (Ctrl-C, a bad answer), the server's did not: once it
            # is ready for the next command, the history gets what it did.
            last = self.session.last
            if last is not None and self.session.conn.awaiting is Awaiting.COMMAND:
                self._record(parsed, last, {"stopped": _why(exc)})
            raise
        verdict = None
        if truth is not None and rules is not None and seed is not None:
            verdict = _check(truth, rules, parsed, self.country, seed, done)
        result = {"check": verdict.to_json()} if verdict is not None else {}
        entry = self._record(parsed, done, result)
        return Played(parsed, done, entry, self.world, verdict)

    def _record(self, order: Order, done: Transcript, result: dict[str, Any]) -> int:
        """Sync the world back and store ``order`` as played, with the server's transcript."""
        self.world, dump = read_world(self._reader)
        entry = ServerEntry(
            self.session.address,
            self.country,
            "played",
            result,
            order=order,
            seed=-1 if done.seed is None else done.seed,
            answers=done.answers,
            events=done.events,
            transcript=done.text(),
        )
        stored = record(self.db, entry, self.world, dump)
        assert stored is not None
        self.entry = stored.id
        return stored.id


def _why(exc: BaseException) -> str:
    """Why bellum's side of an order stopped, for its history entry."""
    if isinstance(exc, KeyboardInterrupt):
        return "interrupted"
    return str(exc) or type(exc).__name__


def play(session: Session, db: Path, order: str | Order, **how: Any) -> Played:
    """Sync ``db`` with the session's view of the game and play ``order`` there: one
    :class:`LiveGame` for one order (``how``: the keywords of :meth:`LiveGame.play`).
    An order that is no combat command is refused before anything is sent."""
    parsed = as_order(order)
    return LiveGame(session, db).play(parsed, **how)


def _check(
    truth: World, rules: Rules, order: Order, country: int, seed: int, done: Transcript
) -> Check:
    if done.seed != seed:
        return Check(seed, "", [f"the server ran the order with seed {done.seed}, not {seed}"])
    try:
        local = resolve(truth, order, country, seed, done.answers, rules)
    except BellumError as exc:
        return Check(seed, "", [f"bellum cannot resolve it: {exc}"])
    return Check(seed, local, compare(done.text(), local))
