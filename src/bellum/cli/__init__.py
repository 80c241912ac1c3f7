"""The ``bellum`` command line: one module per command group.

The groups are listed in :data:`bellum.cli.app.COMMANDS` and imported when a
command of theirs runs; this module only turns every error into one line on
standard error and an exit status (docs/cli.md, "Who is speaking"):

* a malformed command line (click's or bellum's :class:`~bellum.errors.UsageError`): 2;
* a refused command or bad input (:class:`~bellum.errors.BellumError`): 1;
* Ctrl-C: 130; a closed pipe: 1.

The commands parse options and print; opening worlds and running orders is
:mod:`bellum.empire.service`'s, which no library module reaches back from.
"""

from __future__ import annotations

import contextlib
import errno
import io
import os
import re
import sys

import click

from bellum.cli.app import cli
from bellum.cli.options import error_text
from bellum.errors import BellumError

#: Click's "'x' is not a valid integer range" and its kin, in words a player uses.
_NOT_A_NUMBER = re.compile(r"('.*') is not a valid (integer range|integer|float range|float)")
_NUMBER_WORDS = {
    "integer": "whole number",
    "integer range": "whole number",
    "float": "number",
    "float range": "number",
}


def error_line(exc: click.ClickException) -> str:
    """Click's message as one ``bellum: error:`` line, in bellum's own style.

    Click starts its messages with a capital and ends them with a full stop
    ("Missing option '--as'."); bellum's read "missing option '--as'", a
    suggestion sits in parentheses before the end, a value that is not a number
    says so in plain words, and a usage error names the help to read instead of
    printing the usage block.
    """
    possibilities = getattr(exc, "possibilities", None)
    if isinstance(exc, click.UsageError) and possibilities:
        # NoSuchOption, and NoSuchCommand in click 8.2+ ("Did you mean 'fight'?").
        names = sorted(possibilities)
        if not isinstance(exc, click.NoSuchOption):
            names = [repr(n) for n in names]
        guess = names[0] if len(names) == 1 else f"{', '.join(names[:-1])} or {names[-1]}"
        message = f"{exc.message.removesuffix('.')} (did you mean {guess}?)"
    else:
        message = " ".join(exc.format_message().split())
    message = _NOT_A_NUMBER.sub(lambda m: f"{m[1]} is not a {_NUMBER_WORDS[m[2]]}", message)
    if message[:1].isupper() and message[1:2].islower():
        message = message[0].lower() + message[1:]
    message = message.removesuffix(".")
    ctx = getattr(exc, "ctx", None)
    if isinstance(exc, click.UsageError) and ctx is not None:
        message += f"; see '{ctx.command_path} --help'"
    return f"bellum: error: {message}"


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
    except click.exceptions.NoArgsIsHelpError as exc:
        # A group typed alone (``bellum empire``): its help, not an error line.
        exc.show()
        sys.exit(exc.exit_code)
    except click.ClickException as exc:
        click.echo(error_line(exc), err=True)
        sys.exit(exc.exit_code)
    except BellumError as exc:
        text, status = error_text(exc)
        click.echo(f"bellum: error: {one_line(text)}", err=True)
        sys.exit(status)
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
