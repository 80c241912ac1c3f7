"""Server-recorded vectors played again on the real server with ``--live --check``.

Each world of a vector is built on a fresh test-mode game by the deity commands of
``tools/server-oracle/toml2setup.py``; country 1 plays the vector's command with its
answers through bellum's command line, and bellum's resolution must match the
server's transcript byte for byte.  These are the differences the first live games
found (issue 25): the bell before "Incoming shells" (the client dropped control
characters), an own sector without mobility next to the target (the server says
nothing about it), and a paradrop whose path is asked for (the map around it is the
country's own, blank in a world it has not looked at: the rest must match too).
"""

from __future__ import annotations

import re
import tomllib
from pathlib import Path

import pytest
from live_support import DEITY_PASSWORD, EmpireGame, world_setup

from clirunner import bellum

ROOT = Path(__file__).resolve().parents[2]
VECTORS = ROOT / "tests" / "vectors"


@pytest.mark.parametrize(
    ("name", "shows"),
    [
        ("board-approach-sector", "\aIncoming shells do "),
        ("attack-zero-mobility", "Number of mil from wilderness at 0,0"),
        ("paradrop-path-prompt", "\n       \n        \n       \n<2: 4,0> "),
    ],
)
def test_live_vector_is_checked_byte_for_byte(
    empire_server: Path, tmp_path: Path, name: str, shows: str
) -> None:
    vector = tomllib.loads((VECTORS / f"{name}.toml").read_text())
    econfig, deity, players = world_setup(ROOT / vector["world"])
    game = EmpireGame(empire_server, econfig)
    try:
        game.start()
        game.deity(*deity)
        for country, lines in players.items():
            with game.session(country, country) as player:
                for line in lines:
                    player.command(line)
        command = vector["command"].split()
        r = bellum("empire", *command, "--as", "1", "--db", str(tmp_path / "w.db"),
                   "--live", game.address, "--check", stdin="".join(a + "\n" for a in vector["answers"]),
                   env={"BELLUM_PASSWORD": "1", "BELLUM_DEITY_PASSWORD": DEITY_PASSWORD})  # fmt: skip
    finally:
        game.stop()
    assert r.returncode == 0, r.stdout + r.stderr
    assert re.search(r"^check: .* matches the server's transcript byte for byte", r.stderr, re.M)
    assert shows in r.stdout
    if "zero" in name:  # the sector without mobility is passed over without a word
        assert "1,1" not in r.stdout
