"""The world store: a world, its imported dump and its command history in SQLite.

Why SQLite: a combat command must change the world completely or not at
all, even when the process is killed, and players issuing commands at the
same time must not lose each other's updates.  A command therefore runs
inside one ``BEGIN IMMEDIATE`` transaction: it takes the write lock before
reading the world (so nobody changes it underneath), writes only the
objects that changed, records itself in the history, and commits.  WAL
mode lets readers (``show``, ``history``) work while a command runs; a
second command waits up to the busy timeout for the first.

Each command stores its inputs (arguments, answers to prompts, seed, rule
options), its events and result, and a before/after image of every object
it changed.  The before-images give back the world as it was before any
stored command, which is what ``replay`` re-runs the command on.
"""

from __future__ import annotations

import json
import os
import sqlite3
from collections.abc import Callable, Iterator
from contextlib import contextmanager
from dataclasses import dataclass, field
from datetime import UTC, datetime
from pathlib import Path
from typing import Any

import bellum
import bellum.empire.combat as combat
from bellum.dice import ServerRandom
from bellum.empire.dumpfile import Dump, Record, Table, split_fields
from bellum.empire.events import Event, Prompter
from bellum.empire.storage.codec import canonical, rows_world, world_rows
from bellum.empire.storage.schema import SCHEMA_VERSION, migrate, version_of
from bellum.empire.tables import stock
from bellum.empire.world import DEFAULT_OPTIONS, World
from bellum.errors import CommandError, InputError

#: How long a command waits for another one holding the database, in seconds
#: (``BELLUM_BUSY_TIMEOUT`` in the environment overrides it).
BUSY_TIMEOUT = 30.0
SQLITE_MAGIC = b"SQLite format 3\x00"
Rows = dict[tuple[str, str], str]


class RecordingPrompter:
    """Passes questions on and remembers every answer, so the command can be replayed."""

    def __init__(self, inner: Prompter) -> None:
        self.inner = inner
        self.answers: list[str | None] = []

    def ask(self, prompt: str) -> str | None:
        answer = self.inner.ask(prompt)
        self.answers.append(answer)
        return answer


@dataclass
class ReplayPrompter:
    """Gives the recorded answers back in order, then end of input."""

    answers: list[str | None]
    used: int = 0

    def ask(self, prompt: str) -> str | None:
        if self.used >= len(self.answers):
            return None
        self.used += 1
        return self.answers[self.used - 1]


#: Combat commands replay can re-run: functions of :mod:`bellum.empire.combat` called as
#: ``command(world, *args, country, dice, prompter, **extra)``.
REPLAYABLE = ("attack", "assault", "board", "lboard", "paradrop")


@dataclass(frozen=True)
class Invocation:
    """A combat command as the CLI called it, which is what replay calls again.

    ``args`` are the positional arguments after the world (``None`` for those the
    player left out, which the command then asks for), ``extra`` the keyword
    arguments, e.g. ``Invocation("attack", ["2,0"], {"support_args": ["y", "n"]})``.
    """

    name: str
    args: list[str | None]
    extra: dict[str, Any] = field(default_factory=dict)

    def words(self) -> list[str]:
        """The arguments as the player typed them, for listings."""
        out = [a for a in self.args if a is not None]
        for v in self.extra.values():
            out += [str(x) for x in v] if isinstance(v, list) else [str(v)]
        return out

    def run(
        self,
        world: World,
        country: int,
        seed: int,
        prompter: Prompter,
        sink: Callable[[Event], None] | None = None,
    ) -> Any:
        """Run the command on ``world`` (what replay re-executes)."""
        command = getattr(combat, self.name, None) if self.name in REPLAYABLE else None
        if command is None:
            raise CommandError(f"cannot replay '{self.name}': bellum does not know this command")
        dice = ServerRandom(seed)
        return command(world, *self.args, country, dice, prompter, sink=sink, **self.extra)


@dataclass(frozen=True)
class Entry:
    """A history entry made outside bellum's rules: a sync from a server (``name``
    ``sync``), or a command played on a server.  ``seed`` is -1 when unknown."""

    name: str
    args: list[str | None]
    country: int
    outcome: str
    result: dict[str, Any]
    extra: dict[str, Any] = field(default_factory=dict)
    seed: int = -1
    answers: list[str | None] = field(default_factory=list)
    events: list[Event] = field(default_factory=list)
    transcript: str = ""
    profile: str = "server"


def _entry_row(entry: Entry, world: World) -> dict[str, Any]:
    """The ``command`` table's columns for ``entry``, which ran under ``world``'s rules."""
    options = {k: world.option(k) for k in DEFAULT_OPTIONS} | world.options
    return {
        "name": entry.name,
        "args": json.dumps(entry.args),
        "extra": json.dumps(entry.extra),
        "country": entry.country,
        "seed": entry.seed,
        "answers": json.dumps(entry.answers),
        "options": canonical(options),
        "profile": entry.profile,
        "outcome": entry.outcome,
        "result": canonical(entry.result),
        "events": json.dumps([e.__dict__ for e in entry.events]),
        "transcript": entry.transcript,
    }


@dataclass
class CommandRecord:
    """One command of the history, as stored."""

    id: int
    at: str
    invocation: Invocation
    country: int
    seed: int
    answers: list[str | None]
    options: dict[str, Any]
    version: str
    profile: str
    outcome: str
    result: dict[str, Any]
    events: list[Event]
    transcript: str
    changes: dict[tuple[str, str], tuple[str | None, str | None]] = field(default_factory=dict)


def busy_timeout() -> float:
    """The busy timeout: :data:`BUSY_TIMEOUT` unless ``BELLUM_BUSY_TIMEOUT`` says otherwise."""
    text = os.environ.get("BELLUM_BUSY_TIMEOUT", "")
    try:
        return float(text) if text else BUSY_TIMEOUT
    except ValueError:
        raise InputError(f"BELLUM_BUSY_TIMEOUT: expected seconds, got '{text}'") from None


def _connect(path: Path, timeout: float) -> sqlite3.Connection:
    conn = sqlite3.connect(path, timeout=timeout, isolation_level=None)
    conn.execute(f"PRAGMA busy_timeout = {int(timeout * 1000)}")
    return conn


def _db_error(path: Path, exc: sqlite3.Error) -> InputError | CommandError:
    text = str(exc)
    if "locked" in text or "busy" in text:
        return CommandError(f"{path}: the database is busy with another command; try again")
    if "not a database" in text or "malformed" in text:
        return InputError(f"{path}: not a bellum database (the file is not SQLite or is damaged)")
    return InputError(f"{path}: database error: {text}")


@contextmanager
def _guard(path: Path) -> Iterator[None]:
    """SQLite errors as one-line bellum errors naming the database."""
    try:
        yield
    except sqlite3.Error as exc:
        raise _db_error(path, exc) from None


class Store:
    """An open world database.  Create one with :meth:`create`, open it with :meth:`open`."""

    def __init__(self, path: Path, conn: sqlite3.Connection) -> None:
        self.path = path
        self.conn = conn

    # -- opening ----------------------------------------------------------------

    @classmethod
    def open(cls, path: str | Path, timeout: float | None = None) -> Store:
        """Open an existing database, migrating an older schema; never creates a file."""
        p = Path(path)
        timeout = busy_timeout() if timeout is None else timeout
        if not p.exists():
            raise InputError(
                f"{p}: no such database (create one with `bellum empire world new` or"
                " `bellum empire world import`)"
            )
        try:
            with p.open("rb") as f:
                head = f.read(len(SQLITE_MAGIC))
        except OSError as exc:
            raise InputError(f"{p}: cannot read: {exc.strerror}") from None
        if head != SQLITE_MAGIC:
            raise InputError(f"{p}: not a bellum database (the file is not SQLite)")
        with _guard(p):
            conn = _connect(p, timeout)
            store = cls(p, conn)
            try:
                store._check_schema()
            except BaseException:
                conn.close()
                raise
        return store

    def _check_schema(self) -> None:
        version = version_of(self.conn)
        if version == 0:
            raise InputError(f"{self.path}: not a bellum database (no schema_version table)")
        if version > SCHEMA_VERSION:
            raise InputError(
                f"{self.path}: made by a newer bellum (schema {version}; this one knows up to"
                f" {SCHEMA_VERSION}); upgrade bellum to use it"
            )
        if version < SCHEMA_VERSION:
            self.conn.execute("BEGIN IMMEDIATE")
            try:
                current = version_of(self.conn)
                if current < SCHEMA_VERSION:
                    migrate(self.conn, current)
                self.conn.execute("COMMIT")
            except BaseException:
                self.conn.execute("ROLLBACK")
                raise

    @classmethod
    def create(
        cls, path: str | Path, world: World, dump: Dump | None = None, replace: bool = False
    ) -> Store:
        """A new database holding ``world`` (and the dump it came from, for export).

        An existing database is refused unless ``replace``; replacing drops its
        world and history in the same transaction that writes the new world.
        """
        p = Path(path)
        if p.exists():
            if not replace:
                raise InputError(f"{p}: already exists (use --replace to start it over)")
            try:
                existing = cls.open(p)
            except InputError as exc:
                raise InputError(f"{exc}; --replace only starts over a bellum database") from None
            try:
                existing._fill(world, dump)
            except BaseException:
                existing.close()
                raise
            return existing
        # A new database is built beside the target and renamed into place, so a
        # killed run leaves only a hidden scratch file, never a half-made database.
        scratch = p.with_name(f".{p.name}.new")
        for leftover in (scratch, Path(f"{scratch}-wal"), Path(f"{scratch}-shm")):
            leftover.unlink(missing_ok=True)
        with _guard(scratch):
            conn = _connect(scratch, busy_timeout())
            conn.execute("PRAGMA journal_mode = WAL")
        building = cls(scratch, conn)
        try:
            building._fill(world, dump)
        except BaseException:
            building.close()
            for leftover in (scratch, Path(f"{scratch}-wal"), Path(f"{scratch}-shm")):
                leftover.unlink(missing_ok=True)
            raise
        building.close()
        for stale in (Path(f"{p}-wal"), Path(f"{p}-shm")):
            stale.unlink(missing_ok=True)
        with _guard(p):
            os.replace(scratch, p)
        return cls.open(p)

    def _fill(self, world: World, dump: Dump | None) -> None:
        """Replace everything in the database by ``world`` and ``dump``, in one transaction."""
        store, p = self, self.path
        with _guard(p), store._write() as c:
            current = version_of(c)
            if current == 0:
                migrate(c, 0)
            for table in ("change", "command", "dump_record", "dump_table", "object", "meta"):
                c.execute(f"DELETE FROM {table}")
            store._put_meta(c, "created", datetime.now(UTC).isoformat(timespec="seconds"))
            store._put_meta(c, "source", dump.source if dump else "bellum")
            c.executemany(
                "INSERT INTO object (kind, key, data) VALUES (?, ?, ?)",
                [(k, key, data) for (k, key), data in sorted(world_rows(world).items())],
            )
            if dump is not None:
                store._put_dump(c, dump)

    def close(self) -> None:
        self.conn.close()

    # -- transactions -----------------------------------------------------------

    @contextmanager
    def _write(self) -> Iterator[sqlite3.Connection]:
        """One write transaction, taken up front so concurrent writers queue, not fail."""
        self.conn.execute("BEGIN IMMEDIATE")
        try:
            yield self.conn
        except BaseException:
            self.conn.execute("ROLLBACK")
            raise
        self.conn.execute("COMMIT")

    @contextmanager
    def _read(self) -> Iterator[sqlite3.Connection]:
        """One read transaction: a consistent snapshot even while a command writes."""
        with _guard(self.path):
            self.conn.execute("BEGIN")
            try:
                yield self.conn
            finally:
                self.conn.execute("COMMIT")

    @staticmethod
    def _put_meta(c: sqlite3.Connection, key: str, value: str) -> None:
        c.execute("INSERT OR REPLACE INTO meta (key, value) VALUES (?, ?)", (key, value))

    def _rows(self, c: sqlite3.Connection) -> Rows:
        return {(k, key): data for k, key, data in c.execute("SELECT kind, key, data FROM object")}

    # -- the world --------------------------------------------------------------

    def world(self) -> World:
        """The current world (a read snapshot)."""
        with self._read() as c:
            return rows_world(self._rows(c), stock(), str(self.path))

    def meta(self) -> dict[str, str]:
        with self._read() as c:
            return dict(c.execute("SELECT key, value FROM meta").fetchall())

    def begin_command(self) -> Session:
        """Take the write lock and load the world for one command (see :class:`Session`)."""
        with _guard(self.path):
            self.conn.execute("BEGIN IMMEDIATE")
            try:
                rows = self._rows(self.conn)
                world = rows_world(rows, stock(), str(self.path))
            except BaseException:
                self.conn.execute("ROLLBACK")
                raise
        return Session(self, world, world_rows(world))

    # -- dumps ------------------------------------------------------------------

    def _put_dump(self, c: sqlite3.Connection, dump: Dump) -> None:
        for seq, t in enumerate(dump.tables):
            c.execute(
                "INSERT INTO dump_table (seq, name, human, header, column_line, columns, footer,"
                " before) VALUES (?, ?, ?, ?, ?, ?, ?, ?)",
                (
                    seq,
                    t.name,
                    int(t.human),
                    t.header,
                    t.column_line,
                    json.dumps(t.columns),
                    t.footer,
                    t.before,
                ),
            )
            c.executemany(
                "INSERT INTO dump_record (tbl, seq, line) VALUES (?, ?, ?)",
                [(seq, i, r.line) for i, r in enumerate(t.records)],
            )
        self._put_meta(c, "dump_tail", dump.tail)

    def dump(self) -> Dump | None:
        """The imported dump's records as imported (``None`` for a world made otherwise)."""
        with self._read() as c:
            tables = c.execute(
                "SELECT seq, name, human, header, column_line, columns, footer, before"
                " FROM dump_table ORDER BY seq"
            ).fetchall()
            if not tables:
                return None
            meta = dict(c.execute("SELECT key, value FROM meta").fetchall())
            dump = Dump(meta.get("source", "dump"), tail=meta.get("dump_tail", ""))
            for seq, name, human, header, column_line, columns, footer, before in tables:
                t = Table(
                    name, bool(human), header, json.loads(columns), column_line, [], footer, before
                )
                for i, line in c.execute(
                    "SELECT seq, line FROM dump_record WHERE tbl = ? ORDER BY seq", (seq,)
                ):
                    t.records.append(Record(line, split_fields(line, f"{dump.source}"), i))
                dump.tables.append(t)
        return dump

    # -- history ----------------------------------------------------------------

    def _insert(
        self, row: dict[str, Any], before: Rows, after: Rows, hook: Callable[[str], None] | None
    ) -> int:
        """Inside a write transaction: one history entry and the objects it changed."""
        c = self.conn
        row = {"at": datetime.now(UTC).isoformat(timespec="milliseconds"), **row}
        row.setdefault("version", bellum.__version__)
        cur = c.execute(
            f"INSERT INTO command ({', '.join(row)}) VALUES ({', '.join('?' * len(row))})",
            tuple(row.values()),
        )
        cid = int(cur.lastrowid or 0)
        for k, key in sorted(set(before) | set(after)):
            was, now = before.get((k, key)), after.get((k, key))
            if was == now:
                continue
            if hook:
                hook("change")
            c.execute(
                "INSERT INTO change (command, kind, key, before, after) VALUES (?, ?, ?, ?, ?)",
                (cid, k, key, was, now),
            )
            if now is None:
                c.execute("DELETE FROM object WHERE kind = ? AND key = ?", (k, key))
            else:
                c.execute(
                    "INSERT OR REPLACE INTO object (kind, key, data) VALUES (?, ?, ?)",
                    (k, key, now),
                )
        return cid

    def record(
        self,
        entry: Entry,
        world: World,
        dump: Dump | None = None,
        hook: Callable[[str], None] | None = None,
    ) -> int:
        """Make ``world`` the current world, as history entry ``entry`` (a sync, or a
        command played on a server); ``dump`` replaces the dump kept for export.

        All of it happens in one transaction: the entry, the before/after image of
        every object that changed, and the dump.  Returns the entry's id.
        """
        cid = self._write_entry(entry, world, dump, hook, always=True)
        assert cid is not None
        return cid

    def record_changes(self, entry: Entry, world: World, dump: Dump | None = None) -> int | None:
        """Like :meth:`record`, but only if ``world`` differs from the current world."""
        return self._write_entry(entry, world, dump, None, always=False)

    def _write_entry(
        self,
        entry: Entry,
        world: World,
        dump: Dump | None,
        hook: Callable[[str], None] | None,
        always: bool,
    ) -> int | None:
        with _guard(self.path), self._write() as c:
            before, after = self._rows(c), world_rows(world)
            if not always and before == after:
                return None
            cid = self._insert(_entry_row(entry, world), before, after, hook)
            if dump is not None:
                c.execute("DELETE FROM dump_record")
                c.execute("DELETE FROM dump_table")
                self._put_dump(c, dump)
                self._put_meta(c, "source", dump.source)
            if hook:
                hook("commit")
        return cid

    def history(self) -> list[CommandRecord]:
        """Every stored command, oldest first (without their changes)."""
        with self._read() as c:
            return [self._record(row) for row in c.execute(_SELECT_COMMAND + " ORDER BY id")]

    def command(self, cid: int) -> CommandRecord:
        """One stored command with the before/after image of everything it changed."""
        with self._read() as c:
            row = c.execute(_SELECT_COMMAND + " WHERE id = ?", (cid,)).fetchone()
            if row is None:
                raise InputError(f"{self.path}: no command {cid} in the history")
            rec = self._record(row)
            for kind, key, before, after in c.execute(
                "SELECT kind, key, before, after FROM change WHERE command = ?", (cid,)
            ):
                rec.changes[(kind, key)] = (before, after)
        return rec

    @staticmethod
    def _record(row: tuple[Any, ...]) -> CommandRecord:
        (cid, at, name, args, extra, country, seed, answers, options, version, profile, outcome,
         result, events, transcript) = row  # fmt: skip
        return CommandRecord(
            cid,
            at,
            Invocation(name, json.loads(args), json.loads(extra)),
            country,
            seed,
            json.loads(answers),
            json.loads(options),
            version,
            profile,
            outcome,
            json.loads(result),
            [Event(**e) for e in json.loads(events)],
            transcript,
        )

    def world_before(self, cid: int) -> World:
        """The world as it was just before command ``cid``: today's world with the
        before-images of ``cid`` and every later command laid back over it."""
        with self._read() as c:
            if c.execute("SELECT 1 FROM command WHERE id = ?", (cid,)).fetchone() is None:
                raise InputError(f"{self.path}: no command {cid} in the history")
            rows = self._rows(c)
            for kind, key, before in c.execute(
                "SELECT kind, key, before FROM change WHERE command >= ? ORDER BY command DESC",
                (cid,),
            ):
                if before is None:
                    rows.pop((kind, key), None)
                else:
                    rows[(kind, key)] = before
        return rows_world(rows, stock(), str(self.path))

    def summary(self) -> dict[str, Any]:
        """What ``world show`` prints: the schema, the world's size and contents, the history."""
        with self._read() as c:
            counts = dict(c.execute("SELECT kind, count(*) FROM object GROUP BY kind").fetchall())
            commands = c.execute("SELECT count(*) FROM command").fetchone()[0]
            meta = dict(c.execute("SELECT key, value FROM meta").fetchall())
            size = json.loads(
                c.execute(
                    "SELECT data FROM object WHERE kind = 'world' AND key = 'size'"
                ).fetchone()[0]
            )
            tables = c.execute("SELECT count(*) FROM dump_table").fetchone()[0]
        return {
            "schema_version": version_of(self.conn),
            "size": size,
            "counts": counts,
            "commands": commands,
            "source": meta.get("source", ""),
            "created": meta.get("created", ""),
            "dump_tables": tables,
        }


_SELECT_COMMAND = (
    "SELECT id, at, name, args, extra, country, seed, answers, options, version, profile, outcome,"
    " result, events, transcript FROM command"
)


class Session:
    """One command's transaction: the world it may change, then commit or roll back.

    The write lock is held from :meth:`Store.begin_command` until :meth:`commit`
    or :meth:`rollback`, so the world cannot change between reading and writing.
    Nothing is written before :meth:`commit`, which writes everything in the
    transaction: a killed process leaves the database as it was.
    """

    def __init__(self, store: Store, world: World, before: Rows) -> None:
        self.store = store
        self.world = world
        self.before = before
        self.done = False

    def commit(
        self,
        invocation: Invocation,
        answers: list[str | None],
        result: Any,
        profile: str = "stock",
        hook: Callable[[str], None] | None = None,
    ) -> int:
        """Record the command and write the objects it changed; returns its history id.

        ``result`` is a :class:`~bellum.empire.combat.commands.CombatResult`; a
        result that did not change the world (refused, aborted) is recorded with
        no changes, like a world file that is not rewritten.  ``hook`` is called
        between steps (tests use it to kill the process mid-write).
        """
        after = world_rows(self.world) if result.world_changed else self.before
        entry = Entry(
            invocation.name,
            invocation.args,
            result.aggressor,
            result.outcome,
            result.to_json(),
            extra=invocation.extra,
            seed=result.seed,
            answers=answers,
            events=result.events,
            transcript=result.transcript(),
            profile=str(self.world.option("profile")),
        )
        row = _entry_row(entry, self.world)
        with _guard(self.store.path):
            try:
                cid = self.store._insert(row, self.before, after, hook)
                if hook:
                    hook("commit")
                self.store.conn.execute("COMMIT")
            except BaseException:
                self.rollback()
                raise
        self.done = True
        return cid

    def rollback(self) -> None:
        """Give up the command: nothing it did is kept."""
        if not self.done:
            self.done = True
            if self.store.conn.in_transaction:
                self.store.conn.execute("ROLLBACK")


# -- replay ------------------------------------------------------------------------


@dataclass
class ReplayReport:
    """How a replayed command compared with its record."""

    command: CommandRecord
    transcript: str
    same_transcript: bool  # the text and every event (telegrams too) are the same
    same_changes: bool
    differences: list[str]

    @property
    def ok(self) -> bool:
        return self.same_transcript and self.same_changes


def replay(store: Store, cid: int) -> ReplayReport:
    """Re-run command ``cid`` on the world as it was before it, with its seed and answers,
    and compare the transcript and the changes with what was recorded."""
    rec = store.command(cid)
    server = rec.result.get("server")
    if server and rec.invocation.name == "sync":
        raise CommandError(f"command {cid} is a sync from {server}: there is no command to re-run")
    if server:
        raise CommandError(
            f"command {cid} was played on the server {server}, not by bellum's rules;"
            " replay re-runs bellum's own commands"
        )
    world = store.world_before(cid)
    before = world_rows(world)
    # The command ran under the options recorded with it (a profile or --option given
    # on its command line included); what it left in the world's options is an input
    # too, so it is put back as recorded rather than compared.
    stored_options = rec.changes.get(("world", "options"), (None, None))[1]
    kept = json.loads(stored_options) if stored_options is not None else dict(world.options)
    world.options = dict(rec.options)
    result = rec.invocation.run(world, rec.country, rec.seed, ReplayPrompter(rec.answers))
    world.options = kept
    after = world_rows(world) if result.world_changed else before
    changes = {
        k: (before.get(k), after.get(k))
        for k in set(before) | set(after)
        if before.get(k) != after.get(k)
    }
    text = result.transcript()
    diffs = []
    if text != rec.transcript:
        diffs.append(_first_difference(rec.transcript, text))
    elif result.events != rec.events:
        diffs.append(
            f"events differ (telegrams or prompts): {_first_event(rec.events, result.events)}"
        )
    if changes != rec.changes:
        keys = sorted(set(changes) ^ set(rec.changes)) or sorted(
            k for k in changes if changes[k] != rec.changes.get(k)
        )
        diffs.append(
            f"world changes differ: {len(changes)} replayed, {len(rec.changes)} recorded"
            f" (first: {keys[0][0]} {keys[0][1]})"
        )
    same_text = text == rec.transcript and result.events == rec.events
    return ReplayReport(rec, text, same_text, changes == rec.changes, diffs)


def _first_event(recorded: list[Event], replayed: list[Event]) -> str:
    for i, (x, y) in enumerate(zip(recorded, replayed, strict=False)):
        if x != y:
            return f"event {i + 1}: recorded {x!r}, replayed {y!r}"
    return f"recorded {len(recorded)} events, replayed {len(replayed)}"


def _first_difference(recorded: str, replayed: str) -> str:
    a, b = recorded.splitlines(), replayed.splitlines()
    for i, (x, y) in enumerate(zip(a, b, strict=False)):
        if x != y:
            return f"transcript line {i + 1}: recorded {x!r}, replayed {y!r}"
    return f"transcript length: recorded {len(a)} lines, replayed {len(b)} lines"
