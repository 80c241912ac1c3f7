"""Rewriting a world file keeps what the user wrote: comments, order, layout; only the
values the command changed change (tomlkit), and the result is always the right world."""

from __future__ import annotations

import re
import tomllib
from pathlib import Path

import pytest

from bellum.empire.io import toml as worldfile
from bellum.empire.io.toml import dumps, parse_world, update_text, world_to_data
from bellum.empire.world import Relation
from clirunner import ROOT, bellum

EX = ROOT / "examples" / "empire"

COMMENTED = """# My front line, kept by hand.
schema_version = 1

[world]
size = [64, 32]   # the game's WORLD_X x WORLD_Y
fill = "wilderness"
fill_eff = 100

# --- countries -------------------------------------------------------
[[nation]]
name = "North"    # name before number: my order, not the writer's
cnum = 1
money = 25000
relations = { 2 = "at-war" }

[[nation]]
cnum = 2
name = "South"
money = 25000
capital = [24, 0]
relations = { 1 = "at-war" }

# --- the attack ------------------------------------------------------
[[sector]]
at = [0, 0]
des = "wilderness"
owner = 1
eff = 100
mob = 127    # full mobility
mil = 200
civ = 100

[[sector]]
# the target
at = [2, 0]
des = "wilderness"
owner = 2
eff = 100
mob = 80
mil = 40
civ = 100
"""


def attack(path: Path) -> None:
    r = bellum("empire", "attack", "2,0", "--world", str(path), "--as", "1", "--seed", "1",
               "--mil", "0,0=150", "--move-in", "0")  # fmt: skip
    assert r.returncode == 0, r.stderr


def comments(text: str) -> list[str]:
    """The comments of a TOML text (a ``#`` outside a string), in order."""
    found = []
    for line in text.splitlines():
        bare = re.sub(r'"(?:[^"\\]|\\.)*"', '""', line)
        if "#" in bare:
            found.append(bare[bare.index("#") :].strip())
    return found


def test_comments_order_and_unchanged_values_survive(tmp_path: Path) -> None:
    path = tmp_path / "front.toml"
    path.write_text(COMMENTED)
    attack(path)
    text = path.read_text()
    assert comments(text) == comments(COMMENTED)
    assert 'name = "North"    # name before number: my order, not the writer\'s\ncnum = 1' in text
    assert "size = [64, 32]   # the game's WORLD_X x WORLD_Y\n" in text
    assert "mob = 58    # full mobility\nmil = 185\n" in text  # changed in place, comment kept
    assert '# the target\nat = [2, 0]\ndes = "wilderness"\nowner = 1\n' in text
    # Every line not about a changed value is still there, in the same order.
    kept = [line for line in COMMENTED.splitlines() if line in text.splitlines()]
    assert len(kept) >= len(COMMENTED.splitlines()) - 12


def test_the_rewritten_file_is_the_world_the_plain_writer_would_write(tmp_path: Path) -> None:
    styled, plain = tmp_path / "styled.toml", tmp_path / "plain.toml"
    styled.write_text(COMMENTED)
    plain.write_text(dumps(world_to_data(parse_world(tomllib.loads(COMMENTED)))))
    attack(styled)
    attack(plain)
    assert world_to_data(parse_world(tomllib.loads(styled.read_text()))) == world_to_data(
        parse_world(tomllib.loads(plain.read_text()))
    )


@pytest.mark.parametrize("name", ["vector-a", "cavalry", "capital", "interdiction", "reaction"])
def test_the_example_worlds_keep_their_headers(name: str, tmp_path: Path) -> None:
    source = EX / f"{name}.toml"
    header = next(line for line in source.read_text().splitlines() if "bellum empire" in line)
    command = header.lstrip("# ").split()
    out = tmp_path / "after.toml"
    argv = [str(source) if a.startswith("examples/") else str(out) if a == "after.toml" else a
            for a in command[1:]]  # fmt: skip
    r = bellum(*argv)
    assert r.returncode == 0, r.stderr
    assert comments(out.read_text()) == comments(source.read_text())


def test_an_unchanged_world_is_the_same_text(tmp_path: Path) -> None:
    world = parse_world(tomllib.loads(COMMENTED))
    assert update_text(COMMENTED, world) == COMMENTED


def test_a_file_the_update_cannot_follow_is_written_afresh(
    monkeypatch: pytest.MonkeyPatch,
) -> None:
    world = parse_world(tomllib.loads(COMMENTED))
    world.nations[1].money = 1
    monkeypatch.setattr(worldfile, "_merge_document", lambda *args: None)  # a merge that fails
    text = update_text(COMMENTED, world)
    assert text == dumps(world_to_data(world))
    assert "#" not in text


def test_entries_that_appear_and_disappear(tmp_path: Path) -> None:
    world = parse_world(tomllib.loads(COMMENTED))
    world.sectors[(4, 0)].mil = 7  # a fill sector that now needs an entry of its own
    del world.nations[2].relations[1]
    world.nations[1].relations.pop(2)
    text = update_text(COMMENTED, world)
    again = parse_world(tomllib.loads(text))
    assert world_to_data(again) == world_to_data(world)
    assert comments(text) == comments(COMMENTED)
    assert text.endswith('\n[[sector]]\nat = [4, 0]\ndes = "wilderness"\neff = 100\nmil = 7\n')


def test_a_fight_keeps_the_order_of_keys_in_inline_tables(tmp_path: Path) -> None:
    """support.toml writes ``items = { gun = 10, shell = 20 }``; the writer's own order
    would put shell before gun (issue 29, item 9)."""
    path = tmp_path / "support.toml"
    path.write_text(
        (EX / "support.toml").read_text().replace("gun = 4, shell = 40", "shell = 40, gun = 4")
    )
    r = bellum("empire", "attack", "2,0", "--world", str(path), "--as", "1", "--seed", "1",
               "--mil", "0,0=100", "--move-in", "0")  # fmt: skip
    assert r.returncode == 0, r.stderr
    text = path.read_text()
    assert text.count("items = { gun = 10, shell = 19 }\n") == 2
    assert text.count("items = { shell = 38, gun = 4 }\n") == 2


def test_keys_that_come_into_an_inline_table_follow_the_others() -> None:
    stocked = COMMENTED.replace("civ = 100\n", "civ = 100\nitems = { gun = 10, shell = 20 }\n", 1)
    world = parse_world(tomllib.loads(stocked))
    items = world.sectors[(0, 0)].items
    items.update(shell=19, iron=5)
    text = update_text(stocked, world)
    assert "items = { gun = 10, shell = 19, iron = 5 }\n" in text
    items.pop("gun")
    assert "items = { shell = 19, iron = 5 }\n" in update_text(text, world)
    world.nations[1].relations[2] = Relation.ALLIED
    assert 'relations = { 2 = "allied" }' in update_text(stocked, world)
