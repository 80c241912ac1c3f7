"""Tech-adjusted statistics and float32 table values against Appendix A."""

from __future__ import annotations

import marshal
import shutil
import sys
import tomllib
from pathlib import Path

import pytest

from bellum.empire import tables as t

T = t.stock()


def test_table_floats_are_float32() -> None:
    assert T.sector("wilderness").mob1 == 0.4000000059604645
    assert int(150 * T.sector("-").mob1) == 60
    assert int(127 / T.sector("-").mob1) == 317
    assert int(39 / T.sector("-").mob1) == 97


def test_cavalry_at_tech_100_and_130() -> None:
    cav = T.land["cav"]
    assert t.land_att(cav, 100) == pytest.approx(1.6016, abs=5e-5)
    assert t.land_spd(cav, 100) == 37
    assert f"{t.land_att(cav, 130):.2f}" == "1.68"
    assert t.land_spd(cav, 130) == 38


def test_infantry_at_tech_100() -> None:
    inf = T.land["inf"]
    assert t.land_def(inf, 100) == pytest.approx(1.92426, abs=5e-6)
    assert t.land_spd(inf, 100) == 28


def test_no_surplus_tech_keeps_base_values() -> None:
    cav = T.land["cav"]
    assert t.land_att(cav, 10) == cav.att
    assert t.land_frg(T.land["art"], 0) == T.land["art"].frg


def test_ships_at_tech_100() -> None:
    assert (t.ship_armor(T.ships["cs"], 100), t.ship_speed(T.ships["cs"], 100)) == (23, 30)
    assert (t.ship_armor(T.ships["bb"], 100), t.ship_speed(T.ships["bb"], 100)) == (103, 28)


def test_marine_and_infantry_attack_values_at_tech_150() -> None:
    assert f"{100 * t.land_att(T.land['mar'], 150):.0f}" == "158"
    assert f"{0.5 * 100 * t.land_att(T.land['inf'], 150):.0f}" == "70"


def test_techfact() -> None:
    assert t.techfact(100, 37) == 18.5


def test_tables_are_complete() -> None:
    assert len(T.sectors) == 34 and len(T.land) == 22
    assert len(T.ships) == 36 and len(T.planes) == 35 and len(T.items) == 14
    assert T.sector("^").is_mountain and T.sector(".").is_sea
    assert T.land["mar"].has("marine") and T.land["eng"].has("engineer")


@pytest.fixture
def data_copy(tmp_path: Path, monkeypatch: pytest.MonkeyPatch) -> Path:
    """The table files in a folder of their own, read by ``t._read``, bytecode allowed."""
    folder = tmp_path / "data"
    shutil.copytree(t.DATA, folder, ignore=shutil.ignore_patterns("__pycache__"))
    monkeypatch.setattr(t, "DATA", folder)
    monkeypatch.setattr(sys, "dont_write_bytecode", False)
    return folder


def test_the_parsed_tables_are_kept_and_read_back_the_same(data_copy: Path) -> None:
    parsed = tomllib.loads((data_copy / "land.toml").read_text("utf-8"))
    assert t._read("land.toml") == parsed  # parsed, and kept
    [kept] = (data_copy / "__pycache__").glob("land.toml.*.marshal")
    assert t._read("land.toml") == parsed  # read back from the cache
    # A cache that is not what it says is parsed again: it only ever saves time.
    kept.write_bytes(marshal.dumps(((0, 0), {"inf": {"uid": -1}})))
    assert t._read("land.toml") == parsed
    kept.write_bytes(b"not marshal data")
    assert t._read("land.toml") == parsed


def test_an_edited_table_file_is_parsed_again(data_copy: Path) -> None:
    t._read("items.toml")
    path = data_copy / "items.toml"
    path.write_text(path.read_text("utf-8") + "\n[zz]\nuid = 99\n", "utf-8")
    assert t._read("items.toml")["zz"] == {"uid": 99}


def test_no_cache_is_written_without_bytecode(
    data_copy: Path, monkeypatch: pytest.MonkeyPatch
) -> None:
    monkeypatch.setattr(sys, "dont_write_bytecode", True)
    t._read("ships.toml")
    assert not (data_copy / "__pycache__").exists()
