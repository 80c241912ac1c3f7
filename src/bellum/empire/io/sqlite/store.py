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

import contextlib
import json
import os
import sqlite3
from collections.abc import Callable, Iterator, Sequence
from contextlib import contextmanager
from datetime import UTC, datetime
from pathlib import Path
from typing import TYPE_CHECKING, Any

from bellum.empire.io.sqlite.codec import (
    COMMAND_COLUMNS,
    DAMAGE,
    HISTORY_HINT,
    TABLE_COLUMNS,
    CommandRecord,
    DamagedError,
    Rows,
    ServerEntry,
    changes,
    command_row,
    entry_row,
    record_of,
    rows_world,
    table_of,
    table_row,
    why,
    world_rows,
)
from bellum.empire.io.sqlite.schema import SCHEMA_VERSION, migrate, version_of
from bellum.empire.io.xdump.mapping import check_template
from bellum.empire.io.xdump.syntax import Dump, parse_dump
from bellum.empire.orders import Order
from bellum.empire.tables import stock
from bellum.empire.world import World
from bellum.errors import CommandError, InputError
from bellum.fileio import SQLITE_MAGIC, check_regular
from bellum.numbers import to_int

if TYPE_CHECKING:
    from bellum.empire.combat.result import CombatResult

#: How long a command waits for another one holding the database, in seconds
#: (``BELLUM_BUSY_TIMEOUT`` in the environment overrides it).
BUSY_TIMEOUT = 30.0


class UnknownCommand(InputError):
    """The history holds no command of that id."""

    def __init__(self, path: Path, cid: int) -> None:
        super().__init__(f"{path}: no command {cid} in the history")
        self.cid = cid


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
    if "no such table" in text or "no such column" in text:
        return DamagedError(f"{path}", text)
    return InputError(f"{path}: database error: {text}")


@contextmanager
def _guard(path: Path) -> Iterator[None]:
    """SQLite errors as one-line bellum errors naming the database."""
    try:
        yield
    except sqlite3.Error as exc:
        raise _db_error(path, exc) from None


#: The name ending of the scratch file a new database is built in.
SCRATCH_SUFFIX = ".building"


def _alive(pid: int) -> bool:
    try:
        os.kill(pid, 0)
    except ProcessLookupError:
        return False
    except OSError:  # it exists, but belongs to someone else
        return True
    return True


def _sweep_scratch(p: Path) -> None:
    """Remove the scratch files that runs building ``p`` left when they were killed.

    A scratch file's name carries the id of the process building in it; the files of
    processes that are gone are leftovers, the others are in use.
    """
    import glob  # here and below: only the commands that build or digest a database

    if os.name != "posix":  # os.kill(pid, 0) asks about a process only on POSIX
        return
    prefix = f".{p.name}."
    for leftover in p.parent.glob(f"{glob.escape(prefix)}*{SCRATCH_SUFFIX}"):
        pid = to_int(leftover.name[len(prefix) :].split(".", 1)[0])
        if pid is not None and not _alive(pid):
            _remove_scratch(leftover)


def _umask() -> int:
    mask = os.umask(0)
    os.umask(mask)
    return mask


def _remove_scratch(scratch: Path) -> None:
    for f in (scratch, Path(f"{scratch}-wal"), Path(f"{scratch}-shm"), Path(f"{scratch}-journal")):
        with contextlib.suppress(OSError):  # a failure here must not hide the first one
            f.unlink(missing_ok=True)


def _place(scratch: Path, p: Path) -> None:
    """Give the finished scratch file the name ``p``, unless something took it meanwhile."""
    try:
        os.link(scratch, p)
    except FileExistsError:
        raise InputError(f"{p}: already exists (use --replace to start it over)") from None
    except OSError:  # a file system without hard links: rename, having checked above
        os.replace(scratch, p)
    with contextlib.suppress(OSError):
        folder = os.open(p.parent, os.O_RDONLY)
        try:
            os.fsync(folder)
        finally:
            os.close(folder)


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
        check_regular(p, "bellum database")
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
        try:
            version = version_of(self.conn)
        except DAMAGE as exc:
            raise DamagedError(f"{self.path}: schema_version", why(exc)) from None
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
        cls._build(p, world, dump)
        return cls.open(p)

    @classmethod
    def _build(cls, p: Path, world: World, dump: Dump | None) -> None:
        """Make the new database ``p``: built in a scratch file of its own beside it, folded
        into that one file (its WAL checkpointed) and closed, then linked into place.

        So a killed or failed run (a full disk) leaves no half database at ``p``, two
        runs at once never share a scratch file, and the second of two runs racing for
        one name is told it exists.  The files killed runs leave are swept away by the
        next run (:func:`_sweep_scratch`).
        """
        import tempfile

        _sweep_scratch(p)
        try:
            fd, name = tempfile.mkstemp(
                prefix=f".{p.name}.{os.getpid()}.", suffix=SCRATCH_SUFFIX, dir=p.parent
            )
        except OSError as exc:
            raise InputError(f"{p}: cannot create: {exc.strerror}") from None
        scratch = Path(name)
        try:
            os.fchmod(fd, 0o666 & ~_umask())  # as a file made by sqlite3 would be
            with _guard(p):
                conn = _connect(scratch, busy_timeout())
                building = cls(scratch, conn)
                try:
                    conn.execute("PRAGMA journal_mode = WAL")
                    building._fill(world, dump)
                    busy, _, _ = conn.execute("PRAGMA wal_checkpoint(TRUNCATE)").fetchone()
                    if busy:
                        raise CommandError(f"{p}: the new database could not be completed")
                finally:
                    conn.close()
            wal = Path(f"{scratch}-wal")
            if wal.exists() and wal.stat().st_size:
                raise InputError(f"{p}: cannot create: the new database was not completed")
            os.fsync(fd)
            if p.exists() or p.is_symlink():
                raise InputError(f"{p}: already exists (use --replace to start it over)")
            for stale in (Path(f"{p}-wal"), Path(f"{p}-shm")):  # of a database deleted by hand
                stale.unlink(missing_ok=True)
            _place(scratch, p)
        except OSError as exc:
            raise InputError(f"{p}: cannot create: {exc.strerror}") from None
        finally:
            os.close(fd)
            _remove_scratch(scratch)

    def _fill(self, world: World, dump: Dump | None) -> None:
        """Replace everything in the database by ``world`` and ``dump``, in one transaction."""
        store, p = self, self.path
        with _guard(p), store._write() as c:
            current = version_of(c)
            if current == 0:
                migrate(c, 0)
            tables = ("change", "command", "dump_record", "dump_table", "object", "meta", "curve")
            for table in tables:
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
        value = value.encode("utf-8", "surrogatepass").decode("utf-8", "replace")  # file names
        c.execute("INSERT OR REPLACE INTO meta (key, value) VALUES (?, ?)", (key, value))

    def _rows(self, c: sqlite3.Connection) -> Rows:
        rows = c.execute("SELECT kind, key, data FROM object")
        return {(str(k), str(key)): data for k, key, data in rows}

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
                try:
                    dump.tables.append(table_of(row, [line for (line,) in lines], dump.source))
                except (*DAMAGE, InputError) as exc:
                    where = f"{self.path}: imported dump table {row[1]!s:.20}"
                    raise DamagedError(where, why(exc), HISTORY_HINT) from None
        # Read back as the file it was, so the dump export lays the world over has passed
        # the same checks as on import, plus the keys export leans on.
        try:
            checked = parse_dump(dump.text(), dump.source)
            check_template(checked)
        except (*DAMAGE, InputError) as exc:
            raise DamagedError(f"{self.path}: imported dump", why(exc), HISTORY_HINT) from None
        return checked

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
            return [
                record_of(row, str(self.path))
                for row in c.execute(_SELECT_COMMAND + " ORDER BY id")
            ]

    def command(self, cid: int) -> CommandRecord:
        """One stored command with the before/after image of everything it changed."""
        with self._read() as c:
            row = c.execute(_SELECT_COMMAND + " WHERE id = ?", (cid,)).fetchone()
            if row is None:
                raise UnknownCommand(self.path, cid)
            rec = record_of(row, str(self.path))
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
                raise UnknownCommand(self.path, cid)
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

    # -- the planner's cache ----------------------------------------------------

    def version(self) -> str:
        """A digest of the world's objects: equal worlds, equal versions (the curve key)."""
        import hashlib

        with self._read() as c:
            h = hashlib.sha256()
            for kind, key, data in c.execute("SELECT kind, key, data FROM object ORDER BY 1, 2"):
                h.update(f"{kind}\0{key}\0{data}\0".encode("utf-8", "surrogatepass"))
        return h.hexdigest()[:32]

    def get_curves(self, version: str, keys: Sequence[str]) -> dict[str, str]:
        """The planner's solved points for ``keys`` under ``version`` (those it has)."""
        wanted = set(keys)
        with self._read() as c:
            rows = c.execute("SELECT key, data FROM curve WHERE version = ?", (version,))
            return {str(k): str(d) for k, d in rows if k in wanted}

    def put_curves(self, version: str, items: dict[str, str]) -> None:
        """Keep solved points; points of other versions go (a world has one turn at a time)."""
        with _guard(self.path), self._write() as c:
            c.execute("DELETE FROM curve WHERE version NOT LIKE ?", (version.split("|")[0] + "%",))
            c.executemany(
                "INSERT OR REPLACE INTO curve (version, key, data) VALUES (?, ?, ?)",
                [(version, k, d) for k, d in items.items()],
            )

    def summary(self) -> dict[str, Any]:
        """What ``world show`` prints: the schema, the world's size and contents, the history."""
        with self._read() as c:
            counts = dict(c.execute("SELECT kind, count(*) FROM object GROUP BY kind").fetchall())
            commands = c.execute("SELECT count(*) FROM command").fetchone()[0]
            meta = dict(c.execute("SELECT key, value FROM meta").fetchall())
            row = c.execute(
                "SELECT data FROM object WHERE kind = 'world' AND key = 'size'"
            ).fetchone()
            try:
                size = json.loads(row[0])
                if not (isinstance(size, list) and len(size) == 2):
                    raise TypeError("expected [width, height]")
            except DAMAGE as exc:
                raise DamagedError(f"{self.path}: world size", why(exc)) from None
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
        """Record the command (with the rules it ran under) and write the objects it
        changed; returns its history id.

        A result that did not change the world (refused, aborted) is recorded
        with no changes, like a world file that is not rewritten.  ``hook`` is
        called between steps (tests use it to kill the process mid-write).
        """
        c = self.store.conn
        after = world_rows(self.world) if result.world_changed else self.before
        at = datetime.now(UTC).isoformat(timespec="milliseconds")
        with _guard(self.store.path):
            try:
                row = command_row(at, order, answers, result)
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
