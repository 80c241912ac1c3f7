"""bellum: wargame combat resolution, faithful to Wolfpack Empire 4.4 and Panzer Campaigns.

The public names are listed in ``__all__``; heavy modules load on first use.
"""

from __future__ import annotations

from bellum.dice import ServerRandom
from bellum.errors import BellumError, CommandError, InputError, UsageError

__version__ = "0.1.0"

__all__ = [
    "BellumError",
    "CommandError",
    "InputError",
    "ServerRandom",
    "UsageError",
    "__version__",
]
