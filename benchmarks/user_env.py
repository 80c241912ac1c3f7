"""The environment a benchmark gives the ``bellum`` processes it times.

A user's installed bellum keeps its compiled bytecode (``__pycache__``), so only
the first run compiles.  A development shell may set ``PYTHONDONTWRITEBYTECODE``
(this project's machines do), and then every process compiles every module it
imports again: about 0.25 s on ``bellum empire odds``, which no user pays.  The
benchmarks drop it, and each case's warm-up run writes the bytecode.
"""

from __future__ import annotations

import os


def user_env(base: dict[str, str] | None = None) -> dict[str, str]:
    """``base`` (default: this process's environment) without ``PYTHONDONTWRITEBYTECODE``."""
    env = dict(os.environ if base is None else base)
    env.pop("PYTHONDONTWRITEBYTECODE", None)
    return env
