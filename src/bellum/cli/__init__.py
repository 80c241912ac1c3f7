"""The ``bellum`` command line: one module per command group.

Groups register themselves on :data:`bellum.cli.app.cli`; this module only
wires them together and turns user errors into one-line messages.  The
commands parse options and print; opening worlds and running orders is
:mod:`bellum.empire.service`'s, which no library module reaches back from.
"""

from __future__ import annotations

import sys

import click

from bellum.cli.app import cli
from bellum.errors import BellumError

# Importing the group modules registers their commands.
from bellum.cli import empire as _empire  # noqa: F401  # isort: skip
from bellum.cli import empire_odds as _empire_odds  # noqa: F401  # isort: skip
from bellum.cli import odds as _odds  # noqa: F401  # isort: skip
from bellum.cli import panzer as _panzer  # noqa: F401  # isort: skip
from bellum.cli import serve as _serve  # noqa: F401  # isort: skip
from bellum.cli import world as _world  # noqa: F401  # isort: skip


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
