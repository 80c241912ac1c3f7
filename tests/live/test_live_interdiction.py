"""Interdiction of the units that move in after an attack (INTERDICT_ATT, on in 4.4.1's
default configuration), checked against the live server.

2's artillery at 4,0 has an interdiction mission over 2,0; 1's two cavalry help take 2,0
and move in.  The server prints '2 art  artillery #0 fires at you at 2,0', does not
halve the volley for aim when the target is a sector, files news (a draw), reports each
unit's damage ('\tcav  cavalry #1 takes 18') and then 'damaged from'.  bellum runs the
server's mission engine for it (combat/missions.py); the recorded vectors
attack-interdiction and attack-interdicted pin the same rules draw by draw.
"""

from __future__ import annotations

from pathlib import Path

from live_support import DEITY, DEITY_PASSWORD, FRONT, EmpireGame

from bellum.client.live import play
from bellum.empire.events import ScriptedPrompter

INTERDICTION = [
    *FRONT,
    "desi 4,0 +",
    "give m 4,0 10",
    "give c 4,0 100",
    "edit l 4,0 o 2 O 2",
    "edit l 4,0 e 100 m 127",
    "build l 4,0 art",
    "edit u 0 O 2 e 100 m 127 M 25 s 40 g 10",
    "mission land 0 interdiction 2,0 2",
    "build l 0,0 cav",
    "edit u 1 O 1 e 100 m 127 M 20",
    "build l 0,0 cav",
    "edit u 2 O 1 e 100 m 127 M 20",
]


def test_live_interdiction_of_units_moving_in(empire_game: EmpireGame, tmp_path: Path) -> None:
    empire_game.deity(*INTERDICTION)
    with empire_game.session("1", "1") as me, empire_game.session(DEITY, DEITY_PASSWORD) as god:
        done = play(
            me,
            tmp_path / "w.db",
            "attack 2,0",
            prompter=ScriptedPrompter(["99", "Y", "0", "Y"]),
            check=god,
        )
    assert "art  artillery #0 fires at you at 2,0" in done.transcript.text()  # the server did
    assert done.check is not None and done.check.differences == []
