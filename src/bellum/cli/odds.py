"""``bellum odds``: outcome distributions of raw fights."""

from __future__ import annotations

from bellum.cli.app import cli


@cli.group()
def odds() -> None:
    """Exact and Monte Carlo outcome distributions of fights."""
