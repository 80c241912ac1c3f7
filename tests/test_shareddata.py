"""Tests that need ../shared skip visibly in a fresh clone and fail under CI."""

from __future__ import annotations

from pathlib import Path

import pytest

import shareddata


def test_a_missing_shared_file_skips_with_its_path(
    monkeypatch: pytest.MonkeyPatch, tmp_path: Path
) -> None:
    monkeypatch.setattr(shareddata, "SHARED", tmp_path / "shared")
    monkeypatch.delenv("BELLUM_REQUIRE_SHARED", raising=False)
    with pytest.raises(pytest.skip.Exception, match=r"needs .*shared/data/x\.xdump"):
        shareddata.shared_path("data", "x.xdump")


def test_under_ci_a_missing_shared_file_fails(
    monkeypatch: pytest.MonkeyPatch, tmp_path: Path
) -> None:
    monkeypatch.setattr(shareddata, "SHARED", tmp_path / "shared")
    monkeypatch.setenv("BELLUM_REQUIRE_SHARED", "1")
    with pytest.raises(pytest.fail.Exception, match="CI must run it"):
        shareddata.shared_path("data", "x.xdump")


def test_a_present_shared_file_is_returned(monkeypatch: pytest.MonkeyPatch, tmp_path: Path) -> None:
    (tmp_path / "data").mkdir()
    (tmp_path / "data" / "x.xdump").write_text("")
    monkeypatch.setattr(shareddata, "SHARED", tmp_path)
    monkeypatch.setenv("BELLUM_REQUIRE_SHARED", "1")
    assert shareddata.shared_path("data", "x.xdump") == tmp_path / "data" / "x.xdump"


def test_the_ci_script_requires_the_shared_data() -> None:
    script = (shareddata.ROOT / ".ci" / "run").read_text()
    assert "export BELLUM_REQUIRE_SHARED=1" in script
