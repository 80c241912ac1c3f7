"""Fighting on the real server, each command checked bit for bit against bellum's rules.

One game holds four fronts between countries 1 and 2 (at war): an attack from
1's airfield 0,0 on 2's highway 2,0; an assault from 1's troop transport at
sea on 2's highway 6,4; a boarding of 2's cargo ship by 1's destroyer at sea;
and a boarding of 2's infantry standing in 1's wilderness -6,4.  Before each
command a deity session reads the whole game; bellum resolves the command on
it with the seed the test-mode server is about to use and the player's
answers, and the two transcripts must agree line for line.
"""

from __future__ import annotations

from pathlib import Path

import pytest
from live_support import DEITY, DEITY_PASSWORD, FRONT, FRONTS, EmpireGame

from bellum.client.errors import ConnectionLost
from bellum.client.live import Played, play
from bellum.client.session import Session
from bellum.empire.events import Event, Prompt, ScriptedPrompter
from bellum.empire.io.sqlite.store import Store
from bellum.errors import InputError, UsageError
from clirunner import bellum


@pytest.fixture(scope="module")
def game(empire_game: EmpireGame) -> EmpireGame:
    empire_game.deity(*FRONTS)
    return empire_game


@pytest.fixture(scope="module")
def db(tmp_path_factory: pytest.TempPathFactory) -> Path:
    return tmp_path_factory.mktemp("live") / "w.db"


def checked(
    game: EmpireGame, db: Path, order: str, answers: list[str], asked: list[Prompt] | None = None
) -> Played:
    """Play ``order`` as country 1 with a deity checking; the check must find no difference.
    The questions the server asked go to ``asked``."""
    seen: list[Event] = []
    prompter = ScriptedPrompter(answers)
    with game.session("1", "1") as me, game.session(DEITY, DEITY_PASSWORD) as god:
        done = play(me, db, order, prompter=prompter, sink=seen.append, check=god)
    if asked is not None:
        asked += prompter.asked
    assert done.check is not None
    assert done.check.differences == [], done.transcript.text()
    assert done.check.transcript == done.transcript.text()
    assert seen == done.transcript.events  # printed as the server sent it
    assert done.transcript.seed == done.check.seed
    return done


def test_live_fight_attack(game: EmpireGame, db: Path) -> None:
    asked: list[Prompt] = []
    done = checked(game, db, "attack 2,0", ["50", "0"], asked)
    text = done.transcript.text()
    question = asked[0]  # the server's question, answered like the rules' own
    assert question.kind == "mil" and (question.at, question.most) == ((0, 0), 99)
    assert text.startswith("2,0 is a 100% 2 highway with approximately 40 military.\n")
    assert "Number of mil from airfield at 0,0 (max 99) : 50\n" in text
    assert done.world.sector((2, 0)).owner == 1  # synced back
    store = Store.open(db)
    try:
        rec = store.command(done.entry)
        assert (str(rec.order), rec.outcome, rec.server) == ("attack 2,0", "played", game.address)
        assert (rec.seed, rec.answers, rec.transcript) == (done.check.seed if done.check else 0, ["50", "0"], text)  # fmt: skip
        assert rec.result["check"]["same"] is True
        assert ("sector", "2,0") in rec.changes  # the objects the command touched
        assert store.world().sector((2, 0)).owner == 1
    finally:
        store.close()


def test_live_fight_assault(game: EmpireGame, db: Path) -> None:
    done = checked(game, db, "assault 6,4 0", ["20"])
    assert "We have secured a beachhead at 6,4, sir!" in done.transcript.text()


def test_live_fight_board(game: EmpireGame, db: Path) -> None:
    done = checked(game, db, "board 2 1", ["50"])
    text = done.transcript.text()
    assert "The size of the ship you are trying to board limits your party to 50 mil," in text
    assert done.world.ships[2].owner == 1


def test_live_fight_lboard(game: EmpireGame, db: Path) -> None:
    done = checked(game, db, "lboard 0 -6,4", ["100"])
    assert "We have boarded inf  infantry #0, sir!" in done.transcript.text()
    assert done.world.units[0].owner == 1


def test_live_fight_usage_errors_match_too(game: EmpireGame, db: Path) -> None:
    done = checked(game, db, "lboard 0 12,-4", [])  # from a sector 1 does not own
    assert done.transcript.text().endswith("Usage: lboard <to-LAND> [<from-sector>]\n")


@pytest.mark.parametrize(
    ("order", "answers"),
    [
        ("board", [""]),  # an empty victim number is ship 0 (C's atoi)
        ("board", ["abc"]),
        ("board", ["2x", "1"]),
        ("board", ["2", ""]),  # an empty "from" is ship 0
        ("board", ["2", "1/2"]),  # digits and slashes: a ship number
        ("board", ["2", "1 x"]),  # anything else: a sector, here a malformed one
        ("board", ["-1"]),
        ("lboard", ["0", ""]),  # not a sector: said, then the usage line
        ("lboard", ["abc", "-6,4"]),
        ("assault", ["6,4"]),  # no ship at the prompt: a failure, not a usage error
        ("assault", ["6,4", ""]),
        ("assault", ["6,4", "abc"]),
        ("assault", ["6,4", "0x", "0"]),
        ("assault", ["6,4", "-2"]),
        ("attack", ["2,0x"]),
        ("attack", ["4,0"]),  # not adjacent: command failed
    ],
)
def test_live_fight_arguments_are_read_as_the_server_reads_them(
    game: EmpireGame, db: Path, order: str, answers: list[str]
) -> None:
    checked(game, db, order, answers)


def test_live_fight_failed_commands_say_command_failed(game: EmpireGame, db: Path) -> None:
    """A legality check that fails with RET_FAIL: the server's command loop adds the line."""
    done = checked(game, db, "attack 0,0", [])
    assert done.transcript.text().endswith("command failed\n")


def test_live_fight_end_of_input_aborts_the_question(game: EmpireGame, db: Path) -> None:
    done = checked(game, db, "attack -8,0", [])  # unowned sea: the deity's name is printed
    assert done.transcript.text().startswith("-8,0 is a 0% POGO sea")
    done = checked(game, db, "attack", [])  # asked for the target, no answer: usage
    assert done.transcript.answers == [None]
    assert done.transcript.text().startswith("Sector :  \n")


def test_live_fight_ctrl_c_aborts_the_command_and_records_what_the_server_did(
    game: EmpireGame, db: Path
) -> None:
    class Interrupt:
        def ask(self, prompt: str) -> str | None:
            raise KeyboardInterrupt

    store = Store.open(db)
    try:
        before = len(store.history())
    finally:
        store.close()
    with game.session("1", "1") as me:
        with pytest.raises(KeyboardInterrupt):
            play(me, db, "attack", prompter=Interrupt())  # asks "Sector :  "
        count = game.seeds.commands
        assert me.command("xdump nation-status 0").seed == count + 1  # the attack counted
        assert me.btus is not None  # the session read on to the command prompt and is usable
        again = me.command("xdump nation-status 1")
        assert again.text().startswith("XDUMP nation-status")
    store = Store.open(db)
    try:
        entries = [r for r in store.history()[before:] if r.command == "attack"]
        assert len(entries) == 1  # the server ran it, so the history has it
        rec = store.command(entries[0].id)
        assert (rec.outcome, rec.result, rec.answers) == (
            "played",
            {"stopped": "interrupted"},
            [None],
        )
        assert rec.transcript.startswith("Sector :  \n")
    finally:
        store.close()


def test_live_fight_check_needs_a_shared_seed_counter(game: EmpireGame, db: Path) -> None:
    with (
        game.session("1", "1") as me,
        Session.open(game.address, country=DEITY, password=DEITY_PASSWORD) as god,
        pytest.raises(UsageError, match="one SeedCounter"),
    ):
        play(me, db, "attack 2,0", check=god)


def test_live_fight_plays_only_combat_orders(game: EmpireGame, db: Path) -> None:
    with game.session("1", "1") as me:
        with pytest.raises(InputError, match="unknown command 'fire'"):
            play(me, db, "fire 1 2,0")
        with pytest.raises(InputError, match="at most 2 arguments"):
            play(me, db, "lboard 1 2,0 3")
        assert me.commands_sent == 0  # refused before anything reached the server


def _history(db: Path) -> list[str]:
    if not db.exists():
        return []
    r = bellum("empire", "history", "--db", str(db))
    assert r.returncode == 0, r.stderr
    return [line.split()[3] for line in r.stdout.splitlines()[1:]]


def test_live_fight_history_lists_them_and_replay_refuses(game: EmpireGame, db: Path) -> None:
    """The fights above are in the history, each after its sync; run alone, the test
    plays an attack of its own first."""
    if "attack" not in _history(db):
        checked(game, db, "attack 2,0", ["50", "0"])
    commands = _history(db)
    assert {"sync", "attack"} <= set(commands) <= {"sync", "attack", "assault", "board", "lboard"}
    first_attack = 1 + commands.index("attack")
    r = bellum("empire", "replay", str(first_attack), "--db", str(db))
    assert r.returncode == 1 and "was played on the server" in r.stderr
    r = bellum("empire", "replay", "1", "--db", str(db))
    assert r.returncode == 1 and "is a sync from" in r.stderr


def test_live_fight_units_and_the_end_of_input_at_the_move_in(game: EmpireGame, db: Path) -> None:
    """Two cavalry of 1's at -6,4 attack 2's highway -4,4; input ends at the move-in:
    the server asks nothing more and both stay.  Then one takes -5,3 alone and occupies it,
    and both attack -7,5, where the fight costs them efficiency, which the server reports."""
    game.deity(
        "desi -4,4 +", "give m -4,4 5", "edit l -4,4 o 2 O 2", "edit l -4,4 e 100 m 127",
        "desi -5,3 +", "give m -5,3 5", "edit l -5,3 o 2 O 2", "edit l -5,3 e 100 m 127",
        "build l -6,4 cav", "edit u 1 O 1 e 100 m 127 M 30",
        "build l -6,4 cav", "edit u 2 O 1 e 100 m 127 M 30",
    )  # fmt: skip
    done = checked(game, db, "attack -4,4", ["20", "Y"])
    text = done.transcript.text()
    assert "Move in with" not in text and "cav  cavalry #1 stays in -6,4\n" in text
    done = checked(game, db, "attack -5,3", ["0", "y", "n", "y"])
    text = done.transcript.text()
    assert "We have captured -5,3, sir!\n" in text  # a damaged cavalry says so first
    assert "cav  cavalry #1 moves in to occupy -5,3\n" in text
    game.deity("desi -7,5 +", "give m -7,5 20", "edit l -7,5 o 2 O 2", "edit l -7,5 e 100 m 127")
    done = checked(game, db, "attack -7,5", ["2", "Y"])
    assert "cav  cavalry #2 damaged from 100% to " in done.transcript.text()


def test_live_fight_server_that_stops_mid_command_leaves_nothing_half_written(
    empire_server: Path, tmp_path: Path
) -> None:
    own = EmpireGame(empire_server)
    own.start()
    try:
        own.deity(*FRONT)

        class StopTheServer:
            def ask(self, prompt: str) -> str | None:
                assert own.process is not None
                own.process.terminate()
                own.process.wait(10)
                return "50"

        db = tmp_path / "w.db"
        with own.session("1", "1", timeout=5) as me, pytest.raises(ConnectionLost):
            play(me, db, "attack 2,0", prompter=StopTheServer())
        store = Store.open(db)
        try:
            assert [r.command for r in store.history()] == ["sync"]  # before the command
            world = store.world()
            assert world.nations[1].btu == 640 and world.sector((0, 0)).mil == 100
        finally:
            store.close()
    finally:
        own.stop()
