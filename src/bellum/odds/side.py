"""One side of a fight, precomputed as a function of the rounds it has lost.

Empire strengths are not linear in the casualties: the strength that sets the
odds is ``ldround(mult * Σ …)`` (an integer), casualties are allocated in a
fixed order (biggest pile first, then land units), and a unit that drops below
10 % efficiency dies with all its remaining mil at once (spec §3.4, §6.3,
§6.4).  Because that allocation is deterministic, everything the odds engine
needs about a side is two arrays indexed by ``k``, the number of rounds the
side has lost so far:

* ``strength[k]`` - the strength used for the odds after ``k`` lost rounds;
  ``strength[k] > 0`` for ``k < K`` and ``strength[K] == 0``, so the side is
  beaten exactly when it has lost ``K`` rounds;
* ``casualties[k]`` - the casualties (soldiers) counted after ``k`` lost
  rounds; nondecreasing, and free to jump when a unit dies.

Rules code (the Empire combat package) builds these arrays by replaying its
own casualty allocation; the constructors here cover raw troops.
"""

from __future__ import annotations

import math
from collections.abc import Iterable, Sequence
from dataclasses import dataclass, field

import numpy as np
import numpy.typing as npt

from bellum.errors import InputError
from bellum.odds.limits import MAX_ROUNDS

FloatArray = npt.NDArray[np.float64]
IntArray = npt.NDArray[np.int64]


def ldround(x: float) -> int:
    """The server's rounding, ``trunc(x + 0.5)`` (spec notation)."""
    return math.trunc(x + 0.5)


@dataclass(frozen=True, eq=False)
class Side:
    """A fighting side as ``strength[k]`` and ``casualties[k]`` for ``k = 0..rounds``.

    Use the constructors :meth:`troops`, :meth:`from_groups` or
    :meth:`from_arrays`; the fields are read-only numpy arrays.
    """

    strength: FloatArray
    casualties: IntArray
    label: str = field(default="")

    def __post_init__(self) -> None:
        s = self.strength
        c = self.casualties
        if s.ndim != 1 or c.ndim != 1 or s.shape != c.shape:
            raise InputError(
                "strength and casualties must be 1-D arrays of the same length "
                f"(got {s.shape} and {c.shape})"
            )
        if s.size < 2:
            raise InputError("a side needs a positive strength before its first lost round")
        if not np.all(np.isfinite(s)):
            raise InputError("strengths must be finite numbers")
        if s[-1] != 0 or not np.all(s[:-1] > 0):
            raise InputError(
                "strength must be positive until the side is beaten and 0 after its last round"
            )
        if c[0] < 0 or np.any(np.diff(c) < 0):
            raise InputError("casualties must start at 0 or more and never decrease")
        s.setflags(write=False)
        c.setflags(write=False)

    @property
    def rounds(self) -> int:
        """``K``: the number of lost rounds that beats this side."""
        return int(self.strength.size - 1)

    @property
    def initial_strength(self) -> float:
        """The strength before any casualty."""
        return float(self.strength[0])

    @classmethod
    def from_arrays(
        cls,
        strength: Sequence[float] | FloatArray,
        casualties: Sequence[int] | IntArray | None = None,
        *,
        label: str = "",
    ) -> Side:
        """A side from explicit arrays; ``casualties`` defaults to ``k`` (one per round).

        ``strength`` may continue past the first zero (as a replay of a casualty
        allocation naturally does); it is cut at the first ``k`` whose strength
        is 0 or less, which is where the server's loop stops.
        """
        s = np.asarray(strength, dtype=np.float64)
        if s.ndim != 1 or s.size == 0:
            raise InputError("strength must be a non-empty list of numbers")
        if not np.all(np.isfinite(s)):
            raise InputError("strengths must be finite numbers")
        beaten = np.flatnonzero(s <= 0)
        if beaten.size == 0:
            raise InputError("strength never reaches 0: the side can never be beaten")
        k = int(beaten[0])
        if k == 0:
            raise InputError("the side has no strength to start with (give it troops)")
        s = s[: k + 1].copy()
        s[k] = 0.0
        if casualties is None:
            c = np.arange(k + 1, dtype=np.int64)
        else:
            c_in = np.asarray(casualties, dtype=np.int64)
            if c_in.ndim != 1 or c_in.size < k + 1:
                raise InputError(
                    f"casualties must cover the {k + 1} states up to the side's defeat"
                )
            c = c_in[: k + 1].copy()
        return cls(s, c, label)

    @classmethod
    def troops(cls, n: int, mult: float = 1.0, *, label: str = "") -> Side:
        """``n`` soldiers fighting at ``mult``: ``strength[k] = ldround(mult * (n - k))``.

        With ``mult < 1`` the side may be beaten before its last soldier dies
        (``ldround(0.4 * 1) == 0``), exactly as the server's loop stops on a
        zero strength.
        """
        return cls.from_groups([(n, mult)], label=label)

    @classmethod
    def from_groups(
        cls,
        groups: Iterable[tuple[int, float]],
        *,
        support: float = 1.0,
        label: str = "",
    ) -> Side:
        """Several piles of troops ``(count, multiplier)``, e.g. mil in several sectors.

        Casualties follow spec §6.3: the pile with the most troops (the first
        among equals) loses the next soldier.  The strength is
        ``ldround(support * Σ count * mult)`` summed in the given order (§3.4).
        """
        piles = [(int(n), float(m)) for n, m in groups]
        if not piles:
            raise InputError("a side needs at least one group of troops")
        for n, m in piles:
            if n < 0:
                raise InputError(f"troop counts must not be negative (got {n})")
            if not math.isfinite(m) or m < 0:
                raise InputError(f"multipliers must be finite and not negative (got {m})")
        if not math.isfinite(support) or support < 0:
            raise InputError(f"support must be finite and not negative (got {support})")
        total = sum(n for n, _ in piles)
        if total > MAX_ROUNDS:
            raise InputError(f"at most {MAX_ROUNDS} troops per side (got {total})")
        if len(piles) == 1:
            n, m = piles[0]
            left = np.arange(n, -1, -1, dtype=np.float64)
            # Same double operations as the scalar path: support * (count * mult).
            return cls.from_arrays(np.trunc(support * (left * m) + 0.5), label=label)
        counts = [n for n, _ in piles]
        mults = [m for _, m in piles]
        strengths = [ldround(support * _weighted(counts, mults))]
        while strengths[-1] > 0 and sum(counts) > 0:
            biggest = max(range(len(counts)), key=lambda i: (counts[i], -i))
            counts[biggest] -= 1
            strengths.append(ldround(support * _weighted(counts, mults)))
        if strengths[0] <= 0:
            raise InputError(
                "the side has no strength to start with: give it troops and a multiplier "
                "large enough that the strength rounds to at least 1"
            )
        return cls.from_arrays(strengths, label=label)

    def __repr__(self) -> str:
        name = f" {self.label!r}" if self.label else ""
        return (
            f"<Side{name} strength {self.initial_strength:g}, beaten after {self.rounds} "
            f"lost rounds, {int(self.casualties[-1])} casualties then>"
        )


def _weighted(counts: list[int], mults: list[float]) -> float:
    """``Σ count * mult`` in list order, in double precision like the server."""
    total = 0.0
    for n, m in zip(counts, mults, strict=True):
        total += n * m
    return total
