"""Where hexes go on the page: SVG coordinates for the two games' maps.

Empire's sectors are pointy-topped hexes on a grid where x + y is even: a step of 2 in x
is one hex to the right, a step of 1 in y is a row down, shifted half a hex.  Panzer's
map is flat-topped hexes in columns, odd columns half a hex lower.  No rules here:
only pixels.
"""

from __future__ import annotations

import math
from collections.abc import Iterable, Mapping
from typing import Any

SQRT3 = math.sqrt(3.0)
#: Hex radius (centre to corner) in SVG units.
R = 12.0
MARGIN = R * 1.2


def _points(cx: float, cy: float, angle0: float) -> str:
    return " ".join(
        f"{cx + R * math.cos(math.radians(angle0 + 60 * k)):.2f},"
        f"{cy + R * math.sin(math.radians(angle0 + 60 * k)):.2f}"
        for k in range(6)
    )


def pointy_hex() -> str:
    """The corners of a pointy-topped hex around (0, 0), for a ``<symbol>``."""
    return _points(0.0, 0.0, 30.0)


def flat_hex() -> str:
    """The corners of a flat-topped hex around (0, 0)."""
    return _points(0.0, 0.0, 0.0)


def empire_layout(width: int, height: int) -> dict[str, float]:
    """The SVG size of a ``width`` x ``height`` Empire world seen from its centre."""
    return {
        "w": width * SQRT3 * R / 2 + 2 * MARGIN,
        "h": height * 1.5 * R + 2 * MARGIN,
        "dx": SQRT3 * R / 2,
        "dy": 1.5 * R,
    }


def empire_centre(x: int, y: int, width: int, height: int) -> tuple[float, float]:
    """The centre of the sector a country sees at ``x,y`` (relative coordinates)."""
    return (
        MARGIN + (x + width // 2) * SQRT3 * R / 2 + SQRT3 * R / 4,
        MARGIN + (y + height // 2) * 1.5 * R + R / 2,
    )


def place_empire(
    sectors: Iterable[Mapping[str, Any]], width: int, height: int
) -> list[dict[str, Any]]:
    """The sectors with their centres (``cx``, ``cy``) added."""
    out = []
    for s in sectors:
        cx, cy = empire_centre(int(s["x"]), int(s["y"]), width, height)
        out.append({**s, "cx": round(cx, 2), "cy": round(cy, 2)})
    return out


def panzer_centre(col: int, row: int) -> tuple[float, float]:
    return (
        MARGIN + col * 1.5 * R + R,
        MARGIN + row * SQRT3 * R + (SQRT3 * R / 2 if col % 2 else 0.0) + SQRT3 * R / 2,
    )


def panzer_layout(width: int, height: int) -> dict[str, float]:
    return {
        "w": 2 * MARGIN + (width - 1) * 1.5 * R + 2 * R,
        "h": 2 * MARGIN + height * SQRT3 * R + SQRT3 * R / 2,
    }


def hexside_line(a: tuple[int, int], b: tuple[int, int]) -> tuple[float, float, float, float]:
    """The shared edge of two adjacent Panzer hexes, as a segment (x1, y1, x2, y2)."""
    ax, ay = panzer_centre(*a)
    bx, by = panzer_centre(*b)
    mx, my = (ax + bx) / 2, (ay + by) / 2
    dx, dy = bx - ax, by - ay
    length = math.hypot(dx, dy) or 1.0
    # The edge is perpendicular to the line between the centres, one radius long.
    px, py = -dy / length * R / 2, dx / length * R / 2
    return (round(mx - px, 2), round(my - py, 2), round(mx + px, 2), round(my + py, 2))
