"""`bellum empire sync` against the real server: the deity sees all, a player only their own."""

from __future__ import annotations

import json
import sqlite3
from dataclasses import replace
from pathlib import Path

import pytest
from live_support import DEITY, DEITY_PASSWORD, FRONT, EmpireGame

from bellum.client.live import sync
from bellum.empire.io.sqlite.store import Store
from bellum.empire.rules import Rules
from bellum.empire.world import Relation, UnknownSector
from clirunner import bellum


@pytest.fixture(scope="module")
def game(empire_game: EmpireGame) -> EmpireGame:
    """The front, plus a plane for 1 at 0,0 and an infantry for 2 at 2,0."""
    empire_game.deity(
        *FRONT,
        "build p 0,0 tr",
        "edit p 0 O 1 e 100 m 127 t 85",
        "build l 2,0 inf",
        "edit u 0 O 2 e 100 m 30 M 30",
    )
    return empire_game


def test_live_sync_as_the_deity_stores_the_whole_game(game: EmpireGame, tmp_path: Path) -> None:
    db = tmp_path / "w.db"
    with game.session(DEITY, DEITY_PASSWORD) as session:
        done = sync(session, db)
    world = done.world
    assert world.fog is None and done.country == 0 and done.refused == {}
    assert (world.geometry.width, world.geometry.height) == (32, 16)
    assert len(world.sectors) == 32 * 16 // 2
    target = world.sector((2, 0))
    assert (target.owner, target.type.name, target.eff, target.mil) == (2, "highway", 100, 40)
    assert world.sector((0, 0)).type.name == "airfield" and world.sector((0, 0)).mil == 100
    assert world.planes[0].owner == 1 and world.planes[0].type.mnemonic == "tr"
    unit = world.units[0]
    assert (unit.owner, unit.xy, unit.mil, unit.type.mnemonic) == (2, (2, 0), 30, "inf")
    assert world.nations[1].relations[2] is Relation.AT_WAR
    assert world.nations[2].money == 25000 and world.nations[2].capital == (10, 0)
    assert Rules.of(world.options).BLITZ is True  # the game's own configuration (pconfig's default)
    store = Store.open(db)
    try:
        (entry,) = store.history()
        assert (entry.command, entry.outcome, entry.country) == ("sync", "synced", 0)
        assert entry.words() == [game.address] and entry.server == game.address
        assert store.world().sector((2, 0)).mil == 40
        dump = store.dump()
        nat = dump.table("nat") if dump else None
        assert nat is not None
        passwords = {r.fields[nat.index("passwd")] for r in nat.records}
        assert passwords == {'""'}  # the deity sees every password: none is kept
    finally:
        store.close()


def test_live_sync_as_a_player_keeps_the_rest_unknown(game: EmpireGame, tmp_path: Path) -> None:
    db = tmp_path / "w.db"
    with game.session("1", "1") as session:
        done = sync(session, db)
    world = done.world
    assert world.fog is not None and world.fog.viewer == 1 and done.country == 1
    assert sorted(world.sectors) == [(0, 0), (22, 0)]  # its airfield and its capital, -10,0
    with pytest.raises(UnknownSector, match="sector 2,0 is unknown"):
        world.sector((2, 0))
    assert world.units == {} and list(world.planes) == [0]  # 2's infantry is not seen
    assert world.sector((0, 0)).mines is None and world.nations[2].money is None  # unknown
    assert world.fog.turn == 1 and world.fog.time > 1_000_000_000  # a new game's first update
    me = world.nations[1]
    assert (me.money, me.tech, me.capital) == (25000, 100.0, (22, 0))
    assert world.nations[2].name == "2" and world.nations[2].relations[1] is Relation.AT_WAR
    # a second sync is a second version with its own history entry
    with game.session("1", "1") as session:
        again = sync(session, db)
    assert again.entry == done.entry + 1
    # Nothing changed in the game: only the game time of what it saw again moves on
    # (the clock's second, when the two syncs straddle one).
    assert _beyond_the_clock(db, again.entry) == []
    store = Store.open(db)
    try:
        assert [r.command for r in store.history()] == ["sync", "sync"]
        fog = store.world().fog
        assert fog is not None and fog.time >= world.fog.time
        assert replace(fog, time=world.fog.time) == world.fog
    finally:
        store.close()


def test_live_sync_command_line(game: EmpireGame, tmp_path: Path) -> None:
    db = tmp_path / "w.db"
    password = tmp_path / "password"
    password.write_text("1\n")
    r = bellum("empire", "sync", game.address, "--as", "1", "--password-file", str(password),
               "--db", str(db))  # fmt: skip
    assert r.returncode == 0, r.stderr
    assert r.stdout.startswith(f"{db}: synced as country #1: 32x16, 2 sectors,")
    assert "fog of war" in r.stdout
    r = bellum("empire", "sync", game.address, "--as", DEITY, "--db", str(db),
               env={"BELLUM_PASSWORD": DEITY_PASSWORD})  # fmt: skip
    assert r.returncode == 0 and "the whole game" in r.stdout
    r = bellum("empire", "history", "--db", str(db))
    assert [line.split()[3] for line in r.stdout.splitlines()[1:]] == ["sync", "sync"]
    assert "peter" not in Path(db).read_bytes().decode("latin-1")


def test_live_sync_bad_password_is_one_line_and_writes_nothing(
    game: EmpireGame, tmp_path: Path
) -> None:
    db = tmp_path / "w.db"
    r = bellum("empire", "sync", game.address, "--as", "1", "--db", str(db), stdin="nope\n")
    assert r.returncode == 1
    assert r.stderr == f"bellum: error: {game.address}: bad password for country 1\n"
    assert not db.exists()
    r = bellum("empire", "sync", game.address, "--as", "Nobody", "--db", str(db),
               stdin="x\n")  # fmt: skip
    assert r.stderr == f"bellum: error: {game.address}: country Nobody does not exist\n"


def test_live_sync_refused_connection_is_one_line(tmp_path: Path) -> None:
    from live_support import free_port

    address = f"127.0.0.1:{free_port()}"
    r = bellum("empire", "sync", address, "--as", "1", "--db", str(tmp_path / "w.db"),
               env={"BELLUM_PASSWORD": "1"})  # fmt: skip
    assert (r.returncode, r.stderr) == (
        1,
        f"bellum: error: cannot connect to {address}: connection refused\n",
    )


def _beyond_the_clock(db: Path, entry: int) -> list[tuple[str, str]]:
    """The changes an entry made, other than a sighting's time moving on."""

    def timeless(value: object) -> object:
        if isinstance(value, dict):
            return {k: timeless(v) for k, v in value.items() if k != "time"}
        return value

    with sqlite3.connect(db) as conn:
        rows = conn.execute(
            "SELECT kind, key, before, after FROM change WHERE command = ?", (entry,)
        ).fetchall()
    return [
        (kind, key)
        for kind, key, before, after in rows
        if before is None
        or after is None
        or timeless(json.loads(before)) != timeless(json.loads(after))
    ]
