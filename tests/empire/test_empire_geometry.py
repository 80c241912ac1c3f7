"""World geometry (spec §0.2): wrap-around, directions, distance, relative coordinates."""

from __future__ import annotations

import pytest

from bellum.empire.geometry import DIRECTIONS, Geometry
from bellum.errors import InputError

G = Geometry(64, 32)


def test_directions_in_server_order() -> None:
    assert DIRECTIONS == ((1, -1), (2, 0), (1, 1), (-1, 1), (-2, 0), (-1, -1))
    assert G.neighbours((2, 0)) == [(3, 31), (4, 0), (3, 1), (1, 1), (0, 0), (1, 31)]


def test_neighbours_wrap_both_ways() -> None:
    assert G.neighbours((0, 0)) == [(1, 31), (2, 0), (1, 1), (63, 1), (62, 0), (63, 31)]


@pytest.mark.parametrize(
    ("a", "b", "d"),
    [
        ((0, 0), (2, 0), 1),
        ((0, 0), (1, 1), 1),
        ((0, 0), (4, 0), 2),
        ((0, 0), (62, 0), 1),  # across the x edge
        ((0, 0), (0, 30), 2),  # across the y edge
        ((0, 0), (10, 2), 6),  # dy 2 + (dx 10 - dy 2) // 2
        ((0, 0), (2, 6), 6),  # dx <= dy: dy
        ((0, 0), (32, 0), 16),  # half the world away
    ],
)
def test_mapdist(a: tuple[int, int], b: tuple[int, int], d: int) -> None:
    assert G.mapdist(a, b) == d
    assert G.mapdist(b, a) == d


def test_every_neighbour_is_at_distance_one() -> None:
    for c in [(0, 0), (63, 31), (10, 4)]:
        assert all(G.mapdist(c, n) == 1 for n in G.neighbours(c))


def test_relative_coordinates_round_trip() -> None:
    origin = (24, 0)
    assert G.fmt((0, 0), origin) == "-24,0"
    assert G.fmt((24, 0), origin) == "0,0"
    assert G.fmt((20, 30), origin) == "-4,-2"
    assert G.parse("-24,0", origin) == (0, 0)
    assert G.parse(" 2 , 0 ", (0, 0)) == (2, 0)
    for c in [(0, 0), (63, 31), (33, 17)]:
        assert G.to_abs(G.to_rel(c, origin), origin) == c


@pytest.mark.parametrize("text", ["1,0", "abc", "2;0", "", "2,0,1"])
def test_parse_refuses_non_sectors(text: str) -> None:
    with pytest.raises(InputError) as refused:
        G.parse(text, (0, 0))
    assert refused.value.field == "sector"


def test_within_scans_rows_top_down_and_filters_by_distance() -> None:
    got = list(G.within((2, 0), 1))
    assert got == [(1, 31), (3, 31), (0, 0), (2, 0), (4, 0), (1, 1), (3, 1)]
    far = list(G.within((10, 10), 8))
    assert len(far) == 1 + 3 * 8 * 9  # a hex disc of radius 8
    assert all(G.mapdist(c, (10, 10)) <= 8 for c in far)


def test_odd_sizes_are_refused() -> None:
    with pytest.raises(ValueError):
        Geometry(63, 32)
