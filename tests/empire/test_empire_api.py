"""The three-line Python API promised in the README."""

from __future__ import annotations

from conftest import EXAMPLES
from test_empire_attack import B1_TRANSCRIPT

from bellum import empire


def test_three_lines() -> None:
    world = empire.load_world(EXAMPLES / "vector-a.toml")
    result = empire.attack(world, "2,0", country=1, seed=1, answers=["150", "0"])
    assert result.transcript() == B1_TRANSCRIPT
    assert world.sector((2, 0)).owner == 1


def test_country_by_name_and_fresh_seed() -> None:
    world = empire.load_world(EXAMPLES / "vector-a.toml")
    result = empire.attack(world, "2,0", country="1", answers=["150", "0"])
    assert result.seed > 0 and result.world_changed
