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

import re
import sys

import click

from bellum.cli.app import cli
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


def main(argv: list[str] | None = None) -> None:
    """Entry point of the console script and of ``python -m bellum``."""
    try:
        cli.main(args=argv, prog_name="bellum", standalone_mode=False)
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
        click.echo(f"bellum: error: {exc}", err=True)
        sys.exit(exc.exit_status)
    except BrokenPipeError:
        sys.exit(1)
    sys.exit(0)


__all__ = ["cli", "main"]
