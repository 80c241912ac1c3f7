"""The world store: a world, its imported dump and its command history in SQLite.

Why SQLite: a combat command must change the world completely or not at
all, even when the process is killed, and players issuing commands at the
same time must not lose each other's updates.  A command therefore runs
inside one ``BEGIN IMMEDIATE`` transaction: it takes the write lock before
reading the world (so nobody changes it underneath), writes only the
objects that changed, records itself in the history, and commits.  WAL
mode lets readers (``show``, ``history``) work while a command runs; a
second command waits up to the busy timeout for the first.

Each command stores its inputs (the order's text, answers to prompts, seed,
rule options), its events and result, and a before/after image of every
object it changed.  The before-images give back the world as it was before
any stored command, which is what :func:`bellum.empire.service.replay`
re-runs the command on.  The store itself runs nothing: it knows worlds and
records, not commands.
"""

from __future__ import annotations

import json
import os
import sqlite3
from collections.abc import Callable, Iterator
from contextlib import contextmanager
from datetime import UTC, datetime
from pathlib import Path
from typing import TYPE_CHECKING, Any

from bellum.empire.io.sqlite.codec import (
    COMMAND_COLUMNS,
    TABLE_COLUMNS,
    CommandRecord,
    Rows,
    ServerEntry,
    changes,
    command_row,
    entry_row,
    record_of,
    rows_world,
    table_of,
    table_row,
    world_rows,
)
from bellum.empire.io.sqlite.schema import SCHEMA_VERSION, migrate, version_of
from bellum.empire.io.xdump.syntax import Dump
from bellum.empire.orders import Order
from bellum.empire.tables import stock
from bellum.empire.world import World
from bellum.errors import CommandError, InputError

if TYPE_CHECKING:
    from bellum.empire.combat.result import CombatResult

#: How long a command waits for another one holding the database, in seconds
#: (``BELLUM_BUSY_TIMEOUT`` in the environment overrides it).
BUSY_TIMEOUT = 30.0
SQLITE_MAGIC = b"SQLite format 3\x00"


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
            try:
                existing = cls.open(p)
            except InputError as exc:
                # --replace would not help: it never overwrites what is not ours.
                raise InputError(
                    f"{exc}; bellum will not overwrite it: choose another --db or remove it"
                ) from None
            if not replace:
                existing.close()
                raise InputError(f"{p}: already exists (use --replace to start it over)")
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
            c.execute(f"INSERT INTO dump_table ({TABLE_COLUMNS}) VALUES ({_marks(8)})",
                      table_row(seq, t))  # fmt: skip
            c.executemany(
                "INSERT INTO dump_record (tbl, seq, line) VALUES (?, ?, ?)",
                [(seq, i, r.line) for i, r in enumerate(t.records)],
            )
        self._put_meta(c, "dump_tail", dump.tail)

    def dump(self) -> Dump | None:
        """The imported dump's records as imported (``None`` for a world made otherwise)."""
        with self._read() as c:
            tables = c.execute(f"SELECT {TABLE_COLUMNS} FROM dump_table ORDER BY seq").fetchall()
            if not tables:
                return None
            meta = dict(c.execute("SELECT key, value FROM meta").fetchall())
            dump = Dump(meta.get("source", "dump"), tail=meta.get("dump_tail", ""))
            for row in tables:
                lines = c.execute(
                    "SELECT line FROM dump_record WHERE tbl = ? ORDER BY seq", (row[0],)
                )
                dump.tables.append(table_of(row, [line for (line,) in lines], dump.source))
        return dump

    # -- history ----------------------------------------------------------------

    def _insert(
        self,
        c: sqlite3.Connection,
        row: tuple[Any, ...],
        before: Rows,
        after: Rows,
        hook: Callable[[str], None] | None,
    ) -> int:
        """Inside a write transaction: one history row (``COMMAND_COLUMNS``) and the
        before/after image of every object that changed, written over the world."""
        cur = c.execute(f"INSERT INTO command ({COMMAND_COLUMNS}) VALUES ({_marks(len(row))})", row)
        cid = int(cur.lastrowid or 0)
        for (k, key), (was, now) in changes(before, after).items():
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
        entry: ServerEntry,
        world: World,
        dump: Dump | None = None,
        *,
        only_if_changed: bool = False,
        hook: Callable[[str], None] | None = None,
    ) -> int | None:
        """Make ``world`` the current world, as history entry ``entry`` (a sync of a live
        game, or an order played on its server); ``dump`` replaces the dump kept for export.

        One transaction holds the entry, the before/after image of every object that
        changed, and the dump.  Returns the entry's id; with ``only_if_changed``
        nothing is written (``None``) when ``world`` is the current world.
        """
        with _guard(self.path), self._write() as c:
            before, after = self._rows(c), world_rows(world)
            if only_if_changed and before == after:
                return None
            at = datetime.now(UTC).isoformat(timespec="milliseconds")
            cid = self._insert(c, entry_row(at, entry, world), before, after, hook)
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
            return [record_of(row) for row in c.execute(_SELECT_COMMAND + " ORDER BY id")]

    def command(self, cid: int) -> CommandRecord:
        """One stored command with the before/after image of everything it changed."""
        with self._read() as c:
            row = c.execute(_SELECT_COMMAND + " WHERE id = ?", (cid,)).fetchone()
            if row is None:
                raise InputError(f"{self.path}: no command {cid} in the history")
            rec = record_of(row)
            for kind, key, before, after in c.execute(
                "SELECT kind, key, before, after FROM change WHERE command = ?", (cid,)
            ):
                rec.changes[(kind, key)] = (before, after)
        return rec

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


_SELECT_COMMAND = f"SELECT id, {COMMAND_COLUMNS} FROM command"


def _marks(n: int) -> str:
    return ", ".join("?" * n)


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
        order: Order,
        answers: list[str | None],
        result: CombatResult,
        hook: Callable[[str], None] | None = None,
    ) -> int:
        """Record the command and write the objects it changed; returns its history id.

        A result that did not change the world (refused, aborted) is recorded
        with no changes, like a world file that is not rewritten.  ``hook`` is
        called between steps (tests use it to kill the process mid-write).
        """
        c = self.store.conn
        after = world_rows(self.world) if result.world_changed else self.before
        at = datetime.now(UTC).isoformat(timespec="milliseconds")
        with _guard(self.store.path):
            try:
                row = command_row(at, order, answers, result, self.world)
                cid = self.store._insert(c, row, self.before, after, hook)
                if hook:
                    hook("commit")
                c.execute("COMMIT")
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
