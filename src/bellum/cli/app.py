"""The root click group, and the lazy groups that keep start-up fast.

A command group's module is imported only when one of its commands runs (or
its ``--help`` is asked for): ``bellum --help`` and ``bellum panzer rules``
never pay for numpy, the odds engine or the SQLite store.  A group lists its
lazy subcommands in a table of ``name: (module:attribute, one-line help)``;
the one-line help is what ``--help`` prints without importing the module
(``tests/cli/test_cli_startup.py`` checks that it matches the command's own).

To add a command group, add a row to :data:`COMMANDS`, not an import to
``bellum/cli/__init__.py``.
"""

from __future__ import annotations

import importlib
import os
import sys
from collections.abc import Mapping
from typing import Any

import click

import bellum


def one_blas_thread() -> None:
    """OpenBLAS on one thread unless the user asked otherwise, for a command about to
    import numpy (``bellum empire odds``, ``bellum odds``).

    Their products are small and the solvers already run them on one thread
    (:mod:`bellum.empire.odds._blas`); but OpenBLAS starts its pool of threads when
    numpy is imported: 0.05 s of CPU of numpy's 0.11 s import, about 0.05-0.07 s of a
    plan's 0.40 (w96x48-attack-1), for no product of theirs.  Too late once numpy is in.
    The environment is as it was afterwards: OpenBLAS reads it once, as numpy loads, and
    a program that runs the command in its own process keeps its setting for its children.
    """
    if "numpy" in sys.modules or "OPENBLAS_NUM_THREADS" in os.environ:
        return
    os.environ["OPENBLAS_NUM_THREADS"] = "1"
    try:
        import numpy  # noqa: F401
    finally:
        del os.environ["OPENBLAS_NUM_THREADS"]


#: ``name: (where the command object is, its one-line help)``.
LazyTable = Mapping[str, tuple[str, str]]


class LazyGroup(click.Group):
    """A group whose ``lazy`` subcommands are imported on first use."""

    def __init__(self, *args: Any, lazy: LazyTable | None = None, **kwargs: Any) -> None:
        super().__init__(*args, **kwargs)
        self.lazy: dict[str, tuple[str, str]] = dict(lazy or {})

    def list_commands(self, ctx: click.Context) -> list[str]:
        return sorted({*super().list_commands(ctx), *self.lazy})

    def get_command(self, ctx: click.Context, name: str) -> click.Command | None:
        command = super().get_command(ctx, name)
        if command is not None or name not in self.lazy:
            return command
        module, _, attribute = self.lazy[name][0].partition(":")
        command = getattr(importlib.import_module(module), attribute)
        if not isinstance(command, click.Command):
            raise TypeError(f"{self.lazy[name][0]} is not a click command")
        self.add_command(command, name)
        return command

    def format_commands(self, ctx: click.Context, formatter: click.HelpFormatter) -> None:
        """The commands and their one-line help, importing no lazy module."""
        names = self.list_commands(ctx)
        if not names:
            return
        limit = formatter.width - 6 - max(len(n) for n in names)
        rows = []
        for name in names:
            if name in self.lazy and name not in self.commands:
                rows.append((name, self.lazy[name][1]))
                continue
            command = self.get_command(ctx, name)
            if command is not None and not command.hidden:
                rows.append((name, command.get_short_help_str(limit)))
        if rows:
            with formatter.section("Commands"):
                formatter.write_dl(rows)


#: The command groups under ``bellum``.
COMMANDS: LazyTable = {
    "empire": (
        "bellum.cli.empire:empire",
        "Wolfpack Empire 4.4: attack, assault, paradrop, board and friends.",
    ),
    "odds": ("bellum.cli.odds:odds", "Exact and Monte Carlo outcome distributions of fights."),
    "panzer": (
        "bellum.cli.panzer:panzer",
        "Panzer Campaigns assaults: resolve, explain and compute exact odds.",
    ),
    "serve": (
        "bellum.cli.web_app:serve_cmd",
        "The planning table in your browser (Empire and Panzer).",
    ),
}


@click.group(cls=LazyGroup, lazy=COMMANDS, context_settings={"help_option_names": ["-h", "--help"]})
@click.version_option(bellum.__version__, prog_name="bellum")
def cli() -> None:
    """Resolve wargame combat exactly as Wolfpack Empire 4.4 and Panzer Campaigns do."""
