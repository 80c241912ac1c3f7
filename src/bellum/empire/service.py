"""The unit of work every edge shares: open a world, run one order, keep or drop it.

The command line, the web application and the live-server client all do the
same few things with a world: open it (a TOML world file or a world
database), run one order on it with :func:`bellum.empire.run_command`, and
keep what the order did - rewrite the file, or commit the order to the
database's history in the transaction it ran in - or drop it.  The history
can be listed and any stored order replayed.  This module is that sequence,
with no terminal in it: edges decide only where questions and output go.
"""

from __future__ import annotations

from collections.abc import Iterator, Sequence
from contextlib import contextmanager
from dataclasses import dataclass
from pathlib import Path
from types import TracebackType
from typing import TYPE_CHECKING, Self

from bellum.empire.combat.dispatch import run_command
from bellum.empire.combat.result import CombatResult
from bellum.empire.events import Event, Prompter, RecordingPrompter, ReplayPrompter, Sink
from bellum.empire.intel.model import merge_all
from bellum.empire.io.sqlite.codec import CommandRecord, ServerEntry, changes, world_rows
from bellum.empire.io.sqlite.store import Session, Store, UnknownCommand
from bellum.empire.orders import Order, as_order
from bellum.empire.rules import Rules
from bellum.empire.world import World
from bellum.errors import CommandError, InputError
from bellum.fileio import WORLD, check_overwrite, check_writable, same_file

if TYPE_CHECKING:
    from bellum.empire.io.xdump.syntax import Dump
    from bellum.empire.plan.curves import CurveCache

#: The database used when a command is given neither a world file nor a database.
DEFAULT_DB = Path("bellum.db")


class WorldSource:
    """A world to run one order on, and how to keep what the order did.

    Use it as a context manager: leaving it without a kept order drops
    whatever happened (a database rolls back).
    """

    world: World

    def run(
        self,
        order: str | Order,
        *,
        country: int | str,
        seed: int | None = None,
        answers: Sequence[str | None] = (),
        prompter: Prompter | None = None,
        sink: Sink | None = None,
        rules: Rules | None = None,
    ) -> CombatResult:
        """Run ``order`` on :attr:`world` (see :func:`~bellum.empire.run_command`) and keep
        its effect, whatever the outcome; every answer given, and the rules, are recorded
        for replay."""
        parsed = as_order(order)
        recorder = RecordingPrompter(prompter or ReplayPrompter(list(answers)))
        result = run_command(
            self.world,
            parsed,
            country=country,
            seed=seed,
            prompter=recorder,
            sink=sink,
            rules=rules,
        )
        self._keep(parsed, recorder.answers, result)
        return result

    def _keep(self, order: Order, answers: list[str | None], result: CombatResult) -> None:
        """Keep the order's effect (called once, whatever the outcome)."""

    def close(self) -> None:
        """Release the world; an order not kept is dropped."""

    def __enter__(self) -> Self:
        return self

    def __exit__(
        self,
        kind: type[BaseException] | None,
        exc: BaseException | None,
        tb: TracebackType | None,
    ) -> None:
        self.close()


class FileSource(WorldSource):
    """A TOML world file, rewritten atomically (or written to ``out``) when the order
    changed the world.  An ``out`` that exists and is not a world file is refused
    (before the order runs) unless ``force``; with ``write`` the file written is checked
    first, so one that cannot be written is refused before the order runs, not after its
    fight."""

    def __init__(
        self, path: Path, out: Path | None = None, *, write: bool = False, force: bool = False
    ) -> None:
        from bellum.empire.io.toml import read_world_file  # a database's commands skip it

        if out is not None:
            check_overwrite(out, WORLD, force)
        self.world, self.text = read_world_file(path)
        self.dest = out or path
        self.force = force or out is None
        if write:
            check_writable(self.dest)

    def _keep(self, order: Order, answers: list[str | None], result: CombatResult) -> None:
        from bellum.empire.io.toml import save_world

        if result.world_changed:
            save_world(self.world, self.dest, original=self.text, force=self.force)


class DatabaseSource(WorldSource):
    """A world database.  With ``write`` the order runs in one transaction, holding the
    write lock from the moment the world is read, and joins the history.

    With ``out`` the resulting world goes to that TOML file instead and the
    database is left as it was (like ``out`` with a world file).
    """

    def __init__(
        self, path: Path, *, write: bool = False, out: Path | None = None, force: bool = False
    ) -> None:
        if out is not None:
            check_overwrite(out, WORLD, force)
        self.store = Store.open(path)
        self.out = out
        self.force = force
        self.session: Session | None = None
        #: The history id of the kept order, once there is one.
        self.recorded: int | None = None
        try:
            if write:
                check_writable(out or path)
                self.session = self.store.begin_command()
                self.world = self.session.world
            else:
                self.world = self.store.world()
        except BaseException:
            self.store.close()
            raise

    def _keep(self, order: Order, answers: list[str | None], result: CombatResult) -> None:
        if self.session is None or self.session.done:
            raise CommandError(
                f"{self.store.path}: opened for reading, or its one order is done;"
                " open it again to run another"
            )
        if self.out is not None:
            from bellum.empire.io.toml import save_world

            self.session.rollback()
            if result.world_changed:
                save_world(self.world, self.out, force=self.force)
            return
        self.recorded = self.session.commit(order, answers, result)

    def close(self) -> None:
        if self.session is not None:
            self.session.rollback()
        self.store.close()


def open_source(
    world_path: Path | None,
    db: Path | None,
    *,
    write: bool = False,
    out: Path | None = None,
    force: bool = False,
) -> WorldSource:
    """The world file at ``world_path``, else the database ``db`` (default ``./bellum.db``).

    ``write`` opens it to run an order that may change it (and checks that what will be
    written can be); without it the world is only read.  ``out`` is where the changed
    world goes instead (a world file): never the input itself, and an existing file there
    that is not a world file only with ``force``.
    """
    if world_path is not None and db is not None:
        raise InputError("give either a world file or a database, not both")
    source = world_path if world_path is not None else db or DEFAULT_DB
    if out is not None and same_file(out, source):
        kind = "world file" if world_path is not None else "database"
        raise InputError(f"{out} is the {kind} read; write the world after the order elsewhere")
    if world_path is not None:
        return FileSource(world_path, out, write=write, force=force)
    return DatabaseSource(source, write=write, out=out, force=force)


class WorldDatabase:
    """A world database by its path, for an edge that lives long and reads often (the web
    page).  Every call opens a connection of its own and closes it, so requests on other
    threads never share one; an order runs through :meth:`source`, one transaction each."""

    def __init__(self, path: Path) -> None:
        self.path = path
        with self._store() as store:  # fail now, in one line, if it is no world database
            store.summary()

    @classmethod
    def copy_of(cls, world_file: Path, path: Path) -> WorldDatabase:
        """A new database at ``path`` holding the world of ``world_file``."""
        from bellum.empire.io.toml import read_world_file

        Store.create(path, read_world_file(world_file)[0]).close()
        return cls(path)

    @contextmanager
    def _store(self) -> Iterator[Store]:
        store = Store.open(self.path)
        try:
            yield store
        finally:
            store.close()

    def version(self) -> tuple[int, str]:
        """How many orders the history holds, and when the world was made: it changes
        with every order kept and with a new world at the same path."""
        with self._store() as store:
            summary = store.summary()
        return int(summary["commands"]), str(summary["created"])

    def world(self) -> World:
        """The current world."""
        with self._store() as store:
            return store.world()

    def source(self) -> DatabaseSource:
        """The database opened to run one order and keep it (holding the write lock)."""
        return DatabaseSource(self.path, write=True)

    def history(self) -> list[CommandRecord]:
        """Every order stored, oldest first."""
        return history(self.path)

    def command(self, cid: int) -> CommandRecord:
        """History entry ``cid`` (:class:`UnknownCommand` if there is none)."""
        with self._store() as store:
            return store.command(cid)

    def replay(self, cid: int) -> ReplayReport:
        """Order ``cid`` re-run and compared with its record (see :func:`replay`)."""
        with self._store() as store:
            return replay(store, cid)

    @contextmanager
    def planner_cache(self) -> Iterator[tuple[CurveCache, str]]:
        """Where the turn planner keeps its solved odds, and the world's version to key
        them by, for as long as the planner runs."""
        with self._store() as store:
            yield store, store.version()


def history(path: Path) -> list[CommandRecord]:
    """Every order stored in the database at ``path``, oldest first."""
    store = Store.open(path)
    try:
        return store.history()
    finally:
        store.close()


def record(
    path: Path,
    entry: ServerEntry,
    world: World,
    dump: Dump | None = None,
    *,
    only_if_changed: bool = False,
) -> CommandRecord | None:
    """Make ``world`` the current world of the database at ``path`` as history entry
    ``entry`` (a sync of a live game, or an order played on its server), with the
    before/after image of every object that changed; ``dump`` replaces the dump kept
    for export.  A missing database is created first (an empty world of ``world``'s
    size), so the first sync's entry shows the whole game arriving.

    A player's view keeps what the country saw before: ``world``'s observations
    are merged into the stored ones field by field, the fresher sighting winning
    (:func:`bellum.empire.intel.model.merge`), so an older report never replaces a
    newer one.

    Returns the stored entry, or ``None`` with ``only_if_changed`` when ``world``
    is already the current world (nothing written).
    """
    if not path.exists():
        Store.create(path, World(geometry=world.geometry)).close()
    store = Store.open(path)
    try:
        if world.fog is not None:
            before = store.world()
            if before.fog is not None and before.fog.viewer == world.fog.viewer:
                world.observations = merge_all(
                    before.observations, list(world.observations.values())
                )
        cid = store.record(entry, world, dump, only_if_changed=only_if_changed)
        return None if cid is None else store.command(cid)
    finally:
        store.close()


# -- replay ------------------------------------------------------------------------


@dataclass
class ReplayReport:
    """How a replayed order compared with its record."""

    command: CommandRecord
    transcript: str
    same_transcript: bool  # the text and every event (telegrams too) are the same
    same_changes: bool
    differences: list[str]

    @property
    def ok(self) -> bool:
        return self.same_transcript and self.same_changes


def replay(store: Store, cid: int) -> ReplayReport:
    """Re-run order ``cid`` on the world as it was before it, with its seed and answers,
    and compare the transcript and the changes with what was recorded."""
    rec = store.command(cid)
    if rec.order is None:
        raise CommandError(
            f"command {cid} is a sync from {rec.server}: there is no order to re-run"
        )
    if rec.server is not None:
        raise CommandError(
            f"command {cid} was played on the server {rec.server}, not by bellum's rules;"
            " replay re-runs bellum's own orders"
        )
    world = store.world_before(cid)
    before = world_rows(world)
    result = run_command(
        world,
        rec.order,
        country=rec.country,
        seed=rec.seed,
        prompter=ReplayPrompter(rec.answers),
        rules=rec.rules,  # as recorded: a profile or --option of its command line included
    )
    changed = changes(before, world_rows(world) if result.world_changed else before)
    text = result.transcript()
    diffs = []
    if text != rec.transcript:
        diffs.append(_first_difference(rec.transcript, text))
    elif result.events != rec.events:
        diffs.append(
            f"events differ (telegrams or prompts): {_first_event(rec.events, result.events)}"
        )
    if changed != rec.changes:
        keys = sorted(set(changed) ^ set(rec.changes)) or sorted(
            k for k in changed if changed[k] != rec.changes.get(k)
        )
        diffs.append(
            f"world changes differ: {len(changed)} replayed, {len(rec.changes)} recorded"
            f" (first: {keys[0][0]} {keys[0][1]})"
        )
    same_text = text == rec.transcript and result.events == rec.events
    return ReplayReport(rec, text, same_text, changed == rec.changes, diffs)


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


def plan_cache(source: WorldSource) -> tuple[CurveCache | None, str]:
    """Where the turn planner keeps its solved odds, and the world's version to key them by:
    a database keeps them (a second plan of the same turn reuses them), a world file not."""
    if isinstance(source, DatabaseSource):
        return source.store, source.store.version()
    return None, ""


__all__ = [
    "DEFAULT_DB",
    "DatabaseSource",
    "FileSource",
    "ReplayReport",
    "UnknownCommand",
    "WorldDatabase",
    "WorldSource",
    "history",
    "open_source",
    "plan_cache",
    "record",
    "replay",
]
