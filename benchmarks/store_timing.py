"""Time the world store: importing the smoke dump and one attack against the database.

Run: ``.venv/bin/python benchmarks/store_timing.py [DUMP]`` (default: the shared
``smoke-final.xdump`` next to the repository).  Each step is timed twice, best of
five: in-process (the library calls) and as a user runs it (a fresh ``bellum``
process, which includes Python's start-up).
"""

from __future__ import annotations

import subprocess
import sys
import tempfile
import time
from collections.abc import Callable
from pathlib import Path

from bellum.dice import ServerRandom
from bellum.empire.combat import attack
from bellum.empire.events import RecordingPrompter, ScriptedPrompter
from bellum.empire.io.sqlite.store import Store
from bellum.empire.io.xdump.mapping import dump_to_world, read_dump
from bellum.empire.orders import Order

ROOT = Path(__file__).resolve().parents[1]
DUMP = ROOT.parent / "shared" / "data" / "empire-dumps" / "smoke-final.xdump"
RUNS = 5
#: Country 1 attacks 8's oil field at 13,-1 (absolute 18,18) from 12,-1 (16,18).
ATTACK = ["13,-1", "n", "n", "n", "n"]


def best(step: Callable[[int], None]) -> float:
    times = []
    for i in range(RUNS):
        start = time.perf_counter()
        step(i)
        times.append(time.perf_counter() - start)
    return min(times)


def cli(*args: str, stdin: str = "") -> None:
    cmd = [sys.executable, "-m", "bellum", *args]
    subprocess.run(cmd, input=stdin, text=True, check=True, capture_output=True)


def main() -> None:
    dump = Path(sys.argv[1]) if len(sys.argv) > 1 else DUMP
    with tempfile.TemporaryDirectory() as tmp:
        base = Path(tmp)

        def lib_import(i: int) -> None:
            parsed = read_dump(dump)
            Store.create(base / f"lib{i}.db", dump_to_world(parsed), parsed).close()

        def lib_attack(i: int) -> None:
            store = Store.open(base / f"lib{i}.db")
            session = store.begin_command()
            prompter = RecordingPrompter(ScriptedPrompter(["19"]))
            result = attack(session.world, ATTACK[0], 1, ServerRandom(7), prompter, ATTACK[1:])
            session.commit(Order("attack", tuple(ATTACK)), prompter.answers, result)
            store.close()

        def cli_import(i: int) -> None:
            cli("empire", "world", "import", str(dump), "--db", str(base / f"cli{i}.db"))

        def cli_attack(i: int) -> None:
            db = str(base / f"cli{i}.db")
            cli("empire", "attack", *ATTACK, "--db", db, "--as", "1", "--seed", "7", stdin="19\n")

        rows = [
            ("import (library)", best(lib_import)),
            ("attack (library)", best(lib_attack)),
            ("python -m bellum --version", best(lambda i: cli("--version"))),
            ("import (bellum process)", best(cli_import)),
            ("attack (bellum process)", best(cli_attack)),
        ]
    print(f"{dump.name}, best of {RUNS}:")
    for name, seconds in rows:
        print(f"  {name:<28} {seconds * 1000:8.1f} ms")


if __name__ == "__main__":
    main()
