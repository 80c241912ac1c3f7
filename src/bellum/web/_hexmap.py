"""What the two games' maps are drawn from.

Empire's map is drawn by the page's script on a canvas (a big world has tens of
thousands of sectors); this module packs it as compact data (:func:`empire_data`).
Panzer's battlefield is small and drawn as SVG here: flat-topped hexes in columns, odd
columns half a hex lower.  No rules here: only data and pixels.
"""

from __future__ import annotations

import math
from collections.abc import Mapping
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


def flat_hex() -> str:
    """The corners of a flat-topped hex around (0, 0)."""
    return _points(0.0, 0.0, 0.0)


#: The columns of a sector in the page's map data, in this order.
SECTOR_FIELDS = ("x", "y", "owner", "eff", "mil", "civ", "mob", "mines", "seen")


def empire_data(view: Mapping[str, Any]) -> dict[str, Any]:
    """The map as the page's script draws it (``bellum.js``, ``EmpireMap``).

    Columns, not one object per sector: a 256 x 128 world is 16,384 sectors, and as
    objects its JSON would be ten times the size.  ``des`` is a string of designation
    letters, one per sector; ``designations`` names each letter once.  Ships, units
    and planes stay objects (a world has a few hundred).
    """
    sectors = view["sectors"]
    designations: dict[str, dict[str, Any]] = {}
    for s in sectors:
        if s["des"] not in designations:
            designations[s["des"]] = {"name": s["des_name"], "sea": s["sea"],
                                      "impassable": s["impassable"]}  # fmt: skip
    columns: dict[str, Any] = {k: [s[k] for s in sectors] for k in SECTOR_FIELDS}
    columns["des"] = "".join(s["des"] for s in sectors)
    return {
        "width": view["width"],
        "height": view["height"],
        "country": view["country"],
        "nations": view["nations"],
        "designations": designations,
        "sectors": columns,
        "units": view["units"],
        "ships": view["ships"],
        "planes": view["planes"],
    }


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
