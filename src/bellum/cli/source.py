"""Where the CLI's Empire commands get their world: a TOML file or a database.

The commands stay the same whichever it is: they take :attr:`WorldSource.world`,
wrap their prompter with :meth:`WorldSource.prompter` (a database records the
answers for replay) and hand the result to :meth:`WorldSource.commit`.
"""

from __future__ import annotations

from pathlib import Path
from typing import Any

import click

from bellum.empire.events import Prompter
from bellum.empire.io.sqlite.store import Invocation, RecordingPrompter, Session, Store
from bellum.empire.io.toml import load_world, save_world
from bellum.empire.world import World
from bellum.errors import UsageError

#: The database used when a command is given neither ``--world`` nor ``--db``.
DEFAULT_DB = Path("bellum.db")


class WorldSource:
    """A world to run one command on, and how to keep what the command did.

    The Empire commands stay the same whether the world is a TOML file or a
    database: they take :attr:`world`, wrap their prompter with
    :meth:`prompter`, and hand the result to :meth:`commit`.
    """

    world: World

    def prompter(self, inner: Prompter) -> Prompter:
        return inner

    def commit(self, result: Any) -> None:
        """Keep the command's effect (called once, whatever the outcome)."""

    def close(self) -> None:
        """Release the world; an uncommitted command is dropped."""


class FileSource(WorldSource):
    """A TOML world file, rewritten atomically when the command changed the world."""

    def __init__(self, path: Path, out: Path | None) -> None:
        self.world = load_world(path)
        self.dest = out or path

    def commit(self, result: Any) -> None:
        if result.world_changed:
            save_world(self.world, self.dest)


class DatabaseSource(WorldSource):
    """A world database: the command runs in one transaction and joins the history.

    With ``out`` the resulting world goes to that TOML file instead and the
    database is left as it was (like ``--out`` with a world file).
    """

    def __init__(self, path: Path, command: Invocation | None, out: Path | None) -> None:
        self.store = Store.open(path)
        self.command = command
        self.out = out
        self.session: Session | None = None
        self.recorder: RecordingPrompter | None = None
        try:
            if command is None:
                self.world = self.store.world()
            else:
                self.session = self.store.begin_command()
                self.world = self.session.world
        except BaseException:
            self.store.close()
            raise
        self.recorded: int | None = None

    def prompter(self, inner: Prompter) -> Prompter:
        self.recorder = RecordingPrompter(inner)
        return self.recorder

    def commit(self, result: Any) -> None:
        if self.session is None or self.command is None:
            return
        if self.out is not None:
            self.session.rollback()
            if result.world_changed:
                save_world(self.world, self.out)
            return
        answers = self.recorder.answers if self.recorder else []
        self.recorded = self.session.commit(self.command, answers, result)

    def close(self) -> None:
        if self.session is not None:
            self.session.rollback()
        self.store.close()


def open_world(
    world_path: Path | None,
    db: Path | None,
    *,
    command: Invocation | None = None,
    out: Path | None = None,
) -> WorldSource:
    """The world for one CLI command: ``--world FILE``, ``--db FILE`` or ``./bellum.db``.

    ``command`` (its name and arguments) marks a command that may change the
    world; without it the world is only read.  Inside a click command the
    source is closed when the command ends, so an error rolls back.
    """
    if world_path is not None and db is not None:
        raise UsageError("give either --world or --db, not both")
    source: WorldSource
    if world_path is not None:
        source = FileSource(world_path, out)
    else:
        source = DatabaseSource(db or DEFAULT_DB, command, out)
    ctx = click.get_current_context(silent=True)
    if ctx is not None:
        ctx.call_on_close(source.close)
    return source
