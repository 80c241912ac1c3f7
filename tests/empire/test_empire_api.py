"""The three-line Python API promised in the README."""

from __future__ import annotations

import pytest
from conftest import EXAMPLES
from test_empire_attack import B1_TRANSCRIPT

from bellum import empire
from bellum.errors import InputError


def test_three_lines() -> None:
    world = empire.load_world(EXAMPLES / "vector-a.toml")
    result = empire.attack(world, "2,0", country=1, seed=1, answers=["150", "0"])
    assert result.transcript() == B1_TRANSCRIPT
    assert world.sector((2, 0)).owner == 1


def test_country_by_name_and_fresh_seed() -> None:
    world = empire.load_world(EXAMPLES / "vector-a.toml")
    result = empire.attack(world, "2,0", country="1", answers=["150", "0"])
    assert result.seed > 0 and result.world_changed


@pytest.mark.parametrize(
    ("kwargs", "words"),
    [
        ({"seed": -1}, "seed must be a whole number from 0 to 4294967295, not -1"),
        ({"seed": 2**32}, "not 4294967296"),
        ({"seed": True}, "not True"),
        ({"answers": [150, 0]}, r"answers are the text typed at each prompt \(str\), not 150"),
    ],
)
def test_the_library_refuses_bad_arguments_with_its_own_error(
    kwargs: dict[str, object], words: str
) -> None:
    """A game developer's mistake is an InputError (also a ValueError), never a TypeError."""
    world = empire.load_world(EXAMPLES / "vector-a.toml")
    with pytest.raises(InputError, match=words):
        empire.attack(world, "2,0", country=1, **kwargs)  # type: ignore[arg-type]
