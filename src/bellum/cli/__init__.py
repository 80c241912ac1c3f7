"""The ``bellum`` command line: one module per command group.

The groups are listed in :data:`bellum.cli.app.COMMANDS` and imported when a
command of theirs runs; this module only turns user errors into one-line
messages and exit statuses.
"""

from __future__ import annotations

import sys

import click

from bellum.cli.app import cli
from bellum.errors import BellumError


def main(argv: list[str] | None = None) -> None:
    """Entry point of the console script and of ``python -m bellum``."""
    try:
        cli.main(args=argv, prog_name="bellum", standalone_mode=False)
    except (click.exceptions.Abort, KeyboardInterrupt):
        click.echo("\nInterrupted; nothing was saved.", err=True)
        sys.exit(130)
    except click.ClickException as exc:
        exc.show()
        sys.exit(exc.exit_code)
    except BellumError as exc:
        click.echo(f"bellum: error: {exc}", err=True)
        sys.exit(exc.exit_status)
    except BrokenPipeError:
        sys.exit(1)
    sys.exit(0)


__all__ = ["cli", "main"]
