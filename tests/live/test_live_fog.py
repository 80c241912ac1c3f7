"""What a player can see on the real server: the bmap a sync stores, and what it draws."""

from __future__ import annotations

from pathlib import Path

from live_support import DEITY, DEITY_PASSWORD, FRONT, PARADROP, EmpireGame

from bellum.client.live import play, sync
from bellum.empire.events import ScriptedPrompter
from bellum.empire.intel.reports import map_area, parse_map
from bellum.empire.service import open_source


def test_sync_stores_the_players_bmap(empire_game: EmpireGame, tmp_path: Path) -> None:
    empire_game.deity(*FRONT, *PARADROP)
    with empire_game.session("1", "1") as me:
        me.command("map -2:4,-1:1")  # 1 sees its neighbourhood: 2's highway is land ('?')
        synced = sync(me, tmp_path / "w.db")
        drawn = parse_map(me.command(f"bmap {map_area(synced.world.geometry)}").text(),
                          synced.world.geometry)  # fmt: skip
    with open_source(None, tmp_path / "w.db") as source:
        bmap = source.world.bmaps[1]
    assert drawn[(0, 0)] == "*" and drawn[(2, 0)] == "?"
    assert {c: bmap.at(c) for c in drawn} == drawn
    assert sum(r.count(" ") for r in bmap.rows) == 32 * 16 - len(drawn)


def test_a_paradrops_route_question_draws_the_bmap(empire_game: EmpireGame, tmp_path: Path) -> None:
    """The route ``jj`` stops at 4,0 without ``h``: the server draws 1's bmap around it."""
    with empire_game.session("1", "1") as me, empire_game.session(DEITY, DEITY_PASSWORD) as god:
        me.command("map -2:6,-1:1")
        done = play(me, tmp_path / "d.db", "paradrop 0 . 0,0 jj", prompter=ScriptedPrompter([""]),
                    check=god)  # fmt: skip
    assert "<2: 4,0>" in done.transcript.text()
    assert done.check is not None
    assert done.check.differences == []
