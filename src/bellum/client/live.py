"""A live game in a world database: sync it from the server, fight on the server, check bellum.

:func:`sync` reads every table the account may see (:mod:`bellum.client.xdump`),
turns it into a world through the one dump import (:func:`bellum.empire.dump.dump_to_world`)
and stores it as a new version with its own history entry.  A player's sync is
a view with fog of war (:class:`bellum.empire.world.Fog`); a deity's is the
whole game.

:func:`play` sends one combat command (``attack``, ``assault``, ``board``,
``lboard``, ``paradrop``) to the server, relays its questions to a prompter,
syncs the world back and records the command, with the server's transcript,
in the history.  With ``check``, a deity session on a test-mode server
(``running_test_suite 1``), it first reads the whole game, then resolves the
same command with bellum's rules on that world with the seed the server is
about to use and the answers the player gave, and compares the transcripts
line by line: any test-mode game becomes an oracle for bellum.

All of these take open :class:`~bellum.client.session.Session` objects, so the
caller decides how to connect and when to disconnect; they send only ``xdump``
reads and the command they are given.
"""

from __future__ import annotations

from dataclasses import dataclass, field
from pathlib import Path

from bellum.client.session import Session, Transcript
from bellum.client.xdump import SYNC_TABLES, XdumpReader
from bellum.empire.dump import dump_to_world
from bellum.empire.dumpfile import Dump, parse_dump
from bellum.empire.events import Prompter, Sink
from bellum.empire.store import REPLAYABLE, Entry, Invocation, ReplayPrompter, Store
from bellum.empire.world import World
from bellum.errors import BellumError, UsageError

#: How many arguments each command takes before its optional support answers.
ARGUMENTS = {"attack": 1, "assault": 2, "board": 2, "lboard": 2, "paradrop": 4}


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


def _viewer(world: World) -> int:
    return world.fog.viewer if world.fog is not None else 0


def _sync_entry(reader: XdumpReader, world: World) -> Entry:
    tables = [t for t in SYNC_TABLES if t not in reader.refused]
    result = {
        "server": reader.session.address,
        "tables": tables,
        "refused": reader.refused,
        "fog": world.fog is not None,
    }
    return Entry("sync", [reader.session.address], _viewer(world), "synced", result)


def sync(session: Session, db: Path) -> Synced:
    """Store the game as the session's account sees it as a new version of ``db``'s world."""
    reader = XdumpReader(session)
    world, dump = read_world(reader)
    entry = _sync_entry(reader, world)
    store = open_store(db, world)
    try:
        cid = store.record(entry, world, dump)
        changed = len(store.command(cid).changes)
    finally:
        store.close()
    return Synced(cid, entry.country, world, entry.result["tables"], reader.refused, changed)


# -- fighting on the server ----------------------------------------------------------


def invocation(order: str) -> Invocation:
    """The local call for a server command line such as ``attack 2,0 y y n n``: the
    command's arguments (``None`` for those left out, which it then asks for) and, for
    attack and assault, the support answers after them."""
    words = order.split()
    if not words or words[0] not in ARGUMENTS:
        raise UsageError(
            f"bellum plays only {', '.join(REPLAYABLE)} on a server, not {order.strip()!r}"
        )
    name, args = words[0], words[1:]
    n = ARGUMENTS[name]
    given: list[str | None] = [*args[:n], *[None] * (n - len(args[:n]))]
    if name in ("attack", "assault"):
        return Invocation(name, given, {"support_args": args[n:]})
    if args[n:]:
        raise UsageError(f"{name} takes at most {n} arguments, not {order.strip()!r}")
    return Invocation(name, given)


@dataclass
class Check:
    """bellum's prediction of a command the server ran, and how it compares."""

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
    """A command played on the server: what the player saw, its history entry, the check."""

    order: str
    transcript: Transcript
    entry: int
    world: World
    check: Check | None = None


def compare(server: str, local: str, limit: int = 10) -> list[str]:
    """The lines where two transcripts differ (at most ``limit``), numbered from 1."""
    a, b = server.splitlines(), local.splitlines()
    out = [
        f"line {i}: server {x!r}, bellum {y!r}"
        for i, (x, y) in enumerate(zip(a, b, strict=False), 1)
        if x != y
    ]
    if len(a) != len(b):
        out.append(f"length: server {len(a)} lines, bellum {len(b)} lines")
    return out[:limit]


def resolve(
    world: World, call: Invocation, country: int, seed: int, answers: list[str | None]
) -> str:
    """bellum's transcript of ``call`` on ``world`` with the server's ``seed`` and the
    player's ``answers``.  Scouts do not ask "Are you sure" (the real 4.4.1 never does)."""
    world.overrides["scout_estimate"] = False
    return str(call.run(world, country, seed, ReplayPrompter(list(answers))).transcript())


def play(
    session: Session,
    db: Path,
    order: str,
    *,
    prompter: Prompter | None = None,
    sink: Sink | None = None,
    check: Session | None = None,
) -> Played:
    """Send ``order`` to the server as the session's country, relaying its questions to
    ``prompter`` (none: they are aborted) and its output to ``sink``; then sync the world
    back and record the command with the server's transcript (see the module notes).

    The world is synced first, so the history shows what the command changed.  If the
    connection fails during the command, nothing about it is written.
    """
    call = invocation(order)
    reader = XdumpReader(session)
    world, dump = read_world(reader)
    store = open_store(db, world)
    try:
        store.record_changes(_sync_entry(reader, world), world, dump)
        country = _viewer(world)
        truth, seed = None, None
        if check is not None:
            if session.seeds is None or check.seeds is not session.seeds:
                raise UsageError(
                    "check mode needs the server's command count: give both sessions one"
                    " SeedCounter (a server in test mode seeds each command with it)"
                )
            truth = read_world(XdumpReader(check))[0]
            seed = session.seeds.next_seed
        done = session.command(order, prompter=prompter, sink=sink)
        verdict = None
        if truth is not None and seed is not None:
            verdict = _check(truth, call, country, seed, done)
        after, dump_after = read_world(reader)
        result: dict[str, object] = {"server": session.address}
        if verdict is not None:
            result["check"] = verdict.to_json()
        entry = Entry(
            call.name,
            call.args,
            country,
            "played",
            result,
            extra=call.extra,
            seed=-1 if done.seed is None else done.seed,
            answers=done.answers,
            events=done.events,
            transcript=done.text(),
        )
        cid = store.record(entry, after, dump_after)
    finally:
        store.close()
    return Played(order, done, cid, after, verdict)


def _check(truth: World, call: Invocation, country: int, seed: int, done: Transcript) -> Check:
    if done.seed != seed:
        return Check(seed, "", [f"the server ran the command with seed {done.seed}, not {seed}"])
    try:
        local = resolve(truth, call, country, seed, done.answers)
    except BellumError as exc:
        return Check(seed, "", [f"bellum cannot resolve it: {exc}"])
    return Check(seed, local, compare(done.text(), local))
