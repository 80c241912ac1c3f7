"""The one seeded random source of bellum.

:class:`ServerRandom` reproduces the Wolfpack Empire 4.4.1 server's
generator draw for draw (spec §0.1): MT19937 seeded with ``init_genrand``,
and the helpers ``chance``, ``roll0``, ``roll``, ``roundavg`` and ``damage``
with exactly the server's consumption of draws.  Python's ``random.Random``
*is* MT19937; only its seeding differs, so the state is installed by hand.

Monte Carlo code uses numpy generators instead; :func:`seed_sequence`
derives them from one integer seed so that every result can be replayed.
"""

from __future__ import annotations

import math
import random
from collections.abc import Callable, Hashable, Iterator, Sequence
from contextlib import contextmanager
from typing import TYPE_CHECKING, Any, Protocol, TypeVar

if TYPE_CHECKING:  # numpy loads only for Monte Carlo, not for every command
    import numpy as np

_MASK32 = 0xFFFFFFFF
#: The largest seed: the server seeds its MT19937 with one 32-bit word.
SEED_MAX = _MASK32
_TWO32 = 4294967296.0

T = TypeVar("T")
T_co = TypeVar("T_co", covariant=True)
#: The exact outcomes of a few draws, merged by value: ``draws(run)`` lists each value
#: ``run(dice)`` can return with its probability.
Draws = Callable[[Callable[["ServerRandom"], Hashable]], list[tuple[Hashable, float]]]


class Block(Protocol[T_co]):
    """Draws that only their result and what :meth:`replay` does matter for (see
    :meth:`ServerRandom.block`): support fire (:mod:`bellum.empire.combat.volleys`)."""

    @property
    def key(self) -> Hashable | None:
        """Everything :meth:`outcomes` depends on; ``None`` when it cannot be used."""

    def run(self, dice: ServerRandom) -> T_co:
        """The block draw by draw, in the server's order, with its side effects."""

    def outcomes(self, draws: Draws) -> Sequence[tuple[T_co, float, Any]]:
        """Every distinct result with its exact probability and the path :meth:`replay`
        takes to do what a run ending so does (without drawing)."""

    def replay(self, path: Any) -> None:
        """The side effects of a run that took ``path``."""


def _init_genrand(seed: int) -> list[int]:
    """The 624-word MT19937 state of the reference ``init_genrand(seed)``."""
    x = seed & _MASK32
    mt = [x] * 624
    for i in range(1, 624):
        x = (1812433253 * (x ^ (x >> 30)) + i) & _MASK32
        mt[i] = x
    return mt


def new_seed() -> int:
    """A fresh seed for runs where the user gave none (printed so they can replay)."""
    return random.SystemRandom().randrange(1, 2**31)


class ServerRandom:
    """MT19937 with the Empire server's helpers; counts the draws it makes.

    One hook serves the odds engine, which runs the real command with a
    subclass that enumerates or samples the outcomes of each draw
    (:mod:`bellum.empire.odds.branching`): draws made under :meth:`text_only`
    change only what is printed.  Here it changes nothing.
    """

    def __init__(self, seed: int) -> None:
        if not 0 <= seed <= _MASK32:
            raise ValueError(f"seed must be between 0 and {_MASK32}, not {seed}")
        self.seed = seed
        self.draws = 0
        self._rng = random.Random()
        self._rng.setstate((3, (*_init_genrand(seed), 624), None))

    def u32(self) -> int:
        """The next raw output (``genrand_int32``)."""
        self.draws += 1
        return self._rng.getrandbits(32)

    def real(self) -> float:
        """Uniform in [0, 1) from one draw."""
        return self.u32() / _TWO32

    def chance(self, p: float) -> bool:
        """True with probability ``p``; always consumes one draw."""
        return p > self.real()

    def roll0(self, n: int) -> int:
        """Uniform in 0..n-1 by masked rejection sampling, like the server."""
        if n <= 0:
            raise ValueError(f"roll0 needs n >= 1, not {n}")
        mask = (1 << (n - 1).bit_length()) - 1
        while True:
            v = self.u32() & mask
            if v < n:
                return v

    def roll(self, n: int) -> int:
        """Uniform in 1..n."""
        return 1 + self.roll0(n)

    def pct_chance(self, p: float) -> bool:
        """``roll(100) <= p``."""
        return self.roll(100) <= p

    def roll_sum(self, k: int, n: int) -> int:
        """The sum of ``k`` rolls of ``n``, drawn one after the other."""
        return sum(self.roll(n) for _ in range(k))

    def block(self, block: Block[T]) -> T:
        """Run ``block`` draw by draw.  The odds' dice branch on its distinct results
        instead (:meth:`bellum.empire.odds.branching.BranchingDice.block`)."""
        return block.run(self)

    def roundavg(self, x: float) -> int:
        """Round ``x`` up with probability equal to its fraction; always one draw."""
        f = math.floor(x)
        return int(f) + (1 if self.chance(x - f) else 0)

    #: How many :meth:`text_only` blocks are open (the odds' dice give their draws there
    #: the likeliest outcome; the server's draw as always).
    _text = 0

    @contextmanager
    def text_only(self) -> Iterator[None]:
        """Mark draws whose outcome changes only the text (scouts' reports, spec §4.4)."""
        self._text += 1
        try:
            yield
        finally:
            self._text -= 1

    def damage(self, amount: int, pct: float) -> int:
        """``amount`` reduced by ``pct`` percent, randomly rounded (no draw if amount <= 0)."""
        if amount <= 0:
            return 0
        return amount - self.roundavg(amount * (pct / 100.0))


def seed_sequence(seed: int | None) -> tuple[int, np.random.SeedSequence]:
    """The seed actually used and the numpy ``SeedSequence`` built from it."""
    import numpy as np

    used = new_seed() if seed is None else seed
    return used, np.random.SeedSequence(used)


def first_draws(lo: int, n: int) -> np.ndarray:
    """The first raw output (``genrand_int32``) of the generator seeded with each of
    ``lo .. lo+n-1``, computed for all seeds at once: how bellum reads back which seed a
    test-mode server used from what its commands printed (``bellum.client.count``)."""
    import numpy as np

    u32 = np.uint32
    seeds = (np.arange(lo, lo + n, dtype=np.uint64) & _MASK32).astype(u32)
    x, second = seeds, seeds
    for i in range(1, 398):  # the first output twists words 0, 1 and 397 of the state
        x = u32(1812433253) * (x ^ (x >> u32(30))) + u32(i)
        if i == 1:
            second = x
    y = (seeds & u32(0x80000000)) | (second & u32(0x7FFFFFFF))
    v = x ^ (y >> u32(1)) ^ ((y & u32(1)) * u32(0x9908B0DF))
    v = v ^ (v >> u32(11))
    v = v ^ ((v << u32(7)) & u32(0x9D2C5680))
    v = v ^ ((v << u32(15)) & u32(0xEFC60000))
    out: np.ndarray = v ^ (v >> u32(18))
    return out
