"""Named answers on the command line: a script says what it means, and runs the same
whatever the order of the questions; a question left without an answer is an error."""

from __future__ import annotations

import json
import shutil
from pathlib import Path

import pytest

from bellum.empire.io.sqlite.store import Store
from clirunner import ROOT, bellum

EX = ROOT / "examples" / "empire"


def attack(world: str, *args: str, stdin: str = "", out: Path | None = None) -> object:
    extra = ["--out", str(out)] if out else []
    return bellum(
        "empire", "attack", *args, "--world", str(EX / world), "--as", "1", *extra, stdin=stdin
    )


def test_named_answers_print_the_same_transcript_as_piped_ones(tmp_path: Path) -> None:
    piped = bellum(
        "empire", "attack", "2,0", "--world", str(EX / "vector-a.toml"), "--as", "1",
        "--seed", "1", "--out", str(tmp_path / "a.toml"), stdin="150\n0\n",
    )  # fmt: skip
    named = bellum(
        "empire", "attack", "2,0", "--world", str(EX / "vector-a.toml"), "--as", "1",
        "--seed", "1", "--out", str(tmp_path / "b.toml"), "--mil", "0,0=150", "--move-in", "0",
    )  # fmt: skip
    assert named.returncode == piped.returncode == 0
    assert named.stdout == piped.stdout
    assert "How many mil to move in from 0,0 (135 max)? 0\n" in named.stdout
    assert (tmp_path / "a.toml").read_text() == (tmp_path / "b.toml").read_text()


def test_an_extra_question_does_not_shift_the_answers(tmp_path: Path) -> None:
    """The scouts' "Are you sure" comes after the units: named answers do not care."""
    r = bellum(
        "empire", "attack", "-14,2", "--world", str(EX / "scouts.toml"), "--as", "1",
        "--seed", "1", "--out", str(tmp_path / "s.toml"),
        "--yes", "--unit", "7", "--move-in", "0", "--mil", "-15,3=10",
    )  # fmt: skip
    assert "Number of mil from headquarters at -15,3 (max 108) : 10\n" in r.stdout
    assert "cavalry #7 in -15,3 (~ 100%) [ynYNq?] y\n" in r.stdout
    assert "cavalry #24 in -15,3 (~ 100%) [ynYNq?] n\n" in r.stdout
    assert "Are you sure you want to attack [yn]? y\n" in r.stdout
    assert r.returncode == 0, r.stderr


def test_named_and_piped_answers_mix(tmp_path: Path) -> None:
    r = bellum(
        "empire", "attack", "-14,2", "--world", str(EX / "scouts.toml"), "--as", "1",
        "--seed", "1", "--out", str(tmp_path / "s.toml"), "--mil", "-15,3=10", "--no-units",
        stdin="n\n",
    )  # fmt: skip
    assert r.returncode == 1 and r.stdout.endswith("[yn]? n\nAttack aborted\n")
    assert not (tmp_path / "s.toml").exists()


def test_piped_input_that_runs_out_is_end_of_input_as_on_the_server(tmp_path: Path) -> None:
    """The server reads end of input at a question as an abort: before the fight the
    attack is called off, at the move-in the capture stands and nothing more moves in."""
    world = tmp_path / "w.toml"
    shutil.copy(EX / "cavalry.toml", world)
    before = world.read_text()
    r = bellum("empire", "attack", "2,0", "--world", str(world), "--as", "1", "--seed", "4",
               "--mil", "0,0=150")  # fmt: skip
    assert r.returncode == 1
    assert r.stdout.endswith("[ynYNq?] \nAttack aborted\nNo troops for attack...\n")
    assert r.stderr.splitlines()[-1] == (
        "bellum: note: standard input ended at 'attack with cav  cavalry #0 in 0,0 (~ 100%)"
        " [ynYNq?]': end of input, as on the server (--unit 0 or --no-units answers it)"
    )
    assert world.read_text() == before
    r = bellum("empire", "attack", "2,0", "--world", str(world), "--as", "1", "--seed", "4",
               "--mil", "0,0=150", "--unit", "0")  # fmt: skip
    assert r.returncode == 0, r.stderr
    assert "We have captured 2,0, sir!\n" in r.stdout
    assert r.stdout.endswith(
        "(97 max)? \ncav  cavalry #0 stays in 0,0\n1 of your troops now occupy 2,0\n"
    )
    assert "(--move-in 0,0=N or --move-in N answers it)" in r.stderr
    assert world.read_text() != before  # the capture is kept


@pytest.mark.parametrize(
    ("args", "hint"),
    [
        ([], "--mil 0,0=N"),
        (["--mil", "0,0=150", "--unit", "0"], "--move-in 0,0=N or --move-in N"),
        (
            ["--mil", "0,0=150", "--unit", "0", "--move-in", "5"],
            "--move-in-unit 0 or --no-move-in-units",
        ),
    ],
)
def test_each_kind_of_question_names_its_option(args: list[str], hint: str, tmp_path: Path) -> None:
    r = bellum("empire", "attack", "2,0", "--world", str(EX / "cavalry.toml"), "--as", "1",
               "--seed", "4", "--out", str(tmp_path / "after.toml"), *args)  # fmt: skip
    assert f"as on the server ({hint} answers it)" in r.stderr


def test_the_abort_question_names_yes() -> None:
    r = bellum("empire", "attack", "-14,2", "--world", str(EX / "scouts.toml"), "--as", "1",
               "--seed", "1", "--mil", "-15,3=10", "--no-units")  # fmt: skip
    assert r.returncode == 1 and r.stderr.endswith("as on the server (--yes answers it)\n")


def test_a_ship_is_named_by_its_number(tmp_path: Path) -> None:
    r = bellum("empire", "assault", "0,0", "0", "--world", str(EX / "assault.toml"), "--as", "1",
               "--seed", "18", "--out", str(tmp_path / "a.toml"), "--mil", "0=24")  # fmt: skip
    assert r.returncode == 0, r.stderr
    assert "Number of mil from tt   troop transport (#0) (max 24) : 24\n" in r.stdout


def test_answers_nobody_asked_for_are_a_warning(tmp_path: Path) -> None:
    r = bellum("empire", "attack", "2,0", "--world", str(EX / "vector-a.toml"), "--as", "1",
               "--seed", "1", "--out", str(tmp_path / "a.toml"), "--mil", "0,0=150",
               "--mil", "4,0=3", "--unit", "5", "--move-in", "0")  # fmt: skip
    assert r.returncode == 0
    assert "bellum: warning: --mil 4,0: not asked for\n" in r.stderr
    assert "bellum: warning: --unit 5: not asked for\n" in r.stderr


@pytest.mark.parametrize(
    ("args", "message"),
    [
        (["--mil", "0,0=1", "--mil", "0,0=2"], "--mil 0,0 given twice"),
        (["--mil", "0,0"], "--mil: expected KEY=N such as 0,0=150, not '0,0'"),
        (["--mil", "0,0=x"], "--mil 0,0: expected a number of mil, not 'x'"),
        (["--mil", "1,0=5"], "1,0 is not a sector"),
        (["--unit", "3", "--unit", "3"], "--unit 3 given twice"),
        (["--unit", "3", "--no-units"], "give --unit or --no-units, not both"),
        (["--move-in", "1", "--move-in", "2"], "--move-in N given twice"),
        (["--move-in", "-3"], "--move-in: expected a number of mil, not '-3'"),
        (
            ["--move-in-unit", "1", "--no-move-in-units"],
            "give --move-in-unit or --no-move-in-units",
        ),
    ],
)
def test_malformed_named_answers_are_usage_errors(args: list[str], message: str) -> None:
    r = bellum("empire", "attack", "2,0", "--world", str(EX / "vector-a.toml"), "--as", "1", *args)
    assert r.returncode == 2 and r.stdout == ""
    assert r.stderr.count("\n") == 1 and message in r.stderr, r.stderr


@pytest.mark.parametrize(
    ("args", "message"),
    [
        (["--mil", "0,0=4294967297"], "--mil 0,0: 4294967297 is more than the server reads at its"
                                       " prompts (at most 2,147,483,647)"),  # before it runs
        (["--mil", "0,0=200"], "--mil 0,0=200: at most 199 mil can go from 0,0; nothing was saved"),
        (["--mil", "0,0=2147483647"], "--mil 0,0=2147483647: at most 199 mil can go from 0,0;"
                                      " nothing was saved"),
    ],
)  # fmt: skip
def test_a_named_answer_above_the_most_asked_for_is_refused(
    args: list[str], message: str, tmp_path: Path
) -> None:
    out = tmp_path / "o.toml"
    r = attack("vector-a.toml", "2,0", "--seed", "1", *args, out=out)
    assert r.returncode == 2 and not out.exists()
    assert r.stderr.splitlines()[-1] == f"bellum: error: {message}"


def test_a_move_in_above_the_most_moves_in_the_most_and_no_number_wraps(
    tmp_path: Path,
) -> None:
    r = attack("vector-a.toml", "2,0", "--seed", "1", "--mil", "0,0=150", "--move-in",
               "0,0=500", out=tmp_path / "a.toml")  # fmt: skip
    assert r.returncode == 0 and "(135 max)? 500\n136 of your troops now occupy 2,0" in r.stdout
    # A named number the server's int cannot hold is refused before anything runs ...
    for option in (["--move-in", "4294967297"], ["--move-in", "0,0=4294967297"]):
        r = attack("vector-a.toml", "2,0", "--seed", "1", *option, out=tmp_path / "b.toml")
        assert r.returncode == 2 and r.stdout == "" and not (tmp_path / "b.toml").exists()
        assert "4294967297 is more than the server reads at its prompts" in r.stderr
    # ... while typed at the prompt the same number is the server's: its int wraps it to 1.
    r = attack("vector-a.toml", "2,0", "--seed", "1", stdin="4294967297\n0\n",
               out=tmp_path / "c.toml")  # fmt: skip
    assert r.returncode == 0 and "Initial attack strength:        1\n" in r.stdout


def test_named_answers_are_kept_in_the_history_and_replay(tmp_path: Path) -> None:
    db = tmp_path / "g.db"
    assert (
        bellum(
            "empire", "world", "new", "--db", str(db), "--from", str(EX / "cavalry.toml")
        ).returncode
        == 0
    )
    r = bellum("empire", "attack", "2,0", "--db", str(db), "--as", "1", "--seed", "4",
               "--mil", "0,0=150", "--unit", "0", "--move-in", "50", "--move-in-unit", "0")  # fmt: skip
    assert r.returncode == 0, r.stderr
    (entry,) = json.loads(bellum("empire", "history", "--db", str(db), "--json").stdout)["commands"]
    assert entry["answers"] == ["150", "y", "n", "50", "y"]
    rep = bellum("empire", "replay", "1", "--db", str(db))
    assert rep.returncode == 0 and "reproduced" in rep.stdout
    store = Store.open(db)
    try:
        units = store.world().units
    finally:
        store.close()
    assert units[0].xy == (2, 0) and units[1].xy == (0, 0)  # the one named moved in


def test_json_mode_takes_named_answers(tmp_path: Path) -> None:
    r = bellum("empire", "attack", "2,0", "--world", str(EX / "vector-a.toml"), "--as", "1",
               "--seed", "1", "--out", str(tmp_path / "a.toml"), "--json",
               "--mil", "0,0=150", "--move-in", "0")  # fmt: skip
    doc = json.loads(r.stdout)
    assert doc["outcome"] == "captured" and doc["casualties"] == {"attacker": 14, "defender": 40}
    assert "Number of mil from wilderness at 0,0 (max 199) : 150\n" in r.stderr
