"""`bellum empire odds` and `bellum odds` load numpy with OpenBLAS on one thread (its pool
of threads cost a plan 0.05-0.07 s of CPU and the odds' products run on one thread
anyway), unless the user set the number of threads; the environment is left as it was."""

from __future__ import annotations

import os
import subprocess
import sys

import pytest

from clirunner import ROOT

CODE = (
    "import os, sys\n"
    "from bellum.cli import main\n"
    "try:\n"
    "    main(sys.argv[1:])\n"
    "except SystemExit as exc:\n"
    "    assert not exc.code, exc.code\n"
    "from bellum.empire.odds._blas import _openblas\n"
    "fns = _openblas()\n"
    "print(os.environ.get('OPENBLAS_NUM_THREADS'), None if fns is None else int(fns[0]()),"
    " file=sys.stderr)\n"
)


WORLD = str(ROOT / "examples" / "empire" / "vector-a.toml")
COMMANDS = [
    ["empire", "odds", "attack", "2,0", "--world", WORLD, "--as", "1", "--json"],
    ["odds", "fight", "--att", "150", "--def", "40", "--json"],
]


def threads_after(argv: list[str], env: dict[str, str]) -> list[str]:
    done = subprocess.run(
        [sys.executable, "-c", CODE, *argv], env=env, capture_output=True, text=True, check=True
    )
    return done.stderr.split()[-2:]


def clean_env() -> dict[str, str]:
    return {k: v for k, v in os.environ.items() if not k.endswith("_NUM_THREADS")}


@pytest.mark.parametrize("argv", COMMANDS, ids=["empire odds", "odds fight"])
def test_the_odds_load_openblas_on_one_thread(argv: list[str]) -> None:
    setting, threads = threads_after(argv, clean_env())
    assert setting == "None"  # a caller's children are not held to one thread
    assert threads in ("1", "None")  # None: a numpy without OpenBLAS


@pytest.mark.skipif((os.cpu_count() or 1) < 2, reason="one processor: OpenBLAS uses one thread")
def test_a_users_setting_is_kept() -> None:
    setting, threads = threads_after(COMMANDS[0], clean_env() | {"OPENBLAS_NUM_THREADS": "2"})
    assert setting == "2"
    assert threads in ("2", "None")
