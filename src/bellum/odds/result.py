"""Generic outcome distributions, shared by every ruleset that reports odds.

A fight between two :class:`~bellum.odds.side.Side` objects, a Panzer assault
or an Empire planned attack all boil down to the same thing to show: a few
named outcomes with their probabilities, and per side a distribution of
losses.  :class:`OddsResult` holds exactly that plus how it was obtained, so
:mod:`bellum.odds.report` can render any of them the same way.
"""

from __future__ import annotations

from collections.abc import Mapping
from dataclasses import dataclass, field

import numpy as np
import numpy.typing as npt

FloatArray = npt.NDArray[np.float64]
IntArray = npt.NDArray[np.int64]

#: Quantiles shown in loss tables and written to JSON.
QUANTILES: tuple[float, ...] = (0.05, 0.25, 0.5, 0.75, 0.95)

# Cumulative sums of floating-point probabilities land a hair below a
# quantile level that the exact distribution reaches; this slack keeps the
# quantile from jumping to the next value because of rounding alone.
_QUANTILE_SLACK = 1e-12

ATTACKER_WINS = "attacker wins"
DEFENDER_WINS = "defender wins"
ATTACKER = "attacker"
DEFENDER = "defender"


@dataclass(frozen=True, eq=False)
class LossDistribution:
    """A loss pmf: ``P(loss == values[i]) = probs[i]`` with ``values`` increasing."""

    values: IntArray
    probs: FloatArray

    def __post_init__(self) -> None:
        if self.values.shape != self.probs.shape or self.values.ndim != 1:
            raise ValueError("values and probs must be 1-D arrays of the same length")
        if self.values.size > 1 and np.any(np.diff(self.values) <= 0):
            raise ValueError("values must be strictly increasing")

    @classmethod
    def from_weights(cls, values: IntArray, weights: FloatArray) -> LossDistribution:
        """Merge equal values and drop zero weights (weights need not be sorted)."""
        v = np.asarray(values, dtype=np.int64)
        w = np.asarray(weights, dtype=np.float64)
        keep = w > 0
        v, w = v[keep], w[keep]
        uniq, inverse = np.unique(v, return_inverse=True)
        summed = np.zeros(uniq.size, dtype=np.float64)
        np.add.at(summed, inverse, w)
        return cls(uniq.astype(np.int64), summed)

    @property
    def total(self) -> float:
        """The mass held (1 up to pruning and rounding)."""
        return float(self.probs.sum())

    def mean(self) -> float:
        """Expected loss, normalised by the mass actually held."""
        t = self.total
        return float(np.dot(self.values, self.probs) / t) if t > 0 else 0.0

    def quantile(self, q: float) -> int:
        """The smallest loss ``x`` with ``P(loss <= x) >= q``."""
        if not 0.0 <= q <= 1.0:
            raise ValueError(f"quantile level must be in [0, 1], not {q}")
        if self.values.size == 0:
            return 0
        cdf = np.cumsum(self.probs) / self.total
        i = int(np.searchsorted(cdf, q - _QUANTILE_SLACK, side="left"))
        return int(self.values[min(i, self.values.size - 1)])

    def quantiles(self, levels: tuple[float, ...] = QUANTILES) -> dict[float, int]:
        """:meth:`quantile` for each level."""
        return {q: self.quantile(q) for q in levels}


@dataclass(frozen=True, eq=False)
class FightEndStates:
    """The joint end-state distribution of a two-sided attrition fight.

    ``attacker_wins[k]`` is P(the attacker wins having lost ``k`` rounds);
    ``defender_wins[k]`` is P(the defender wins having lost ``k`` rounds).  The
    loser always lost all its rounds, so these two vectors are the whole joint
    distribution of (attacker rounds lost, defender rounds lost, winner).
    """

    attacker_wins: FloatArray
    defender_wins: FloatArray


@dataclass(frozen=True, eq=False)
class OddsResult:
    """Named outcomes, per-side loss distributions, and how they were obtained.

    ``outcomes`` is ordered and its names are mutually exclusive; its first
    entry is the headline probability.  ``attacker_wins`` names the outcomes in
    which the attacker wins: a fight has the one ``"attacker wins"``, a Panzer
    assault several ways of succeeding (defenders eliminated, retreated, ...),
    and the report shows their total as P(attacker wins) above them.  For Monte
    Carlo results ``standard_error`` is that of :attr:`p_attacker_wins`.
    ``pruned_mass`` is the probability an exact solver dropped (``None`` for
    Monte Carlo); ``seed``/``runs``/``standard_error`` are ``None`` for exact
    results.
    ``notes`` are one-line remarks for the user (for instance a run cap that was
    reached); rules code never prints them itself.
    """

    outcomes: Mapping[str, float]
    losses: Mapping[str, LossDistribution]
    method: str
    model: str
    seed: int | None = None
    runs: int | None = None
    standard_error: float | None = None
    pruned_mass: float | None = None
    seconds: float | None = None
    notes: tuple[str, ...] = ()
    end_states: FightEndStates | None = None
    details: Mapping[str, object] = field(default_factory=dict)
    attacker_wins: tuple[str, ...] = (ATTACKER_WINS,)

    @property
    def headline(self) -> tuple[str, float]:
        """The first outcome and its probability."""
        name = next(iter(self.outcomes))
        return name, self.outcomes[name]

    @property
    def names_attacker_wins(self) -> bool:
        """Whether any outcome is one in which the attacker wins (else P(win) is unknown)."""
        return any(name in self.outcomes for name in self.attacker_wins)

    @property
    def winning_split(self) -> bool:
        """Whether the attacker wins in several named ways, shown under their total."""
        return sum(name in self.outcomes for name in self.attacker_wins) > 1

    @property
    def p_attacker_wins(self) -> float:
        """P(attacker wins): the sum of the :attr:`attacker_wins` outcomes, else the headline."""
        if not self.names_attacker_wins:
            return float(self.headline[1])
        return float(sum(self.outcomes.get(name, 0.0) for name in self.attacker_wins))


DEFENDER_WINS = "defender wins"
ATTACKER = "attacker"
DEFENDER = "defender"
