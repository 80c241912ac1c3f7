"""The ``bellum`` command line: one module per command group.

Groups register themselves on :data:`bellum.cli.app.cli`; this module only
wires them together and turns user errors into one-line messages.  The
commands parse options and print; opening worlds and running orders is
:mod:`bellum.empire.service`'s, which no library module reaches back from.
"""

from __future__ import annotations

import contextlib
import errno
import io
import os
import sys

import click

from bellum.cli.app import cli
from bellum.errors import BellumError

# Importing the group modules registers their commands.
from bellum.cli import empire as _empire  # noqa: F401  # isort: skip
from bellum.cli import odds as _odds  # noqa: F401  # isort: skip
from bellum.cli import panzer as _panzer  # noqa: F401  # isort: skip
from bellum.cli import world as _world  # noqa: F401  # isort: skip


#: Write errors of standard output that a user can do something about.
_OUTPUT_ERRORS = (errno.ENOSPC, getattr(errno, "EDQUOT", errno.ENOSPC), errno.EFBIG, errno.EIO)


def main(argv: list[str] | None = None) -> None:
    """Entry point of the console script and of ``python -m bellum``."""
    _text_streams()
    args = [_valid_text(a) for a in (sys.argv[1:] if argv is None else argv)]
    try:
        cli.main(args=args, prog_name="bellum", standalone_mode=False)
        sys.stdout.flush()
    except (click.exceptions.Abort, KeyboardInterrupt):
        click.echo("\nInterrupted; nothing was saved.", err=True)
        sys.exit(130)
    except click.ClickException as exc:
        exc.show()
        sys.exit(exc.exit_code)
    except BellumError as exc:
        click.echo(f"bellum: error: {one_line(str(exc))}", err=True)
        sys.exit(exc.exit_status)
    except BrokenPipeError:
        _drop_stdout()
        sys.exit(1)
    except OSError as exc:
        if exc.errno not in _OUTPUT_ERRORS:
            raise
        # Standard output could not be written (a full disk, a dead terminal): say so
        # once, and leave nothing for Python to complain about at exit.
        _drop_stdout()
        click.echo(f"bellum: error: cannot write the output: {exc.strerror}", err=True)
        sys.exit(1)
    sys.exit(0)


def one_line(text: str) -> str:
    """An error message on one line, whatever text it quotes."""
    return " ".join(text.split("\n")).replace("\r", " ")


def _text_streams() -> None:
    """Bytes that are not text in the locale's encoding never stop a command: an answer
    read from stdin is decoded with U+FFFD for what is not text (as the server reads
    bytes it cannot use), and text the terminal cannot show is printed escaped."""
    for stream, errors in (
        (sys.stdin, "replace"),
        (sys.stdout, "backslashreplace"),
        (sys.stderr, "backslashreplace"),
    ):
        if isinstance(stream, io.TextIOWrapper) and stream.errors != errors:
            with contextlib.suppress(ValueError, OSError):
                stream.reconfigure(errors=errors)


def _valid_text(arg: str) -> str:
    """A command-line argument as valid text: bytes the locale could not decode (which
    Python keeps as lone surrogates, unstorable and unprintable) become U+FFFD - unless
    the argument names a file, which must stay as it is to be found."""
    if arg.isprintable() or os.path.lexists(arg):
        return arg
    try:
        raw = arg.encode("utf-8", "surrogateescape")  # the bytes the user typed
    except UnicodeEncodeError:
        raw = arg.encode("utf-8", "surrogatepass")
    return raw.decode("utf-8", "replace")


def _drop_stdout() -> None:
    """Send what is left of standard output nowhere, so the exit flush cannot fail again."""
    with contextlib.suppress(OSError, ValueError):
        devnull = os.open(os.devnull, os.O_WRONLY)
        os.dup2(devnull, sys.stdout.fileno())
        os.close(devnull)


__all__ = ["cli", "main"]
