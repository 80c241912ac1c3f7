"""The smallest realistic world, made again on the real server, is the one committed.

``tools/realistic.py`` makes ``benchmarks/worlds/w32x16.xdump`` and its plans from a
seed: fairland's map, the set-up's deity commands, the deity's sync, the plans found
on it, each played on the server as its country with a deity checking.  Made again
here, the world must be the same object for object, and the plans the same, each
with the same transcript from the server.
"""

from __future__ import annotations

import random
from pathlib import Path

from empire_server import EmpireGame
from midgame import Mix, deity_world, make_midgame
from realistic import DEFAULT_OUT, WORLDS, load_plans, load_world, make_world

from bellum.empire.io.sqlite.codec import world_rows
from bellum.empire.world import Relation


def test_live_realistic_smallest_world_is_made_again_as_committed(
    empire_server: Path, tmp_path: Path
) -> None:
    spec = min(WORLDS, key=lambda s: s.width * s.height)
    made, plans = make_world(spec, tmp_path, install=empire_server)
    again = world_rows(load_world(tmp_path / f"{spec.name}.xdump"))
    assert again == world_rows(load_world(DEFAULT_OUT / f"{spec.name}.xdump"))
    worlds, committed = load_plans()
    assert [c.name for c in made.countries] == [c["name"] for c in worlds[spec.name]["countries"]]
    mine = [p for p in committed if p.world == spec.name]
    assert [p.to_toml() for p in plans] == [p.to_toml() for p in mine]
    assert [p.transcript for p in plans] == [p.transcript for p in mine]


def test_live_realistic_a_random_mix_sets_up(empire_server: Path) -> None:
    """Random play (issue 25) draws its own mix: any mix the set-up draws runs on the
    server without a refused command, and the game it leaves is at war."""
    game = EmpireGame(empire_server, {"WORLD_X": 32, "WORLD_Y": 16})
    try:
        made = make_midgame(game, 7, Mix.random(random.Random(7)))
        world = deity_world(game)
    finally:
        game.stop()
    assert made.wars and len(made.countries) == len(world.nations) >= 2
    at_war = {(a, b) for a, n in world.nations.items() for b, r in n.relations.items()
              if r is Relation.AT_WAR}  # fmt: skip
    assert {(a, b) for a, b in made.wars} <= at_war
