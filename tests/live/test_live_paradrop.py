"""paradrop on the real server, checked against bellum: the shared S5 scenario.

Ten transports at 1's airfield 0,0 drop paratroopers on 2's highway 2,0 (40 mil),
built with the deity commands of ``shared/data/empire-paradrop/S5-runs-1-10.json``.
"""

from __future__ import annotations

from pathlib import Path

from live_support import DEITY, DEITY_PASSWORD, FRONT, PARADROP, EmpireGame

from bellum.client.live import play
from bellum.empire.events import ScriptedPrompter


def test_live_paradrop(empire_game: EmpireGame, tmp_path: Path) -> None:
    empire_game.deity(*FRONT, *PARADROP)
    with empire_game.session("1", "1") as me, empire_game.session(DEITY, DEITY_PASSWORD) as god:
        done = play(
            me,
            tmp_path / "w.db",
            "paradrop 0/1/2/3/4/5/6/7/8/9 . 0,0 2,0",
            prompter=ScriptedPrompter([]),
            check=god,
        )
    text = done.transcript.text()
    assert "Final air-assault strength:       70" in text  # the server did fight
    assert done.check is not None
    assert done.check.differences == []
