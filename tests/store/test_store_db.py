"""The world database: commands with --db, history and replay, schema, bad files."""

from __future__ import annotations

import json
import os
import sqlite3
import stat
import subprocess
from pathlib import Path

import pytest
from store_support import ROOT, SMOKE_ATTACK, assert_history_replays, dump_path

from bellum.dice import ServerRandom
from bellum.empire import service
from bellum.empire.combat import attack
from bellum.empire.events import RecordingPrompter, ScriptedPrompter
from bellum.empire.io.sqlite.codec import world_rows
from bellum.empire.io.sqlite.schema import SCHEMA_VERSION, migrate
from bellum.empire.io.sqlite.store import Store
from bellum.empire.io.toml import load_world
from bellum.empire.io.xdump.mapping import dump_to_world, read_dump
from bellum.empire.orders import Order
from bellum.empire.rules import Rules
from bellum.empire.service import replay
from bellum.errors import CommandError, InputError
from clirunner import bellum, bellum_process

VECTOR_A = ROOT / "examples" / "empire" / "vector-a.toml"


@pytest.fixture
def smoke_db(tmp_path: Path) -> Path:
    db = tmp_path / "smoke.db"
    r = bellum("empire", "world", "import", str(dump_path("smoke-final.xdump")), "--db", str(db))
    assert r.returncode == 0, r.stderr
    assert "64x32, 11 countries, 4 land units, 5 ships, 3 planes" in r.stdout
    return db


def test_store_world_round_trips_through_the_database(tmp_path: Path) -> None:
    world = load_world(VECTOR_A)
    Store.create(tmp_path / "a.db", world).close()
    store = Store.open(tmp_path / "a.db")
    assert world_rows(store.world()) == world_rows(world)
    store.close()


def test_store_attack_on_an_imported_smoke_dump(smoke_db: Path, tmp_path: Path) -> None:
    show = bellum("empire", "show", "--db", str(smoke_db), "--as", "1", "11,-1", "13,-1")
    assert show.returncode == 0, show.stderr
    assert "   13,-1  oil field        8   8 100 127" in show.stdout
    # The same attack in memory, on the dump itself, is what the database must do.
    expected = dump_to_world(read_dump(dump_path("smoke-final.xdump")))
    r0 = attack(expected, SMOKE_ATTACK[0], 1, ServerRandom(7), ScriptedPrompter(["19", "0"]),
                SMOKE_ATTACK[1:])  # fmt: skip
    # 19 where the server offers 18, typed as in the game: a named --mil 11,-1=19 is refused.
    r = bellum_process("empire", "attack", *SMOKE_ATTACK, "--db", str(smoke_db), "--as", "1",
                       "--seed", "7", stdin="19\n0\n")  # fmt: skip
    assert r.returncode == 0, r.stderr
    assert r.stdout == r0.transcript()
    assert "We have captured 13,-1, sir!" in r.stdout
    store = Store.open(smoke_db)
    # The same objects; the options may differ by the rule profile the CLI applies.
    got, want = world_rows(store.world()), world_rows(expected)
    assert {k: v for k, v in got.items() if k[0] != "world"} == {
        k: v for k, v in want.items() if k[0] != "world"
    }
    store.close()
    after = bellum("empire", "show", "--db", str(smoke_db), "--as", "1", "13,-1")
    assert "   13,-1  oil field        1   8" in after.stdout
    hist = bellum("empire", "history", "--db", str(smoke_db), "--json")
    (entry,) = json.loads(hist.stdout)["commands"]
    assert entry["command"] == "attack" and entry["seed"] == 7 and entry["country"] == 1
    assert entry["args"] == SMOKE_ATTACK[:1] and entry["extra"] == {
        "support_args": SMOKE_ATTACK[1:]
    }
    assert entry["outcome"] == "captured"
    assert entry["answers"][0] == "19"
    rep = bellum("empire", "replay", "1", "--db", str(smoke_db))
    assert rep.returncode == 0 and "reproduced" in rep.stdout, rep.stderr
    # The export carries the attack: the two sectors and the attacker's BTUs.
    out = tmp_path / "after.xdump"
    assert (
        bellum("empire", "world", "export", "--db", str(smoke_db), "--out", str(out)).returncode
        == 0
    )
    original = dump_path("smoke-final.xdump").read_text().splitlines()
    changed = [a for a, b in zip(original, out.read_text().splitlines(), strict=True) if a != b]
    assert len(changed) == 3
    assert assert_history_replays(smoke_db) == 1


def test_store_default_database_is_bellum_db_here(tmp_path: Path) -> None:
    r = bellum("empire", "show", "--as", "1", cwd=tmp_path)
    assert r.returncode == 1 and "bellum.db: no such database" in r.stderr
    assert "world new" in r.stderr and not (tmp_path / "bellum.db").exists()
    assert bellum("empire", "world", "new", "--from", str(VECTOR_A), cwd=tmp_path).returncode == 0
    assert (tmp_path / "bellum.db").exists()
    r = bellum(
        "empire", "attack", "2,0", "--as", "1", "--seed", "1", stdin="150\n0\n", cwd=tmp_path
    )
    assert r.returncode == 0, r.stderr
    toml = bellum("empire", "attack", "2,0", "--world", str(VECTOR_A), "--as", "1", "--seed", "1",
                  "--out", str(tmp_path / "o.toml"), stdin="150\n0\n")  # fmt: skip
    assert r.stdout == toml.stdout
    show = bellum("empire", "show", "--as", "1", "0,0", "2,0", cwd=tmp_path)
    assert show.stdout == bellum("empire", "show", "--world", str(tmp_path / "o.toml"), "--as",
                                 "1", "0,0", "2,0").stdout  # fmt: skip
    r = bellum("empire", "show", "--as", "1", "--db", "x.db", "--world", "y.toml", cwd=tmp_path)
    assert r.returncode == 2 and "not both" in r.stderr
    assert assert_history_replays(tmp_path / "bellum.db") == 1


def test_store_refused_and_aborted_commands_are_history_without_changes(tmp_path: Path) -> None:
    db = tmp_path / "a.db"
    assert (
        bellum("empire", "world", "new", "--db", str(db), "--from", str(VECTOR_A)).returncode == 0
    )
    r = bellum("empire", "attack", "2,0", "--db", str(db), "--as", "1", "--seed", "3", stdin="0\n")
    assert r.returncode == 1 and r.stdout.endswith("No troops for attack...\n")
    r = bellum("empire", "attack", "10,0", "--db", str(db), "--as", "1", "--seed", "3")
    assert r.returncode == 1
    store = Store.open(db)
    assert [c.outcome for c in store.history()] == ["aborted", "refused"]
    assert store.command(1).changes == {} and store.command(2).changes == {}
    assert world_rows(store.world()) == world_rows(load_world(VECTOR_A))
    store.close()
    assert assert_history_replays(db) == 2


def test_store_replay_reports_a_difference(tmp_path: Path) -> None:
    db = tmp_path / "a.db"
    bellum("empire", "world", "new", "--db", str(db), "--from", str(VECTOR_A))
    bellum("empire", "attack", "2,0", "--db", str(db), "--as", "1", "--seed", "1", stdin="150\n0\n")
    bellum("empire", "attack", "2,0", "--db", str(db), "--as", "1", "--seed", "5", stdin="9\n")
    assert assert_history_replays(db) == 2
    with sqlite3.connect(db) as conn:
        conn.execute("UPDATE command SET transcript = replace(transcript, 'Yours: 14', 'Yours: 15')"
                     " WHERE id = 1")  # fmt: skip
    r = bellum("empire", "replay", "1", "--db", str(db))
    assert r.returncode == 1
    assert (
        "NOT reproduced" in r.stderr and "transcript line" in r.stderr and "Yours: 15" in r.stderr
    )
    assert bellum("empire", "replay", "2", "--db", str(db)).returncode == 0
    r = bellum("empire", "replay", "9", "--db", str(db))
    assert r.returncode == 1 and "no command 9" in r.stderr


def test_store_recording_prompter_keeps_every_answer_including_end_of_input() -> None:
    rec = RecordingPrompter(ScriptedPrompter(["1", "2"]))
    assert [rec.ask("a"), rec.ask("b"), rec.ask("c")] == ["1", "2", None]
    assert rec.answers == ["1", "2", None]


def test_store_newer_schema_is_refused(tmp_path: Path) -> None:
    db = tmp_path / "a.db"
    Store.create(db, load_world(VECTOR_A)).close()
    conn = sqlite3.connect(db, isolation_level=None)
    conn.execute("UPDATE schema_version SET version = ?", (SCHEMA_VERSION + 1,))
    conn.close()
    before = db.read_bytes()
    r = bellum("empire", "world", "show", "--db", str(db))
    assert r.returncode == 1 and "made by a newer bellum" in r.stderr
    assert r.stderr.count("\n") == 1
    assert db.read_bytes() == before


def test_store_old_schema_is_migrated(tmp_path: Path) -> None:
    db = tmp_path / "old.db"
    world = load_world(VECTOR_A)
    conn = sqlite3.connect(db, isolation_level=None)
    conn.execute("BEGIN")
    migrate(conn, 0, 1)  # a database as the first version of the store wrote it
    conn.executemany("INSERT INTO object (kind, key, data) VALUES (?, ?, ?)",
                     [(k, key, d) for (k, key), d in world_rows(world).items()])  # fmt: skip
    conn.execute("COMMIT")
    conn.close()
    r = bellum(
        "empire", "attack", "2,0", "--db", str(db), "--as", "1", "--seed", "1", stdin="150\n0\n"
    )
    assert r.returncode == 0, r.stderr
    store = Store.open(db)
    assert store.summary()["schema_version"] == SCHEMA_VERSION
    (rec,) = store.history()
    assert rec.profile == rec.options.get("profile", "stock")
    store.close()
    assert assert_history_replays(db) == 1


def test_store_not_a_database_is_a_clear_error_and_untouched(tmp_path: Path) -> None:
    bad = tmp_path / "notes.db"
    bad.write_text("these are my notes, not a database\n")
    for args in (["empire", "attack", "2,0", "--as", "1"], ["empire", "show", "--as", "1"],
                 ["empire", "history"], ["empire", "world", "show"]):  # fmt: skip
        r = bellum(*args, "--db", str(bad))
        assert r.returncode == 1, args
        assert r.stderr == f"bellum: error: {bad}: not a bellum database (the file is not SQLite)\n"
    r = bellum_process("empire", "attack", "2,0", "--as", "1", "--db", str(bad))
    assert r.returncode == 1 and r.stderr.startswith("bellum: error: ") and r.stdout == ""
    assert "Traceback" not in r.stderr and r.stderr.count("\n") == 1
    assert bad.read_text() == "these are my notes, not a database\n"
    assert sorted(p.name for p in tmp_path.iterdir()) == ["notes.db"]
    plain = tmp_path / "plain.db"
    sqlite3.connect(plain).execute("CREATE TABLE t (x)").connection.close()
    with pytest.raises(InputError, match="not a bellum database"):
        Store.open(plain)


def test_store_locked_database_is_a_clear_error(tmp_path: Path) -> None:
    db = tmp_path / "a.db"
    Store.create(db, load_world(VECTOR_A)).close()
    holder = sqlite3.connect(db, isolation_level=None)
    holder.execute("BEGIN IMMEDIATE")
    try:
        store = Store.open(db, timeout=0.2)
        with pytest.raises(CommandError, match="busy with another command"):
            store.begin_command()
        store.close()
        r = bellum("empire", "attack", "2,0", "--db", str(db), "--as", "1", "--seed", "1",
                   stdin="150\n0\n", env={"BELLUM_BUSY_TIMEOUT": "0.2"})  # fmt: skip
        assert r.returncode == 1 and "busy with another command" in r.stderr
        assert "Traceback" not in r.stderr and r.stdout == ""
    finally:
        holder.execute("ROLLBACK")
        holder.close()
    store = Store.open(db)
    assert store.history() == []
    store.close()


def test_store_new_empty_world_and_toml_export(tmp_path: Path) -> None:
    db = tmp_path / "e.db"
    r = bellum("empire", "world", "new", "--db", str(db), "--size", "16x8")
    assert r.returncode == 0 and "16x8" in r.stdout
    show = bellum("empire", "world", "show", "--db", str(db))
    assert "16x8, 64 sectors" in show.stdout and "0 countries" in show.stdout
    r = bellum("empire", "world", "new", "--db", str(db), "--size", "15x8")
    assert r.returncode == 2 and "--size" in r.stderr
    db2 = tmp_path / "v.db"
    bellum("empire", "world", "new", "--db", str(db2), "--from", str(VECTOR_A))
    out = tmp_path / "v.toml"
    assert (
        bellum(
            "empire", "world", "export", "--db", str(db2), "--out", str(out), "--toml"
        ).returncode
        == 0
    )
    assert world_rows(load_world(out)) == world_rows(load_world(VECTOR_A))
    dump = tmp_path / "v.xdump"
    assert bellum("empire", "world", "export", "--db", str(db2), "--out", str(dump)).returncode == 0
    text = dump.read_text()
    assert text.startswith("config sect\n") and "\nconfig nat\n" in text


def test_store_replay_in_process_rebuilds_the_world_before_each_command(tmp_path: Path) -> None:
    db = tmp_path / "a.db"
    Store.create(db, load_world(VECTOR_A)).close()
    store = Store.open(db)
    worlds = []
    for seed in (1, 2, 3):
        session = store.begin_command()
        worlds.append(world_rows(session.world))
        prompter = RecordingPrompter(ScriptedPrompter(["50", "0"]))
        result = attack(session.world, "2,0", 1, ServerRandom(seed), prompter, [])
        session.commit(Order("attack", ("2,0",)), prompter.answers, result)
    for cid, rows in enumerate(worlds, 1):
        assert world_rows(store.world_before(cid)) == rows
        assert replay(store, cid).ok
    store.close()


def test_store_out_with_db_writes_a_world_file_and_leaves_the_database(tmp_path: Path) -> None:
    db = tmp_path / "a.db"
    Store.create(db, load_world(VECTOR_A)).close()
    out = tmp_path / "after.toml"
    r = bellum("empire", "attack", "2,0", "--db", str(db), "--as", "1", "--seed", "1",
               "--out", str(out), stdin="150\n0\n")  # fmt: skip
    assert r.returncode == 0, r.stderr
    store = Store.open(db)
    assert store.history() == [] and world_rows(store.world()) == world_rows(load_world(VECTOR_A))
    store.close()
    assert load_world(out).sectors[(2, 0)].owner == 1


def test_store_codec_covers_every_field_of_the_world() -> None:
    """A new World attribute must be stored too: extend codec.world_rows, then this list.

    The rules one order ran under are not the world's: its record keeps them.
    """
    import dataclasses

    from bellum.empire.world import World

    assert {f.name for f in dataclasses.fields(World)} == {
        "geometry", "tables", "options", "nations", "sectors", "units", "ships", "planes",
        "telegrams", "news", "fog", "deity_name", "bmaps", "observations",
    }  # fmt: skip


def test_store_replay_compares_telegrams_too(tmp_path: Path) -> None:
    db = tmp_path / "a.db"
    Store.create(db, load_world(VECTOR_A)).close()
    bellum("empire", "attack", "2,0", "--db", str(db), "--as", "1", "--seed", "1", stdin="150\n0\n")
    assert assert_history_replays(db) == 1
    conn = sqlite3.connect(db, isolation_level=None)
    events = json.loads(conn.execute("SELECT events FROM command WHERE id = 1").fetchone()[0])
    telegram = next(e for e in events if e["kind"] == "telegram")
    telegram["text"] += "!"
    conn.execute("UPDATE command SET events = ? WHERE id = 1", (json.dumps(events),))
    conn.close()
    r = bellum("empire", "replay", "1", "--db", str(db))
    assert r.returncode == 1 and "events differ" in r.stderr


def test_store_replay_runs_under_the_options_the_command_had(tmp_path: Path) -> None:
    db = tmp_path / "a.db"
    Store.create(db, load_world(VECTOR_A)).close()
    store = Store.open(db)
    session = store.begin_command()
    rules = Rules.for_world(session.world, None, ["fix_movein_mobility=on"])  # as --option
    prompter = RecordingPrompter(ScriptedPrompter(["150", "40"]))
    result = attack(session.world, "2,0", 1, ServerRandom(1), prompter, [], rules=rules)
    cid = session.commit(Order("attack", ("2,0",)), prompter.answers, result)
    rec = store.command(cid)
    assert rec.options["fix_movein_mobility"] is True and rec.options["land_mob_max"] == 127
    assert rec.rules == rules and ("world", "options") not in rec.changes  # not the world's
    assert replay(store, cid).ok
    store.close()


def test_store_replay_keeps_a_run_option_that_overrides_the_worlds_own(tmp_path: Path) -> None:
    """A world that estimates, run once without the scouts' estimate: the record keeps the
    run's value, not the world's, so the replay asks nothing the original did not."""
    db = tmp_path / "a.db"
    world = load_world(ROOT / "examples" / "empire" / "failed.toml")
    world.options["scout_estimate"] = True
    Store.create(db, world).close()
    with service.open_source(None, db, write=True) as source:
        rules = Rules.for_world(source.world, None, ["scout_estimate=off"])
        r = source.run("attack 2,0", country=1, seed=1, answers=["29", "y"], rules=rules)
    assert "Estimated" not in r.transcript()
    store = Store.open(db)
    try:
        assert store.command(1).rules.scout_estimate is False
        assert replay(store, 1).ok
    finally:
        store.close()


def test_store_new_database_killed_midway_can_be_made_again(tmp_path: Path) -> None:
    """A half-built database is a hidden scratch file; the target never exists half-made,
    and the next run sweeps the leftovers of killed ones."""
    dead = _dead_pid()
    db = tmp_path / "k.db"
    scratch = tmp_path / f".k.db.{dead}.x1y2z3.building"
    scratch.write_bytes(b"SQLite format 3\x00" + bytes(100))  # what a killed run leaves
    Path(f"{scratch}-wal").write_bytes(bytes(100))
    Store.create(db, load_world(VECTOR_A)).close()
    assert sorted(f.name for f in tmp_path.iterdir()) == ["k.db"]
    assert Store.open(db).summary()["schema_version"] == SCHEMA_VERSION
    assert stat.S_IMODE(db.stat().st_mode) == 0o666 & ~_umask()


def test_store_new_database_leaves_a_scratch_file_in_use_alone(tmp_path: Path) -> None:
    """Another run building the same name (a process that is alive) keeps its scratch."""
    busy = tmp_path / f".k.db.{os.getppid()}.abc.building"
    busy.write_bytes(b"")
    Store.create(tmp_path / "k.db", load_world(VECTOR_A)).close()
    assert busy.exists()


def _dead_pid() -> int:
    child = subprocess.Popen(["true"])
    child.wait()
    return child.pid


def _umask() -> int:
    mask = os.umask(0)
    os.umask(mask)
    return mask


def test_store_replace_refuses_files_that_are_not_bellum_databases(tmp_path: Path) -> None:
    """--replace starts over a bellum database, never a world file or another database."""
    toml = tmp_path / "world.toml"
    toml.write_text(VECTOR_A.read_text())
    with pytest.raises(InputError, match="bellum will not overwrite it"):
        Store.create(toml, load_world(VECTOR_A), replace=True)
    assert toml.read_text() == VECTOR_A.read_text()
    foreign = tmp_path / "other.db"
    conn = sqlite3.connect(foreign)
    conn.execute("CREATE TABLE notes (t TEXT)")
    conn.commit()
    conn.close()
    with pytest.raises(InputError, match="bellum will not overwrite it"):
        Store.create(foreign, load_world(VECTOR_A), replace=True)


def test_store_an_empty_file_is_never_advised_to_be_replaced(tmp_path: Path) -> None:
    """Without --replace as with it, the advice is the same: --replace cannot help."""
    empty = tmp_path / "empty.db"
    empty.write_bytes(b"")
    for replace in (False, True):
        r = bellum("empire", "world", "new", "--db", str(empty), "--from", str(VECTOR_A),
                   *(["--replace"] if replace else []))  # fmt: skip
        assert r.returncode == 1 and "--replace" not in r.stderr
        assert r.stderr.endswith("bellum will not overwrite it: choose another --db or remove it\n")
    assert empty.read_bytes() == b""


def test_store_schema_2_history_is_read_as_orders_and_replays(tmp_path: Path) -> None:
    """A database from before orders were stored keeps its history: each command's name,
    arguments and keyword arguments are read as the order, which replays bit for bit."""
    new = tmp_path / "new.db"
    Store.create(new, load_world(VECTOR_A)).close()
    r = bellum("empire", "attack", "2,0", "y", "y", "n", "n", "--db", str(new), "--as", "1",
               "--seed", "1", stdin="150\n0\n")  # fmt: skip
    assert r.returncode == 0, r.stderr
    columns = ("at, name, args, extra, country, seed, answers, options, version, profile,"
               " outcome, result, events, transcript")  # fmt: skip
    src = sqlite3.connect(new)
    command = src.execute(f"SELECT {columns} FROM command").fetchone()
    objects = src.execute("SELECT kind, key, data FROM object").fetchall()
    changes = src.execute("SELECT command, kind, key, before, after FROM change").fetchall()
    src.close()
    assert json.loads(command[2]) == ["2,0"] and json.loads(command[3]) == {
        "support_args": ["y", "y", "n", "n"]
    }
    old = tmp_path / "old.db"
    conn = sqlite3.connect(old, isolation_level=None)
    conn.execute("BEGIN")
    migrate(conn, 0, 2)  # the schema before orders were stored, with one command in it
    conn.executemany("INSERT INTO object (kind, key, data) VALUES (?, ?, ?)", objects)
    conn.execute(f"INSERT INTO command ({columns}) VALUES ({', '.join('?' * 14)})", command)
    conn.executemany("INSERT INTO change VALUES (?, ?, ?, ?, ?)", changes)
    conn.execute("COMMIT")
    conn.close()
    hist = bellum("empire", "history", "--db", str(old), "--json")
    (entry,) = json.loads(hist.stdout)["commands"]
    assert entry["order"] == "attack 2,0 y y n n" and entry["args"] == ["2,0"]
    assert entry["server"] is None  # schema 4: not from a live game
    store = Store.open(old)
    assert store.summary()["schema_version"] == SCHEMA_VERSION
    assert store.command(1).order == Order.parse("attack 2,0 y y n n")
    store.close()
    assert assert_history_replays(old) == 1
    # The next command is stored with its order's text.
    r = bellum("empire", "attack", "2,0", "--db", str(old), "--as", "1", "--seed", "2", stdin="")
    check = sqlite3.connect(old)
    rows = check.execute("SELECT order_text FROM command ORDER BY id").fetchall()
    check.close()
    assert rows == [(None,), ("attack 2,0",)]
    assert assert_history_replays(old) == 2


def test_service_keeps_one_order_per_source_and_nothing_on_error(tmp_path: Path) -> None:
    db = tmp_path / "a.db"
    Store.create(db, load_world(VECTOR_A)).close()
    with (
        service.open_source(None, db) as reader,
        pytest.raises(CommandError, match="opened for reading"),
    ):
        reader.run("attack 2,0", country=1, seed=1, answers=["150", "0"])
    with service.open_source(None, db, write=True) as source:
        assert source.run("attack 2,0", country=1, seed=1, answers=["150", "0"]).success
        assert isinstance(source, service.DatabaseSource) and source.recorded == 1
        with pytest.raises(CommandError, match="one order is done"):
            source.run("attack 2,0", country=1, seed=2)
    with (
        pytest.raises(InputError, match="no country '7'"),
        service.open_source(None, db, write=True) as source,
    ):
        source.run("attack 4,0", country=7)
    assert [r.order.text() for r in service.history(db)] == ["attack 2,0"]
    out = tmp_path / "after.toml"
    with service.open_source(VECTOR_A, None, write=True, out=out) as source:
        source.run("attack 2,0", country=1, seed=1, answers=["150", "0"])
    assert load_world(out).sectors[(2, 0)].owner == 1
    assert load_world(VECTOR_A).sectors[(2, 0)].owner == 2
