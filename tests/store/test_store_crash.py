"""Atomic commands: SIGKILL at any point leaves the state before or after, never a mix;
concurrent commands on one database are serialised without lost updates.

The children are forked from the test process (no interpreter start-up), so each
test stays within a few seconds; every wait has a timeout, so none can hang.
"""

from __future__ import annotations

import multiprocessing
import os
import random
import shutil
import signal
import sqlite3
import time
import tomllib
from collections.abc import Callable
from multiprocessing.synchronize import Event
from pathlib import Path

import pytest
from store_support import assert_history_replays, front_world_toml

from bellum.dice import ServerRandom
from bellum.empire.combat import attack
from bellum.empire.events import RecordingPrompter, ScriptedPrompter
from bellum.empire.io.sqlite.store import Store
from bellum.empire.io.toml import parse_world
from bellum.empire.orders import Order

FORK = multiprocessing.get_context("fork")
SUPPORT = ["n", "n", "n", "n"]
ANSWERS = ["20", "20", "5"]
#: Seconds any child may take before the test gives up on it (never reached when healthy).
PATIENCE = 20.0

pytestmark = pytest.mark.skipif(not hasattr(os, "fork"), reason="needs fork()")


def _run_attack(store: Store, target: str, seed: int, hook: Callable[[str], None] | None) -> None:
    session = store.begin_command()
    prompter = RecordingPrompter(ScriptedPrompter(list(ANSWERS)))
    result = attack(session.world, target, 1, ServerRandom(seed), prompter, SUPPORT)
    session.commit(Order("attack", (target, *SUPPORT)), prompter.answers, result, hook=hook)


def _crash_child(db: Path, ready: Event, go: Event, kill_at: int | None) -> None:
    """One attack whose commit pauses between writes; ``kill_at`` kills it at that write."""
    store = Store.open(db)
    ready.set()
    go.wait(PATIENCE)
    steps = 0

    def hook(step: str) -> None:
        nonlocal steps
        if steps == kill_at:
            os.kill(os.getpid(), signal.SIGKILL)
        steps += 1
        time.sleep(0.004)

    _run_attack(store, "18,0", 11, hook)
    store.close()


def _state(db: Path) -> tuple[str, list[tuple[str, str, str]], int]:
    conn = sqlite3.connect(db)
    try:
        check = conn.execute("PRAGMA integrity_check").fetchone()[0]
        rows = conn.execute("SELECT kind, key, data FROM object ORDER BY kind, key").fetchall()
        commands = conn.execute("SELECT count(*) FROM command").fetchone()[0]
    finally:
        conn.close()
    return check, rows, commands


def _new_db(path: Path) -> Path:
    Store.create(path, parse_world(tomllib.loads(front_world_toml()), "front")).close()
    return path


def _run_child(db: Path, kill_at: int | None, delay: float | None) -> tuple[int | None, float]:
    """Start the crash child on ``db``; SIGKILL it after ``delay`` seconds if given."""
    ready, go = FORK.Event(), FORK.Event()
    child = FORK.Process(target=_crash_child, args=(db, ready, go, kill_at))
    child.start()
    assert ready.wait(PATIENCE)
    start = time.perf_counter()
    go.set()
    if delay is not None:
        time.sleep(delay)
        if child.pid is not None and child.is_alive():
            os.kill(child.pid, signal.SIGKILL)
    child.join(PATIENCE)
    assert not child.is_alive()
    return child.exitcode, time.perf_counter() - start


@pytest.fixture
def crash_setup(
    tmp_path: Path,
) -> tuple[Path, list[tuple[str, str, str]], list[tuple[str, str, str]]]:
    base = _new_db(tmp_path / "base.db")
    done = tmp_path / "done.db"
    shutil.copy(base, done)
    code, _ = _run_child(done, None, None)
    assert code == 0
    check, after, commands = _state(done)
    assert check == "ok" and commands == 1
    _, before, _ = _state(base)
    assert before != after
    return base, before, after


def _assert_before_or_after(db: Path, before: object, after: object) -> str:
    check, rows, commands = _state(db)
    assert check == "ok"
    if rows == before:
        assert commands == 0
        return "before"
    assert rows == after, "the database holds a mix of before and after"
    assert commands == 1
    assert assert_history_replays(db) == 1
    return "after"


def test_store_sigkill_at_every_write_of_a_command(
    tmp_path: Path, crash_setup: tuple[Path, object, object]
) -> None:
    base, before, after = crash_setup
    outcomes = []
    for kill_at in range(12):
        db = tmp_path / f"k{kill_at}.db"
        shutil.copy(base, db)
        code, _ = _run_child(db, kill_at, None)
        outcomes.append(_assert_before_or_after(db, before, after))
        if code == 0:
            break  # the command had fewer writes than kill_at: it completed
        assert code == -signal.SIGKILL
    assert outcomes[:-1] == ["before"] * (len(outcomes) - 1)
    assert len(outcomes) > 3  # the kills did land inside the commit


def test_store_sigkill_at_random_times(
    tmp_path: Path, crash_setup: tuple[Path, object, object]
) -> None:
    base, before, after = crash_setup
    timing = tmp_path / "timing.db"
    shutil.copy(base, timing)
    _, duration = _run_child(timing, None, None)
    rng = random.Random(20261130)
    seen = []
    for i in range(12):
        db = tmp_path / f"r{i}.db"
        shutil.copy(base, db)
        _run_child(db, None, rng.uniform(0, duration * 1.2))
        seen.append(_assert_before_or_after(db, before, after))
    assert set(seen) <= {"before", "after"}


def _attacker(db: Path, targets: list[str], seed: int, ready: Event, go: Event) -> None:
    store = Store.open(db)
    ready.set()
    go.wait(PATIENCE)
    for i, target in enumerate(targets):
        _run_attack(store, target, seed + i, None)
    store.close()


def test_store_concurrent_commands_lose_no_update(tmp_path: Path) -> None:
    db = _new_db(tmp_path / "front.db")
    plans = [[f"{x},0" for x in range(2, 32, 4)], [f"{x},0" for x in range(34, 64, 4)]]
    events = [(FORK.Event(), FORK.Event()) for _ in plans]
    children = [
        FORK.Process(target=_attacker, args=(db, plan, 100 * k, ready, go))
        for k, (plan, (ready, go)) in enumerate(zip(plans, events, strict=True))
    ]
    for c in children:
        c.start()
    for ready, _ in events:
        assert ready.wait(PATIENCE)
    for _, go in events:
        go.set()
    for c in children:
        c.join(PATIENCE)
        assert c.exitcode == 0
    store = Store.open(db)
    try:
        history = store.history()
        world = store.world()
    finally:
        store.close()
    assert len(history) == 16 and all(h.outcome == "captured" for h in history)
    # Both processes' commands interleave, yet every charge and capture is there.
    assert {h.order.args[0] for h in history} == {t for plan in plans for t in plan}
    charged = sum(h.result["btu_charged"] for h in history)
    assert world.nations[1].btu == 640 - charged
    assert all(world.sectors[(x, 0)].owner == 1 for x in range(2, 64, 4))
    # Each command ran on the world the previous one left: replay proves it.
    assert assert_history_replays(db) == 16
