"""Loss histograms as SVG bars, computed here so the page needs no charting script."""

from __future__ import annotations

import math
from collections.abc import Sequence
from typing import Any


def histogram(
    points: Sequence[tuple[int, float]], *, bins: int = 32, width: float = 300, height: float = 70
) -> dict[str, Any]:
    """Bars for a loss distribution ``[(loss, probability), ...]`` (ascending losses).

    Losses are grouped into at most ``bins`` equal ranges; each bar carries a label
    ("12-15 lost: 8.1%") for its tooltip and for screen readers.
    """
    pts = [(int(v), float(p)) for v, p in points if p > 0]
    if not pts:
        return {"bars": [], "width": width, "height": height, "low": 0, "high": 0}
    low, high = pts[0][0], pts[-1][0]
    span = high - low + 1
    step = max(1, math.ceil(span / bins))
    groups: dict[int, float] = {}
    for v, p in pts:
        k = (v - low) // step
        groups[k] = groups.get(k, 0.0) + p
    n = (span + step - 1) // step
    top = max(groups.values())
    bar_w = width / n
    bars = []
    for k in range(n):
        p = groups.get(k, 0.0)
        a = low + k * step
        b = min(high, a + step - 1)
        h = 0.0 if top <= 0 else (height - 2) * p / top
        label = f"{a} lost" if a == b else f"{a}–{b} lost"
        bars.append(
            {
                "x": round(k * bar_w, 2),
                "y": round(height - h, 2),
                "w": round(max(bar_w - 0.6, 0.4), 2),
                "h": round(h, 2),
                "label": f"{label}: {100 * p:.1f}%",
            }
        )
    return {"bars": bars, "width": width, "height": height, "low": low, "high": high}
