"""What can go wrong talking to an Empire server, as one-line bellum errors.

* :class:`ProtocolError` - somebody broke the line protocol; never raised bare.

  * :class:`LocalProtocolError` - bellum tried to send what the protocol does not
    allow now (a second line before a prompt, a control character, a non-ASCII
    character in an ASCII session).  A bug in the caller, not in the game.
  * :class:`RemoteProtocolError` - the server sent something that is not the
    protocol (a line without an output id, an endless line, an unknown version).

* :class:`ConnectionLost` - the server could not be reached, closed the connection,
  or ended the session.

  * :class:`ServerTimeout` - the server stopped answering for longer than the timeout.

* :class:`LoginRefused` - the server refused the country or the password.
"""

from __future__ import annotations

from typing import Any

from bellum.errors import BellumError, CommandError


class ProtocolError(BellumError):
    """The line protocol was broken; see :class:`LocalProtocolError` and
    :class:`RemoteProtocolError` (like h11, the base class is never raised itself)."""

    def __init__(self, *args: Any) -> None:
        if type(self) is ProtocolError:
            raise TypeError("raise LocalProtocolError or RemoteProtocolError, not ProtocolError")
        super().__init__(*args)


class LocalProtocolError(ProtocolError):
    """bellum tried to send something the protocol does not allow at this point."""


class RemoteProtocolError(ProtocolError):
    """The server sent something that is not the Empire client protocol."""


class ConnectionLost(BellumError):
    """The server could not be reached, closed the connection or ended the session."""


class ServerTimeout(ConnectionLost):
    """The server sent nothing for longer than the session's timeout."""


class LoginRefused(CommandError):
    """The server refused to log in: unknown country, bad password, country in use."""
