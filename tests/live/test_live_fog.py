"""What a player can see on the real server: the bmap a sync stores, and what it draws."""

from __future__ import annotations

import json
from pathlib import Path

from live_support import DEITY, DEITY_PASSWORD, FRONT, PARADROP, EmpireGame

from bellum.client.intel import Gather
from bellum.client.live import play, sync
from bellum.empire.events import ScriptedPrompter
from bellum.empire.intel.reports import map_area, parse_map
from bellum.empire.service import history, open_source
from clirunner import bellum


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


def _deity_tables(game: EmpireGame) -> dict[str, list[str]]:
    """Every game-state table as the deity reads it (the timestamps left out)."""
    tables = {}
    with game.session(DEITY, DEITY_PASSWORD) as god:
        for name in ("sect", "ship", "plane", "land", "nuke", "nat", "news", "lost", "trade"):
            rows = god.command(f"xdump {name} *").text().splitlines()
            tables[name] = [r for r in rows[1:] if not r.startswith("/")]
    return tables


def test_the_attacks_estimate_is_not_free(empire_game: EmpireGame) -> None:
    """Why bellum sends no ``--live`` probe: an attack aborted at its first question
    costs its 3 BTUs and tells the defender (docs/fog.md), so the game's state changes."""
    before = _deity_tables(empire_game)
    with empire_game.session("1", "1") as me:
        btus = me.btus
        done = me.command("attack 2,0")  # no prompter: the first question is aborted
    assert done.text().startswith("2,0 is a 100% 2 highway with approximately 40 military.\n")
    assert "No troops for attack..." in done.text()
    assert btus is not None and done.btus == btus - 3
    after = _deity_tables(empire_game)
    changed = {name for name in before if before[name] != after[name]}
    assert changed == {"nat"}  # 1's BTUs (and its login times): no sector, unit or ship
    with empire_game.session("2", "2") as them:
        assert "considered attacking you @" in them.command("read no").text()


def test_sync_gathers_what_lookouts_and_spies_see(empire_game: EmpireGame, tmp_path: Path) -> None:
    """The sync's costly reads, each behind its flag; a later sync keeps what it saw."""
    empire_game.deity("build l 0,0 inf", "edit u 1 O 1 e 100 m 30 M 30",
                      "build l 2,0 art", "edit u 2 O 2 e 90 m 30 M 20")  # fmt: skip
    db = tmp_path / "seen.db"
    with empire_game.session("1", "1") as me:
        plain = sync(me, db)
        assert [k for k in plain.world.observations if not k.startswith("nation")] == []
        btus = me.btus
        done = sync(me, db, Gather(spend_btus=True, risk_spies=True))
        assert btus is not None and me.btus is not None and me.btus < btus
    seen = done.world.observations
    highway = seen["sector 2,0"].fields
    assert highway["owner"].value == 2 and highway["type"].value == "highway"
    assert highway["mil"].lo is not None and highway["mil"].lo <= 40 <= (highway["mil"].hi or 0)
    assert seen["unit 2"].fields["type"].value == "art"
    assert seen["nation 2"].fields["tech"].how == "band"
    with empire_game.session("1", "1") as me:
        later = sync(me, db)  # no flags: what the spies saw stays
    assert later.world.observations["sector 2,0"] == seen["sector 2,0"]
    with open_source(None, db) as source:
        assert source.world.observations["unit 2"] == seen["unit 2"]
        (*_, last) = history(db)
    assert last.result["intelligence"]["commands"] == ["report *"]


def test_odds_from_a_players_sync(empire_game: EmpireGame, tmp_path: Path) -> None:
    """The end-to-end promise: sync as a player, then the odds of an attack on an enemy
    sector the country has seen, with the list of inputs (docs/fog.md)."""
    db = tmp_path / "odds.db"
    env = {"BELLUM_PASSWORD": "1"}
    r = bellum("empire", "sync", empire_game.address, "--as", "1", "--db", str(db),
               "--spend-btus", "--risk-spies", env=env)  # fmt: skip
    assert r.returncode == 0, r.stderr
    r = bellum("empire", "odds", "attack", "2,0", "--db", str(db), "--as", "1", "--json",
               "--mil", "0,0=50", "--fog-draws", "2", "--max-runs", "200", "--seed", "1")  # fmt: skip
    assert r.returncode == 0, r.stderr
    doc = json.loads(r.stdout)
    assert 0 <= doc["p_attacker_wins"] <= 1
    inputs = {i["name"]: i for i in doc["inputs"]}
    mil = inputs["2,0.mil"]
    assert mil["seen"] and mil["status"] == "known" and mil["source"] in ("llookout", "spy")
    assert inputs["2,0.mines"]["status"] == "unknown"
