"""A country's bmap: read from the server's ``bmap``, kept by the store and world files,
drawn by a paradrop's route question."""

from __future__ import annotations

from pathlib import Path

import pytest
from conftest import EXAMPLES

from bellum.empire import run_command
from bellum.empire.geometry import Geometry
from bellum.empire.intel.reports import bmap_of, map_area, parse_map
from bellum.empire.io.sqlite.codec import DamagedError, rows_world, world_rows
from bellum.empire.io.toml import dumps, load_world, parse_world, world_to_data
from bellum.empire.world import BMap
from bellum.errors import InputError

GEO = Geometry(32, 16)

#: What a 4.4.1 server printed for ``bmap -16:15,-8:7`` as country 1 of the live tests'
#: FRONT after ``map`` and ``llookout``: its capital at -10,0, airfield at 0,0, the
#: enemy's highway at 2,0 seen closely ('+'), the land beyond unknown ('?').
BMAP = """\
     1111111---------0000000000111111
     65432109876543210123456789012345
  -8                                  -8
  -1  . . . . . . . . . . .           -1
   0 . . . c . . . . * + ? .          0
   1  . . . . . . . . . . .           1
   4     . . . - . . .     +          4
   7                                  7
     1111111---------0000000000111111
     65432109876543210123456789012345
"""


def test_parse_map_reads_each_sector_in_the_players_coordinates() -> None:
    assert map_area(GEO) == "-16:15,-8:7"
    seen = parse_map(BMAP, GEO)
    assert seen[GEO.norm(-10, 0)] == "c"
    assert seen[(0, 0)] == "*" and seen[(2, 0)] == "+" and seen[(4, 0)] == "?"
    assert seen[(6, 4)] == "+" and seen[GEO.norm(-6, 4)] == "-"
    assert seen[GEO.norm(-15, -1)] == "."
    assert len(seen) == 11 + 12 + 11 + 7 + 1
    assert all(GEO.is_sector(*c) for c in seen)


def test_parse_map_ignores_lines_that_are_no_map_rows() -> None:
    assert parse_map("No such ship\n  12 nonsense\n   0 x 1\n", GEO) == {}


def test_bmap_of_fills_a_blank_map() -> None:
    b = bmap_of(BMAP, GEO, 1)
    assert len(b.rows) == 16 and all(len(r) == 32 for r in b.rows)
    assert b.at((2, 0)) == "+" and b.at((1, 1)) == "." and b.at((8, 8)) == " "


def test_a_bmap_moved_by_an_origin_lands_on_the_whole_game() -> None:
    b = bmap_of(BMAP, GEO, 1)
    moved = b.moved((10, 3))
    assert moved.at((12, 3)) == "+" and moved.at(GEO.norm(0, 3)) == "c"
    assert moved.moved((-10, -3)) == b


def test_the_store_and_world_files_keep_the_bmap() -> None:
    world = load_world(EXAMPLES / "paradrop.toml")
    world.bmaps[1] = bmap_of(BMAP.replace("-16", "-32"), Geometry(64, 32), 1)
    world.bmaps[1].put((3, 1), "x")
    again = rows_world(world_rows(world), world.tables, "test")
    assert again.bmaps == world.bmaps
    data = world_to_data(world)
    assert data["bmap"][0]["country"] == 1
    assert parse_world(world_to_data(parse_world(data)), "t").bmaps == world.bmaps
    assert "[[bmap]]" in dumps(data)


def test_a_damaged_or_misshapen_bmap_is_one_line() -> None:
    world = load_world(EXAMPLES / "paradrop.toml")
    world.bmaps[1] = BMap(1, ["  "] * 32)
    with pytest.raises(DamagedError, match="bmap 1: damaged database: not a bmap of the 64x32"):
        rows_world(world_rows(world), world.tables, "test")
    data = world_to_data(load_world(EXAMPLES / "paradrop.toml"))
    data["bmap"] = [{"country": 1, "rows": ["x"] * 32}]
    with pytest.raises(InputError, match="t:bmap 1: rows: expected 32 rows of 64"):
        parse_world(data, "t")


def test_the_route_question_draws_the_aggressors_bmap(tmp_path: Path) -> None:
    """``paradrop 0 . 0,0 jj`` stops at 4,0: the seven sectors around it, from 1's bmap."""
    world = load_world(EXAMPLES / "paradrop.toml")
    bmap = BMap.blank(1, world.geometry)
    for c, mark in {(3, -1): "a", (5, -1): "b", (2, 0): "c", (4, 0): "d", (6, 0): "e",
                    (3, 1): "f", (5, 1): "g"}.items():  # fmt: skip
        bmap.put(world.geometry.norm(*c), mark)
    world.bmaps[1] = bmap
    result = run_command(world, "paradrop 0 . 0,0 jj", country=1, seed=7, answers=[None])
    assert "    a b\n   c d e\n    f g\n<2: 4,0> " in result.transcript()
    del world.bmaps[1]
    result = run_command(world, "paradrop 0 . 0,0 jj", country=1, seed=7, answers=[None])
    assert "       \n        \n       \n<2: 4,0> " in result.transcript()
