"""``bellum empire sync`` and ``attack --live`` against a hostile server (tests/fuzz/hostile.py).

The server answers like the real one from recorded conversations, then breaks at one
line of what it sends, in one of :data:`hostile.KINDS` ways.  Every run must end
with a one-line error (or succeed, where the fault did no harm), within a bounded
time and memory, leave the world database as it was unless the run succeeded or the
server had run the order (then it holds that one order more, and is whole:
``integrity_check``), and print no traceback.  The figures go to
docs/reliability.md.
"""

from __future__ import annotations

import random
import shutil
import sqlite3
import threading
import time
from collections.abc import Iterator
from contextlib import contextmanager
from pathlib import Path
from unittest import mock

import pytest
from harness import LONG, Ran, check, run, sandbox, snapshot
from hostile import KINDS, Fault, HostileServer, Script, load_script

from reliability import FIGURES

#: Runs per kind of fault and surface in CI; ``--fuzz-long`` multiplies them.
RUNS = {"sync": 1, "attack": 1}
LONG_FACTOR = 25
#: What a run may take at most: seconds, and MB of growth of the resident memory.  The
#: slowest runs read a reply up to its bound (131,072 lines): 36 s at the most in 750
#: runs niced under a load of 14 on 2 cores, which this bound leaves room for.
MAX_SECONDS = 60.0
MAX_MB = 160.0
CATEGORY = "hostile server"
TIMEOUT = "0.5"

SURFACES: dict[str, tuple[Script, list[str], str]] = {
    "sync": (load_script("player-sync"), ["empire", "sync", "{address}", "--as", "1"], ""),
    "attack": (
        load_script("player-sync", "attack-interrupted"),
        ["empire", "attack", "2,0", "--as", "1", "--live", "{address}"],
        "50\n",
    ),
}


def _argv(surface: str, address: str) -> tuple[list[str], str]:
    _, args, stdin = SURFACES[surface]
    argv = [a.format(address=address) for a in args]
    return [*argv, "--db", "g.db", "--timeout", TIMEOUT], stdin


def _rss() -> int:
    """This process's resident memory, in bytes (Linux; 0 elsewhere)."""
    try:
        status = Path("/proc/self/status").read_text()
    except OSError:
        return 0
    kb = next((line.split()[1] for line in status.splitlines() if line.startswith("VmRSS:")), "0")
    return int(kb) * 1024


@contextmanager
def peak_memory() -> Iterator[list[float]]:
    """The most this process's resident memory grew (MB) while the block ran, sampled
    every 5 ms (``tracemalloc`` would slow the run down several times)."""
    base = _rss()
    peak = [0.0]
    done = threading.Event()

    def sample() -> None:
        while not done.wait(0.005):
            peak[0] = max(peak[0], (_rss() - base) / 2**20)

    thread = threading.Thread(target=sample, daemon=True)
    thread.start()
    try:
        yield peak
    finally:
        done.set()
        thread.join()
        peak[0] = max(peak[0], (_rss() - base) / 2**20)


def _play(folder: Path, surface: str, fault: Fault | None) -> tuple[Ran, float, float, int]:
    """One run in ``folder``: what bellum did, its seconds, its peak memory (MB) and the
    lines the server sent."""
    script = SURFACES[surface][0]
    with (
        HostileServer(script, fault) as server,
        mock.patch.dict("os.environ", {"BELLUM_PASSWORD": "1"}),
    ):
        args, stdin = _argv(surface, server.address)
        start = time.monotonic()
        with peak_memory() as peak:
            ran = run(args, stdin=stdin, cwd=folder)
        seconds = time.monotonic() - start
    return ran, seconds, peak[0], server.sent


def _orders(path: Path) -> int:
    with sqlite3.connect(path) as conn:
        return int(conn.execute("SELECT count(*) FROM command").fetchone()[0])


@pytest.fixture(scope="module")
def synced(tmp_path_factory: pytest.TempPathFactory) -> dict[str, tuple[Path, int]]:
    """Per surface: a world database after a clean sync, and the lines a clean run of the
    surface on it takes (where a fault may strike)."""
    out = {}
    for surface in SURFACES:
        folder = tmp_path_factory.mktemp(f"hostile-{surface}")
        ran, _, _, _ = _play(folder, "sync", None)
        assert ran.code == 0 and ran.crash is None, ran.stderr
        with sandbox() as scratch:
            shutil.copy(folder / "g.db", scratch / "g.db")
            ran, _, _, lines = _play(scratch, surface, None)
            assert ran.code == 0 and ran.crash is None, ran.stderr
        out[surface] = (folder / "g.db", lines)
    return out


@pytest.mark.parametrize("surface", list(SURFACES))
@pytest.mark.parametrize("kind", KINDS)
def test_fuzz_hostile_server(kind: str, surface: str, synced: dict[str, tuple[Path, int]]) -> None:
    db, total = synced[surface]
    n = RUNS[surface] * (LONG_FACTOR if LONG else 1)
    rng = random.Random(None if LONG else f"{kind} {surface}")
    for _ in range(n):
        fault = Fault(kind, rng.randrange(total), rng.getrandbits(32))
        with sandbox() as folder:
            shutil.copy(db, folder / "g.db")
            before = snapshot(folder)
            ran, seconds, peak, _ = _play(folder, surface, fault)
            after = snapshot(folder)
            what = f"{fault} on {surface}: exit {ran.code}, {ran.stderr[-400:]!r}"
            on_error = ["g.db"] if surface != "sync" else []
            check(ran, CATEGORY, before, after, may_write=["g.db"], may_write_on_error=on_error)
            key = ("hostile", kind)
            FIGURES[(*key, "runs")] += 1
            FIGURES[(*key, "ms")] = max(FIGURES[(*key, "ms")], round(seconds * 1000))
            FIGURES[(*key, "kb")] = max(FIGURES[(*key, "kb")], round(peak * 1024))
            if ran.code:
                FIGURES[(*key, "errors")] += 1
                lines = ran.stderr.strip().splitlines()
                assert lines and lines[-1].startswith("bellum: error: "), what
                # Nothing half-written: the world as it was, or with the one order the
                # server ran recorded whole.
                grown = _orders(folder / "g.db") - _orders(db)
                assert after == before or (surface != "sync" and grown == 1), what
            else:
                FIGURES[(*key, "harmless")] += 1
            with sqlite3.connect(folder / "g.db") as conn:
                assert conn.execute("PRAGMA integrity_check").fetchone() == ("ok",), what
            assert seconds < MAX_SECONDS, what
            assert peak < MAX_MB, what
