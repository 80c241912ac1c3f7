"""A player's sync, replayed from a conversation recorded with the real server (no server needed)."""

from __future__ import annotations

from dataclasses import replace
from pathlib import Path

import pytest
from client_support import FakeServer, conversation

from bellum.client import SeedCounter, Session
from bellum.client.errors import RemoteProtocolError
from bellum.client.live import compare, sync
from bellum.empire.io.sqlite.store import Store
from bellum.empire.rules import Rules
from bellum.empire.world import Relation


def test_client_sync_of_a_player_from_a_recorded_conversation(tmp_path: Path) -> None:
    db = tmp_path / "w.db"
    with FakeServer(conversation("player-sync")) as server:
        with Session.open(server.address, country="1", password="1") as session:
            done = sync(session, db)
        assert session.commands_sent == 66  # xdump reads, the bmap and the report
    assert server.errors == []
    world = done.world
    assert (world.geometry.width, world.geometry.height) == (32, 16)
    assert world.fog is not None and world.fog.viewer == 1
    assert sorted(world.sectors) == [(0, 0), (22, 0)]
    assert list(world.planes) == [0] and world.units == {}
    assert world.nations[1].relations == {2: Relation.AT_WAR}
    assert Rules.of(world.options).BLITZ is True
    assert world.bmaps[1].rows == [" " * 32] * 16
    tech = world.observations["nation 2"].fields["tech"]
    assert (tech.lo, tech.hi, tech.source) == (90, 111, "report")
    assert done.refused == {}
    store = Store.open(db)
    try:
        (entry,) = store.history()
        assert (entry.command, entry.words(), entry.server) == ("sync", [server.address],
                                                                 server.address)  # fmt: skip
        assert store.world().fog == world.fog
    finally:
        store.close()


def test_client_sync_seed_counter_follows_the_server() -> None:
    seeds = SeedCounter(commands=20)
    assert seeds.next_seed == 21
    assert seeds.count("attack 2,0", "2,0 is a 100% 2 highway...\n") == 21
    assert seeds.count("atack 2,0", '"atack" is not a legal command\n') is None
    assert seeds.count("attack 2,0", "You don't have the BTUs, bozo\n") is None
    assert seeds.count("__cmd added 21 0 0", "") is None
    assert seeds.next_seed == 1  # the test suite's way to pick the next command's seed
    assert seeds.count("xdump nat *", "XDUMP nat 17\n/0\n") == 1


def test_client_sync_transcripts_compare_line_by_line() -> None:
    assert compare("a\nb\n", "a\nb\n") == []
    assert compare("a\nb\n", "a\nc\n") == ["line 2: server 'b', bellum 'c'"]
    assert compare("a\nb\n", "a\n") == ["length: server 2 lines, bellum 1 lines"]


@pytest.mark.parametrize(
    "row",
    ['"owner" 1 ² 0 8', '"owner" 1 0 0 ' + "9" * 5000, '"owner" 1 0 99999999 8', '"owner" 1'],
    ids=["unicode digit", "5000 digits", "huge array", "short row"],
)
def test_client_sync_damaged_meta_data_is_a_protocol_error(tmp_path: Path, row: str) -> None:
    """Meta-data a broken or hostile server sends is one error line, never a traceback, and
    no database is written from it."""
    turns = conversation("player-sync")
    at = next(i for i, t in enumerate(turns) if t.line == '1 "owner" 1 0 0 8')
    turns[at] = replace(turns[at], line="1 " + row)
    db = tmp_path / "w.db"
    with (
        FakeServer(turns) as server,
        Session.open(server.address, country="1", password="1") as session,
        pytest.raises(RemoteProtocolError, match="xdump meta"),
    ):
        sync(session, db)
    assert not db.exists()


def test_client_compare_is_byte_for_byte() -> None:
    """A bell, a form feed or a missing last line feed is a difference, shown escaped."""
    bell = "\aIncoming shells do 36 damage!\n"
    assert compare(bell, bell) == []
    assert compare(bell, bell[1:]) == [
        "line 1: server '\\x07Incoming shells do 36 damage!', bellum 'Incoming shells do 36 damage!'"
    ]
    assert compare("a\x0cb\n", "a\x0cb\n") == []  # one line, not two
    assert compare("a\nb", "a\nb\n") == ["line 2: server 'b', bellum 'b\\n'"]
