"""Safe file reading and writing: bounded, atomic, through links, keeping permissions,
never over a file of another kind, one-line errors."""

from __future__ import annotations

import os
import stat
from pathlib import Path

import pytest

from bellum.errors import InputError, UsageError
from bellum.fileio import (
    DUMP,
    SCENARIO,
    SQLITE_MAGIC,
    WORLD,
    check_overwrite,
    check_regular,
    check_writable,
    parse_toml,
    read_input,
    same_file,
    write_atomic,
)


def test_writes_and_replaces(tmp_path: Path) -> None:
    f = tmp_path / "w.toml"
    write_atomic(f, "one")
    write_atomic(f, "two")
    assert f.read_text() == "two"
    assert [p.name for p in tmp_path.iterdir()] == ["w.toml"]


def test_keeps_the_mode_of_the_file_it_replaces(tmp_path: Path) -> None:
    f = tmp_path / "w.toml"
    f.write_text("old")
    f.chmod(0o640)
    write_atomic(f, "new")
    assert stat.S_IMODE(f.stat().st_mode) == 0o640


def test_writes_through_a_symbolic_link(tmp_path: Path) -> None:
    real = tmp_path / "real.toml"
    real.write_text("old")
    link = tmp_path / "link.toml"
    link.symlink_to(real)
    write_atomic(link, "new")
    assert link.is_symlink() and real.read_text() == "new"


def test_refuses_read_only_files_and_non_files(tmp_path: Path) -> None:
    ro = tmp_path / "ro.toml"
    ro.write_text("keep")
    ro.chmod(0o444)
    with pytest.raises(InputError, match="read-only"):
        write_atomic(ro, "x")
    assert ro.read_text() == "keep"
    with pytest.raises(InputError, match="not a regular file"):
        write_atomic(tmp_path, "x")
    if os.path.exists("/dev/null"):
        with pytest.raises(InputError, match="not a regular file"):
            write_atomic("/dev/null", "x")


def test_missing_folder_and_empty_name(tmp_path: Path) -> None:
    with pytest.raises(InputError, match="no folder"):
        write_atomic(tmp_path / "nope" / "w.toml", "x")
    with pytest.raises(InputError, match="empty file name"):
        write_atomic("", "x")


def test_check_writable_refuses_what_write_atomic_would_and_writes_nothing(tmp_path: Path) -> None:
    ro = tmp_path / "ro.toml"
    ro.write_text("keep")
    ro.chmod(0o444)
    cases = [(ro, "read-only"), (tmp_path / "nope" / "w.toml", "no folder"), (tmp_path, "regular")]
    for path, why in cases:
        with pytest.raises(InputError, match=why):
            check_writable(path)
        with pytest.raises(InputError, match=why):
            write_atomic(path, "x")
    check_writable(tmp_path / "new.toml")
    assert sorted(p.name for p in tmp_path.iterdir()) == ["ro.toml"]


# -- reading ----------------------------------------------------------------------


def test_read_input_refuses_what_is_not_a_regular_file(tmp_path: Path) -> None:
    """A FIFO would block forever and /dev/zero never ends: both are refused at once."""
    fifo = tmp_path / "pipe"
    os.mkfifo(fifo)
    with pytest.raises(InputError, match=r"pipe: a pipe \(FIFO\), not a world file"):
        read_input(fifo, "world file")
    with pytest.raises(InputError, match="a directory, not a scenario"):
        read_input(tmp_path, "scenario")
    if os.path.exists("/dev/zero"):
        with pytest.raises(InputError, match="a device, not a dump file"):
            read_input("/dev/zero", "dump file")
    with pytest.raises(InputError, match="no such world file"):
        read_input(tmp_path / "none.toml", "world file")
    with pytest.raises(InputError, match="a pipe"):
        check_regular(fifo, "bellum database")


def test_read_input_reads_at_most_its_limit(tmp_path: Path) -> None:
    f = tmp_path / "big.toml"
    f.write_bytes(b"x" * 1000)
    assert read_input(f, limit=1000) == b"x" * 1000
    with pytest.raises(InputError, match="too big for a world file"):
        read_input(f, "world file", limit=999)


def test_parse_toml_refuses_what_pythons_reader_raises_on() -> None:
    assert parse_toml("a = 1", "w.toml") == {"a": 1}
    for text, why in (
        ("a = " + "9" * 5000, "too many digits"),
        ("a = " + "[" * 2000 + "]" * 2000, "nested too deep"),
        ("a = ", "Invalid value"),
    ):
        with pytest.raises(InputError, match=f"^w.toml: malformed TOML: .*{why}"):
            parse_toml(text, "w.toml")


# -- what an output may replace ---------------------------------------------------


def test_an_output_replaces_only_a_file_of_its_kind(tmp_path: Path) -> None:
    note = tmp_path / "notes.toml"
    note.write_text("remember the milk\n")
    with pytest.raises(InputError, match=r"notes\.toml: exists and is not a bellum world file"):
        write_atomic(note, "schema_version = 1\n", kind=WORLD)
    assert note.read_text() == "remember the milk\n"
    write_atomic(note, "schema_version = 1\n", kind=WORLD, force=True)
    write_atomic(note, "schema_version = 1\n[world]\n", kind=WORLD)  # a world now
    db = tmp_path / "g.db"
    db.write_bytes(SQLITE_MAGIC + bytes(100))
    with pytest.raises(InputError, match=r"\(it is an SQLite database\)"):
        write_atomic(db, "config sect\n", kind=DUMP)
    empty = tmp_path / "empty.xdump"
    empty.write_text("")
    write_atomic(empty, "config sect\n", kind=DUMP)
    scenario = tmp_path / "s.toml"
    scenario.write_text("schema_version = 1\n[map]\nwidth = 4\n")
    with pytest.raises(InputError, match=r"\(it is a Panzer scenario\)"):
        check_overwrite(scenario, WORLD)
    check_overwrite(scenario, SCENARIO)


def test_an_output_is_never_an_input(tmp_path: Path) -> None:
    a = tmp_path / "a.db"
    a.write_text("x")
    link = tmp_path / "link.db"
    link.symlink_to(a)
    from bellum.cli.options import refuse_same_file  # the command line's own check

    with pytest.raises(UsageError, match=r"--out .*link\.db names the --db file itself"):
        refuse_same_file(link, "--out", {"--db": a})
    refuse_same_file(tmp_path / "b.db", "--out", {"--db": a})
    refuse_same_file("-", "--out", {"--db": "-"})
    assert same_file(tmp_path / "new.toml", tmp_path / "." / "new.toml")


def test_a_secret_may_come_from_a_pipe_but_never_blocks_or_runs_on(tmp_path: Path) -> None:
    """``--password-file <(pass show game)``: a pipe is read when asked for, bounded."""
    r, w = os.pipe()
    os.write(w, b"secret\n")
    os.close(w)
    assert read_input(f"/dev/fd/{r}", "password file", 100, pipes=True) == b"secret\n"
    os.close(r)
    fifo = tmp_path / "fifo"
    os.mkfifo(fifo)
    assert read_input(fifo, "password file", 100, pipes=True) == b""  # no writer: empty
    r, w = os.pipe()
    os.write(w, b"x" * 200)
    os.close(w)
    with pytest.raises(InputError, match="too big for a password file"):
        read_input(f"/dev/fd/{r}", "password file", 100, pipes=True)
    os.close(r)
    with pytest.raises(InputError, match="a pipe"):
        read_input(fifo, "world file")  # other inputs still refuse pipes
