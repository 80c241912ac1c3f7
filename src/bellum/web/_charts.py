"""Loss histograms as SVG bars, computed here so the page needs no charting script.

A chart is drawn in a fixed box (``WIDTH`` x ``HEIGHT`` SVG units, shown at about that
size in pixels, so its 10-unit labels read as 10 px text): bars, an x axis with round
ticks, a y axis in percent, and the mean (dashed) and the median (dotted) marked.
"""

from __future__ import annotations

import math
from collections.abc import Sequence
from typing import Any

WIDTH, HEIGHT = 360.0, 128.0
#: The plot area inside the box: room for the y labels on the left, x labels below.
LEFT, RIGHT, TOP, BOTTOM = 34.0, 8.0, 6.0, 20.0


def nice_step(span: float, ticks: int = 5) -> float:
    """A round step (1, 2 or 5 times a power of ten) giving about ``ticks`` ticks."""
    if span <= 0:
        return 1.0
    raw = span / ticks
    power: float = 10.0 ** math.floor(math.log10(raw))
    return next(m * power for m in (1, 2, 5, 10) if m * power >= raw)


def _pct(p: float, step: float) -> str:
    """``p`` as a percentage with as many decimals as the axis' ``step`` needs."""
    digits = max(0, -math.floor(math.log10(100 * step) + 1e-9))
    return f"{100 * p:.{digits}f}%"


def histogram(points: Sequence[tuple[int, float]], *, bins: int = 32) -> dict[str, Any]:
    """Bars for a loss distribution ``[(loss, probability), ...]`` (ascending losses).

    Losses are grouped into at most ``bins`` equal ranges; each bar carries a label
    ("12-15 lost: 8.1%") for its tooltip and for screen readers.
    """
    pts = [(int(v), float(p)) for v, p in points if p > 0]
    box = {"width": WIDTH, "height": HEIGHT, "left": LEFT, "top": TOP,
           "bottom": HEIGHT - BOTTOM, "right": WIDTH - RIGHT}  # fmt: skip
    if not pts:
        return {**box, "bars": [], "xticks": [], "yticks": [], "low": 0, "high": 0,
                "mean": None, "median": None}  # fmt: skip
    low, high = pts[0][0], pts[-1][0]
    span = high - low + 1
    step = max(1, math.ceil(span / bins))
    groups: dict[int, float] = {}
    for v, p in pts:
        k = (v - low) // step
        groups[k] = groups.get(k, 0.0) + p
    n = (span + step - 1) // step
    plot_w, plot_h = WIDTH - LEFT - RIGHT, HEIGHT - TOP - BOTTOM
    bar_w = plot_w / n
    y_step = nice_step(max(groups.values()), 4)
    y_top = y_step * math.ceil(max(groups.values()) / y_step - 1e-9)

    def x_of(v: float) -> float:
        """The centre of loss ``v`` on the x axis."""
        return round(LEFT + (v - low + 0.5) / (n * step) * plot_w, 2)

    def y_of(p: float) -> float:
        return round(TOP + plot_h * (1 - p / y_top), 2)

    bars = []
    for k in range(n):
        p = groups.get(k, 0.0)
        a = low + k * step
        b = min(high, a + step - 1)
        label = f"{a} lost" if a == b else f"{a}–{b} lost"
        bars.append(
            {
                "x": round(LEFT + k * bar_w, 2),
                "y": y_of(p),
                "w": round(max(bar_w - 0.8, 0.6), 2),
                "h": round(TOP + plot_h - y_of(p), 2),
                "label": f"{label}: {100 * p:.1f}%",
            }
        )
    x_step = max(1, int(nice_step(high - low, 5)))
    first = math.ceil(low / x_step) * x_step
    xticks = [{"x": x_of(v), "label": f"{v:,}"} for v in range(first, high + 1, x_step)]
    if not xticks:
        xticks = [{"x": x_of(low), "label": f"{low:,}"}]
    yticks = [
        {"y": y_of(k * y_step), "label": _pct(k * y_step, y_step)}
        for k in range(round(y_top / y_step) + 1)
    ]
    mean = sum(v * p for v, p in pts) / sum(p for _, p in pts)
    total, median = 0.0, pts[-1][0]
    for v, p in pts:
        total += p
        if total >= 0.5 * sum(q for _, q in pts) - 1e-12:
            median = v
            break
    return {
        **box,
        "bars": bars,
        "xticks": xticks,
        "yticks": yticks,
        "low": low,
        "high": high,
        "mean": {"x": x_of(mean), "value": round(mean, 1)},
        "median": {"x": x_of(median), "value": median},
    }
