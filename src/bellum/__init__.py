"""bellum: wargame combat resolution, faithful to Wolfpack Empire 4.4 and Panzer Campaigns.

One package per game, :mod:`bellum.empire` and :mod:`bellum.panzer`; beside
them the shared pieces, :mod:`bellum.odds` (outcome distributions),
:mod:`bellum.dice` (the one seeded source) and :mod:`bellum.errors`; the
command line, :mod:`bellum.cli`, at the edge.  Each package lists its stable
names in ``__all__`` (docs/api.md); import the game packages themselves::

    from bellum import empire, odds, panzer
"""

from __future__ import annotations

from typing import TYPE_CHECKING, Any

from bellum.errors import BellumError, CommandError, InputError, UsageError

if TYPE_CHECKING:
    from bellum.dice import ServerRandom

__version__ = "0.1.0"


def __getattr__(name: str) -> Any:
    """``bellum.ServerRandom`` on first use: ``import bellum`` stays cheap for the CLI."""
    if name == "ServerRandom":
        from bellum.dice import ServerRandom

        return ServerRandom
    raise AttributeError(f"module 'bellum' has no attribute {name!r}")


__all__ = [
    "BellumError",
    "CommandError",
    "InputError",
    "ServerRandom",
    "UsageError",
    "__version__",
]
