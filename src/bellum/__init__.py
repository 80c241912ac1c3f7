"""bellum: wargame combat resolution, faithful to Wolfpack Empire 4.4 and Panzer Campaigns.

The public names are listed in ``__all__``; heavy modules load on first use.
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
