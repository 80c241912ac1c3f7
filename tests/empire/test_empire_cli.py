"""The ``bellum empire`` command line, as a user runs it."""

from __future__ import annotations

import json
import subprocess
import sys
from pathlib import Path

from conftest import ROOT
from test_empire_attack import B1_TRANSCRIPT


def bellum(*args: str, stdin: str = "") -> subprocess.CompletedProcess[str]:
    return subprocess.run(
        [sys.executable, "-m", "bellum", *args],
        input=stdin,
        capture_output=True,
        text=True,
        cwd=ROOT,
        check=False,
    )


def test_vector_a_through_the_cli(vector_a_path: Path, tmp_path: Path) -> None:
    out = tmp_path / "after.toml"
    before = vector_a_path.read_text()
    r = bellum(
        "empire", "attack", "2,0", "--world", str(vector_a_path), "--as", "1", "--seed", "1",
        "--out", str(out), stdin="150\n0\n",
    )  # fmt: skip
    assert r.returncode == 0, r.stderr
    assert r.stdout == B1_TRANSCRIPT
    assert "seed: 1" in r.stderr
    assert vector_a_path.read_text() == before
    show = bellum("empire", "show", "--world", str(out), "--as", "1", "0,0", "2,0")
    assert show.returncode == 0
    assert "     0,0  wilderness       1   1 100  58   100   185" in show.stdout
    assert "     2,0  wilderness       1   2  96   0    93     1    7  50" in show.stdout


def test_json_result(vector_a_path: Path, tmp_path: Path) -> None:
    r = bellum(
        "empire", "attack", "2,0", "--world", str(vector_a_path), "--as", "1", "--seed", "1",
        "--out", str(tmp_path / "o.toml"), "--json", stdin="150\n0\n",
    )  # fmt: skip
    data = json.loads(r.stdout)
    assert data["outcome"] == "captured" and data["seed"] == 1
    assert data["casualties"] == {"attacker": 14, "defender": 40}
    assert data["transcript"] == B1_TRANSCRIPT
    assert data["btu_charged"] == 4


def test_world_untouched_when_the_command_aborts_kept_when_input_ends_after_the_fight(
    tmp_path: Path, vector_a_path: Path
) -> None:
    world = tmp_path / "w.toml"
    world.write_text(vector_a_path.read_text())
    r = bellum(
        "empire", "attack", "2,0", "--world", str(world), "--as", "1", "--seed", "3", stdin="0\n"
    )
    assert r.returncode == 1
    assert r.stdout.endswith("Attack aborted\nNo troops for attack...\n")
    assert world.read_text() == vector_a_path.read_text()
    # Input that runs out at the move-in is end of input, as on the server: the capture
    # stands, nothing more moves in, and the world is saved.
    r = bellum(
        "empire", "attack", "2,0", "--world", str(world), "--as", "1", "--seed", "1", stdin="150\n"
    )
    assert r.returncode == 0 and "standard input ended at 'How many mil to move in" in r.stderr
    assert "We have captured 2,0, sir!" in r.stdout
    assert world.read_text() != vector_a_path.read_text()


def test_user_mistakes_are_one_line_errors(tmp_path: Path, vector_a_path: Path) -> None:
    r = bellum("empire", "attack", "2,0", "--world", str(tmp_path / "x.toml"), "--as", "1")
    assert r.returncode == 1 and r.stderr.strip().endswith("x.toml: no such world file")
    assert "Traceback" not in r.stderr
    r = bellum("empire", "attack", "2,0", "--world", str(vector_a_path), "--as", "Atlantis")
    assert r.returncode == 2 and "no country 'Atlantis'" in r.stderr
    r = bellum("empire", "attack", "3,0", "--world", str(vector_a_path), "--as", "1", "--seed", "1")
    assert r.returncode == 2 and r.stdout.startswith("Usage: attack <SECT>")
    r = bellum(
        "empire", "attack", "10,0", "--world", str(vector_a_path), "--as", "1", "--seed", "1"
    )
    assert r.returncode == 1 and r.stdout == "You are not adjacent to 10,0\ncommand failed\n"


def test_random_seed_is_printed_for_replay(vector_a_path: Path, tmp_path: Path) -> None:
    r = bellum(
        "empire", "attack", "2,0", "--world", str(vector_a_path), "--as", "1",
        "--out", str(tmp_path / "o.toml"), stdin="150\n0\n",
    )  # fmt: skip
    assert "replay with --seed" in r.stderr
    seed = r.stderr.split("--seed ")[1].split(")")[0]
    again = bellum(
        "empire", "attack", "2,0", "--world", str(vector_a_path), "--as", "1", "--seed", seed,
        "--out", str(tmp_path / "p.toml"), stdin="150\n0\n",
    )  # fmt: skip
    assert again.stdout == r.stdout


def test_command_line_rules_are_not_saved_into_the_world(
    vector_a_path: Path, tmp_path: Path
) -> None:
    out = tmp_path / "o.toml"
    r = bellum(
        "empire", "attack", "2,0", "--world", str(vector_a_path), "--as", "1", "--seed", "1",
        "--out", str(out), "--profile", "info-page", "--option", "scout_estimate=off", "--option", "info_fight=off",
        stdin="150\n0\n",
    )  # fmt: skip
    assert r.returncode == 0, r.stderr
    assert "[options]" not in out.read_text()
    # the info page's efficiency rule took effect: 54 casualties -> 5 %
    assert (
        "     2,0  wilderness       1   2  95"
        in bellum("empire", "show", "--world", str(out), "--as", "1", "2,0").stdout
    )


def test_unknown_option_on_the_command_line(vector_a_path: Path) -> None:
    r = bellum(
        "empire", "attack", "2,0", "--world", str(vector_a_path), "--as", "1", "--option", "NOPE=1"
    )
    assert r.returncode == 2
    assert "unknown option 'NOPE'; options:" in r.stderr and "Traceback" not in r.stderr


def test_negative_numbers_are_arguments_not_options(tmp_path: Path) -> None:
    world = ROOT / "examples" / "empire" / "board.toml"
    r = bellum(
        "empire",
        "board",
        "-1",
        "0",
        "--world",
        str(world),
        "--as",
        "1",
        "--seed",
        "1",
        "--out",
        str(tmp_path / "b.toml"),
    )
    assert r.returncode == 2
    assert r.stdout.startswith("Usage: board <to-SHIP>") and "No such option" not in r.stderr
