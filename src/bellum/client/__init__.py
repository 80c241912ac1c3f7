"""Talking to a real Empire server: the client protocol, a session, live game state.

* :mod:`bellum.client.protocol` - the line protocol without I/O (:class:`Connection`).
* :mod:`bellum.client.session` - a blocking, logged-in :class:`Session` over a socket.
* :mod:`bellum.client.errors` - what can go wrong, as one-line bellum errors.

Lines sent and received are logged at debug level on ``logging.getLogger("bellum.client")``
(passwords masked).
"""

from __future__ import annotations

from bellum.client.errors import (
    ConnectionLost,
    LocalProtocolError,
    LoginRefused,
    ProtocolError,
    RemoteProtocolError,
    ServerTimeout,
)
from bellum.client.events import (
    NEED_DATA,
    ArgumentPrompt,
    CommandPrompt,
    ConnectionClosed,
    Data,
    Event,
    Exit,
    Flash,
    Inform,
    Init,
    Other,
    OutputId,
    Reply,
)
from bellum.client.protocol import Awaiting, Connection, Phase
from bellum.client.session import DEFAULT_TIMEOUT, SeedCounter, Session, Transcript, parse_address

__all__ = [
    "DEFAULT_TIMEOUT",
    "NEED_DATA",
    "ArgumentPrompt",
    "Awaiting",
    "CommandPrompt",
    "Connection",
    "ConnectionClosed",
    "ConnectionLost",
    "Data",
    "Event",
    "Exit",
    "Flash",
    "Inform",
    "Init",
    "LocalProtocolError",
    "LoginRefused",
    "Other",
    "OutputId",
    "Phase",
    "ProtocolError",
    "RemoteProtocolError",
    "Reply",
    "SeedCounter",
    "ServerTimeout",
    "Session",
    "Transcript",
    "parse_address",
]
