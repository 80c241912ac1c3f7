"""A hostile Empire server on 127.0.0.1: it answers like the real one, then breaks once.

Its answers come from conversations recorded from the real 4.4.1 server
(``tests/client/conversations``): the login, a player's sync (meta-data, symbol
tables, every table) and an attack with its questions.  A command it has no
recording of is "not a legal command", as on the server.  At one line of what it
sends, chosen by the test, it does what a broken or hostile server would
(:data:`KINDS`): garbage, a cut line, a 10 MB line, wrong output ids, xdumps with
wrong column counts, wrong totals or junk values, prompts that never end, output
that never ends, a stall, a trickle of one byte at a time.
"""

from __future__ import annotations

import random
import select
import socket
import threading
import time
from collections.abc import Iterator
from dataclasses import dataclass, field
from pathlib import Path

CONVERSATIONS = Path(__file__).resolve().parents[1] / "client" / "conversations"

#: What the server can do wrong, each at one line of its output.
KINDS = (
    "garbage",  # random bytes, then the rest as recorded
    "cut",  # half of the line, then the connection closes
    "huge",  # a 10 MB line, with its line feed
    "endless-line",  # a line that never ends (no line feed, ever)
    "bad-id",  # the line's output id replaced by junk
    "exit",  # C_EXIT and a close, in the middle of things
    "bad-prompt",  # a command prompt without its numbers
    "bad-version",  # protocol version 3
    "endless-prompts",  # questions without end, whatever the client says
    "endless-output",  # data lines without end
    "stall",  # silence, the connection kept open
    "trickle",  # the rest one byte at a time, every 20 ms
    "xdump-columns",  # an xdump record with a field too many or too few
    "xdump-total",  # an xdump footer that miscounts the records
    "xdump-value",  # an xdump field replaced by junk
)
#: What junk replaces an xdump field with.
JUNK = (
    "", '"', '"open', "999999999999999999999999", "-1", "-99999", "nan", "1e309", "1.5",
    "0x10", "()", "(1 2)", "(zz)", '"\\377"', "\\", "x", "²", "é", "\x00", "\x7f",
)  # fmt: skip
HUGE = 10 * 1024 * 1024
CHUNK = 64 * 1024


@dataclass
class Script:
    """The recorded answers: the login and greeting, and each command's answer in parts
    (the first after the command, the next ones after each answer to a question)."""

    greeting: list[str] = field(default_factory=list)
    commands: dict[str, list[list[str]]] = field(default_factory=dict)


def load_script(*names: str) -> Script:
    script = Script()
    for name in names:
        lines = (CONVERSATIONS / f"{name}.txt").read_text("latin-1").splitlines()
        turns = [(raw[:1], raw[3:]) for raw in lines if raw[:3] in ("S: ", "C: ")]
        command: str | None = None
        playing = False
        for side, text in turns:
            if side == "C":
                if not playing:
                    playing = text == "play"
                    continue
                if command is None or (text not in ("aborted",) and _is_command(text)):
                    command = text
                    script.commands[command] = [[]]
                else:
                    script.commands[command].append([])
            elif playing and command is None:
                if not script.greeting or not script.greeting[-1].startswith("6 "):
                    script.greeting.append(text)
            elif command is not None:
                script.commands[command][-1].append(text)
    return script


def _is_command(text: str) -> bool:
    """Whether a client line starts a command (the recordings answer only numbers)."""
    return text == "ctld" or not text.strip().isdigit()


@dataclass(frozen=True)
class Fault:
    kind: str
    at: int  # the line of the server's output where it strikes (0: the first)
    seed: int = 0


class HostileServer:
    """Serves one client with :class:`Script`'s answers and one :class:`Fault`."""

    def __init__(self, script: Script, fault: Fault | None) -> None:
        self.script = script
        self.fault = fault
        self.rng = random.Random(fault.seed if fault else 0)
        self.sent = 0  # lines sent so far
        self.struck = False
        self._playing = False
        self._parts: list[list[str]] = []  # the rest of the running command's answer
        self.listener = socket.socket()
        self.listener.bind(("127.0.0.1", 0))
        self.listener.listen(1)
        self.listener.settimeout(30)
        self.address = f"127.0.0.1:{self.listener.getsockname()[1]}"
        self.done = threading.Event()
        self.thread = threading.Thread(target=self._serve, daemon=True)

    def __enter__(self) -> HostileServer:
        self.thread.start()
        return self

    def __exit__(self, *exc: object) -> None:
        self.done.set()
        self.thread.join(30)
        self.listener.close()
        assert not self.thread.is_alive(), "the hostile server did not stop"

    # -- serving ------------------------------------------------------------------

    def _serve(self) -> None:
        try:
            conn, _ = self.listener.accept()
        except OSError:
            return
        conn.settimeout(10)  # a client that reads nothing for 10 s has failed anyway
        conn.setsockopt(socket.IPPROTO_TCP, socket.TCP_NODELAY, 1)  # a line per packet
        try:
            self._talk(conn)
        except (OSError, _Over):
            pass
        finally:
            conn.close()

    def _talk(self, conn: socket.socket) -> None:
        lines = self._lines(conn)
        self._send(conn, "2 Empire server ready")
        for line in lines:
            if line is None:
                return
            answer = self._answer(line)
            for out in answer:
                self._send(conn, out)
            if line == "ctld":
                return

    def _answer(self, line: str) -> list[str]:
        verb = line.split(" ", 1)[0]
        login = {
            "client": [f"0 talking to {line[7:]}"],
            "options": ["0 Accepted"],
            "coun": [f"0 country name {line[5:]}"],
            "pass": ["0 password ok"],
            "play": ["2 2", *self.script.greeting],
        }
        if verb in login and not self._playing:
            self._playing = verb == "play"
            return login[verb]
        if line == "ctld":
            return ["1 Bye-bye", "3 so long..."]
        if line == "aborted" or self._parts:
            return self._parts.pop(0) if self._parts else []
        parts = self.script.commands.get(line)
        if parts is None:
            return [f'1 "{verb}" is not a legal command', "6 0 640"]
        self._parts = [list(p) for p in parts[1:]]
        return list(parts[0])

    def _lines(self, conn: socket.socket) -> Iterator[str | None]:
        """The client's lines; ``None`` once it has closed its side."""
        buffer = b""
        while not self.done.is_set():
            while b"\n" in buffer:
                line, buffer = buffer.split(b"\n", 1)
                yield line.decode("utf-8", "replace")
            if not select.select([conn], [], [], 0.05)[0]:
                continue
            data = conn.recv(CHUNK)
            if not data:
                yield None
                return
            buffer += data
        yield None

    def _send(self, conn: socket.socket, line: str) -> None:
        fault = self.fault
        if fault is not None and not self.struck and self.sent >= fault.at:
            self.struck = True
            self._strike(conn, line)
            return
        self.sent += 1
        conn.sendall(line.encode("utf-8", "surrogateescape") + b"\n")

    # -- misbehaving ----------------------------------------------------------------

    def _strike(self, conn: socket.socket, line: str) -> None:
        kind, rng = self.fault.kind if self.fault else "", self.rng
        data = line.encode("utf-8", "surrogateescape") + b"\n"
        if kind == "garbage":
            n = rng.randint(1, 4000)
            conn.sendall(bytes(rng.getrandbits(8) for _ in range(n)) + data)
        elif kind == "cut":
            conn.sendall(data[: rng.randint(0, max(0, len(data) - 2))])
            raise _Over
        elif kind in ("huge", "endless-line"):
            filler = b"1 " + b"x" * (CHUNK - 2)
            for _ in range(HUGE // CHUNK):
                self._sendall(conn, filler)
                filler = b"x" * CHUNK
            if kind == "endless-line":
                while True:
                    self._sendall(conn, filler)
            conn.sendall(b"\n" + data)
        elif kind == "bad-id":
            junk = rng.choice([b"", b"z", b"99", b"-1", b"\xff", b"1x", b"  ", b"6 "])
            _, _, body = data.partition(b" ")
            conn.sendall(junk + rng.choice([b" ", b""]) + body)
        elif kind == "exit":
            conn.sendall(b"3 the deity shut the game down\n")
            raise _Over
        elif kind == "bad-prompt":
            conn.sendall(rng.choice([b"6 x y\n", b"6\n", b"6 1\n", b"6 " + b"9" * 40 + b" 1\n"]))
        elif kind == "bad-version":
            conn.sendall(b"2 3\n" + data)
        elif kind == "endless-prompts":
            while True:
                self._sendall(conn, b"4 Number of mil from airfield at 0,0 (max 99) : \n" * 64)
        elif kind == "endless-output":
            while True:
                self._sendall(conn, b"1 All work and no play makes Jack a dull boy\n" * 256)
        elif kind == "stall":
            self.done.wait(60)
            raise _Over
        elif kind == "trickle":
            for b in data:
                if self.done.is_set():
                    raise _Over
                conn.sendall(bytes([b]))
                time.sleep(0.02)
            self.done.wait(60)
            raise _Over
        elif kind.startswith("xdump-"):
            conn.sendall(self._bad_xdump(kind, line).encode("utf-8", "surrogateescape") + b"\n")
        else:
            raise AssertionError(f"unknown fault {kind!r}")

    def _bad_xdump(self, kind: str, line: str) -> str:
        rng = self.rng
        if not line.startswith("1 ") or line.startswith("1 XDUMP"):
            self.struck = False  # strike at the next record (or footer)
            return line
        body = line[2:]
        if body.startswith("/"):
            if kind != "xdump-total":
                self.struck = False
                return line
            n = int(body[1:])
            return "1 /" + rng.choice([str(n + 1), str(max(0, n - 1)), "", "x", "-1", "9" * 30])
        if kind == "xdump-total":
            self.struck = False
            return line
        fields = body.split(" ")
        if kind == "xdump-columns":
            if rng.random() < 0.5 and len(fields) > 1:
                del fields[rng.randrange(len(fields))]
            else:
                fields.insert(rng.randrange(len(fields) + 1), "0")
        else:
            fields[rng.randrange(len(fields))] = rng.choice(JUNK)
        return "1 " + " ".join(fields)

    def _sendall(self, conn: socket.socket, data: bytes) -> None:
        """Send unless the test is over; a client that has gone ends the serving."""
        if self.done.is_set():
            raise _Over
        conn.sendall(data)


class _Over(Exception):
    """The fault ended the conversation."""
