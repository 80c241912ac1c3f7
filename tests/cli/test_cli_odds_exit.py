"""`bellum empire odds` leaves its heap frozen for the process's exit: Python's last
collector passes over the world and the engine's caches cost 20-30 ms of CPU after the
answer is printed, for nothing (the process's memory goes with it)."""

from __future__ import annotations

import subprocess
import sys

from clirunner import ROOT

CODE = (
    "import atexit, gc, sys\n"
    # Registered before the command: runs after the command's own exit handlers.
    "atexit.register(lambda: print('frozen', gc.get_freeze_count(), file=sys.stderr))\n"
    "from bellum.cli import main\n"
    "try:\n"
    "    main(sys.argv[1:])\n"
    "except SystemExit as exc:\n"
    "    assert not exc.code, exc.code\n"
)


def frozen_at_exit(*argv: str) -> tuple[int, str]:
    done = subprocess.run(
        [sys.executable, "-c", CODE, *argv], capture_output=True, text=True, check=True
    )
    word, count = done.stderr.split()[-2:]
    assert word == "frozen"
    return int(count), done.stdout


def test_the_odds_exit_with_their_heap_frozen() -> None:
    world = str(ROOT / "examples" / "empire" / "vector-a.toml")
    count, out = frozen_at_exit("empire", "odds", "attack", "2,0", "--world", world, "--as", "1")
    assert count > 0
    assert "Final odds:" in out  # the answer was printed first


def test_a_command_that_loads_no_world_is_left_alone() -> None:
    count, _ = frozen_at_exit("odds", "fight", "--att", "150", "--def", "40")
    assert count == 0
