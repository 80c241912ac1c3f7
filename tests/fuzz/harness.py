"""Running the ``bellum`` command line under fuzzing, and what every run must satisfy.

Runs are in process (a process per run would cost the suite minutes): the same
entry point a user runs, with piped standard input, both output streams and
the exit status.  An exception that escapes :func:`bellum.cli.main` is what a
user would see as a Python traceback.

Every run is checked the same way (:func:`check`): no traceback, exit status
0, 1 or 2, the input files byte for byte as they were, and no file left
behind that the command was not asked to write.  The figures of a session
(inputs tried, failures by kind) are counted in :data:`reliability.FIGURES` for
docs/reliability.md.
"""

from __future__ import annotations

import io
import os
import sys
import tempfile
import traceback
from collections.abc import Callable, Iterable, Iterator, Sequence
from contextlib import contextmanager, redirect_stderr, redirect_stdout
from dataclasses import dataclass
from pathlib import Path
from typing import Any

from hypothesis import HealthCheck, Phase, settings

from reliability import FIGURES

#: ``pytest --fuzz-long`` (see conftest.py): many more examples, a new seed each run.
LONG = os.environ.get("BELLUM_FUZZ_LONG") == "1"
#: Examples per test in CI; ``--fuzz-long`` multiplies them.
EXAMPLES = {
    "world files": 40,
    "scenarios": 30,
    "dumps": 40,
    "databases": 40,
    "prompt answers": 60,
    "command lines": 120,
    "odds plans": 60,
    "named answers": 60,
    "serve arguments": 40,
    "live arguments": 40,
    "web requests": 150,
}
LONG_FACTOR = 25


def fuzz_settings(category: str) -> Callable[[Any], Any]:
    """Hypothesis settings of one fuzz test: a fixed seed and few examples in CI
    (derandomized, so every CI run tries the same inputs), many with ``--fuzz-long``."""
    n = EXAMPLES[category] * (LONG_FACTOR if LONG else 1)
    # CI reports a failing input as found: shrinking a slow command line can take minutes.
    phases = list(Phase) if LONG else [Phase.explicit, Phase.generate]
    return settings(
        max_examples=n,
        derandomize=not LONG,
        database=None,
        deadline=None,
        phases=phases,
        suppress_health_check=list(HealthCheck),
    )


@contextmanager
def sandbox() -> Iterator[Path]:
    """A fresh, empty folder for one example (``tmp_path`` is one per test, not per example)."""
    with tempfile.TemporaryDirectory(prefix="bellum-fuzz-") as folder:
        yield Path(folder)


@dataclass
class Ran:
    """What one command line did."""

    args: list[str]
    code: int | None
    stdout: str
    stderr: str
    #: The traceback of an exception that escaped ``main``, else ``None``.
    crash: str | None


def run(args: Sequence[str], *, stdin: str = "", cwd: Path) -> Ran:
    """Run ``bellum ARGS`` in this process, in ``cwd``, with ``stdin`` piped in."""
    from bellum.cli import main

    out, err = io.StringIO(), io.StringIO()
    here, saved_stdin = Path.cwd(), sys.stdin
    os.chdir(cwd)
    sys.stdin = io.StringIO(stdin)
    crash = None
    code: int | None = None
    try:
        with redirect_stdout(out), redirect_stderr(err):
            try:
                main(list(args))
                code = 0
            except SystemExit as exc:
                code = exc.code if isinstance(exc.code, int) else int(exc.code is not None)
            except BaseException:
                crash = traceback.format_exc()
    finally:
        sys.stdin = saved_stdin
        os.chdir(here)
    return Ran(list(args), code, out.getvalue(), err.getvalue(), crash)


def snapshot(folder: Path) -> dict[str, bytes]:
    """Every file under ``folder`` with its bytes (what a run must not change)."""
    return {
        str(p.relative_to(folder)): p.read_bytes() for p in sorted(folder.rglob("*")) if p.is_file()
    }


def check(
    ran: Ran,
    category: str,
    before: dict[str, bytes],
    after: dict[str, bytes],
    *,
    may_write: Iterable[str] = (),
    may_write_on_error: Iterable[str] = (),
) -> None:
    """The promises of issue 14 for one run; counts it in :data:`FIGURES`.

    ``may_write`` are the files the command was asked to write (``--out``, a
    database it changes): they may appear or change when it succeeds.
    ``may_write_on_error`` may change even when it fails: a live order's history
    keeps what the server did though bellum's side stopped (issue 25), and the
    caller checks what was written.
    """
    FIGURES["inputs", category] += 1
    if ran.crash is not None or "Traceback (most recent call last)" in ran.stderr:
        FIGURES["traceback", category] += 1
        raise AssertionError(
            f"traceback from bellum {_shown(ran.args)}:\n{ran.crash or ran.stderr}"
        )
    FIGURES["exit", category, str(ran.code)] += 1
    assert ran.code in (0, 1, 2), f"exit status {ran.code} from bellum {_shown(ran.args)}"
    # The files it was asked to write may change unless bellum refused with an error (a
    # refused, aborted or malformed order is history too: the game answers on stdout).
    failed = "bellum: error:" in ran.stderr or "Error: " in ran.stderr
    allowed = set(may_write_on_error) | (set() if failed else set(may_write))
    changed = [n for n, data in before.items() if n not in allowed and after.get(n) != data]
    if changed:
        FIGURES["changed", category] += 1
        raise AssertionError(f"bellum {_shown(ran.args)} changed or removed {changed}")
    stray = set(after) - set(before) - allowed
    if stray:
        FIGURES["stray", category] += 1
        raise AssertionError(f"bellum {_shown(ran.args)} left {sorted(stray)} behind")
    if ran.code:
        last = ran.stderr.rstrip("\n").splitlines()[-1:] or [""]
        # The game's own refusal of its arguments is its `Usage:` line, on stdout.
        usage = any(line.startswith("Usage: ") for line in ran.stdout.splitlines())
        FIGURES["error-lines", category] += 1
        assert last[0] or usage, f"bellum {_shown(ran.args)} failed without saying why"


def _shown(args: list[str]) -> str:
    return " ".join(a if len(a) < 60 else a[:57] + "..." for a in args)


def imported_game(folder: Path, world_toml: str, answers: str) -> None:
    """In ``folder``: ``game.xdump``, an Empire dump of ``world_toml``, and ``game.db``,
    a database imported from it with one attack (on 2,0, answered ``answers``) in its
    history - the files the dump and database tests damage."""
    (folder / "world.toml").write_text(world_toml)
    for args, stdin in (
        (["empire", "world", "new", "--from", "world.toml", "--db", "made.db"], ""),
        (["empire", "world", "export", "--db", "made.db", "--out", "game.xdump"], ""),
        (["empire", "world", "import", "game.xdump", "--db", "game.db", "--size", "64x32"], ""),
        (["empire", "attack", "2,0", "--db", "game.db", "--as", "1", "--seed", "1"], answers),
    ):
        ran = run(args, stdin=stdin, cwd=folder)
        assert ran.code == 0 and ran.crash is None, (args, ran.stderr, ran.crash)
