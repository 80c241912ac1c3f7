"""``bellum empire``: the Wolfpack Empire combat commands."""

from __future__ import annotations

from bellum.cli.app import cli


@cli.group()
def empire() -> None:
    """Wolfpack Empire 4.4: attack, assault, paradrop, board and friends."""
