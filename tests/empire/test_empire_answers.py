"""Named answers answer a question by its kind and numbers, never by its position."""

from __future__ import annotations

import pytest

from bellum.empire.answers import AboveMost, NamedAnswers, answer_ship
from bellum.empire.events import Prompt
from bellum.empire.orders import Order
from bellum.errors import InputError


def test_mil_is_answered_by_sector_or_ship() -> None:
    named = NamedAnswers(mil_at={(0, 0): 150}, ship_mil={7: 24})
    assert named.ask(Prompt("Number of mil from ... : ", "mil", at=(0, 0), most=199)) == "150"
    assert named.ask(Prompt("Number of mil from ... : ", "mil", at=(2, 0), most=199)) is None
    assert named.ask(Prompt("Number of mil from ship : ", "mil", ship=7, most=99)) == "24"
    assert named.unused() == []


def test_the_commands_ship_is_named_by_its_number_or_the_word_ship() -> None:
    assault, board = Order.parse("assault 0,0 7"), Order.parse("board 1 7")
    assert answer_ship(assault, "ship") == answer_ship(assault, "7") == 7
    assert answer_ship(board, "SHIP") == 7
    assert answer_ship(Order.parse("assault 0,0"), "ship") is None  # asked for later
    with pytest.raises(InputError, match="ship 3 is not the command's ship") as refused:
        answer_ship(assault, "3")
    assert (refused.value.field, refused.value.value) == ("mil", "3")  # which answer, not how
    with pytest.raises(InputError, match="board from a sector takes no mil from a ship"):
        answer_ship(Order.parse("board 1 0,0"), "ship")
    with pytest.raises(InputError, match="lboard takes no mil from a ship"):
        answer_ship(Order.parse("lboard 1 0,0"), "0")


def test_the_ship_asked_for_later_takes_the_ship_answer() -> None:
    named = NamedAnswers(own_ship_mil=24)
    assert named.ask(Prompt("Number of mil from ship : ", "mil", ship=7, most=99)) == "24"
    assert named.unused() == []
    assert NamedAnswers(own_ship_mil=24).unused() == [("ship", "ship")]


def test_units_named_join_and_the_others_stay() -> None:
    named = NamedAnswers(units=frozenset({3}))
    assert named.ask(Prompt("attack with ... [ynYNq?] ", "unit", uid=3, army="")) == "y"
    assert named.ask(Prompt("attack with ... [ynYNq?] ", "unit", uid=4, army="a")) == "n"
    assert NamedAnswers().ask(Prompt("...", "unit", uid=3, army="")) is None
    assert NamedAnswers(units=frozenset()).ask(Prompt("...", "unit", uid=3, army="")) == "n"


def test_move_in_for_one_sector_wins_over_every_sector() -> None:
    named = NamedAnswers(move_in=0, move_in_at={(4, 0): 50})
    ask = Prompt("How many mil to move in from 4,0 (97 max)? ", "move_in_mil", at=(4, 0), most=97)
    other = Prompt("How many mil to move in from 0,0 (9 max)? ", "move_in_mil", at=(0, 0), most=9)
    assert named.ask(ask) == "50"
    assert named.ask(other) == "0"


def test_a_number_named_above_the_most_is_refused_with_the_most() -> None:
    """bellum's own interface says what it will do: the server would take the most, and
    read 2**32 + 1 as 1 (its ``int``), which no one named."""
    sector = Prompt("Number of mil from ... (max 199) : ", "mil", at=(0, 0), most=199)
    ship = Prompt("Number of mil from ship (max 24) : ", "mil", ship=7, most=24)
    for named, prompt, n, most in (
        (NamedAnswers(mil_at={(0, 0): 2**32 + 1}), sector, 2**32 + 1, 199),
        (NamedAnswers(mil_at={(0, 0): 200}), sector, 200, 199),
        (NamedAnswers(ship_mil={7: 25}), ship, 25, 24),
        (NamedAnswers(own_ship_mil=25), ship, 25, 24),
    ):
        with pytest.raises(AboveMost) as exc:
            named.ask(prompt)
        assert (exc.value.prompt, exc.value.n, exc.value.most) == (prompt, n, most)
    assert NamedAnswers(mil_at={(0, 0): 199}).ask(sector) == "199"
    assert NamedAnswers(mil_at={(0, 0): 0}).ask(sector) == "0"


def test_a_move_in_answer_is_given_as_named_for_the_server_to_cap() -> None:
    """How many may move in depends on the casualties, unknown when the command is typed:
    the answer is typed as named, and the server moves in the most when it is more."""
    small = Prompt("How many mil ... (9 max)? ", "move_in_mil", at=(0, 0), most=9)
    large = Prompt("How many mil ... (97 max)? ", "move_in_mil", at=(4, 0), most=97)
    named = NamedAnswers(move_in=50)
    assert (named.ask(small), named.ask(large)) == ("50", "50")
    assert NamedAnswers(move_in_at={(0, 0): 10}).ask(small) == "10"


def test_yes_confirms_every_yes_no_question_and_nothing_else() -> None:
    named = NamedAnswers(yes=True)
    for kind in ("abort", "ally", "sneak"):
        assert named.ask(Prompt("... [yn]? ", kind)) == "y"  # type: ignore[arg-type]
    assert named.ask(Prompt("escort(s)? ", "argument")) is None
    assert named.ask(Prompt("Sector :  ", "argument")) is None
    assert NamedAnswers().ask(Prompt("Are you sure you want to attack [yn]? ", "abort")) is None


def test_answers_no_question_asked_for_are_reported() -> None:
    named = NamedAnswers(
        mil_at={(0, 0): 1, (2, 2): 5},
        units=frozenset({1, 2}),
        move_in_at={(4, 0): 1},
        move_in_units=frozenset({9}),
    )
    named.ask(Prompt("...", "mil", at=(0, 0), most=9))
    named.ask(Prompt("...", "unit", uid=2, army=""))
    assert named.unused() == [
        ("mil", (2, 2)),
        ("unit", 1),
        ("move_in", (4, 0)),
        ("move_in_unit", 9),
    ]
