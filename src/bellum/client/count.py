"""Reading a test-mode server's command count, the seed of its next command.

A server in test mode (econfig ``running_test_suite 1``) seeds its generator
before every command with the number of commands it has run
(``test_suite_prng_seed`` in the server's ``dispatch.c``).  No command prints
that number, and the deity's ``__cmd added N`` (``testing.c``) only moves it
relative to itself.  But the generator shows it: the deity's ``read``, before
anything else, draws once to word its question (``rea.c``: ``chance(0.25)``
picks "Forget this one?" over "Shall I burn it?").  So each ``read`` shows one
bit of the first draw of its seed, and :data:`PROBES` reads in a row show a
pattern that a single count below :data:`LIMIT` gives (another count would
match by chance once in some 10^5 searches of the whole range).  bellum finds
that count with the server's own generator (:func:`bellum.dice.first_draws`)
and sets it back to 0 with ``__cmd added``, so that the next search is short.

The deity needs a telegram to read: one from the deity to itself is sent the
first time, and kept (every question is answered ``n``).
"""

from __future__ import annotations

from collections.abc import Callable

from bellum.client.session import SeedCounter, Session
from bellum.empire.events import ScriptedPrompter
from bellum.errors import CommandError

#: How many ``read`` commands one count takes.
PROBES = 64
#: Counts searched: above this the search gives up (about 20 s of numpy).
LIMIT = 1 << 26
#: Counts searched at a time.
CHUNK = 1 << 16
#: What the server prints at the login in test mode (``player.c``).
TEST_MODE = "Server configured for testing"
#: ``read``'s questions when ``chance(0.25)`` came true, for one telegram and for more.
LUCKY = ("Forget this one? ", "Into the shredder, boss? ")
UNLUCKY = ("Shall I burn it? ", "Can I throw away these old love letters? ")
#: The telegram the deity sends itself when it has none to read.
NOTE = "bellum reads this server's command count with this telegram (see bellum's docs/live.md)"

#: Called with the number of counts searched since the last call.
Advance = Callable[[int], None]


class CountUnknown(CommandError):
    """The server's command count cannot be known (not in test mode, or it moved)."""


def read_count(deity: Session, *, on_step: Advance | None = None) -> SeedCounter:
    """Read the command count of the deity's test-mode server, set it to 0 and return
    a counter of it, shared from now on by ``deity`` (give it to the other sessions)."""
    if not any(TEST_MODE in line for line in deity.greeting):
        raise CountUnknown(
            f"{deity.address}: the server is not in test mode (econfig running_test_suite 1),"
            " so the seeds of its commands cannot be known"
        )
    deity.seeds = None
    bits = [_probe(deity) for _ in range(PROBES)]
    before = search(bits, on_step=on_step)
    deity.command(f"__cmd added {before + PROBES} 0 0")
    deity.seeds = SeedCounter(0)
    return deity.seeds


def _probe(deity: Session) -> bool:
    """One ``read``: whether its first draw was below a quarter."""
    for _attempt in range(2):
        prompter = ScriptedPrompter(["n"])
        out = deity.command("read", prompter=prompter)
        if prompter.asked:
            question = str(prompter.asked[0])
            if question in LUCKY + UNLUCKY:
                return question in LUCKY
            raise _odd(deity, f"'read' asked {question!r}")
        if "No telegrams for you" not in out.text():
            raise _odd(deity, f"'read' said {out.text().strip()[:80]!r}")
        deity.command("telegram 0", prompter=ScriptedPrompter([NOTE, "."]))
    raise CountUnknown(f"{deity.address}: the deity has no telegram to read, and cannot send one")


def _odd(deity: Session, what: str) -> CountUnknown:
    return CountUnknown(f"{deity.address}: cannot read the command count: {what}")


def search(bits: list[bool], *, limit: int = LIMIT, on_step: Advance | None = None) -> int:
    """The count ``c`` below ``limit`` whose next ``len(bits)`` seeds (``c+1``...) draw
    first below a quarter exactly where ``bits`` say so."""
    import numpy as np

    from bellum.dice import first_draws

    want = np.array(bits, dtype=bool)
    n = len(bits)
    for lo in range(0, limit, CHUNK):
        low = first_draws(lo + 1, CHUNK + n) < np.uint32(1 << 30)
        found = np.flatnonzero(low[:CHUNK] == want[0])
        for k in range(1, n):
            found = found[low[found + k] == want[k]]
        if on_step is not None:
            on_step(CHUNK)
        if found.size:
            return lo + int(found[0])
    raise CountUnknown(
        f"no command count below {limit:,} gives what the server printed: did another"
        " session run commands meanwhile?"
    )


__all__ = ["LIMIT", "PROBES", "CountUnknown", "read_count", "search"]
