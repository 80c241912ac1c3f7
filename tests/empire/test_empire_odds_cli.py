"""`bellum empire odds` reads its answers and reports its mistakes like the command it plans.

A player pastes answers between a command and its odds, so both take the same forms; a
mistake names the answer at fault in one line before any work (no seed line first), and
the command's own `Usage:` refusal exits 2 as the command does.
"""

from __future__ import annotations

import json
import re

import pytest

from clirunner import ROOT, bellum

EX = ROOT / "examples" / "empire"


def odds(world: str, *args: str) -> object:
    return bellum("empire", "odds", *args, "--world", str(EX / world), "--as", "1", "--seed", "1")


@pytest.mark.parametrize("answer", ["ship=24", "0=24", "SHIP=24"])
def test_the_ship_answer_is_read_both_ways_in_the_odds(answer: str) -> None:
    r = odds("assault.toml", "assault", "0,0", "0", "--mil", answer, "--json")
    assert r.returncode == 0, r.stderr
    assert json.loads(r.stdout)["plan"]["mil"] == {"ship": 24}


@pytest.mark.parametrize("answer", ["ship=24", "0=24"])
def test_the_ship_answer_is_read_both_ways_in_the_command(answer: str, tmp_path: object) -> None:
    r = bellum(
        "empire", "assault", "0,0", "0", "--world", str(EX / "assault.toml"), "--as", "1",
        "--seed", "18", "--out", f"{tmp_path}/a.toml", "--mil", answer,
    )  # fmt: skip
    assert r.returncode == 0, r.stderr
    assert "Number of mil from tt   troop transport (#0) (max 24) : 24\n" in r.stdout
    assert "warning" not in r.stderr


@pytest.mark.parametrize("command", [("odds",), ()])
@pytest.mark.parametrize(
    ("words", "answer", "message"),
    [
        (
            ("assault", "0,0", "0"),
            "3=24",
            "--mil 3: ship 3 is not the command's ship (0): give 0=N or ship=N",
        ),
        (
            ("attack", "2,0"),
            "ship=5",
            "--mil ship: attack takes no mil from a ship, only from a sector (SECT=N)",
        ),
    ],
)
def test_a_ship_answer_for_another_ship_is_one_line(
    command: tuple[str, ...], words: tuple[str, ...], answer: str, message: str
) -> None:
    world = str(EX / ("assault.toml" if words[0] == "assault" else "vector-a.toml"))
    r = bellum("empire", *command, *words, "--world", world, "--as", "1", "--seed", "1",
               "--mil", answer)  # fmt: skip
    assert r.returncode == 2 and r.stdout == ""
    assert r.stderr.splitlines()[-1] == f"bellum: error: {message}"


def test_the_ship_given_both_ways_is_given_twice() -> None:
    r = bellum("empire", "assault", "0,0", "0", "--world", str(EX / "assault.toml"), "--as", "1",
               "--mil", "0=24", "--mil", "ship=3")  # fmt: skip
    assert r.returncode == 2
    assert r.stderr == "bellum: error: --mil ship: the command's ship is given twice\n"


def test_the_commands_usage_refusal_exits_2_in_its_own_words() -> None:
    command = bellum("empire", "attack", "3,0", "--world", str(EX / "vector-a.toml"), "--as", "1",
                     "--seed", "1")  # fmt: skip
    planned = odds("vector-a.toml", "attack", "3,0")
    assert command.returncode == planned.returncode == 2
    usage = "Usage: attack <SECT> [<forts?> <ships?> <arty?> <planes?>]\n"
    assert command.stdout == planned.stdout == usage
    assert planned.stderr == ""


@pytest.mark.parametrize(
    ("args", "message"),
    [
        (
            ("frobnicate", "2,0"),
            "unknown command 'frobnicate': plan one of attack, assault, paradrop, board, lboard",
        ),
        (("attack",), "attack needs TARGET on the command line, e.g. `attack 2,0`"),
        (("board", "1"), "board needs FROM on the command line, e.g. `board 5 0,0`"),
        (
            ("attack", "2,0", "--sweep", "4,4=1:5:1"),
            "--sweep 4,4: attack 2,0 never asks for mil from 4,4",
        ),
        (
            ("attack", "2,0", "--mil", "4,4=5", "--need", "0.5"),
            "--need: attack 2,0 never asks for mil from 4,4",
        ),
    ],
)
def test_a_mistake_names_the_answer_and_comes_before_the_seed(
    args: tuple[str, ...], message: str
) -> None:
    r = odds("vector-a.toml", *args)
    assert r.returncode in (1, 2) and r.stdout == ""
    assert r.stderr == f"bellum: error: {message}\n"


def test_a_sweep_past_the_most_the_prompt_allows_is_capped() -> None:
    r = odds("vector-b.toml", "attack", "2,0", "--sweep", "0,0=40:200:80", "--json")
    assert r.returncode == 0, r.stderr
    doc = json.loads(r.stdout)
    assert [p["plan"]["mil"]["0,0"] for p in doc["plans"]] == [40, 120, 199]
    assert r.stderr.splitlines()[0] == (
        "bellum: warning: --sweep 0,0: capped at 199, the most attack 2,0 can take from 0,0"
    )


def test_several_plans_in_json_carry_the_schema_version() -> None:
    r = odds("vector-a.toml", "attack", "2,0", "--mil", "0,0=60", "--mil", "0,0=80", "--json")
    doc = json.loads(r.stdout)
    assert doc["schema_version"] == 1 and len(doc["plans"]) == 2


@pytest.mark.parametrize("target", ["1", "0", "1.5"])
def test_need_asks_for_a_probability_short_of_certainty(target: str) -> None:
    r = odds("vector-a.toml", "attack", "2,0", "--need", target)
    assert r.returncode == 2 and "is not in the range 0<x<1" in r.stderr


def test_a_sampled_need_says_it_was_sampled() -> None:
    r = odds("support.toml", "attack", "2,0", "--need", "0.9")
    assert r.returncode == 0, r.stderr
    first = r.stdout.splitlines()[0]
    assert first.startswith("smallest force reaching 90%: ")
    assert re.search(r"\(estimated from \d+ samples: P\(success\) ", first), first
    assert "standard error" in first


def test_an_exact_need_is_not_qualified() -> None:
    r = odds("vector-a.toml", "attack", "2,0", "--need", "0.9")
    assert r.returncode == 0 and r.stdout.splitlines()[0].endswith(" mil")


def test_a_sweep_table_rounds_as_a_table_and_says_its_units() -> None:
    r = odds("vector-a.toml", "attack", "2,0", "--sweep", "0,0=20:140:40")
    assert r.returncode == 0, r.stderr
    lines = r.stdout.splitlines()
    assert lines[0].split("  ")[0] == "plan" and "att. losses (mil)" in lines[0]
    assert all(line == line.rstrip() for line in lines)
    assert "99.999" not in r.stdout and "e-" not in r.stdout
    assert lines[1].split()[:7] == ["0,0=20", "<", "0.01", "%", "<", "0.01", "%"]


def test_the_commands_other_answers_are_taken_and_change_nothing() -> None:
    """--no-units, --move-in, --move-in-unit, --no-move-in-units and --yes are the
    command's own options: the odds take them (the move-in comes after the fight)."""
    plain = odds("cavalry.toml", "attack", "2,0", "--mil", "0,0=50", "--json")
    more = odds(
        "cavalry.toml", "attack", "2,0", "--mil", "0,0=50", "--move-in", "40",
        "--move-in-unit", "0", "--yes", "--json",
    )  # fmt: skip
    assert plain.returncode == more.returncode == 0, more.stderr
    a, b = json.loads(plain.stdout), json.loads(more.stdout)
    assert a["outcomes"] == b["outcomes"] and a["p_attacker_wins"] == b["p_attacker_wins"]
    alone = odds("cavalry.toml", "attack", "2,0", "--mil", "0,0=50", "--no-units", "--json")
    assert json.loads(alone.stdout)["plan"]["units"] == []
    both = odds("cavalry.toml", "attack", "2,0", "--unit", "0", "--no-units")
    assert both.returncode == 2 and "not both" in both.stderr


def test_an_unnamed_source_and_a_unit_not_taken_are_said() -> None:
    r = odds("vector-a.toml", "attack", "2,0", "--mil", "0,0=150", "--unit", "99")
    assert r.returncode == 0, r.stderr
    assert "note: --unit 99: not asked for" in r.stdout.splitlines()
    units = odds("cavalry.toml", "attack", "2,0", "--unit", "0")
    assert "note: assumed: 0 mil from 0,0" in units.stdout.splitlines()


def test_seconds_are_the_whole_computations_with_its_processor_time() -> None:
    r = odds("vector-a.toml", "attack", "2,0", "--need", "0.9", "--json")
    assert r.returncode == 0, r.stderr
    doc = json.loads(r.stdout)
    assert doc["seconds"] > 0 and doc["cpu_seconds"] > 0
    many = odds("vector-a.toml", "attack", "2,0", "--sweep", "0,0=60:100:40", "--json")
    whole = json.loads(many.stdout)
    assert whole["seconds"] >= sum(p["seconds"] for p in whole["plans"])
    assert whole["cpu_seconds"] > 0
