"""A printed turn plan, played on the real server with ``--live``.

The deity syncs the whole game (a player's own view shows no enemy sectors to plan
against), country 1 plans its turn with ``--live HOST:PORT``, and every printed order is
played as printed: each must run on the server (exit 0) and join the history.
"""

from __future__ import annotations

import json
import shlex
from pathlib import Path

import pytest
from live_support import DEITY, DEITY_PASSWORD, FRONTS, EmpireGame

from bellum.empire.io.sqlite.store import Store
from clirunner import bellum

PASSWORDS = {"BELLUM_PASSWORD": "1", "BELLUM_DEITY_PASSWORD": DEITY_PASSWORD}


@pytest.fixture(scope="module")
def game(empire_game: EmpireGame) -> EmpireGame:
    empire_game.deity(*FRONTS)
    return empire_game


def test_live_plan_orders_play_on_the_server(game: EmpireGame, tmp_path: Path) -> None:
    db = tmp_path / "w.db"
    synced = bellum("empire", "sync", game.address, "--country", DEITY, "--db", str(db),
                    env={"BELLUM_PASSWORD": DEITY_PASSWORD})  # fmt: skip
    assert synced.returncode == 0, synced.stderr
    ran = bellum("empire", "plan", "--db", str(db), "--as", "1", "--jobs", "1",
                 "--live", game.address, "--json", env=PASSWORDS)  # fmt: skip
    assert ran.returncode == 0, ran.stderr
    attacks = json.loads(ran.stdout)["waves"][0]["attacks"]
    assert attacks, "the fronts offer targets"
    for a in attacks:
        words = shlex.split(a["command"])
        assert words[:2] == ["bellum", "empire"] and "--live" in words and "--seed" not in words
        played = bellum(*words[1:], env=PASSWORDS)
        assert played.returncode == 0, played.stderr
    store = Store.open(db)
    try:
        history = store.history()
    finally:
        store.close()
    played_orders = [str(r.order) for r in history if r.command != "sync"]
    assert played_orders == [a["order"] for a in attacks]
