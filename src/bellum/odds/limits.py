"""The fight engines' names and bounds, without the engines.

The command line builds its options from these before it parses them, so a mistyped
option is refused without importing numpy or an engine (issue 23: a typo answered at once).
"""

from __future__ import annotations

from typing import Literal

Method = Literal["auto", "exact", "monte-carlo"]
Model = Literal["server", "per-casualty"]

MODELS: tuple[str, ...] = ("server", "per-casualty")
METHODS: tuple[str, ...] = ("auto", "exact", "monte-carlo")

#: Most troops a constructed side may have: its two arrays take 16 bytes per
#: soldier, and no Empire sector or fleet comes near this.
MAX_ROUNDS = 10_000_000
#: Default cap on the number of Monte Carlo runs in target-error mode.
DEFAULT_MAX_RUNS = 10_000_000
#: Default memory allowed to an exact solver, in bytes.
DEFAULT_MAX_MEMORY = 1 << 30
