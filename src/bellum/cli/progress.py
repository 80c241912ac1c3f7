"""Progress of long work, on standard error, only when someone is watching.

Every long loop of the command line (resolver runs, Monte Carlo, a large dump
import, Panzer's resolver check) reports through :func:`progress`::

    with progress("resolver runs", total=runs) as advance:
        result = resolver_runs(..., on_step=advance)

The library code that does the work never prints: it takes a callback and
calls it with the number of steps done since the last call.  Here that
callback drives a bar when standard error is a terminal, and does nothing at
all otherwise, so piped output, logs and tests see no bar.  ``tqdm`` is
imported only when a bar is drawn, keeping start-up fast.

Ctrl-C is not caught: the bar is closed on the way out, so the CLI's
"Interrupted" line starts on a clean line, and the interrupt goes on.
"""

from __future__ import annotations

import sys
from collections.abc import Callable, Iterator
from contextlib import ExitStack, contextmanager
from typing import TextIO

#: Called with the number of steps done since the last call.
Advance = Callable[[int], None]


def _ignore(steps: int) -> None:
    """The callback when nobody watches."""


def shows_progress(stream: TextIO | None = None) -> bool:
    """Whether a bar would be drawn on ``stream`` (standard error by default)."""
    out = sys.stderr if stream is None else stream
    try:
        return out.isatty()
    except (AttributeError, ValueError):  # a closed or replaced stream
        return False


@contextmanager
def progress(
    description: str,
    total: int | None = None,
    *,
    unit: str = "run",
    stream: TextIO | None = None,
    counted: bool = True,
) -> Iterator[Advance]:
    """A bar for ``total`` steps (a count and a rate when ``total`` is unknown).

    ``counted=False`` shows the share done and the time left only, for work
    whose steps mean nothing to the player (a fraction of an odds solution).
    Yields the callback to report steps with; the bar disappears when the
    block ends, whether it ends normally, by an error or by Ctrl-C.
    """
    out = sys.stderr if stream is None else stream
    if not shows_progress(out):
        yield _ignore
        return
    from tqdm import tqdm

    # No monitor thread: it would outlive an interrupted command for nothing.
    tqdm.monitor_interval = 0
    bar = tqdm(
        total=total,
        desc=description,
        unit=unit,
        file=out,
        leave=False,
        dynamic_ncols=True,
        mininterval=0.2,
        bar_format=None if counted else "{desc}: {percentage:3.0f}%|{bar}| {elapsed}<{remaining}",
    )
    try:
        yield bar.update
    finally:
        bar.close()


@contextmanager
def progress_fraction(
    description: str,
    *,
    total: int | None = None,
    unit: str = "run",
    stream: TextIO | None = None,
) -> Iterator[Callable[[float], None]]:
    """A bar for work that reports the fraction done (0 to 1) rather than steps.

    With ``total`` the bar counts in ``unit`` (``340/1000 runs``), else it
    shows the percentage done.  The bar opens at the first report, so work that
    turns out to report nothing (an exact solution where a Monte Carlo was
    possible) shows none.
    """
    steps = total or 1000
    with ExitStack() as stack:
        advance: Advance | None = None
        done = 0

        def update(fraction: float) -> None:
            nonlocal advance, done
            if advance is None:
                advance = stack.enter_context(
                    progress(
                        description, total=steps, unit=unit, stream=stream, counted=bool(total)
                    )
                )
            now = int(steps * min(max(fraction, 0.0), 1.0))
            if now > done:
                advance(now - done)
                done = now

        yield update


__all__ = ["Advance", "progress", "progress_fraction", "shows_progress"]
