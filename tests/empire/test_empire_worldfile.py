"""World files: validation messages, round trips and atomic saving."""

from __future__ import annotations

import os
import tomllib
from pathlib import Path

import pytest
from conftest import NATIONS

from bellum.empire.io.toml import load_world, parse_world, save_world, world_to_data
from bellum.errors import InputError


def parse(extra: str) -> None:
    parse_world(tomllib.loads(NATIONS + extra), "w.toml")


@pytest.mark.parametrize(
    ("extra", "message"),
    [
        (
            '[[sector]]\nat = [1, 0]\ndes = "wilderness"\n',
            "w.toml:sector[0]: at: 1,0 is not a sector",
        ),
        (
            '[[sector]]\nat = [2, 0]\ndes = "jungle"\n',
            "w.toml:sector 2,0: des: unknown sector type",
        ),
        (
            '[[sector]]\nat = [2, 0]\ndes = "wilderness"\nmil = -5\n',
            "w.toml:sector 2,0: mil: -5 is below 0",
        ),
        (
            '[[sector]]\nat = [2, 0]\ndes = "wilderness"\nowner = 9\n',
            "w.toml:sector 2,0: owner: no country 9",
        ),
        (
            '[[sector]]\nat = [2, 0]\ndes = "wilderness"\neff = "x"\n',
            "w.toml:sector 2,0: eff: expected int",
        ),
        (
            '[[sector]]\nat = [2, 0]\ndes = "wilderness"\nmobility = 5\n',
            "w.toml:sector 2,0: mobility: unknown field",
        ),
        (
            '[[sector]]\nat = [2, 0]\ndes = "sea"\nowner = 1\n',
            "w.toml:sector 2,0: owner: a sea sector cannot be owned",
        ),
        (
            '[[sector]]\nat = [2, 0]\ndes = "sea"\n[[unit]]\nuid = 0\ntype = "inf"\nowner = 1\nat = [2, 0]\n',
            "w.toml:unit #0: at: a land unit cannot stand on a sea sector",
        ),
        (
            '[[unit]]\nuid = 0\ntype = "tank"\nowner = 1\nat = [2, 0]\n',
            "w.toml:unit #0: type: unknown land unit type",
        ),
        (
            '[[unit]]\nuid = 0\ntype = "cav"\nowner = 1\nat = [2, 0]\nmil = 50\n',
            "w.toml:unit #0: mil: 50 is more than a cavalry holds (20)",
        ),
        ("[options]\nFOO = true\n", "w.toml:options: FOO: unknown option"),
    ],
)
def test_validation_messages(extra: str, message: str) -> None:
    with pytest.raises(InputError) as err:
        parse(extra)
    assert str(err.value).startswith(message)
    assert "\n" not in str(err.value)


def test_duplicate_nation() -> None:
    with pytest.raises(InputError, match="country 1 is defined twice"):
        parse('[[nation]]\ncnum = 1\nname = "again"\n')


def test_missing_and_broken_files(tmp_path: Path) -> None:
    with pytest.raises(InputError, match="no such world file"):
        load_world(tmp_path / "nope.toml")
    bad = tmp_path / "bad.toml"
    bad.write_text("[world\n")
    with pytest.raises(InputError, match=r"bad\.toml: malformed TOML"):
        load_world(bad)


def test_round_trip_is_stable(vector_a_path: Path, tmp_path: Path) -> None:
    w = load_world(vector_a_path)
    out = tmp_path / "copy.toml"
    save_world(w, out)
    again = load_world(out)
    assert world_to_data(again) == world_to_data(w)
    assert again.sector((2, 0)).mil == 40
    assert again.sector((10, 10)).type.name == "wilderness"


def test_save_is_atomic(
    vector_a_path: Path, tmp_path: Path, monkeypatch: pytest.MonkeyPatch
) -> None:
    out = tmp_path / "w.toml"
    out.write_text("schema_version = 1  # original\n")

    def boom(src: str, dst: str) -> None:
        raise OSError(28, "disk full")

    monkeypatch.setattr(os, "replace", boom)
    with pytest.raises(InputError, match=r"w\.toml: cannot write: disk full"):
        save_world(load_world(vector_a_path), out)
    assert out.read_text() == "schema_version = 1  # original\n"
    assert [p.name for p in tmp_path.iterdir()] == ["w.toml"]
