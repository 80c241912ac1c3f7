"""What the fault experiments share: a world at war, commands run in forked children,
and the audit every database must pass afterwards.

Children are forked from the test process (no interpreter start-up) and run the
``bellum`` command line in process, exactly as a user's command would run; each
leaves a one-line note of how it ended, so a killed child is told from one that
failed.  Every wait has a timeout.
"""

from __future__ import annotations

import io
import json
import multiprocessing
import os
import signal
import sqlite3
import sys
import tomllib
import traceback
from collections.abc import Callable
from contextlib import redirect_stderr, redirect_stdout
from dataclasses import dataclass, field
from pathlib import Path

from bellum.empire.io.sqlite.store import Store
from bellum.empire.io.toml import parse_world
from bellum.empire.service import replay
from front import ANSWERS, front_toml, targets
from reliability import FIGURES

FORK = multiprocessing.get_context("fork")
#: Seconds any child may take before the test gives up on it (never reached when healthy).
PATIENCE = 60.0
#: The rows of the front (see tests/front.py): 128 sectors to take, each once.
ROWS = (0, 4, 8, 12, 16, 20, 24, 28)
TARGETS = targets(ROWS)


def new_db(path: Path) -> Path:
    Store.create(path, parse_world(tomllib.loads(front_toml(ROWS)), "front")).close()
    return path


def object_rows(db: Path) -> dict[tuple[str, str], str]:
    conn = sqlite3.connect(db)
    try:
        return {(k, key): d for k, key, d in conn.execute("SELECT kind, key, data FROM object")}
    finally:
        conn.close()


# -- children ------------------------------------------------------------------------


def _run_cli(args: list[str], stdin: str, note: Path) -> None:
    """The child's body: ``bellum ARGS``, its ending written to ``note``, then exit."""
    from bellum.cli import main

    sys.stdin = io.StringIO(stdin)
    err = io.StringIO()
    code = 3
    try:
        with redirect_stdout(io.StringIO()), redirect_stderr(err):
            try:
                main(args)
                code = 0
            except SystemExit as exc:
                code = exc.code if isinstance(exc.code, int) else 1
    except BaseException:
        err.write("TRACEBACK " + traceback.format_exc().replace("\n", " | "))
    last = (err.getvalue().strip().splitlines() or [""])[-1]
    note.write_text(f"{code}\n{last}\n")
    os._exit(code)


@dataclass
class Child:
    """One forked ``bellum`` command."""

    args: list[str]
    stdin: str
    note: Path
    setup: Callable[[], None] | None = None
    process: multiprocessing.process.BaseProcess | None = None

    def start(self) -> Child:
        self.note.unlink(missing_ok=True)
        self.process = FORK.Process(target=self._body)
        self.process.start()
        return self

    def _body(self) -> None:
        if self.setup is not None:
            self.setup()
        _run_cli(self.args, self.stdin, self.note)

    def kill(self) -> None:
        assert self.process is not None
        if self.process.pid is not None and self.process.is_alive():
            os.kill(self.process.pid, signal.SIGKILL)

    def wait(self) -> tuple[int | None, str]:
        """The exit status (``-9`` when killed) and the last line of standard error."""
        assert self.process is not None
        self.process.join(PATIENCE)
        assert not self.process.is_alive(), f"bellum {self.args} hung"
        code = self.process.exitcode
        if code is not None and code < 0:
            return code, ""  # killed, perhaps while writing its note
        said = self.note.read_text().split("\n", 1)[1].strip()
        assert "TRACEBACK" not in said, said
        return code, said


def attack(db: Path, target: str, seed: int, folder: Path, **kw: object) -> Child:
    args = ["empire", "attack", target, "--db", str(db), "--as", "1", "--seed", str(seed)]
    return Child(args, ANSWERS, folder / f"{target.replace(',', '_')}-{seed}.note", **kw)  # type: ignore[arg-type]


# -- the audit -----------------------------------------------------------------------


@dataclass
class Audit:
    """What a database holds after an experiment, against what was run on it."""

    integrity: str = ""
    lost: list[tuple[str, int]] = field(default_factory=list)
    duplicated: list[tuple[str, int]] = field(default_factory=list)
    unknown: list[tuple[str, int]] = field(default_factory=list)
    broken_chain: list[str] = field(default_factory=list)
    mil: tuple[int, int] = (0, 0)
    replayed: int = 0
    not_reproduced: list[int] = field(default_factory=list)

    @property
    def corrupt(self) -> bool:
        return (
            self.integrity != "ok"
            or bool(self.duplicated or self.unknown or self.broken_chain or self.not_reproduced)
            or self.mil[0] != self.mil[1]
        )


def _mil(rows: dict[tuple[str, str], str]) -> int:
    total = 0
    for (kind, _), text in rows.items():
        if kind in ("sector", "unit", "ship"):
            total += json.loads(text).get("items", {}).get("mil", 0)
    return total


def audit(
    db: Path,
    base: dict[tuple[str, str], str],
    started: set[tuple[str, int]],
    finished: set[tuple[str, int]],
) -> Audit:
    """Check ``db`` after commands ``started`` (of which ``finished`` ran to the end) on
    a database that held the objects ``base``; see docs/reliability.md for the promises."""
    a = Audit()
    conn = sqlite3.connect(db)
    try:
        a.integrity = conn.execute("PRAGMA integrity_check").fetchone()[0]
        changes = conn.execute(
            "SELECT command, kind, key, before, after FROM change ORDER BY command"
        ).fetchall()
    finally:
        conn.close()
    store = Store.open(db)
    try:
        history = store.history()
        done = [(r.order.args[0], r.seed) for r in history]
        a.lost = sorted(finished - set(done))
        a.duplicated = sorted({k for k in done if done.count(k) > 1})
        a.unknown = sorted(set(done) - started)
        # Each change starts from what the commands before left; together they are the world.
        rows = dict(base)
        for cid, kind, key, before, after in changes:
            if rows.get((kind, key)) != before:
                a.broken_chain.append(f"command {cid}: {kind} {key}")
            if after is None:
                rows.pop((kind, key), None)
            else:
                rows[(kind, key)] = after
        if rows != object_rows(db):
            a.broken_chain.append("the changes do not add up to the stored world")
        lost_mil = sum(
            r.result["casualties"]["attacker"] + r.result["casualties"]["defender"] for r in history
        )
        a.mil = (_mil(base), _mil(object_rows(db)) + lost_mil)
        for rec in history:
            if replay(store, rec.id).ok:
                a.replayed += 1
            else:
                a.not_reproduced.append(rec.id)
    finally:
        store.close()
    return a


def count(
    experiment: str, a: Audit, *, commands: int, finished: int, killed: int, failed: int
) -> None:
    """Add one experiment's figures to docs/reliability.md's table."""
    for what, n in (
        ("commands", commands),
        ("finished", finished),
        ("killed", killed),
        ("failed", failed),
        ("lost", len(a.lost)),
        ("corrupt", int(a.corrupt)),
        ("replayed", a.replayed),
    ):
        FIGURES["fault", experiment, what] += n


def assert_sound(a: Audit) -> None:
    assert a.integrity == "ok", a.integrity
    assert not a.lost, f"finished commands missing from the history: {a.lost}"
    assert not a.duplicated, f"commands recorded twice: {a.duplicated}"
    assert not a.unknown, f"commands in the history that never ran: {a.unknown}"
    assert not a.broken_chain, a.broken_chain
    assert a.mil[0] == a.mil[1], f"mil not conserved: {a.mil[0]} at first, {a.mil[1]} now"
    assert not a.not_reproduced, f"commands that do not replay: {a.not_reproduced}"
