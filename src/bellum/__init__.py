"""bellum: wargame combat resolution, faithful to Wolfpack Empire 4.4 and Panzer Campaigns.

One package per game, :mod:`bellum.empire` and :mod:`bellum.panzer`; beside
them the shared pieces, :mod:`bellum.odds` (outcome distributions),
:mod:`bellum.dice` (the one seeded source) and :mod:`bellum.errors`; the
command line, :mod:`bellum.cli`, at the edge.  Each package lists its stable
names in ``__all__`` (docs/api.md); import the game packages themselves::

    from bellum import empire, odds, panzer
"""

from __future__ import annotations

import importlib
from collections.abc import Callable, Mapping, MutableMapping, Sequence
from typing import TYPE_CHECKING, Any

from bellum.errors import BellumError, CommandError, InputError, UsageError

if TYPE_CHECKING:
    from bellum.dice import ServerRandom

__version__ = "0.1.0"


def lazy_names(
    package: str, modules: Mapping[str, Sequence[str]], namespace: MutableMapping[str, Any]
) -> Callable[[str], Any]:
    """A package's ``__getattr__`` that imports each of its stable names (``modules``: each
    module and the names it holds) on first use and keeps it in ``namespace``: importing
    one module of the package does not import them all (nor numpy, for most)."""
    homes = {name: module for module, names in modules.items() for name in names}

    def getattr_(name: str) -> Any:
        home = homes.get(name)
        if home is None:
            raise AttributeError(f"module {package!r} has no attribute {name!r}")
        value = getattr(importlib.import_module(home), name)
        namespace[name] = value
        return value

    return getattr_


#: ``bellum.ServerRandom`` on first use: ``import bellum`` stays cheap for the command line.
__getattr__ = lazy_names(__name__, {"bellum.dice": ("ServerRandom",)}, globals())


__all__ = [
    "BellumError",
    "CommandError",
    "InputError",
    "ServerRandom",
    "UsageError",
    "__version__",
]
