"""One way for tests to run the ``bellum`` command line: in process (fast), or as a new
process for what only a real process shows (signals, pipes, exit codes)."""

from __future__ import annotations

import io
import os
import subprocess
import sys
from contextlib import redirect_stderr, redirect_stdout
from dataclasses import dataclass
from pathlib import Path

ROOT = Path(__file__).resolve().parents[1]


@dataclass
class Ran:
    """What a ``bellum`` command line did, like :class:`subprocess.CompletedProcess`."""

    returncode: int
    stdout: str
    stderr: str


def bellum(*args: str, stdin: str = "", cwd: Path = ROOT, env: dict[str, str] | None = None) -> Ran:
    """Run the ``bellum`` command line in this process (fast), as a user would run it:
    the same entry point, piped standard input, exit status and both output streams."""
    from bellum.cli import main

    out, err = io.StringIO(), io.StringIO()
    here, saved_env, saved_stdin = Path.cwd(), dict(os.environ), sys.stdin
    os.chdir(cwd)
    os.environ.update(env or {})
    sys.stdin = io.StringIO(stdin)
    try:
        with redirect_stdout(out), redirect_stderr(err):
            try:
                main(list(args))
                code = 0
            except SystemExit as exc:
                code = exc.code if isinstance(exc.code, int) else int(exc.code is not None)
    finally:
        sys.stdin = saved_stdin
        os.environ.clear()
        os.environ.update(saved_env)
        os.chdir(here)
    return Ran(code, out.getvalue(), err.getvalue())


def bellum_process(*args: str, stdin: str = "", cwd: Path = ROOT) -> Ran:
    """Run ``python -m bellum`` in a new process: for what only a real process shows."""
    r = subprocess.run(
        [sys.executable, "-m", "bellum", *args],
        input=stdin,
        capture_output=True,
        text=True,
        cwd=cwd,
        check=False,
    )
    return Ran(r.returncode, r.stdout, r.stderr)


__all__ = ["ROOT", "Ran", "bellum", "bellum_process"]
