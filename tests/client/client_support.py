"""Recorded conversations with the real server, and a fake server that plays them back."""

from __future__ import annotations

import socket
import threading
from dataclasses import dataclass, field
from pathlib import Path

CONVERSATIONS = Path(__file__).parent / "conversations"


@dataclass(frozen=True)
class Turn:
    """One step of a conversation: the server sends (``S``), the client sends (``C``),
    the server closes (``EOF``) or goes silent (``HANG``)."""

    side: str
    line: str = ""


def parse_script(text: str) -> list[Turn]:
    turns = []
    for raw in text.splitlines():
        if raw.startswith("#") or not raw:
            continue
        if raw == "S-EOF":
            turns.append(Turn("EOF"))
        elif raw == "HANG":
            turns.append(Turn("HANG"))
        else:
            side, sep, line = raw.partition(": ")
            assert sep and side in ("S", "C"), f"bad conversation line {raw!r}"
            turns.append(Turn(side, line))
    return turns


def conversation(name: str) -> list[Turn]:
    """A conversation recorded from the real server (``conversations/NAME.txt``)."""
    return parse_script((CONVERSATIONS / f"{name}.txt").read_text("latin-1"))


def same_line(expected: str, got: str) -> bool:
    """Whether the client sent the recorded line (its version in ``client`` may differ)."""
    if expected.startswith("client bellum "):
        return got.startswith("client bellum ")
    return expected == got


@dataclass
class FakeServer:
    """A scripted Empire server on 127.0.0.1 that plays ``turns`` to one client.

    It sends the ``S`` lines, and at each ``C`` line reads one line from the
    client and records any difference in :attr:`errors`.  After the script it
    waits for the client to close.  Use it as a context manager.
    """

    turns: list[Turn]
    errors: list[str] = field(default_factory=list)
    received: list[str] = field(default_factory=list)

    def __post_init__(self) -> None:
        self.listener = socket.socket(socket.AF_INET, socket.SOCK_STREAM)
        self.listener.bind(("127.0.0.1", 0))
        self.listener.listen(1)
        self.listener.settimeout(10)
        self.address = f"127.0.0.1:{self.listener.getsockname()[1]}"
        self.stop = threading.Event()
        self.thread = threading.Thread(target=self._serve, daemon=True)

    def __enter__(self) -> FakeServer:
        self.thread.start()
        return self

    def __exit__(self, *exc: object) -> None:
        self.stop.set()
        self.thread.join(10)
        self.listener.close()

    def _serve(self) -> None:
        try:
            conn, _ = self.listener.accept()
        except OSError as exc:
            self.errors.append(f"no client: {exc}")
            return
        conn.settimeout(10)
        reader = conn.makefile("rb")
        try:
            for turn in self.turns:
                if turn.side == "S":
                    conn.sendall(turn.line.encode("latin-1") + b"\n")
                elif turn.side == "C":
                    got = reader.readline().decode("utf-8").rstrip("\n")
                    self.received.append(got)
                    if not same_line(turn.line, got):
                        self.errors.append(f"expected {turn.line!r}, got {got!r}")
                        return
                elif turn.side == "EOF":
                    conn.shutdown(socket.SHUT_WR)
                elif turn.side == "HANG":
                    self.stop.wait(10)
                    return
            while reader.readline():  # the client closes its side last
                pass
        except OSError as exc:
            self.errors.append(f"connection: {exc}")
        finally:
            reader.close()
            conn.close()
