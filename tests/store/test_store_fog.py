"""A player's dump: what the country cannot see stays unknown, through import, store and TOML."""

from __future__ import annotations

import tomllib
from pathlib import Path

import pytest

from bellum.empire.io.sqlite.codec import ServerEntry, rows_world, world_rows
from bellum.empire.io.sqlite.store import Store
from bellum.empire.io.toml import dumps, parse_world, world_to_data
from bellum.empire.io.xdump.mapping import dump_to_world, world_to_dump
from bellum.empire.io.xdump.syntax import parse_dump
from bellum.empire.tables import stock
from bellum.empire.world import Fog, Relation, Unknown, UnknownSector, World
from bellum.errors import InputError


def relat(rows: dict[int, dict[int, str]]) -> str:
    head = "uid " + " ".join(f"relations({i})" for i in range(99))
    lines = [
        f"{u} " + " ".join(rel.get(i, "neutral") for i in range(99)) for u, rel in rows.items()
    ]
    return "config relat\n" + head + "\n" + "\n".join(lines) + "\n/config\n"


#: Country 1's own view, as the server's xdump gives it (turned into the human form):
#: no deity columns, only its own sectors, and its nation in the country table.
PLAYER_DUMP = (
    "config sect\n"
    "owner xloc yloc des effic mobil off terr0 terr1 terr2 terr3 xdist ydist avail work coastal"
    " newdes min gold fert ocontent uran oldown civil milit shell gun petrol iron dust bar food"
    " oil lcm hcm uw rad c_dist m_dist s_dist g_dist p_dist i_dist d_dist b_dist f_dist o_dist"
    " l_dist h_dist u_dist r_dist c_del m_del s_del g_del p_del i_del d_del b_del f_del o_del"
    " l_del h_del u_del r_del fallout access road rail dfense\n"
    "1 0 0 14 100 106 0 0 0 0 0 0 0 0 100 1 14 0 0 0 0 0 1 0 66" + " 0" * 45 + "\n"
    "1 -10 0 5 100 127 0 0 0 0 0 -10 0 0 100 1 5 0 0 0 0 0 1 100 0" + " 0" * 45 + "\n"
    "/config\n"
    'config nat\ncnum stat cname\n0 deity "POGO"\n1 active "1"\n2 active "2"\n/config\n'
    + relat({0: {}, 1: {2: "at-war"}, 2: {1: "hostile"}})
    + "config country\n"
    "cnum flags ip userid xcap ycap update tgms ann timeused btu access milreserve money login"
    " logout newstim annotim tech research education happiness\n"
    '1 (flash beep) "127.0.0.1" "" -10 0 0 0 0 15 636 0 0 25000 17 17 0 0 100.000 0.00000'
    " 0.00000 0.00000\n/config\n"
    "config version\nWORLD_X WORLD_Y BLITZ land_mob_max combat_mob GODNEWS\n"
    "32 16 1 100 5.00000 1\n/config\n"
)


def player_world() -> World:
    return dump_to_world(parse_dump(PLAYER_DUMP, "player.xdump"))


def test_store_fog_a_players_dump_keeps_the_unseen_unknown() -> None:
    world = player_world()
    assert world.fog == Fog(1)  # the dump has no game table: update 0
    assert (world.geometry.width, world.geometry.height) == (32, 16)  # from the version table
    assert world.options == {"BLITZ": True, "land_mob_max": 100, "combat_mob": 5.0}
    assert sorted(world.sectors) == [(0, 0), (22, 0)]  # not 254 sea sectors
    with pytest.raises(UnknownSector, match=r"sector 2,0 is unknown: country 1's view"):
        world.sector((2, 0))
    me, them = world.nations[1], world.nations[2]
    assert (me.money, me.btu, me.tech, me.capital, me.origin) == (
        25000,
        636,
        100.0,
        (22, 0),
        (0, 0),
    )
    assert me.relations == {2: Relation.AT_WAR} and them.relations == {1: Relation.HOSTILE}
    assert them.name == "2" and them.active
    # what the server keeps from the player is unknown, not a placeholder
    assert (them.money, them.btu, them.tech, them.happiness, them.origin, them.capital) == (
        (None,) * 6
    )
    here = world.sector((0, 0))
    assert (here.plague, here.loyalty, here.mines, here.che, here.che_target) == (None,) * 5
    with pytest.raises(Unknown, match="the number of mines in 0,0 is unknown"):
        _ = here.minefield
    with pytest.raises(Unknown, match="country 2's tech is unknown"):
        world.tech(2)


def test_store_fog_survives_the_database_the_world_file_and_export(tmp_path: Path) -> None:
    world = player_world()
    rows = world_rows(world)
    assert '"money":null' in rows[("nation", "2")] and '"plague":null' in rows[("sector", "0,0")]
    assert world_rows(rows_world(rows, stock(), "db")) == rows
    again = parse_world(tomllib.loads(dumps(world_to_data(world))), "w.toml")
    assert world_rows(again) == rows
    dump = parse_dump(PLAYER_DUMP, "player.xdump")
    assert world_to_dump(world, dump) == PLAYER_DUMP
    world.nations[1].money = 100
    assert "636 0 0 100 17" in world_to_dump(world, dump)  # the player's own nation


def test_store_fog_a_players_dump_needs_its_country_table() -> None:
    start, end = PLAYER_DUMP.index("config country"), PLAYER_DUMP.index("config version")
    without = PLAYER_DUMP[:start] + PLAYER_DUMP[end:]
    with pytest.raises(InputError, match=r"needs the player's own country table"):
        dump_to_world(parse_dump(without, "player.xdump"))


def test_store_fog_missing_columns_other_than_the_deitys_are_errors() -> None:
    broken = PLAYER_DUMP.replace(" fallout access", " access").replace(
        "0 0 100 1 14", "0 100 1 14", 1
    )
    with pytest.raises(InputError, match="lacks column 'fallout'"):
        parse_dump(broken, "player.xdump")


def test_store_fog_sync_entries_are_versions_with_history(tmp_path: Path) -> None:
    db = tmp_path / "w.db"
    world = player_world()
    Store.create(db, World(geometry=world.geometry)).close()
    store = Store.open(db)
    try:
        first = store.record(ServerEntry("127.0.0.1:1", 1, "synced", {}), world)
        world.nations[1].money = 24000
        second = store.record(ServerEntry("127.0.0.1:1", 1, "synced", {}), world)
        assert first is not None and second is not None
        assert store.record(ServerEntry("127.0.0.1:1", 1, "synced", {}), world,
                            only_if_changed=True) is None  # fmt: skip
        assert store.world().nations[1].money == 24000
        assert store.world_before(second).nations[1].money == 25000
        assert store.world_before(first).nations == {}
        assert [(r.command, r.order, r.server) for r in store.history()] == [
            ("sync", None, "127.0.0.1:1")
        ] * 2
        assert list(store.command(second).changes) == [("nation", "1")]
    finally:
        store.close()
