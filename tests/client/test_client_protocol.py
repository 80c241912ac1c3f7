"""The sans-I/O protocol core: recorded conversations with the real server, replayed."""

from __future__ import annotations

import logging

import pytest
from client_support import CONVERSATIONS, Turn, conversation
from hypothesis import given
from hypothesis import strategies as st

from bellum.client import (
    NEED_DATA,
    ArgumentPrompt,
    Awaiting,
    CommandPrompt,
    Connection,
    ConnectionClosed,
    Data,
    Exit,
    Init,
    LocalProtocolError,
    Other,
    OutputId,
    Phase,
    ProtocolError,
    RemoteProtocolError,
    Reply,
)
from bellum.client.events import Event
from bellum.errors import BellumError

NAMES = sorted(p.stem for p in CONVERSATIONS.glob("*.txt"))


def events_of(conn: Connection) -> list[Event]:
    out = []
    while (event := conn.next_event()) is not NEED_DATA:
        assert not isinstance(event, type(NEED_DATA))
        out.append(event)
        if isinstance(event, ConnectionClosed):
            break
    return out


def send(conn: Connection, line: str) -> bytes:
    """Send a recorded client line the way the protocol asks for it now."""
    if conn.awaiting is Awaiting.LOGIN:
        verb, *args = line.split(" ")
        return conn.send_login(verb, *args)
    if line == "ctld":
        return conn.send_eof()
    if line == "aborted":
        return conn.send_interrupt()
    if conn.awaiting is Awaiting.COMMAND:
        return conn.send_command(line)
    return conn.send_answer(line)


def replay(turns: list[Turn]) -> tuple[Connection, list[Event]]:
    """Feed the server's lines to a connection and make it send the client's lines.

    The client may speak only when the server waits (the connection refuses
    otherwise), and each line must come out byte for byte as recorded.
    """
    conn, seen = Connection(), []
    for turn in turns:
        if turn.side == "S":
            conn.receive_data(turn.line.encode("latin-1") + b"\n")
            seen += events_of(conn)
        elif turn.side == "EOF":
            conn.receive_data(b"")
            seen += events_of(conn)
        else:
            assert send(conn, turn.line) == turn.line.encode() + b"\n"
    return conn, seen


@pytest.mark.parametrize("name", NAMES)
def test_client_protocol_replays_every_recorded_conversation(name: str) -> None:
    conn, seen = replay(conversation(name))
    assert conn.phase is Phase.CLOSED
    assert isinstance(seen[-1], ConnectionClosed)
    assert isinstance(seen[-2], Exit) and seen[-2].text == "so long..."


def test_client_protocol_login_then_xdump() -> None:
    conn, seen = replay(conversation("deity-login-xdump"))
    assert seen[0] == Init("Empire server ready")
    assert seen[1:6] == [
        Reply(OutputId.CMDOK, "talking to bellum 0.1.0"),
        Reply(OutputId.CMDOK, "Accepted"),
        Reply(OutputId.CMDOK, "country name POGO"),
        Reply(OutputId.CMDOK, "password ok"),
        Init("2"),
    ]
    assert conn.utf8
    prompts = [e for e in seen if isinstance(e, CommandPrompt)]
    assert prompts == [CommandPrompt(0, 640), CommandPrompt(0, 640)]
    assert prompts[0].text() == "[0:640] Command : "
    data = [e.text for e in seen if isinstance(e, Data)]
    assert data[data.index("XDUMP nation-status 1796019559") + 1 :][:7] == [
        '0 "unused"',
        '1 "new"',
        '2 "visitor"',
        '3 "sanctuary"',
        '4 "active"',
        '5 "deity"',
        "/6",
    ]


def test_client_protocol_bad_password_and_unknown_country_are_command_errors() -> None:
    _, seen = replay(conversation("bad-password"))
    refused = [e for e in seen if isinstance(e, Reply) and not e.ok]
    assert refused == [Reply(OutputId.CMDERR, "password bad, logging entry")]
    _, seen = replay(conversation("no-such-country"))
    assert Reply(OutputId.CMDERR, "country Nobody does not exist") in seen


def test_client_protocol_questions_after_an_interrupt_read_nothing() -> None:
    turns = conversation("attack-interrupted")
    cut = turns.index(Turn("C", "aborted"))
    conn, seen = replay(turns[:cut])
    assert seen[-1] == ArgumentPrompt("How many mil to move in from 0,0 (16 max)? ")
    assert conn.awaiting is Awaiting.ANSWER
    conn.send_interrupt()
    # A question the aborted command still prints consumes no input: nothing may be sent.
    conn.receive_data(b"4 Still there? \n1 1 of your troops now occupy 2,0\n")
    assert events_of(conn)[0] == ArgumentPrompt("Still there? ")
    assert conn.awaiting is None
    with pytest.raises(LocalProtocolError, match="waits for nothing"):
        conn.send_answer("5")
    conn.receive_data(b"6 0 636\n")
    assert events_of(conn) == [CommandPrompt(0, 636)]
    assert conn.awaiting is Awaiting.COMMAND


def test_client_protocol_is_synchronous() -> None:
    conn = Connection()
    with pytest.raises(LocalProtocolError, match="waits for nothing"):
        conn.send_login("coun", "POGO")
    conn.receive_data(b"2 Empire server ready\n")
    conn.next_event()
    conn.send_login("coun", "POGO")
    with pytest.raises(LocalProtocolError, match="login command 'pass'"):
        conn.send_login("pass", "peter")
    with pytest.raises(LocalProtocolError, match="command"):
        conn.send_command("xdump nat *")


def test_client_protocol_refuses_what_the_server_would_misread() -> None:
    conn = Connection()
    conn.receive_data(b"2 ready\n0 ok\n")
    conn.next_event()
    with pytest.raises(LocalProtocolError, match="control characters"):
        conn.send_login("coun", "POGO\nplay")
    with pytest.raises(LocalProtocolError, match="not ASCII"):
        conn.send_login("coun", "Ésperance")
    conn.send_login("options", "utf-8")
    assert not conn.utf8  # not before the server accepts
    conn.next_event()
    assert conn.utf8
    assert conn.send_login("coun", "Ésperance") == "coun Ésperance\n".encode()


def test_client_protocol_special_lines_need_their_own_methods() -> None:
    conn = playing()
    with pytest.raises(LocalProtocolError, match="end of file"):
        conn.send_command("ctld")
    conn.receive_data(b"4 Sector : \n")
    conn.next_event()
    with pytest.raises(LocalProtocolError, match="interrupt"):
        conn.send_answer("aborted")
    assert conn.send_interrupt() == b"aborted\n"


def playing(utf8: bool = False) -> Connection:
    """A connection past the login, at the command prompt."""
    conn = Connection()
    conn.receive_data(b"2 ready\n")
    conn.next_event()
    if utf8:
        conn.send_login("options", "utf-8")
        conn.receive_data(b"0 Accepted\n")
        conn.next_event()
    conn.send_login("play", "user", "1", "secret")
    conn.receive_data(b"2 2\n6 0 640\n")
    events_of(conn)
    assert conn.phase is Phase.PLAYING and conn.awaiting is Awaiting.COMMAND
    return conn


def test_client_protocol_reads_lines_however_they_are_cut() -> None:
    stream = b"1 one\n4 two \n6 3 600 extra\nd flash\ne inform\nz 35\n3 bye\n"
    whole = playing()
    whole.receive_data(stream)
    expected = events_of(whole)
    piecewise = playing()
    got = []
    for i in range(len(stream)):
        piecewise.receive_data(stream[i : i + 1])
        got += events_of(piecewise)
    assert got == expected
    assert [type(e).__name__ for e in got] == [
        "Data",
        "ArgumentPrompt",
        "CommandPrompt",
        "Flash",
        "Inform",
        "Other",
        "Exit",
    ]
    assert got[2] == CommandPrompt(3, 600)
    assert got[5] == Other(35, "35")
    assert piecewise.phase is Phase.SHUTDOWN


def test_client_protocol_drops_highlighting_and_keeps_control_characters() -> None:
    """The bell before "Incoming shells" is part of what the player sees: kept, like
    every byte but highlighting, so transcripts compare byte for byte."""
    ascii_conn = playing()
    ascii_conn.receive_data(b"1 " + bytes(b | 0x80 for b in b"Bold") + b" and\x07 tab\there\x1b\n")
    assert events_of(ascii_conn) == [Data("Bold and\x07 tab\there\x1b")]
    utf8_conn = playing(utf8=True)
    utf8_conn.receive_data("1 \x0eBold\x0f café\x07\r\n".encode())
    assert events_of(utf8_conn) == [Data("Bold café\x07\r")]


def test_client_protocol_rejects_what_is_not_the_protocol() -> None:
    conn = playing()
    conn.receive_data(b"no-id-here\n")
    with pytest.raises(RemoteProtocolError, match="without an output id"):
        conn.next_event()
    for prompt in (b"6 x y\n", "6 ² 3\n".encode(), b"6 1 " + b"9" * 5000 + b"\n"):
        conn = playing()
        conn.receive_data(prompt)
        with pytest.raises(RemoteProtocolError, match="malformed command prompt"):
            conn.next_event()
    small = Connection(max_line_size=16)
    small.receive_data(b"1 " + b"x" * 20)
    with pytest.raises(RemoteProtocolError, match="longer than 16 bytes"):
        small.next_event()
    old = Connection()
    old.receive_data(b"2 ready\n")
    old.next_event()
    old.send_login("play")
    old.receive_data(b"2 3\n")
    with pytest.raises(RemoteProtocolError, match="protocol version '3'"):
        old.next_event()


def test_client_protocol_end_of_file() -> None:
    conn = playing()
    conn.receive_data(b"1 cut off in the midd")
    assert conn.next_event() is NEED_DATA
    conn.receive_data(b"")
    assert conn.next_event() == ConnectionClosed()
    assert conn.phase is Phase.CLOSED and conn.awaiting is None
    assert conn.next_event() == ConnectionClosed()
    with pytest.raises(LocalProtocolError, match="after the server closed"):
        conn.receive_data(b"1 more\n")


def test_client_protocol_logs_lines_but_never_passwords(caplog: pytest.LogCaptureFixture) -> None:
    caplog.set_level(logging.DEBUG, logger="bellum.client")
    replay(conversation("deity-login-xdump"))
    conn = Connection()
    conn.receive_data(b"2 ready\n")
    conn.next_event()
    conn.send_login("play", "me", "POGO", "hunter2")
    text = caplog.text
    assert ">> coun POGO" in text and "<< 0 password ok" in text
    assert "<< 1 XDUMP nation-status" in text
    assert "peter" not in text and "hunter2" not in text
    assert ">> pass ********" in text and ">> play me POGO ********" in text


def test_client_protocol_errors_form_a_tree() -> None:
    with pytest.raises(TypeError):
        ProtocolError("bare")
    assert issubclass(LocalProtocolError, ProtocolError)
    assert issubclass(RemoteProtocolError, ProtocolError)
    assert issubclass(ProtocolError, BellumError)


@given(st.lists(st.binary(min_size=1, max_size=40), max_size=20))
def test_client_protocol_garbage_gives_events_or_remote_errors(chunks: list[bytes]) -> None:
    conn = playing()
    try:
        for chunk in chunks:
            conn.receive_data(chunk)
            events_of(conn)
        conn.receive_data(b"")
        assert isinstance(events_of(conn)[-1], ConnectionClosed)
    except RemoteProtocolError:
        pass
