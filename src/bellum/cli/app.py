"""The root click group that every command group attaches to."""

from __future__ import annotations

import click

import bellum


@click.group(context_settings={"help_option_names": ["-h", "--help"]})
@click.version_option(bellum.__version__, prog_name="bellum")
def cli() -> None:
    """Resolve wargame combat exactly as Wolfpack Empire 4.4 and Panzer Campaigns do."""
