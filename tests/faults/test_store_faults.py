"""The store under faults: concurrent writers, SIGKILL at random moments and around the
commit, a full disk; after each experiment the whole database is audited
(:func:`faults.audit`): integrity, the history holding exactly the finished commands,
every change chaining onto the state before, mil conserved, every command replayed.

The experiments' figures go to docs/reliability.md (``--reliability-report``).
"""

from __future__ import annotations

import contextlib
import os
import random
import resource
import shutil
import signal
import subprocess
import time
from collections.abc import Iterator
from pathlib import Path

import pytest

from bellum.dice import ServerRandom
from bellum.empire.combat import attack as run_attack
from bellum.empire.events import RecordingPrompter, ScriptedPrompter
from bellum.empire.io.sqlite.store import Store
from bellum.empire.orders import Order
from bellum.errors import InputError
from bellum.fileio import write_atomic
from faults import (
    ANSWERS,
    ROWS,
    TARGETS,
    Child,
    assert_sound,
    attack,
    audit,
    count,
    new_db,
    object_rows,
)
from front import front_toml

pytestmark = pytest.mark.skipif(not hasattr(os, "fork"), reason="needs fork()")


def _settle(children: list[Child]) -> tuple[set[tuple[str, int]], int, int]:
    """Wait for ``children``: the commands that finished (kept in the history), and how
    many were killed or failed with an error."""
    finished, killed, failed = set(), 0, 0
    for c in children:
        code, said = c.wait()
        key = (c.args[2], int(c.args[-1]))
        if code == -signal.SIGKILL:
            killed += 1
        elif said.startswith("bellum: error:"):
            assert code == 1, (c.args, code, said)
            failed += 1
        else:
            assert code in (0, 1), (c.args, code, said)
            finished.add(key)
    return finished, killed, failed


def test_concurrent_writers_lose_nothing(tmp_path: Path) -> None:
    db = new_db(tmp_path / "front.db")
    base = object_rows(db)
    rng = random.Random(14)
    targets = rng.sample(TARGETS, 24)
    children = [attack(db, t, 100 + i, tmp_path).start() for i, t in enumerate(targets)]
    finished, killed, failed = _settle(children)
    started = {(c.args[2], int(c.args[-1])) for c in children}
    a = audit(db, base, started, finished)
    count("concurrent", a, commands=len(children), finished=len(finished), killed=killed,
          failed=failed)  # fmt: skip
    assert finished == started  # every one got the lock in turn
    assert_sound(a)


def test_sigkill_at_random_moments(tmp_path: Path) -> None:
    db = new_db(tmp_path / "front.db")
    base = object_rows(db)
    rng = random.Random(20261130)
    probe = attack(db, TARGETS[0], 1, tmp_path).start()
    started_at = time.perf_counter()
    finished, _, _ = _settle([probe])
    duration = time.perf_counter() - started_at
    started = {(TARGETS[0], 1)}
    killed = failed = 0
    targets = iter(TARGETS[1:])
    for round_ in range(10):
        children = [
            attack(db, next(targets), 1000 * round_ + i, tmp_path).start() for i in range(3)
        ]
        started |= {(c.args[2], int(c.args[-1])) for c in children}
        time.sleep(rng.uniform(0, 1.5 * duration))
        for c in rng.sample(children, rng.randint(1, 3)):
            c.kill()
        done, k, f = _settle(children)
        finished |= done
        killed += k
        failed += f
    a = audit(db, base, started, finished)
    count("random-kill", a, commands=len(started), finished=len(finished), killed=killed,
          failed=failed)  # fmt: skip
    assert killed > 0
    assert_sound(a)


def _commit_child(db: Path, target: str, seed: int, kill_at: int | None, after: bool) -> None:
    """One attack through the store's API whose commit kills itself at write ``kill_at``
    (the last step is just before COMMIT), or just after COMMIT returns."""
    store = Store.open(db)
    session = store.begin_command()
    prompter = RecordingPrompter(ScriptedPrompter(ANSWERS.split()))
    result = run_attack(session.world, target, 1, ServerRandom(seed), prompter, [])
    steps = 0

    def hook(step: str) -> None:
        nonlocal steps
        if steps == kill_at:
            os.kill(os.getpid(), signal.SIGKILL)
        steps += 1

    session.commit(Order("attack", (target,)), prompter.answers, result, hook=hook)
    if after:
        os.kill(os.getpid(), signal.SIGKILL)
    store.close()
    os._exit(0)


def test_sigkill_around_the_commit(tmp_path: Path) -> None:
    """Killed at every write of the commit, just before COMMIT and just after it: the
    database holds the state before or the state after, and either audits clean."""
    from faults import FORK, PATIENCE

    base_db = new_db(tmp_path / "base.db")
    base = object_rows(base_db)
    for i, target in enumerate(TARGETS[:3]):  # a history to chain onto
        _settle([attack(base_db, target, i, tmp_path).start()])
    history_before = {(t, i) for i, t in enumerate(TARGETS[:3])}
    killed = committed = 0
    kill_points: list[int | None] = list(range(16))
    while kill_points:
        kill_at = kill_points.pop(0)
        db = tmp_path / f"k{kill_at}.db"
        shutil.copy(base_db, db)
        child = FORK.Process(
            target=_commit_child, args=(db, TARGETS[5], 77, kill_at, kill_at is None)
        )
        child.start()
        child.join(PATIENCE)
        assert child.exitcode in (0, -signal.SIGKILL)
        killed += child.exitcode == -signal.SIGKILL
        a = audit(db, base, history_before | {(TARGETS[5], 77)}, history_before)
        committed += a.replayed > len(history_before)
        count("commit-kill", a, commands=1, finished=int(child.exitcode == 0),
              killed=int(child.exitcode != 0), failed=0)  # fmt: skip
        assert_sound(a)
        if child.exitcode == 0:  # the commit had fewer writes: now kill it just after
            kill_points = [None]
    assert killed >= 5 and committed >= 2  # kills landed inside the commit, and after it


def _file_size_limit(limit: int) -> None:
    """In a child: writes past ``limit`` bytes of any file fail (EFBIG), as on a full disk."""
    signal.signal(signal.SIGXFSZ, signal.SIG_IGN)
    resource.setrlimit(resource.RLIMIT_FSIZE, (limit, resource.RLIM_INFINITY))


def test_disk_full_during_commands(tmp_path: Path) -> None:
    db = new_db(tmp_path / "front.db")
    base = object_rows(db)
    rng = random.Random(2814)
    started, finished, failed = set(), set(), 0
    for i, target in enumerate(TARGETS[:16]):
        limit = rng.randrange(0, 400_000)
        child = attack(db, target, i, tmp_path, setup=lambda n=limit: _file_size_limit(n)).start()
        started.add((target, i))
        done, _, f = _settle([child])
        finished |= done
        failed += f
    a = audit(db, base, started, finished)
    count("disk-full", a, commands=len(started), finished=len(finished), killed=0, failed=failed)
    assert failed > 0 and finished  # some ran out of room, some did not
    assert_sound(a)


@contextlib.contextmanager
def _small_tmpfs(folder: Path, size: str) -> Iterator[Path]:
    folder.mkdir()
    try:
        mounted = subprocess.run(
            ["mount", "-t", "tmpfs", "-o", f"size={size}", "tmpfs", str(folder)],
            capture_output=True,
            check=False,
            timeout=30,
        )
    except (OSError, subprocess.TimeoutExpired):
        mounted = None
    if mounted is None or mounted.returncode != 0:
        pytest.skip("needs permission to mount a small tmpfs (root)")
    try:
        yield folder
    finally:
        subprocess.run(["umount", "-l", str(folder)], check=False, timeout=30)


def _fill(folder: Path, leave: int) -> None:
    """Fill the file system of ``folder`` until ``leave`` bytes are free.

    Unbuffered, so closing the file has nothing left to flush: a buffered close would
    raise the same ENOSPC again, or not, depending on where the disk happened to fill."""
    filler = folder / "filler"
    with filler.open("wb", buffering=0) as f, contextlib.suppress(OSError):
        while True:
            f.write(b"\0" * 65536)
            f.flush()
    os.truncate(filler, max(0, filler.stat().st_size - leave))


@pytest.mark.skipif(os.geteuid() != 0 if hasattr(os, "geteuid") else True, reason="needs root")
def test_a_full_tmpfs(tmp_path: Path) -> None:
    """A real full disk (ENOSPC): commands, and new databases, on a 4 MB tmpfs."""
    with _small_tmpfs(tmp_path / "disk", "4m") as disk:
        db = new_db(disk / "front.db")
        base = object_rows(db)
        rng = random.Random(4)
        started, finished, failed = set(), set(), 0
        for i, target in enumerate(TARGETS[:12]):
            (disk / "filler").unlink(missing_ok=True)
            _fill(disk, rng.randrange(0, 300_000))
            started.add((target, i))
            done, _, f = _settle([attack(db, target, i, tmp_path).start()])
            finished |= done
            failed += f
        (disk / "filler").unlink(missing_ok=True)
        a = audit(db, base, started, finished)
        count("tmpfs-full", a, commands=len(started), finished=len(finished), killed=0,
              failed=failed)  # fmt: skip
        assert_sound(a)
        assert failed > 0
        (disk / "world.toml").write_text(front_toml(ROWS))
        for i in range(6):
            _fill(disk, rng.randrange(0, 400_000))
            child = Child(["empire", "world", "new", "--from", str(disk / "world.toml"), "--db",
                           str(disk / f"n{i}.db")], "", tmp_path / f"n{i}.note").start()  # fmt: skip
            code, said = child.wait()
            (disk / "filler").unlink()
            _assert_whole_or_nothing(disk / f"n{i}.db", code, said)
            count_new("new-full", code)


def _assert_whole_or_nothing(db: Path, code: int | None, said: str) -> None:
    leftovers = [p.name for p in db.parent.iterdir() if p.name.startswith(f".{db.name}.")]
    assert not leftovers, leftovers
    if code == 0:
        assert Store.open(db).summary()["counts"]["sector"] == 1024
    else:
        assert said.startswith("bellum: error:") and not db.exists(), (code, said)


def count_new(experiment: str, code: int | None) -> None:
    from reliability import FIGURES

    FIGURES["fault", experiment, "commands"] += 1
    FIGURES["fault", experiment, "finished" if code == 0 else "failed"] += 1


def test_new_databases_on_a_full_disk(tmp_path: Path) -> None:
    (tmp_path / "world.toml").write_text(front_toml(ROWS))
    new_db(tmp_path / "made.db")
    Child(["empire", "world", "export", "--db", str(tmp_path / "made.db"), "--out",
           str(tmp_path / "game.xdump")], "", tmp_path / "export.note").start().wait()  # fmt: skip
    rng = random.Random(33)
    codes = []
    for i in range(12):
        verb = ["new", "--from", str(tmp_path / "world.toml")] if i % 2 else [
            "import", str(tmp_path / "game.xdump"), "--size", "64x32"]  # fmt: skip
        db = tmp_path / "out" / f"n{i}.db"
        db.parent.mkdir(exist_ok=True)
        limit = rng.randrange(0, 1_500_000)
        child = Child(["empire", "world", *verb, "--db", str(db)], "", tmp_path / f"n{i}.note",
                      setup=lambda n=limit: _file_size_limit(n)).start()  # fmt: skip
        code, said = child.wait()
        _assert_whole_or_nothing(db, code, said)
        count_new("new-full", code)
        codes.append(code)
    assert 0 in codes and 1 in codes


def test_new_databases_racing_for_one_name(tmp_path: Path) -> None:
    (tmp_path / "world.toml").write_text(front_toml(ROWS))
    for i in range(20):
        db = tmp_path / f"race{i}.db"
        pair = [
            Child(
                ["empire", "world", "new", "--from", str(tmp_path / "world.toml"), "--db", str(db)],
                "",
                tmp_path / f"r{i}-{k}.note",
            ).start()
            for k in range(2)
        ]
        results = [c.wait() for c in pair]
        codes = sorted(code for code, _ in results)
        assert codes == [0, 1], results
        assert any("already exists" in said for _, said in results), results
        _assert_whole_or_nothing(db, 0, "")
        for code, _ in results:
            count_new("new-race", code)


def test_world_file_writes_failing_at_every_step(
    tmp_path: Path, monkeypatch: pytest.MonkeyPatch
) -> None:
    """A world file is replaced whole or not at all, whichever step runs out of room."""
    from reliability import FIGURES

    target = tmp_path / "w.toml"
    target.write_text("schema_version = 1  # the old world\n")

    def full(*args: object, **kw: object) -> None:
        raise OSError(28, "No space left on device")

    def full_file(fd: int, *args: object, **kw: object) -> _FullFile:
        os.close(fd)
        return _FullFile()

    for step in ("mkstemp", "write", "fsync", "chmod", "replace"):
        with monkeypatch.context() as m:
            if step == "write":
                m.setattr(os, "fdopen", full_file)
            elif step == "mkstemp":
                m.setattr("tempfile.mkstemp", full)
            else:
                m.setattr(os, step, full)
            with pytest.raises(InputError, match="No space left on device"):
                write_atomic(target, "schema_version = 1  # the new world\n")
        assert target.read_text() == "schema_version = 1  # the old world\n"
        assert [p.name for p in tmp_path.iterdir()] == ["w.toml"]
        FIGURES["fault", "file-full", "commands"] += 1
        FIGURES["fault", "file-full", "failed"] += 1
    write_atomic(target, "schema_version = 1  # the new world\n")
    FIGURES["fault", "file-full", "commands"] += 1
    FIGURES["fault", "file-full", "finished"] += 1


class _FullFile:
    """A file whose every write fails as on a full disk."""

    def __enter__(self) -> _FullFile:
        return self

    def __exit__(self, *exc: object) -> None:
        return None

    def write(self, data: bytes) -> int:
        raise OSError(28, "No space left on device")
