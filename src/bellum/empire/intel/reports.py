"""What the server's information commands print, read back into facts.

Each function takes the text a command printed (as the player saw it, in the
player's coordinates) and returns what it says, without guessing: the server's
rounding is kept as an interval (:mod:`bellum.empire.intel.model`).  Nothing
here talks to a server; :mod:`bellum.client.intel` runs the commands.
"""

from __future__ import annotations

from bellum.empire.geometry import Coord, Geometry
from bellum.empire.world import BMap


def map_area(geometry: Geometry) -> str:
    """The ``map``/``bmap`` argument that covers the whole world, in the player's coordinates."""
    w, h = geometry.width, geometry.height
    return f"{-w // 2}:{w // 2 - 1},{-h // 2}:{h // 2 - 1}"


def parse_map(text: str, geometry: Geometry) -> dict[Coord, str]:
    """The characters of a ``map`` or ``bmap`` of :func:`map_area`, by sector.

    The server prints each row as ``%4d <row> %d`` (its y on both sides) between
    two lines of column numbers; the row's first column is the area's left edge.
    Blanks (never seen) are left out.  Coordinates are normalised on ``geometry``.
    """
    left = -geometry.width // 2
    seen: dict[Coord, str] = {}
    for line in text.splitlines():
        head, tail = line[:4], line[5:]
        label = head.strip()
        if not label.lstrip("-").isdigit() or line[4:5] != " ":
            continue
        y = int(label)
        row, _, right = tail.rpartition(" ")
        if right != label:
            continue
        for j, mark in enumerate(row[: geometry.width]):
            x = left + j
            if mark != " " and geometry.is_sector(x, y):
                seen[geometry.norm(x, y)] = mark
    return seen


def bmap_of(text: str, geometry: Geometry, cnum: int) -> BMap:
    """Country ``cnum``'s :class:`~bellum.empire.world.BMap` from its ``bmap`` of the world."""
    bmap = BMap.blank(cnum, geometry)
    for c, mark in parse_map(text, geometry).items():
        bmap.put(c, mark)
    return bmap
