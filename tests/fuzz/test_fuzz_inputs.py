"""Fuzzing bellum's inputs: world files, scenarios, dumps, databases and prompt answers.

Every example runs real command lines on damaged input and holds them to the
promises of :func:`harness.check`: no traceback, exit status 0/1/2, inputs
unchanged, no stray files.  The number of examples is small in CI (fixed
seed) and large with ``--fuzz-long``.
"""

from __future__ import annotations

import shutil
import sqlite3
from pathlib import Path

import pytest
from harness import check, fuzz_settings, imported_game, run, sandbox, snapshot
from hypothesis import given
from hypothesis import strategies as st
from strategies import (
    ANSWERS,
    EMPIRE,
    FRONT,
    FRONT_ANSWERS,
    PANZER,
    PLAY,
    damaged_row,
    dump_text,
    load_toml,
    toml_file,
)

WORLD_BASES = sorted(EMPIRE.glob("*.toml"))
SCENARIO_BASES = sorted(PANZER.glob("*.toml"))


def _play(folder: Path, category: str, args: list[str], stdin: str = "", **kw: object) -> None:
    before = snapshot(folder)
    ran = run(args, stdin=stdin, cwd=folder)
    check(ran, category, before, snapshot(folder), **kw)  # type: ignore[arg-type]


@pytest.fixture(scope="session")
def base_files(tmp_path_factory: pytest.TempPathFactory) -> Path:
    """An Empire dump of a world at war, and a database imported from it with one
    order in its history."""
    folder = tmp_path_factory.mktemp("fuzz-base")
    imported_game(folder, FRONT, FRONT_ANSWERS)
    return folder


@fuzz_settings("world files")
@given(play=PLAY, data=st.data())
def test_fuzz_world_files(play: tuple[str, list[str], str], data: st.DataObject) -> None:
    name, order, answers = play
    text = data.draw(toml_file(load_toml(EMPIRE / name)))
    with sandbox() as folder:
        (folder / "w.toml").write_bytes(text)
        common = ["--world", "w.toml", "--as", "1"]
        _play(folder, "world files", ["empire", "show", *common])
        _play(folder, "world files", ["empire", "strength", *common, "0,0"])
        _play(
            folder,
            "world files",
            ["empire", *order, *common, "--seed", "1", "--out", "out.toml"],
            answers,
            may_write=["out.toml"],
        )
        _play(
            folder,
            "world files",
            ["empire", "world", "new", "--from", "w.toml", "--db", "n.db"],
            may_write=["n.db"],
        )


@fuzz_settings("scenarios")
@given(base=st.sampled_from(SCENARIO_BASES), data=st.data())
def test_fuzz_scenarios(base: Path, data: st.DataObject) -> None:
    text = data.draw(toml_file(load_toml(base)))
    with sandbox() as folder:
        (folder / "s.toml").write_bytes(text)
        _play(folder, "scenarios", ["panzer", "explain", "s.toml"])
        _play(
            folder,
            "scenarios",
            ["panzer", "assault", "s.toml", "--seed", "3", "--out", "out.toml"],
            may_write=["out.toml"],
        )
        _play(folder, "scenarios", ["panzer", "odds", "s.toml", "--json"])


@fuzz_settings("dumps")
@given(data=st.data())
def test_fuzz_dumps(base_files: Path, data: st.DataObject) -> None:
    text = data.draw(dump_text((base_files / "game.xdump").read_text("ascii")))
    size = data.draw(st.sampled_from([[], ["--size", "64x32"], ["--size", "²x32"]]))
    with sandbox() as folder:
        (folder / "d.xdump").write_bytes(text)
        _play(
            folder,
            "dumps",
            ["empire", "world", "import", "d.xdump", "--db", "n.db", *size],
            may_write=["n.db"],
        )


_TABLES = {
    "object": "data",
    "command": "answers",
    "change": "before",
    "dump_record": "line",
    "dump_table": "columns",
    "schema_version": "version",
}


@fuzz_settings("databases")
@given(table=st.sampled_from(sorted(_TABLES)), data=st.data())
def test_fuzz_damaged_databases(base_files: Path, table: str, data: st.DataObject) -> None:
    with sandbox() as folder:
        db = folder / "g.db"
        shutil.copy(base_files / "game.db", db)
        conn = sqlite3.connect(db)
        try:
            column = data.draw(
                st.sampled_from(
                    [_TABLES[table]] + (["kind", "key"] if table == "object" else [])
                    + (["order_text", "events", "options", "seed"] if table == "command" else [])
                )
            )  # fmt: skip
            # Rows are found by their text: some tables are WITHOUT ROWID.
            texts = [t for (t,) in conn.execute(f"SELECT {column} FROM {table}")]
            if texts:
                text = data.draw(st.sampled_from(texts))
                value = data.draw(damaged_row(str(text)))
                conn.execute(f"UPDATE OR IGNORE {table} SET {column} = ? WHERE {column} IS ?",
                             (value, text))  # fmt: skip
                conn.commit()
        finally:
            conn.close()
        for args, stdin in (
            (["empire", "show", "--db", "g.db", "--as", "1"], ""),
            (["empire", "history", "--db", "g.db", "--json"], ""),
            (["empire", "replay", "1", "--db", "g.db"], ""),
            (["empire", "world", "show", "--db", "g.db"], ""),
            (["empire", "world", "export", "--db", "g.db", "--out", "o.xdump"], ""),
        ):
            _play(folder, "databases", args, stdin, may_write=["o.xdump"])
        _play(
            folder,
            "databases",
            ["empire", "attack", "6,0", "--db", "g.db", "--as", "1", "--seed", "1"],
            FRONT_ANSWERS,
            may_write=["g.db"],
        )


@fuzz_settings("prompt answers")
@given(play=PLAY, answers=ANSWERS)
def test_fuzz_prompt_answers(play: tuple[str, list[str], str], answers: str) -> None:
    name, order, _ = play
    with sandbox() as folder:
        shutil.copy(EMPIRE / name, folder / "w.toml")
        _play(
            folder,
            "prompt answers",
            ["empire", *order, "--world", "w.toml", "--as", "1", "--seed", "5", "--out", "o.toml"],
            answers,
            may_write=["o.toml"],
        )
