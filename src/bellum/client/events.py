"""What the Empire server says, as small frozen events: one per output line.

Every server line is ``<id> <text>``; the id (a base-36 number, ``proto.h`` in
the server) says what the text is.  :class:`~bellum.client.protocol.Connection`
turns each line into one of the events below, so callers match on types
rather than on numbers.
"""

from __future__ import annotations

from dataclasses import dataclass
from enum import IntEnum


class OutputId(IntEnum):
    """The server's output ids (``C_*`` in its ``proto.h``)."""

    CMDOK = 0
    DATA = 1
    INIT = 2
    EXIT = 3
    FLUSH = 4
    NOECHO = 5
    PROMPT = 6
    ABORT = 7
    REDIR = 8
    PIPE = 9
    CMDERR = 10
    BADCMD = 11
    EXECUTE = 12
    FLASH = 13
    INFORM = 14


@dataclass(frozen=True)
class Init:
    """``C_INIT``: the login prompt when a session opens, then the protocol version."""

    text: str


@dataclass(frozen=True)
class Reply:
    """The answer to a login command: ``C_CMDOK``, ``C_CMDERR`` or ``C_BADCMD``."""

    id: OutputId
    text: str

    @property
    def ok(self) -> bool:
        return self.id is OutputId.CMDOK


@dataclass(frozen=True)
class Data:
    """``C_DATA``: one line of output for the player (without its line feed)."""

    text: str


@dataclass(frozen=True)
class CommandPrompt:
    """``C_PROMPT``: the server waits for a command; it reports time used and BTUs."""

    minutes: int
    btus: int

    def text(self) -> str:
        """The prompt as the server's own client prints it."""
        return f"[{self.minutes}:{self.btus}] Command : "


@dataclass(frozen=True)
class ArgumentPrompt:
    """``C_FLUSH``: the running command asks a question (``text`` is printed verbatim)."""

    text: str


@dataclass(frozen=True)
class Flash:
    """``C_FLASH``: an asynchronous message (a ``flash`` from another player, a broadcast)."""

    text: str


@dataclass(frozen=True)
class Inform:
    """``C_INFORM``: the number of unread telegrams changed."""

    text: str


@dataclass(frozen=True)
class Exit:
    """``C_EXIT``: the session ends (the text is the server's farewell or reason)."""

    text: str


@dataclass(frozen=True)
class Other:
    """A line bellum does not act on: redirections, pipes, batch files, unknown ids."""

    id: int
    text: str


@dataclass(frozen=True)
class ConnectionClosed:
    """The server closed its side of the connection."""


class NeedData:
    """More bytes are needed before the next event (the sentinel :data:`NEED_DATA`)."""

    def __repr__(self) -> str:
        return "NEED_DATA"


NEED_DATA = NeedData()

Event = (
    Init
    | Reply
    | Data
    | CommandPrompt
    | ArgumentPrompt
    | Flash
    | Inform
    | Exit
    | Other
    | ConnectionClosed
)
