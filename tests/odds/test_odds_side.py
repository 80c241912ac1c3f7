"""Building sides: raw troops, piles levelled biggest-first, explicit arrays."""

from __future__ import annotations

import numpy as np
import pytest

from bellum.errors import InputError
from bellum.odds import Side


def test_troops_strength_is_ldround_of_the_product() -> None:
    side = Side.troops(3, 1.5)
    assert side.strength.tolist() == [5.0, 3.0, 2.0, 0.0]  # 4.5 -> 5, 3, 1.5 -> 2, 0
    assert side.rounds == 3
    assert side.casualties.tolist() == [0, 1, 2, 3]


def test_a_weak_multiplier_beats_the_side_before_its_last_soldier() -> None:
    side = Side.troops(3, 0.4)  # 1.2 -> 1, 0.8 -> 1, 0.4 -> 0
    assert side.strength.tolist() == [1.0, 1.0, 0.0]
    assert side.rounds == 2


def test_groups_lose_from_the_biggest_pile_first() -> None:
    side = Side.from_groups([(2, 2.0), (3, 1.0)])
    # piles (2, 3): 7; (2, 2): 6; (1, 2): 4 (first among equals); (1, 1): 3; (0, 1): 1; 0
    assert side.strength.tolist() == [7.0, 6.0, 4.0, 3.0, 1.0, 0.0]


def test_single_group_matches_the_general_path() -> None:
    fast = Side.troops(57, 1.3)
    slow = Side.from_groups([(57, 1.3), (0, 5.0)])
    assert np.array_equal(fast.strength, slow.strength)


def test_from_arrays_cuts_at_the_first_zero_and_keeps_jumps() -> None:
    side = Side.from_arrays([9.0, 4.0, 0.0, 3.0], [0, 30, 31, 32])
    assert side.rounds == 2
    assert side.casualties.tolist() == [0, 30, 31]


@pytest.mark.parametrize(
    ("build", "words"),
    [
        (lambda: Side.troops(0), "no strength"),
        (lambda: Side.troops(-3), "negative"),
        (lambda: Side.troops(5, -1.0), "multipliers"),
        (lambda: Side.troops(1, 0.2), "no strength"),
        (lambda: Side.from_arrays([3.0, 2.0]), "never reaches 0"),
        (lambda: Side.from_arrays([3.0, 0.0], [0, 2, 1]), ""),
        (lambda: Side.from_arrays([3.0, 1.0, 0.0], [0, 2, 1]), "never decrease"),
        (lambda: Side.from_arrays([3.0, 0.0], [0]), "cover"),
        (lambda: Side.from_groups([]), "at least one"),
    ],
)
def test_bad_sides_are_input_errors(build: object, words: str) -> None:
    if words == "":
        build()  # type: ignore[operator]  # extra casualties past the defeat are fine
        return
    with pytest.raises(InputError, match=words):
        build()  # type: ignore[operator]
    assert issubclass(InputError, ValueError)


def test_repr_says_what_the_side_is() -> None:
    assert "strength 150" in repr(Side.troops(150, label="attacker"))
