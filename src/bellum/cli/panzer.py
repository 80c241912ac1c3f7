"""``bellum panzer``: Panzer Campaigns assault resolution."""

from __future__ import annotations

from bellum.cli.app import cli


@cli.group()
def panzer() -> None:
    """Panzer Campaigns assaults: resolve, explain and compute exact odds."""
