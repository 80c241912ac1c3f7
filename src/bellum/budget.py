"""Long jobs: estimate before starting, and refuse in one line what would run for minutes.

Every job whose length a user picks (Monte Carlo runs, plays of the real command,
exact enumerations) is estimated before it starts; past :data:`MAX_JOB_SECONDS`
it is refused at once with the largest size that fits, instead of running for
twenty minutes with no word.  Where the cost of one step depends on the world,
the estimate is a measured step (:func:`timed`), not a guess.
"""

from __future__ import annotations

import math
import time
from collections.abc import Callable
from typing import TypeVar

from bellum.errors import CommandError

T = TypeVar("T")

#: The longest job started without being asked to change its size (as for Monte Carlo).
MAX_JOB_SECONDS = 60.0


def timed(step: Callable[[], T]) -> tuple[T, float]:
    """What ``step()`` returns, and how many seconds it took."""
    started = time.perf_counter()
    value = step()
    return value, time.perf_counter() - started


def check_repeats(
    option: str, count: int, seconds_each: float, doing: str, limit: float = MAX_JOB_SECONDS
) -> None:
    """Refuse ``count`` repeats of a step of ``seconds_each`` that would pass ``limit``.

    ``doing`` says what is repeated (``"play the attack"``); the message names
    the option and the largest count that fits.
    """
    total = count * seconds_each
    if total <= limit:
        return
    most = max(1, math.floor(limit / seconds_each)) if seconds_each > 0 else count
    raise CommandError(
        f"{option} {count} would {doing} for about {total:,.0f} s "
        f"({1000 * seconds_each:,.1f} ms each; limit {limit:g} s): use {option} {most} or fewer"
    )


__all__ = ["MAX_JOB_SECONDS", "check_repeats", "timed"]
