"""Safe file writing: atomic, through links, keeping permissions, one-line errors."""

from __future__ import annotations

import os
import stat
from pathlib import Path

import pytest

from bellum.errors import InputError
from bellum.fileio import check_writable, write_atomic


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
