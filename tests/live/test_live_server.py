"""The test game itself: fresh, deterministic, and followed seed by seed."""

from __future__ import annotations

from pathlib import Path

import live_support
import pytest
from client_support import Turn, conversation
from live_support import EmpireGame

from bellum.empire.events import ScriptedPrompter

#: The recorded setup: two countries at war, 100 mil at 0,0 (1), 40 mil at 2,0 (2).
SETUP = [t.line for t in conversation("deity-setup") if t.side == "C"][3:-1]


def recorded_transcript(name: str, command: str) -> str:
    """What a player saw of ``command`` in a recorded conversation, as bellum writes it."""
    turns = conversation(name)
    text, i = "", turns.index(Turn("C", command)) + 1
    while not turns[i].line.startswith("6 "):
        ident, _, line = turns[i].line.partition(" ")
        if ident == "4":
            answer = turns[i + 1].line
            text += line + ("" if answer in ("aborted", "ctld") else answer) + "\n"
            i += 2
        else:
            text += line + "\n"
            i += 1
    return text


def test_live_server_replays_the_recorded_attack_with_the_same_seed(
    empire_game: EmpireGame,
) -> None:
    """The recorded conversation ran on a fresh game after one xdump and SETUP; here the
    same commands print the same transcript, so games are fresh and seeds are followed."""
    empire_game.deity("xdump nation-status *", *SETUP)
    assert empire_game.seeds.next_seed == 21
    with empire_game.session("1", "1") as session:
        out = session.command("attack 2,0", prompter=ScriptedPrompter(["50"]))
    assert out.seed == 21 and empire_game.seeds.commands == 21
    assert out.text() == recorded_transcript("attack-interrupted", "attack 2,0")


def test_live_server_tests_skip_with_a_reason_without_the_tarball(
    monkeypatch: pytest.MonkeyPatch, tmp_path: Path
) -> None:
    monkeypatch.setattr(live_support, "TARBALL", tmp_path / "empire-4.4.1.tar.gz")
    monkeypatch.delenv("BELLUM_REQUIRE_SHARED", raising=False)
    with pytest.raises(pytest.skip.Exception, match=r"tarball is not at .*live-server tests"):
        live_support.empire_install()


def test_live_server_game_is_stopped_and_removed(empire_server: Path) -> None:
    game = EmpireGame(empire_server)
    game.start()
    pid, folder = game.process.pid if game.process else 0, game.folder
    try:
        with game.session("POGO", "peter") as session:
            assert session.btus == 640
    finally:
        game.stop()
    assert game.process is not None and game.process.returncode is not None
    assert not folder.exists() and pid
