"""Orders and the one entry point: the text a player types, run the same way for all five."""

from __future__ import annotations

from collections.abc import Callable

import pytest
from conftest import EXAMPLES
from hypothesis import given
from hypothesis import strategies as st
from test_empire_cli import bellum

from bellum import empire
from bellum.dice import ServerRandom
from bellum.empire.combat import CombatResult, assault, attack, board, lboard, paradrop
from bellum.empire.events import ScriptedPrompter
from bellum.empire.io.sqlite.codec import world_rows
from bellum.empire.io.toml import load_world
from bellum.empire.orders import SYNTAX, Order
from bellum.empire.world import World
from bellum.errors import InputError

Direct = Callable[[World, ScriptedPrompter], CombatResult]

#: Each example world's verified run, as an order and as the direct call of its flow.
RUNS: list[tuple[str, str, list[str], int, Direct]] = [
    ("vector-a", "attack 2,0", ["150", "0"], 1,
     lambda w, p: attack(w, "2,0", 1, ServerRandom(1), p)),
    ("support", "attack 2,0 y y n n", ["150", "0"], 4,
     lambda w, p: attack(w, "2,0", 1, ServerRandom(4), p, ["y", "y", "n", "n"])),
    ("assault", "assault 0,0 0", ["24"], 18,
     lambda w, p: assault(w, "0,0", "0", 1, ServerRandom(18), p)),
    ("landing", "assault 0,0 0", ["0", "y", "y"], 1,
     lambda w, p: assault(w, "0,0", "0", 1, ServerRandom(1), p)),
    ("board", "board 1 0", ["50"], 1,
     lambda w, p: board(w, "1", "0", 1, ServerRandom(1), p)),
    ("lboard", "lboard 0 0,0", ["100"], 2,
     lambda w, p: lboard(w, "0", "0,0", 1, ServerRandom(2), p)),
    ("paradrop", "paradrop 0 . 0,0 4,0", [], 7,
     lambda w, p: paradrop(w, "0", ".", "0,0", "4,0", 1, ServerRandom(7), p)),
    ("paradrop", "paradrop 0", [".", "0,0", "4,0"], 7,
     lambda w, p: paradrop(w, "0", None, None, None, 1, ServerRandom(7), p)),
]  # fmt: skip


@pytest.mark.parametrize(("name", "text", "answers", "seed", "direct"), RUNS)
def test_run_command_is_the_command_itself(
    name: str, text: str, answers: list[str], seed: int, direct: Direct
) -> None:
    """The order's words reach the flow as its arguments: same transcript, same world."""
    by_order, by_call = load_world(EXAMPLES / f"{name}.toml"), load_world(EXAMPLES / f"{name}.toml")
    r = empire.run_command(by_order, text, country=1, seed=seed, answers=answers)
    expected = direct(by_call, ScriptedPrompter(list(answers)))
    assert r.command == text.split()[0] and r.outcome not in ("usage", "refused")
    assert r.events == expected.events and r.to_json() == expected.to_json()
    assert world_rows(by_order) == world_rows(by_call)


def test_run_command_takes_an_order_a_name_or_a_prompter() -> None:
    w = load_world(EXAMPLES / "vector-a.toml")
    prompter = ScriptedPrompter(["150", "0"])
    r = empire.run_command(w, Order("attack", ("2,0",)), country="1", seed=1, prompter=prompter)
    assert r.outcome == "captured" and prompter.asked[0].text.startswith("Number of mil from")
    with pytest.raises(InputError, match="no country '9'"):
        empire.run_command(w, "attack 2,0", country=9)
    with pytest.raises(InputError, match="unknown command 'bomb'"):
        empire.run_command(w, "bomb 2,0", country=1)


def test_order_text_follows_the_servers_parser() -> None:
    assert Order.parse("attack 2,0 y y n n") == Order("attack", ("2,0", "y", "y", "n", "n"))
    assert Order.parse('  paradrop  0 "" 0,0\tjj ') == Order("paradrop", ("0", "", "0,0", "jj"))
    assert Order.parse('attack 2","0') == Order("attack", ("2,0",))
    assert Order.parse('board "1 2"').args == ("1 2",)
    assert Order("paradrop", ("0", "", "0,0", "jj")).text() == 'paradrop 0 "" 0,0 jj'
    assert str(Order("board", ("1 2",))) == 'board "1 2"'
    assert Order.of("assault", [" 0,0", "3", None]) == Order("assault", ("0,0", "3"))


def test_order_slots_and_support() -> None:
    o = Order.parse("assault 0,0")
    assert o.slots() == ["0,0", None] and o.support() == []
    o = Order.parse("attack 2,0 y n y n")
    assert o.slots() == ["2,0"] and o.support() == ["y", "n", "y", "n"]
    assert Order.from_call("attack", ["2,0"], {"support_args": ["n"] * 4}) == Order.parse(
        "attack 2,0 n n n n"
    )
    assert Order.from_call("paradrop", ["0", "", "0,0", None], {}).text() == 'paradrop 0 "" 0,0'


@pytest.mark.parametrize(
    ("text", "message"),
    [
        ("", "needs a command"),
        ("   ", "needs a command"),
        ("fire 2,0", "unknown command 'fire'"),
        ("board 1 2 3", "board takes at most 2 arguments, got 3"),
        ("paradrop 1 2 3 4 5", "at most 4"),
    ],
)
def test_bad_orders_are_input_errors(text: str, message: str) -> None:
    with pytest.raises(InputError, match=message):
        Order.parse(text)


def test_words_an_order_cannot_hold_are_refused() -> None:
    with pytest.raises(InputError, match="double quote"):
        Order("attack", ('2,0"',))
    with pytest.raises(InputError, match="control character"):
        Order("attack", ("2,0\a",))
    with pytest.raises(InputError, match="redirect"):
        Order.parse("attack 2,0 >out")
    with pytest.raises(InputError, match="only the last arguments"):
        Order.of("board", [None, "0"])


words = st.text(
    st.characters(blacklist_characters='"><|', blacklist_categories=("Cs", "Cc")), max_size=8
)


def test_words_are_read_as_the_server_reads_them() -> None:
    """parse.c: a word that starts with ? is the condition, taken out of the arguments;
    characters that are not printable ASCII are dropped from each word."""
    order = Order.parse("attack ?des=c 2,0 y²")
    assert (order.args, order.conditions) == (("2,0", "y"), ("?des=c",))
    assert order.text() == "attack 2,0 y ?des=c"
    assert Order("attack", ("²",)).args == ("",)


@given(st.data())
def test_order_text_round_trips(data: st.DataObject) -> None:
    name = data.draw(st.sampled_from(sorted(SYNTAX)))
    syntax = SYNTAX[name]
    args = data.draw(st.lists(words, max_size=len(syntax.slots) + 4 * syntax.support))
    order = Order(name, tuple(args))
    assert Order.parse(order.text()) == order


@given(st.text(max_size=40))
def test_any_text_is_an_order_or_an_input_error(text: str) -> None:
    try:
        order = Order.parse(text)
    except InputError:
        return
    assert Order.parse(order.text()) == order


def test_the_five_commands_list_their_options_alike() -> None:
    """One shape from the click decorator down: --help shows the options in one order."""

    def options(command: str) -> list[str]:
        text = bellum("empire", command, "--help").stdout
        return [line.split()[0] for line in text.splitlines() if line.startswith("  -")]

    first = options("attack")
    assert first[:3] == ["--mil", "--unit", "--no-units"]  # the answers first (issue 29)
    assert all(options(c) == first for c in ("assault", "board", "lboard", "paradrop"))
