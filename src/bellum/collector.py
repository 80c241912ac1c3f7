"""Fewer passes of Python's cyclic garbage collector while odds are solved.

Solving odds allocates millions of short-lived containers (scratch worlds' copies,
dice paths, fights' states) that reference counting frees at once: a plan of the
realistic world w96x48 leaves about 300 objects in cycles.  The collector still
passes over the young objects every 700 allocations and over the whole heap (the
engine's caches of side graphs and fights) every hundred passes or so, finding
nothing: 7.5 of w96x48's 38.6 CPU seconds in one process, in 65 passes over the
whole heap.  :func:`fewer_collections` makes those passes rarer for its duration;
garbage in cycles is still collected, later.
"""

from __future__ import annotations

import gc
import os
import threading
from collections.abc import Iterator
from contextlib import contextmanager

#: The collector's thresholds inside :func:`fewer_collections`: a young pass every
#: 50,000 allocations (Python's default is 700), and a pass over the whole heap after
#: 100 passes of the middle generation (default 10), so about one every 10^8 allocations.
THRESHOLDS = (50_000, 20, 100)

_lock = threading.Lock()
_depth = 0
_saved: tuple[int, int, int] = gc.get_threshold()


def _new_lock_after_fork() -> None:
    """A forked child (an odds study's worker) gets a free lock and no open blocks:
    another thread of the parent may have held the lock, or been inside a block, at the
    fork, and would never release the child's copy (whose thresholds would then stay
    raised for its whole life); the child's own blocks raise them as they need."""
    global _lock, _depth
    _lock = threading.Lock()
    if _depth:
        _depth = 0
        gc.set_threshold(*_saved)


os.register_at_fork(after_in_child=_new_lock_after_fork)


@contextmanager
def fewer_collections() -> Iterator[None]:
    """Run the block with the collector's :data:`THRESHOLDS`, then put back the ones
    before.  Nested and concurrent blocks (the web server's threads) share one
    setting: the first to enter raises the thresholds, the last to leave restores them
    (they are the process's, not a thread's)."""
    global _depth, _saved
    with _lock:
        if _depth == 0:
            _saved = gc.get_threshold()
            gc.set_threshold(*THRESHOLDS)
        _depth += 1
    try:
        yield
    finally:
        with _lock:
            _depth -= 1
            if _depth == 0:
                gc.set_threshold(*_saved)
