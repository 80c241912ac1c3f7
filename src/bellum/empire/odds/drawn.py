"""The standard error of a figure mixed over worlds drawn from the unknowns (fog of war).

The fog odds of one plan (:mod:`.fog`) and the threat map's strikes
(:mod:`bellum.empire.plan.threats`) both mix a figure over the complete worlds drawn from
a country's belief; this is the one formula for how sure that mixture is.
"""

from __future__ import annotations

import math
from collections.abc import Sequence


def drawn_mixture_error(
    parts: Sequence[tuple[float, float, float]], draws: int, exhaustive: bool
) -> float:
    """The standard error of Σ w·v, a figure mixed over ``draws`` worlds.

    ``parts`` are each world's weight w (the weights sum to 1 over all the worlds), its
    figure v and that figure's own standard error e; a world missing from ``parts``
    counts v = 0 (a strike it does not allow).  Two errors in quadrature: the spread
    of the figures between the draws, √(Σ (v − v̄)² / (n − 1) / n) over the n worlds
    around v̄ = Σ w·v (none when every combination of the unknowns was taken,
    ``exhaustive``, or only one world was drawn), and the figures' own, √Σ (w·e)².
    """
    spread = 0.0
    if not exhaustive and draws > 1:
        mean = sum(w * v for w, v, _ in parts)
        values = [v for _, v, _ in parts] + [0.0] * (draws - len(parts))
        spread = math.sqrt(sum((v - mean) ** 2 for v in values) / (draws - 1) / draws)
    return math.hypot(spread, math.sqrt(sum((w * e) ** 2 for w, _, e in parts)))


__all__ = ["drawn_mixture_error"]
