"""A file a command cannot write is refused before the command runs, in one line.

The fight used to be printed in full and only then "cannot write": the player saw a
capture that was never saved.  Now the output (the world file, --out, the database) is
checked first, and nothing is printed on standard output, not even the seed line.
"""

from __future__ import annotations

import shutil
from pathlib import Path

from clirunner import ROOT, Ran, bellum

VECTOR_A = ROOT / "examples" / "empire" / "vector-a.toml"
ANSWERS = ("--as", "1", "--seed", "1", "--mil", "0,0=150", "--move-in", "0")


def refused(r: Ran, message: str) -> None:
    assert r.returncode == 1 and r.stdout == ""
    assert r.stderr == f"bellum: error: {message}\n"


def test_a_read_only_world_file_is_refused_before_the_fight(tmp_path: Path) -> None:
    world = tmp_path / "w.toml"
    shutil.copy(VECTOR_A, world)
    world.chmod(0o444)
    r = bellum("empire", "attack", "2,0", "--world", "w.toml", *ANSWERS, cwd=tmp_path)
    refused(r, "w.toml: cannot write: the file is read-only")


def test_out_in_a_missing_folder_is_refused_before_the_fight(tmp_path: Path) -> None:
    out = tmp_path / "nowhere" / "a.toml"
    r = bellum("empire", "attack", "2,0", "--world", str(VECTOR_A), *ANSWERS, "--out", str(out))
    refused(r, f"{out}: cannot write: no folder {out.parent}")


def test_a_read_only_database_is_refused_before_the_fight(tmp_path: Path) -> None:
    db = tmp_path / "g.db"
    assert (
        bellum("empire", "world", "new", "--db", str(db), "--from", str(VECTOR_A)).returncode == 0
    )
    db.chmod(0o444)
    r = bellum("empire", "attack", "2,0", "--db", str(db), *ANSWERS)
    refused(r, f"{db}: cannot write: the file is read-only")


def test_panzer_checks_its_out_before_the_assault(tmp_path: Path) -> None:
    scenario = ROOT / "examples" / "panzer" / "bocage.toml"
    r = bellum("panzer", "assault", str(scenario), "--seed", "7", "--out", "nowhere/after.toml",
               cwd=tmp_path)  # fmt: skip
    refused(r, "nowhere/after.toml: cannot write: no folder nowhere")


def test_a_writable_out_still_gets_the_world(tmp_path: Path) -> None:
    out = tmp_path / "a.toml"
    r = bellum("empire", "attack", "2,0", "--world", str(VECTOR_A), *ANSWERS, "--out", str(out))
    assert r.returncode == 0 and out.exists()
