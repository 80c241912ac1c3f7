"""The blocking session against a fake server on 127.0.0.1 that plays recorded conversations."""

from __future__ import annotations

import socket

import pytest
from client_support import FakeServer, Turn, conversation, parse_script

from bellum.client import (
    ConnectionLost,
    LoginRefused,
    RemoteProtocolError,
    SeedCounter,
    ServerTimeout,
    Session,
    parse_address,
)
from bellum.empire.events import ScriptedPrompter
from bellum.errors import UsageError

LOGIN_AS_1 = conversation("attack-interrupted")[:16]


def test_client_session_logs_in_runs_a_command_and_says_goodbye() -> None:
    with (
        FakeServer(conversation("deity-login-xdump")) as server,
        Session.open(server.address, country="POGO", password="peter") as session,
    ):
        assert session.conn.utf8
        assert session.greeting[1:] == [
            "***          Server configured for testing          ***",
            "*** If you see this in a game, it is misconfigured! ***",
        ]
        out = session.command("xdump nation-status *")
        assert out.text().splitlines()[1:] == [
            '0 "unused"',
            '1 "new"',
            '2 "visitor"',
            '3 "sanctuary"',
            '4 "active"',
            '5 "deity"',
            "/6",
        ]
        assert out.btus == 640 and session.commands_sent == 1
    assert server.errors == []
    assert server.received[-1] == "ctld"  # end of file at the command prompt, then EOF


def test_client_session_relays_questions_and_aborts_unanswered_ones() -> None:
    seen = []
    with (
        FakeServer(conversation("attack-interrupted")) as server,
        Session.open(server.address, country="1", password="1") as session,
    ):
        assert "You have two new telegrams waiting ..." in session.greeting
        prompter = ScriptedPrompter(["50"])
        out = session.command("attack 2,0", prompter=prompter, sink=seen.append)
    assert server.errors == []
    assert [p.text for p in prompter.asked] == [
        "Number of mil from airfield at 0,0 (max 99) : ",
        "How many mil to move in from 0,0 (16 max)? ",
    ]
    assert out.answers == ["50", None]
    assert seen == out.events
    text = out.text()
    assert text.startswith(
        "2,0 is a 100% 2 highway with approximately 40 military.\n"
        "Number of mil from airfield at 0,0 (max 99) : 50\n\n"
    )
    assert text.endswith(
        "How many mil to move in from 0,0 (16 max)? \n1 of your troops now occupy 2,0\n"
    )
    assert out.btus == 636


def test_client_session_ctrl_c_at_a_question_aborts_the_command_on_the_server() -> None:
    class Interrupting:
        def __init__(self) -> None:
            self.asked = 0

        def ask(self, prompt: str) -> str | None:
            self.asked += 1
            if self.asked == 2:
                raise KeyboardInterrupt
            return "50"

    seeds = SeedCounter(commands=20)
    with FakeServer(conversation("attack-interrupted")) as server:
        session = Session.open(server.address, country="1", password="1", seeds=seeds)
        with pytest.raises(KeyboardInterrupt):
            session.command("attack 2,0", prompter=Interrupting())
        assert session.btus == 636  # read on to the command prompt
        assert seeds.commands == 21  # the server ran it, with seed 21: the next is 22
        session.close()
    assert server.errors == []
    assert server.received[-2:] == ["aborted", "ctld"]


def test_client_session_bad_password_and_unknown_country_are_one_line_errors() -> None:
    bad = conversation("bad-password")
    with (
        FakeServer(bad[: bad.index(Turn("C", "quit"))]) as server,
        pytest.raises(LoginRefused) as info,
    ):
        Session.open(server.address, country="POGO", password="nope")
    assert str(info.value) == f"{server.address}: bad password for country POGO"
    unknown = conversation("no-such-country")
    with (
        FakeServer(unknown[: unknown.index(Turn("C", "quit"))]) as server,
        pytest.raises(LoginRefused, match="country Nobody does not exist"),
    ):
        Session.open(server.address, country="Nobody", password="x")


def test_client_session_country_in_use() -> None:
    script = parse_script(
        "S: 2 Empire server ready\nC: client bellum 0.1.0\nS: 0 talking\n"
        "C: options utf-8\nS: 0 Accepted\nC: coun 1\nS: 0 country name 1\n"
        "C: pass 1\nS: 0 password ok\nC: play\nS: 3 country in use by 127.0.0.1\nS-EOF\n"
    )
    with (
        FakeServer(script) as server,
        pytest.raises(LoginRefused, match=r"cannot play 1: country in use by 127\.0\.0\.1"),
    ):
        Session.open(server.address, country="1", password="1")


def test_client_session_refused_connection() -> None:
    probe = socket.socket()
    probe.bind(("127.0.0.1", 0))
    port = probe.getsockname()[1]
    probe.close()
    with pytest.raises(
        ConnectionLost, match=f"cannot connect to 127\\.0\\.0\\.1:{port}: connection refused"
    ):
        Session.open(f"127.0.0.1:{port}", country="1", password="1")


def test_client_session_times_out_cleanly() -> None:
    with (
        FakeServer([*LOGIN_AS_1[:5], Turn("HANG")]) as server,
        pytest.raises(ServerTimeout, match=r"sent nothing for 0\.3 s"),
    ):
        Session.open(server.address, country="1", password="1", timeout=0.3)


def test_client_session_server_that_stops_mid_command() -> None:
    script = [
        *LOGIN_AS_1,
        Turn("C", "attack 2,0"),
        Turn("S", "1 2,0 is a 100% 2 highway"),
        Turn("EOF"),
    ]
    with FakeServer(script) as server:
        session = Session.open(server.address, country="1", password="1")
        with pytest.raises(ConnectionLost, match="closed the connection"):
            session.command("attack 2,0", prompter=ScriptedPrompter(["50"]))
        session.close()
    assert server.errors == []


def test_client_session_not_an_empire_server() -> None:
    with (
        FakeServer(parse_script("S: 1 hello, this is HTTP\nS-EOF\n")) as server,
        pytest.raises(RemoteProtocolError, match="not an Empire server"),
    ):
        Session.open(server.address, country="1", password="1")


@pytest.mark.parametrize(
    ("text", "expected"),
    [("127.0.0.1:6665", ("127.0.0.1", 6665)), ("[::1]:80", ("::1", 80)), ("h:1", ("h", 1))],
)
def test_client_session_addresses(text: str, expected: tuple[str, int]) -> None:
    assert parse_address(text) == expected


@pytest.mark.parametrize(
    "text", ["localhost", ":80", "h:0", "h:70000", "h:x", "h:²", "h:٣", "h:" + "9" * 5000]
)
def test_client_session_bad_addresses(text: str) -> None:
    with pytest.raises(UsageError, match="HOST:PORT"):
        parse_address(text)


@pytest.mark.parametrize("text", ["a..b:6665", "x" * 64 + ":6665", ".:1"])
def test_client_session_host_names_the_resolver_cannot_encode(text: str) -> None:
    # socket.create_connection would raise UnicodeError from its idna codec.
    with pytest.raises(UsageError, match="is not a host name or address"):
        parse_address(text)


def test_client_session_server_that_closes_during_the_login() -> None:
    script = [*LOGIN_AS_1[:12], Turn("EOF")]  # in the greeting, before the command prompt
    with FakeServer(script) as server, pytest.raises(ConnectionLost, match="closed the connection"):
        Session.open(server.address, country="1", password="1", timeout=5)
