"""``bellum empire attack|assault|paradrop|board|lboard --live HOST:PORT --check`` on the
real server: the command line a player types, each order checked bit for bit.

The game holds the four fronts of ``FRONTS``, and the paradrop scenario's transports
at 1's airfield 0,0 with a highway of 2's, 2,-2, to drop on; 2's highway 1,1 beside
0,0 is for a fight whose outcome depends on the seed.
Each order goes through the in-process command line with the answers piped on
standard input, as a script would; ``--check`` reads the server's command count
itself, as the deity, and sets it to 0 (the game's counter follows what bellum prints).
"""

from __future__ import annotations

import json
import re
from pathlib import Path

import pytest
from live_support import DEITY_PASSWORD, FRONTS, PARADROP, EmpireGame

from bellum.empire.io.sqlite.store import Store
from clirunner import Ran, bellum
from jsonschemas import validate

PASSWORDS = {"BELLUM_PASSWORD": "1", "BELLUM_DEITY_PASSWORD": DEITY_PASSWORD}


@pytest.fixture(scope="module")
def game(empire_game: EmpireGame) -> EmpireGame:
    empire_game.deity(
        *FRONTS,
        *PARADROP,
        "desi 2,-2 +",
        "give m 2,-2 40",
        "edit l 2,-2 o 2 O 2",
        "edit l 2,-2 e 100 m 127",
        "desi 1,1 +",
        "give m 1,1 40",
        "edit l 1,1 o 2 O 2",
        "edit l 1,1 e 100 m 127",
        "desi -3,-3 +",
        "give m -3,-3 100",
        "edit l -3,-3 o 1 O 1",
        "edit l -3,-3 e 100 m 127",
        "desi -5,-3 +",
        "give m -5,-3 1",
        "edit l -5,-3 o 2 O 2",
        "edit l -5,-3 e 100 m 127",
    )
    return empire_game


@pytest.fixture(scope="module")
def db(tmp_path_factory: pytest.TempPathFactory) -> Path:
    return tmp_path_factory.mktemp("live-cli") / "w.db"


def live(game: EmpireGame, db: Path, *args: str, stdin: str = "", check: bool = True) -> Ran:
    """``bellum empire ARGS --live`` as country 1; the game follows the server's count."""
    extra = ["--check"] if check else []
    r = bellum("empire", *args, "--as", "1", "--db", str(db), "--live", game.address, *extra,
               stdin=stdin, env=PASSWORDS)  # fmt: skip
    m = re.search(r"^commands run: (\d+) ", r.stderr, re.M)
    if m:
        game.seeds.commands = int(m.group(1))
    return r


def last_entry(db: Path) -> tuple[str, str, int]:
    store = Store.open(db)
    try:
        rec = store.history()[-1]
        return str(rec.order), rec.transcript, rec.seed
    finally:
        store.close()


def assert_checked(r: Ran, db: Path, order: str) -> None:
    assert r.returncode == 0, r.stderr
    assert re.search(r"^check: bellum's resolution with seed \d+ matches the server's transcript"
                     r" byte for byte", r.stderr, re.M), r.stderr  # fmt: skip
    stored_order, transcript, _ = last_entry(db)
    assert stored_order == order
    assert r.stdout == transcript  # printed as the server sent it, answers echoed


@pytest.mark.parametrize(
    ("args", "stdin", "expect"),
    [
        (["attack", "2,0"], "50\n0\n", "Number of mil from airfield at 0,0 (max 99) : 50\n"),
        (["assault", "6,4", "0"], "20\n", "We have secured a beachhead at 6,4, sir!"),
        (["board", "2", "1"], "50\n", "The size of the ship you are trying to board limits"),
        (["lboard", "0", "-6,4"], "100\n", "We have boarded inf  infantry #0, sir!"),
        (["paradrop", "0/1/2/3/4/5/6/7/8/9", ".", "0,0", "2,-2"], "",
         "Final air-assault strength:"),
        (["attack", "0,0"], "", "command failed\n"),  # a legality check that fails
        (["lboard", "0", "12,-4"], "", "Usage: lboard <to-LAND> [<from-sector>]\n"),
    ],
    ids=["attack", "assault", "board", "lboard", "paradrop", "failed", "usage"],
)  # fmt: skip
def test_live_cli_orders_are_checked_bit_for_bit(
    game: EmpireGame, db: Path, args: list[str], stdin: str, expect: str
) -> None:
    r = live(game, db, *args, stdin=stdin)
    assert_checked(r, db, " ".join(args))
    assert expect in r.stdout


def test_live_cli_end_of_input_at_the_move_in(game: EmpireGame, db: Path) -> None:
    """Piped answers that run out at the move-in: the server keeps the capture and moves
    nothing in, and so does bellum's check; the history has the order."""
    r = live(game, db, "attack", "-5,-3", stdin="50\n")
    assert_checked(r, db, "attack -5,-3")
    assert "We have captured -5,-3, sir!\n" in r.stdout
    assert re.search(r"How many mil to move in from -3,-3 \(\d+ max\)\? \n", r.stdout)
    assert "bellum: note: standard input ended at 'How many mil to move in" in r.stderr
    store = Store.open(db)
    try:
        assert store.world().sector((-5, -3)).owner == 1
    finally:
        store.close()


def test_live_cli_json_without_check(game: EmpireGame, db: Path) -> None:
    r = live(game, db, "attack", "-8,0", "--json", check=False)  # the deity's sea
    assert r.returncode == 0, r.stderr
    doc = json.loads(r.stdout)
    validate(doc)
    assert (doc["schema"], doc["order"], doc["check"], doc["commands_run"]) == (
        "bellum.empire.live", "attack -8,0", None, None
    )  # fmt: skip
    assert doc["transcript"].startswith("-8,0 is a 0% POGO sea")
    assert doc["transcript"] == last_entry(db)[1]


def test_live_cli_check_reads_the_count_whatever_ran_before(game: EmpireGame, db: Path) -> None:
    """No count to give: --check reads it from the server's generator as the deity, even
    after commands bellum did not see, and an order whose fight depends on the seed
    matches."""
    with game.session("2", "2") as other:
        for _ in range(37):
            other.command("xdump ver")
    r = live(game, db, "attack", "1,1", stdin="10\n0\n")
    assert_checked(r, db, "attack 1,1")
    assert "Final odds:" in r.stdout  # a fight: the dice had their say


def test_live_cli_check_needs_a_server_in_test_mode(tmp_path: Path, empire_server: Path) -> None:
    plain = EmpireGame(empire_server, {"running_test_suite": 0})
    try:
        plain.start()
        r = bellum("empire", "attack", "2,0", "--as", "POGO", "--db", str(tmp_path / "w.db"),
                   "--live", plain.address, "--check", env=PASSWORDS | {"BELLUM_PASSWORD": "peter"})  # fmt: skip
    finally:
        plain.stop()
    assert r.returncode == 1, r.stderr
    assert r.stderr.splitlines()[-1].endswith(
        "the server is not in test mode (econfig running_test_suite 1), so the seeds of its"
        " commands cannot be known"
    )


@pytest.mark.parametrize(
    ("args", "message"),
    [
        (["--check"], "--check goes with --live HOST:PORT"),
        (["--live", "127.0.0.1:1", "--seed", "3"], "--seed does not apply with --live"),
        (["--live", "127.0.0.1:1", "--world", "w.toml"], "--world does not apply with --live"),
        (["--live", "127.0.0.1:1", "--commands-run", "3"], "no such option '--commands-run'"),
        (["--live", "127.0.0.1:1", "--option", "BLITZ=0"], "--option go with --live only for"),
        (["--live", "nowhere"], "expected the server as HOST:PORT"),
    ],
)
def test_live_cli_usage_errors_are_one_line(args: list[str], message: str) -> None:
    r = bellum("empire", "attack", "2,0", "--as", "1", *args)
    assert r.returncode == 2 and message in r.stderr and r.stderr.count("\n") == 1, r.stderr


def test_live_cli_passwords_never_come_from_standard_input(tmp_path: Path) -> None:
    r = bellum("empire", "attack", "2,0", "--as", "1", "--db", str(tmp_path / "w.db"),
               "--live", "127.0.0.1:1", stdin="secret\n")  # fmt: skip
    assert r.returncode == 1
    assert r.stderr == (
        "bellum: error: no password for 1: give --password-file or set BELLUM_PASSWORD"
        " (standard input is for the answers to the server's questions)\n"
    )
