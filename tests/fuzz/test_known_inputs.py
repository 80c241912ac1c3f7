"""Every input that ended in a Python traceback or destroyed a file when issue 14 was
filed, kept as a case: each now ends in one line (or the server's own answer), with
the exit status it should have and every file as it was.

The cases are data; the fuzzing tests next to this file look for new ones.
"""

from __future__ import annotations

import os
import shutil
import subprocess
import sys
from dataclasses import dataclass, field
from pathlib import Path

import pytest
from harness import check, imported_game, run, sandbox, snapshot
from strategies import EMPIRE, FRONT, FRONT_ANSWERS, PANZER

BIG = "9" * 5000
VECTOR_A = (EMPIRE / "vector-a.toml").read_text()
SCENARIO = (PANZER / "hexsides.toml").read_text()


@dataclass
class Case:
    name: str
    args: list[str]
    code: int
    says: str = ""  # a piece of the last line of stderr (or of stdout for the game's answers)
    stdin: str = ""
    files: dict[str, str] = field(default_factory=dict)
    may_write: list[str] = field(default_factory=list)


def _world(extra: str) -> dict[str, str]:
    return {"w.toml": VECTOR_A + extra}


ATTACK = ["empire", "attack", "2,0", "--world", "w.toml", "--as", "1", "--seed", "1"]
ON_DB = ["--db", "g.db", "--as", "1", "--seed", "1"]

CASES = [
    # -- numbers (item 1): Unicode digits and numbers past Python's 4,300-digit limit
    Case("answer 1²", [*ATTACK, "--out", "o.toml"], 0, "Initial attack strength:        1\n",
         "1²\n0\n", _world(""), ["o.toml"]),  # the server's atoi reads 1
    Case("answer of 5,000 digits", [*ATTACK, "--out", "o.toml"], 1, "", f"{BIG}\n0\n",
         _world(""), ["o.toml"]),
    Case("coordinate of 5,000 digits", ["empire", "show", "--world", "w.toml", "--as", "1",
         f"0,{BIG}"], 2, "at most 20 digits", files=_world("")),
    Case("--as ²", ["empire", "show", "--world", "w.toml", "--as", "²"], 2, "no country '²'",
         files=_world("")),
    Case("--as of 5,000 digits", ["empire", "show", "--world", "w.toml", "--as", BIG], 2,
         "no country '999", files=_world("")),
    # parse.c drops what is not printable ASCII from a word, so ² is an empty argument,
    # which the server asks for; end of input there ends the command as on the server.
    Case("assault from ship ²", ["empire", "assault", "0,0", "²", "--world", "a.toml",
         "--as", "1"], 1, "You may only assault from one ship!",
         files={"a.toml": (EMPIRE / "assault.toml").read_text()}),
    Case("board ship ²", ["empire", "board", "²", "0", "--world", "b.toml", "--as", "1"], 2,
         "Usage: board", files={"b.toml": (EMPIRE / "board.toml").read_text()}),
    Case("board from ship ²", ["empire", "board", "1", "²", "--world", "b.toml", "--as", "1"], 2,
         files={"b.toml": (EMPIRE / "board.toml").read_text()}),
    Case("lboard unit ²", ["empire", "lboard", "²", "0,0", "--world", "l.toml", "--as", "1"], 2,
         "Usage: lboard", files={"l.toml": (EMPIRE / "lboard.toml").read_text()}),
    Case("paradrop planes ²", ["empire", "paradrop", "²", "", "0,0", "jj", "--world", "p.toml",
         "--as", "1"], 2, files={"p.toml": (EMPIRE / "paradrop.toml").read_text()}),
    Case("paradrop planes 1/²", ["empire", "paradrop", "0/²", "", "0,0", "jj", "--world",
         "p.toml", "--as", "1"], 2, files={"p.toml": (EMPIRE / "paradrop.toml").read_text()}),
    Case("paradrop planes at 0,<5,000 digits>", ["empire", "odds", "paradrop", "0," + BIG, ".",
         "0,0", "4,0", "--world", "p.toml", "--as", "1", "--need", "0.9"], 1,
         "No planes could be equipped for the mission", files={"p.toml": (EMPIRE / "paradrop.toml").read_text()}),
    Case("relations key ²", ["empire", "show", "--world", "w.toml", "--as", "1"], 1,
         "relations.²: expected a country number",
         files={"w.toml": VECTOR_A.replace("{ 2 = ", '{ "²" = ', 1)}),
    Case("thresholds of the wrong type", ["empire", "show", "--world", "w.toml", "--as", "1"],
         1, "thresholds.food: expected a count",
         files=_world('\n[[sector]]\nat = [4, 0]\ndes = "wilderness"\nthresholds = { food = "x" }\n')),
    Case("dump footer /²", ["empire", "world", "import", "d.xdump", "--db", "n.db", "--size",
         "64x32"], 1, "not an Empire dump (not ASCII text)",
         files={"d.xdump": "XDUMP nat 0\n/²\n"}),
    Case("dump footer of 5,000 digits", ["empire", "world", "import", "d.xdump", "--db", "n.db",
         "--size", "64x32"], 1, "malformed table footer",
         files={"d.xdump": f"XDUMP nat 0\n/{BIG}\n"}),
    Case("--size ²x32", ["empire", "world", "new", "--db", "n.db", "--size", "²x32"], 2,
         "--size: expected WIDTHxHEIGHT"),
    Case("--option of 5,000 digits", ["empire", "rules", "--option", f"land_mob_max={BIG}"], 2,
         "takes a whole number"),
    # -- TOML readers (item 1)
    Case("a huge integer", ["empire", "show", "--world", "w.toml", "--as", "1"], 1,
         "too many digits", files=_world(f"\n[options]\nx = {BIG}\n")),
    Case("a huge hex integer", ["empire", "show", "--world", "w.toml", "--as", "1"], 1,
         "money: a 12000-bit number is above", files={"w.toml": VECTOR_A.replace(
             "money = 25000", "money = 0x" + "f" * 3000, 1)}),
    Case("nesting 2,000 deep", ["empire", "show", "--world", "w.toml", "--as", "1"], 1,
         "nested too deep", files=_world("\nx = " + "[" * 2000 + "]" * 2000 + "\n")),
    Case("scenario nested 2,000 deep", ["panzer", "explain", "s.toml"], 1, "nested too deep",
         files={"s.toml": SCENARIO + "\nx = " + "[" * 2000 + "]" * 2000 + "\n"}),
    Case("a hexside that is not a table", ["panzer", "explain", "s.toml"], 1,
         "hexside #1 must be a table",
         files={"s.toml": "schema_version = 1\nname = 'x'\n[map]\nwidth = 4\nheight = 4\n"
                          "hexsides = [1]\n"}),
    Case("happiness = nan", ["empire", "show", "--world", "w.toml", "--as", "1"], 1,
         "expected a finite number", files={"w.toml": VECTOR_A.replace(
             "tech = 100.0", "tech = 100.0\nhappiness = nan", 1)}),
    # -- never destroy a file (item 2)
    Case("--out naming the database", ["empire", "attack", "6,0", *ON_DB, "--out", "g.db"], 2,
         "--out g.db names the --db file itself", FRONT_ANSWERS),
    Case("export over the database", ["empire", "world", "export", "--db", "g.db", "--out",
         "g.db"], 2, "names the --db file itself"),
    Case("--out naming the world file", [*ATTACK, "--out", "w.toml"], 2,
         "names the --world file itself", "150\n0\n", _world("")),
    Case("--out over a note", [*ATTACK, "--out", "notes.txt"], 1,
         "exists and is not a bellum world file", "150\n0\n",
         {**_world(""), "notes.txt": "remember\n"}),
    Case("--out over a note, forced", [*ATTACK, "--out", "notes.txt", "--force"], 0, "",
         "150\n0\n", {**_world(""), "notes.txt": "remember\n"}, ["notes.txt"]),
    Case("export over another database", ["empire", "world", "export", "--db", "g.db",
         "--out", "other.db"], 1, "(it is an SQLite database)"),
    # -- bounded resources (item 3)
    Case("--world /dev/zero", ["empire", "show", "--world", "/dev/zero", "--as", "1"], 1,
         "a device, not a world file"),
    Case("--world a FIFO", ["empire", "show", "--world", "fifo", "--as", "1"], 1,
         "a pipe (FIFO), not a world file"),
    Case("--db a FIFO", ["empire", "show", "--db", "fifo", "--as", "1"], 1,
         "a pipe (FIFO), not a bellum database"),
    Case("a dump from /dev/zero", ["empire", "world", "import", "/dev/zero", "--db", "n.db"], 1,
         "a device, not a dump file"),
    Case("a scenario from a FIFO", ["panzer", "explain", "fifo"], 1, "not a scenario"),
    Case("--resolver-runs 1000000", ["empire", "odds", "2,0", "--world", "w.toml", "--as", "1",
         "--mil", "0,0=150", "--resolver-runs", "1000000"], 1,
         "--resolver-runs 1000000 would play the attack for about", files=_world("")),
    Case("serve --host with a NUL", ["serve", "--world", "w.toml", "--host", "\x00", "--port",
         "0"], 2, "is not a host name or address", files=_world("")),
    Case("an answer with no end (/dev/zero piped)", [*ATTACK, "--out", "o.toml"], 1,
         "an answer longer than 65,536 characters", "\x00" * 70_000, _world("")),
    Case("--password-file /dev/zero", ["empire", "sync", "127.0.0.1:1", "--as", "1",
         "--password-file", "/dev/zero"], 1, "a device, not a password file"),
    Case("--password-file a FIFO nobody writes to", ["empire", "attack", "2,0", "--live",
         "127.0.0.1:1", "--as", "1", "--password-file", "fifo"], 1,
         "cannot connect to 127.0.0.1:1"),
    Case("a 1024 x 1024 world", ["empire", "world", "new", "--db", "n.db", "--size",
         "1024x1024"], 2, "each side must be an even number from 2 to 256"),
    Case("an econfig from a FIFO", ["empire", "world", "import", "d.xdump", "--db", "n.db",
         "--econfig", "fifo"], 1, "not a econfig file", files={"d.xdump": "XDUMP nat 0\n/0\n"}),
]  # fmt: skip


@pytest.fixture(scope="module")
def game_db(tmp_path_factory: pytest.TempPathFactory) -> Path:
    folder = tmp_path_factory.mktemp("known")
    (folder / "front.toml").write_text(FRONT)
    ran = run(["empire", "world", "new", "--from", "front.toml", "--db", "g.db"], cwd=folder)
    assert ran.code == 0, ran.stderr
    shutil.copy(folder / "g.db", folder / "other.db")
    return folder


@pytest.mark.parametrize("case", CASES, ids=[c.name for c in CASES])
def test_known_input(case: Case, game_db: Path) -> None:
    with sandbox() as folder:
        for name in ("g.db", "other.db"):
            shutil.copy(game_db / name, folder / name)
        for name, text in case.files.items():
            (folder / name).write_text(text, "utf-8")
        os.mkfifo(folder / "fifo")
        before = snapshot(folder)
        ran = run(case.args, stdin=case.stdin, cwd=folder)
        check(ran, "known inputs", before, snapshot(folder), may_write=case.may_write)
        assert ran.code == case.code, (ran.stdout[-300:], ran.stderr)
        last = (ran.stderr.strip().splitlines() or [""])[-1]
        said = last if last.startswith("bellum: error:") else ran.stdout
        assert case.says in said, (ran.stdout[-300:], ran.stderr)


# -- what only a real process shows: its locale, its standard output --------------


def _bellum(
    args: list[str], *, stdin: bytes = b"", env: dict[str, str], cwd: Path
) -> subprocess.CompletedProcess[bytes]:
    return subprocess.run(
        [sys.executable, "-m", "bellum", *args],
        input=stdin,
        capture_output=True,
        cwd=cwd,
        env={**os.environ, **env},
        check=False,
        timeout=60,
    )


@pytest.mark.parametrize(
    "env",
    [{"LC_ALL": "C.UTF-8"}, {"LC_ALL": "C.UTF-8", "PYTHONIOENCODING": "utf-8:strict"}],
    ids=["surrogateescape", "strict"],
)
def test_answers_that_are_not_utf8_are_read_as_the_server_reads_bytes(
    env: dict[str, str], game_db: Path, tmp_path: Path
) -> None:
    shutil.copy(game_db / "g.db", tmp_path / "g.db")
    r = _bellum(["empire", "attack", "6,0", *ON_DB], stdin=b"\xff\n20\n5\n", env=env, cwd=tmp_path)
    assert r.returncode in (0, 1) and b"Traceback" not in r.stderr, r.stderr
    r = _bellum(["empire", "history", "--db", "g.db", "--json"], env=env, cwd=tmp_path)
    assert r.returncode == 0 and b'"answers": [\n        "\\ufffd"' in r.stdout
    r = _bellum(
        ["empire", "show", "--db", "g.db", "--as", "\udcff"],
        env={**env, "LC_ALL": "C.UTF-8"},
        cwd=tmp_path,
    )
    assert r.returncode == 2 and r.stderr.startswith(b"bellum: error: no country '\xef\xbf\xbd'")


@pytest.mark.skipif(not os.path.exists("/dev/full"), reason="needs /dev/full (Linux)")
def test_a_full_disk_on_standard_output_is_one_line(game_db: Path, tmp_path: Path) -> None:
    shutil.copy(game_db / "g.db", tmp_path / "g.db")
    with open("/dev/full", "wb") as full:
        r = subprocess.run(
            [sys.executable, "-m", "bellum", "empire", "show", "--db", "g.db", "--as", "1"],
            stdout=full,
            stderr=subprocess.PIPE,
            cwd=tmp_path,
            check=False,
            timeout=60,
        )
    assert r.returncode == 1
    assert r.stderr == b"bellum: error: cannot write the output: No space left on device\n"


#: Damage done to a database's rows by hand or by a broken disk: (table, column, new
#: value, the command that reads it, what it must say).
DAMAGE = [
    ("object", "data", "{", ["empire", "show", "--db", "g.db", "--as", "1"], "damaged database"),
    ("object", "data", '{"x":1e999}', ["empire", "show", "--db", "g.db", "--as", "1"],
     "damaged database"),
    ("command", "seed", -1, ["empire", "replay", "1", "--db", "g.db"], "out of range"),
    ("command", "events", "[1]", ["empire", "history", "--db", "g.db"], "command 1"),
    ("dump_table", "columns", '{"a": 1}', ["empire", "world", "export", "--db", "g.db", "--out",
     "o.xdump"], "imported dump table"),
    ("dump_record", "line", "1 2", ["empire", "world", "export", "--db", "g.db", "--out",
     "o.xdump"], "imported dump"),
    ("schema_version", "version", "x", ["empire", "show", "--db", "g.db", "--as", "1"],
     "schema_version"),
]  # fmt: skip


@pytest.fixture(scope="module")
def imported_db(tmp_path_factory: pytest.TempPathFactory) -> Path:
    """A database imported from a dump, with one order in its history."""
    folder = tmp_path_factory.mktemp("damage")
    imported_game(folder, FRONT, FRONT_ANSWERS)
    return folder / "game.db"


@pytest.mark.parametrize(("table", "column", "value", "args", "says"), DAMAGE,
                         ids=[f"{d[0]}.{d[1]}={d[2]!s:.8}" for d in DAMAGE])  # fmt: skip
def test_a_damaged_row_is_named(
    imported_db: Path, table: str, column: str, value: object, args: list[str], says: str
) -> None:
    import sqlite3

    with sandbox() as folder:
        shutil.copy(imported_db, folder / "g.db")
        conn = sqlite3.connect(folder / "g.db")
        first = "rowid" if table in ("command", "schema_version", "dump_table") else column
        conn.execute(
            f"UPDATE {table} SET {column} = ? WHERE {first} = (SELECT min({first}) FROM {table})",
            (value,),
        )
        conn.commit()
        conn.close()
        before = snapshot(folder)
        ran = run(args, cwd=folder)
        check(ran, "known inputs", before, snapshot(folder))
        last = ran.stderr.strip().splitlines()[-1]
        assert ran.code == 1 and last.startswith("bellum: error:") and says in last, last


def test_a_place_off_the_sectors_is_damage(imported_db: Path) -> None:
    """A nation whose origin is no sector would make every coordinate it types miss."""
    import sqlite3

    with sandbox() as folder:
        shutil.copy(imported_db, folder / "g.db")
        conn = sqlite3.connect(folder / "g.db")
        conn.execute(
            "UPDATE object SET data = replace(data, '\"origin\":[0,0]', '\"origin\":[1,0]')"
            " WHERE kind = 'nation'"
        )
        conn.commit()
        conn.close()
        ran = run(["empire", "attack", "2,0", *ON_DB], stdin=FRONT_ANSWERS, cwd=folder)
        assert ran.code == 1 and ran.crash is None
        assert "nation 1: damaged database: origin: 1,0 is not a sector" in ran.stderr
