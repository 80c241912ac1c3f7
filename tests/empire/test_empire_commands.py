"""One registry of commands: the dispatcher, the command line, the web page and the odds
read every command from it, so a command exists everywhere once it is registered."""

from __future__ import annotations

import click
from conftest import EXAMPLES

from bellum import empire
from bellum.cli.empire import empire as empire_group
from bellum.empire import COMMANDS
from bellum.empire.io.toml import load_world
from bellum.empire.orders import SYNTAX, Order
from bellum.web.games import Plan


def test_the_registry_and_the_grammar_name_the_same_commands() -> None:
    assert list(COMMANDS) == list(SYNTAX) == ["attack", "assault", "paradrop", "board", "lboard"]
    for name, spec in COMMANDS.items():
        assert spec.name == name and spec.syntax is SYNTAX[name]
        assert len(spec.roles) == len(spec.metavars) == len(spec.syntax.slots)
        example = Order.parse(spec.example)
        assert example.name == name and None not in example.slots()


def test_the_command_line_has_one_command_per_registered_one() -> None:
    for name, spec in COMMANDS.items():
        command = empire_group.commands[name]
        arguments = [p for p in command.params if isinstance(p, click.Argument)]
        names = [*spec.syntax.slots, *(["support"] if spec.syntax.support else [])]
        assert [a.name for a in arguments] == names
        assert command.help == spec.help and spec.summary in spec.help


def test_the_web_form_builds_each_order_from_the_roles_of_its_arguments() -> None:
    orders = {
        "attack": Plan("attack", "2,0", support=(True, False, True, False)),
        "assault": Plan("assault", "2,0", source="ship:5"),
        "paradrop": Plan("paradrop", "4,0", source="0,0", planes=[0, 1], escorts=[2]),
        "board": Plan("board", "5", source="0,0"),
        "lboard": Plan("lboard", "3", source="ship:1"),
    }
    assert {name: plan.order().text() for name, plan in orders.items()} == {
        "attack": "attack 2,0 y n y n",
        "assault": "assault 2,0 5 y y y y",
        "paradrop": "paradrop 0/1 2 0,0 4,0",
        "board": "board 5 0,0",
        "lboard": "lboard 3 1",
    }


def test_each_command_says_its_own_words() -> None:
    """The wording that differs between commands is the spec's, used by the shared steps."""
    world = empire.load_world(EXAMPLES / "landing.toml")
    r = empire.run_command(world, "assault 4,0 9", country=1, seed=1)
    assert r.transcript().splitlines()[-1] == COMMANDS["assault"].wording.aborted
    world = empire.load_world(EXAMPLES / "vector-a.toml")
    r = empire.run_command(world, "attack 2,0", country=1, seed=1, answers=["150", "0"])
    assert f"{COMMANDS['attack'].wording.strength}{r.final_attack:8d}\n" in r.transcript()


def test_a_run_stops_where_its_fight_begins_when_asked_whatever_its_dice() -> None:
    """``stop_at`` is the run's, explicit: no flag on the dice decides it."""
    import pytest

    from bellum.dice import ServerRandom
    from bellum.empire.combat.dispatch import run_order
    from bellum.empire.combat.flows import FightReached
    from bellum.empire.events import ScriptedPrompter
    from bellum.empire.rules import Rules

    world = empire.load_world(EXAMPLES / "vector-a.toml")
    order, rules = Order.parse("attack 2,0"), Rules.of(world.options)
    with pytest.raises(FightReached) as stopped:
        run_order(world, order, 1, ServerRandom(1), ScriptedPrompter(["150"]), rules=rules,
                  stop_at="fight")  # fmt: skip
    assert stopped.value.result.final_attack > 0 and stopped.value.combat.ototal > 0
    world = empire.load_world(EXAMPLES / "vector-a.toml")
    done = run_order(world, order, 1, ServerRandom(1), ScriptedPrompter(["150", "0"]), rules=rules)
    assert done.outcome == "captured"


def test_telegrams_are_announced_after_the_command_as_the_server_counts_them() -> None:
    """player.c's status(): the telegrams the player had yet to hear of, plus one for
    those the command sent it; none with ``inform`` (they came as they arrived)."""
    world = EXAMPLES / "air-support.toml"

    def last_line(tgms: int, inform: bool = False) -> str:
        w = load_world(world)
        w.nations[1].tgms, w.nations[1].inform = tgms, inform
        r = empire.run_command(w, "attack 2,0", country=1, seed=1, answers=["100", "0"])
        assert w.nations[1].tgms == (tgms + 1 if inform else 0)
        return r.transcript().splitlines()[-1]

    assert last_line(0) == "You have a new telegram waiting ..."  # the vector's
    assert last_line(1) == "You have two new telegrams waiting ..."
    assert last_line(20) == "You have twenty-one new telegrams waiting ..."
    assert "telegram" not in last_line(2, inform=True)
    w = load_world(EXAMPLES / "paradrop.toml")
    w.nations[1].tgms = 1
    r = empire.run_command(w, "paradrop 0 . 0,0 jh", country=1, seed=1)
    assert r.transcript().endswith("command failed\nYou have a new telegram waiting ...\n")
