"""Empire world geometry (spec §0.2): the offset-hex torus, directions and distance."""

from __future__ import annotations

import re
from collections.abc import Iterator
from dataclasses import dataclass
from functools import lru_cache

from bellum.errors import InputError
from bellum.numbers import MAX_DIGITS, shown, to_int

#: The six neighbours as (dx, dy) in the server's direction order 1..6
#: (up-right, right, down-right, down-left, left, up-left).  The order decides
#: which attacking sector comes first and which retreat candidate wins ties.
DIRECTIONS: tuple[tuple[int, int], ...] = ((1, -1), (2, 0), (1, 1), (-1, 1), (-2, 0), (-1, -1))
DIRECTION_KEYS = "ujnbgy"

Coord = tuple[int, int]

#: The largest world side bellum accepts.  A command holds a world database's write lock
#: while it loads and saves the whole world: measured on a busy 2-core machine, 4 s at
#: 256 x 256 (32,768 sectors), 17 s at 512 x 512, well over 30 s (how long other commands
#: wait) beyond (``benchmarks/world_size.py``).  Real games are 64 x 32 to 256 x 128.
MAX_SIDE = 256

_COORD_RE = re.compile(r"^\s*(-?[0-9]+)\s*,\s*(-?[0-9]+)\s*$", re.ASCII)


@dataclass(frozen=True, slots=True)
class Geometry:
    """A ``width`` x ``height`` wrap-around world; both sizes are even."""

    width: int = 64
    height: int = 32

    def __post_init__(self) -> None:
        if not all(0 < side <= MAX_SIDE and side % 2 == 0 for side in (self.width, self.height)):
            raise ValueError(
                f"world size {self.width}x{self.height}: each side must be an even number"
                f" from 2 to {MAX_SIDE}"
            )

    def norm(self, x: int, y: int) -> Coord:
        """Absolute coordinates wrapped into the world."""
        return x % self.width, y % self.height

    def is_sector(self, x: int, y: int) -> bool:
        """Only coordinates with x + y even name a sector."""
        return (x + y) % 2 == 0

    def neighbours(self, c: Coord) -> list[Coord]:
        """The six adjacent sectors in direction order 1..6."""
        x, y = c
        return [self.norm(x + dx, y + dy) for dx, dy in DIRECTIONS]

    def mapdist(self, a: Coord, b: Coord) -> int:
        """The server's hex distance with wrap-around; neighbours are at 1."""
        dx = abs(a[0] - b[0]) % self.width
        dx = min(dx, self.width - dx)
        dy = abs(a[1] - b[1]) % self.height
        dy = min(dy, self.height - dy)
        return dy if dx <= dy else dy + (dx - dy) // 2

    def within(self, p: Coord, d: int) -> Iterator[Coord]:
        """Sectors within distance ``d`` of ``p`` in the server's scan order."""
        return iter(_within(self, p, d))

    def _scan(self, p: Coord, d: int) -> Iterator[Coord]:
        if 4 * d + 1 >= self.width:
            x0, nx = p[0] - self.width // 2, self.width
        else:
            x0, nx = p[0] - 2 * d, 4 * d + 1
        if 2 * d + 1 >= self.height:
            y0, ny = p[1] - self.height // 2, self.height
        else:
            y0, ny = p[1] - d, 2 * d + 1
        for j in range(ny):
            y = (y0 + j) % self.height
            for i in range(nx):
                x = (x0 + i) % self.width
                if (x + y) % 2 == 0 and self.mapdist((x, y), p) <= d:
                    yield x, y

    def step(self, c: Coord, key: str) -> Coord:
        """The neighbour of ``c`` in the direction ``key`` (one of ``ujnbgy``)."""
        dx, dy = DIRECTIONS[DIRECTION_KEYS.index(key)]
        return self.norm(c[0] + dx, c[1] + dy)

    def fly_path(self, start: Coord, dest: Coord) -> str:
        """The server's best flight path from ``start`` to ``dest``, as direction keys.

        Every sector costs 1 to fly over, so many paths are shortest; the
        server picks one with a Dijkstra search over a binary heap, and which
        one depends on how that heap breaks ties.  This search keeps the same
        heap discipline (equal costs move up on insertion and down on removal,
        the left child wins a tie), so it returns the server's path.
        """
        return _fly_path(self, self.norm(*start), self.norm(*dest))

    def _search(self, start: Coord, dest: Coord) -> str:
        came: dict[Coord, int] = {start: -1}
        heap: list[tuple[int, Coord]] = [(0, start)]
        while heap and heap[0][1] != dest:
            cost, here = heap[0]
            _heap_pop(heap)
            for d, (dx, dy) in enumerate(DIRECTIONS):
                there = self.norm(here[0] + dx, here[1] + dy)
                if there in came:
                    continue
                came[there] = d
                _heap_push(heap, (cost + 1, there))
        path = []
        here = dest
        while came[here] >= 0:
            d = came[here]
            path.append(DIRECTION_KEYS[d])
            dx, dy = DIRECTIONS[d]
            here = self.norm(here[0] - dx, here[1] - dy)
        return "".join(reversed(path))

    def to_rel(self, c: Coord, origin: Coord) -> Coord:
        """A country's view of absolute ``c`` (values in [-size/2, size/2))."""
        x = (c[0] - origin[0]) % self.width
        y = (c[1] - origin[1]) % self.height
        if x >= self.width // 2:
            x -= self.width
        if y >= self.height // 2:
            y -= self.height
        return x, y

    def to_abs(self, rel: Coord, origin: Coord) -> Coord:
        """Absolute coordinates of a country-relative ``rel``."""
        return self.norm(rel[0] + origin[0], rel[1] + origin[1])

    def fmt(self, c: Coord, origin: Coord) -> str:
        """``x,y`` as a country with that origin sees it."""
        x, y = self.to_rel(c, origin)
        return f"{x},{y}"

    def parse(self, text: str, origin: Coord) -> Coord:
        """Absolute coordinates of the player's ``x,y``; malformed input is an
        :class:`~bellum.errors.InputError` about a ``sector``."""
        m = _COORD_RE.match(text)
        if not m:
            raise InputError(
                f"'{shown(text)}' is not a sector: expected x,y such as 2,0", field="sector"
            )
        x, y = to_int(m.group(1), signed=True), to_int(m.group(2), signed=True)
        if x is None or y is None:
            raise InputError(
                f"'{shown(text)}' is not a sector: a coordinate has at most {MAX_DIGITS} digits",
                field="sector",
            )
        rel = x, y
        if not self.is_sector(*rel):
            raise InputError(f"{shown(text)} is not a sector: x + y must be even", field="sector")
        return self.to_abs(rel, origin)


@lru_cache(maxsize=4096)
def _within(geometry: Geometry, p: Coord, d: int) -> tuple[Coord, ...]:
    """:meth:`Geometry.within`, remembered: support fire scans the same circles every run."""
    return tuple(geometry._scan(p, d))


@lru_cache(maxsize=4096)
def _fly_path(geometry: Geometry, start: Coord, dest: Coord) -> str:
    """:meth:`Geometry.fly_path`, remembered: a paradrop's and a mission's planes fly the
    same routes on every run (a search over the map each, 3 ms on a 96x48 world)."""
    return geometry._search(start, dest)


def _heap_push(heap: list[tuple[int, Coord]], item: tuple[int, Coord]) -> None:
    """Append and sift up; an equal-cost parent yields its place."""
    heap.append(item)
    c = len(heap) - 1
    while c > 0:
        p = (c - 1) // 2
        if heap[p][0] < heap[c][0]:
            break
        heap[p], heap[c] = heap[c], heap[p]
        c = p


def _heap_pop(heap: list[tuple[int, Coord]]) -> None:
    """Drop the top: the last element moves up and sifts down (the left child wins ties)."""
    last = heap.pop()
    if not heap:
        return
    heap[0] = last
    r = 0
    while (c := 2 * r + 1) < len(heap):
        if c + 1 < len(heap) and heap[c][0] > heap[c + 1][0]:
            c += 1
        if heap[r][0] < heap[c][0]:
            break
        heap[r], heap[c] = heap[c], heap[r]
        r = c
