"""The Empire client protocol without I/O: bytes in, events out; orders in, bytes out.

Modelled on h11: :class:`Connection` owns no socket.  Feed it what the server
sent with :meth:`Connection.receive_data` (``b""`` for end of file), take
events with :meth:`Connection.next_event` until it says :data:`NEED_DATA`,
and turn what the player says into bytes with the ``send_*`` methods.  The
caller moves the bytes.

The protocol (``doc/clients-howto`` in the server's source) in brief:

* every server line is ``<id> <text>``; the id says what the text is
  (:class:`~bellum.client.events.OutputId`);
* the server *prompts* for every line it reads: a login reply or the first
  ``C_INIT`` in the login phase, ``C_PROMPT`` for a command and ``C_FLUSH``
  for a command's question while playing.  This connection is synchronous: it
  sends a line only when the server waits for one, and refuses otherwise, so
  an answer can never be read as the next command;
* ``aborted`` interrupts a command's question and ``ctld`` is end of file; the
  questions a command asks after an interrupt read no input;
* the session is ASCII (the high bit marks highlighting) until the ``utf-8``
  session option is accepted, UTF-8 (with shift-out/shift-in highlighting) after.

Highlighting is dropped from the text; every other byte is kept as the server
sent it, control characters included (the bell before ``Incoming shells``), so a
transcript compares byte for byte with bellum's own.
"""

from __future__ import annotations

import logging
import re
from enum import Enum

from bellum.client.errors import LocalProtocolError, RemoteProtocolError
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
    NeedData,
    Other,
    OutputId,
    Reply,
)
from bellum.numbers import shown as quoted
from bellum.numbers import to_int

log = logging.getLogger("bellum.client")

#: The protocol version this connection speaks (the server's CLIENTPROTO).
PROTOCOL_VERSION = 2
#: A line longer than this (bytes) is refused: a server does not send such lines.
MAX_LINE_SIZE = 1 << 20
#: The lines that mean interrupt and end of file rather than input.
INTERRUPT, EOF = "aborted", "ctld"

#: The longest output id read as a number (the server's are one digit of base 36).
_ID_DIGITS = 6
_CONTROL = re.compile(r"[\x00-\x08\x0a-\x1f\x7f]")
#: Highlighting in a UTF-8 session: shift-out starts it, shift-in ends it.
_HIGHLIGHT = str.maketrans("", "", "\x0e\x0f")


class Phase(Enum):
    """Where the session is: logging in, playing, shutting down, closed."""

    LOGIN = "login"
    PLAYING = "playing"
    SHUTDOWN = "shutdown"
    CLOSED = "closed"


class Awaiting(Enum):
    """The kind of line the server waits for."""

    LOGIN = "a login command"
    COMMAND = "a command"
    ANSWER = "an answer"


class Connection:
    """One client session's protocol state (see the module notes)."""

    def __init__(self, *, max_line_size: int = MAX_LINE_SIZE) -> None:
        self.max_line_size = max_line_size
        self.phase = Phase.LOGIN
        #: What the server waits for, or ``None`` while it does not read.
        self.awaiting: Awaiting | None = None
        #: Whether the session is UTF-8 (the ``utf-8`` session option is on).
        self.utf8 = False
        self._buffer = bytearray()
        #: Bytes received so far.
        self.received = 0
        self._eof = False
        self._wants_utf8: bool | None = None  # the value an unanswered ``options`` asked for
        self._played = False
        self._aborting = False  # questions until the next command prompt read nothing

    # -- receiving --------------------------------------------------------------

    def receive_data(self, data: bytes) -> None:
        """Bytes the server sent; ``b""`` means it closed the connection."""
        if self._eof:
            raise LocalProtocolError("data received after the server closed the connection")
        if data:
            self._buffer += data
            self.received += len(data)
        else:
            self._eof = True

    def next_event(self) -> Event | NeedData:
        """The next event, or :data:`NEED_DATA` until more bytes arrive."""
        end = self._buffer.find(b"\n")
        if end < 0:
            if self._eof:
                if self._buffer:
                    log.debug("<< (cut off at end of file) %r", bytes(self._buffer))
                    self._buffer.clear()
                self.phase, self.awaiting = Phase.CLOSED, None
                return ConnectionClosed()
            if len(self._buffer) > self.max_line_size:
                raise RemoteProtocolError(
                    f"the server sent a line longer than {self.max_line_size} bytes"
                )
            return NEED_DATA
        if end > self.max_line_size:
            raise RemoteProtocolError(
                f"the server sent a line longer than {self.max_line_size} bytes"
            )
        line = bytes(self._buffer[:end])
        del self._buffer[: end + 1]
        return self._event(line)

    def _event(self, line: bytes) -> Event:
        head, space, body = line.partition(b" ")
        if not space or not head.isalnum():  # ASCII letters and digits (base 36)
            raise RemoteProtocolError(
                f"the server sent a line without an output id: {line[:60]!r}"
                + ("..." if len(line) > 60 else "")
            )
        n = int(head, 36) if len(head) <= _ID_DIGITS else -1  # -1: no id bellum knows
        text = self._decode(body)
        if log.isEnabledFor(logging.DEBUG):
            log.debug("<< %s %s", head.decode("ascii"), text)
        event = _make(n, text)
        self._advance(event)
        return event

    def _decode(self, body: bytes) -> str:
        if self.utf8:
            return body.decode("utf-8", errors="replace").translate(_HIGHLIGHT)
        return body.translate(_ASCII).decode("ascii")

    def _advance(self, event: Event) -> None:
        """Follow the phase and what the server waits for (see the module notes)."""
        if isinstance(event, Exit):
            self.phase, self.awaiting = Phase.SHUTDOWN, None
        elif self.phase is Phase.LOGIN:
            if isinstance(event, Init) and self._played:
                version = event.text.strip()
                if version != str(PROTOCOL_VERSION):
                    raise RemoteProtocolError(
                        f"the server speaks protocol version {version!r};"
                        f" bellum knows version {PROTOCOL_VERSION}"
                    )
                self.phase, self.awaiting = Phase.PLAYING, None
            elif isinstance(event, Init | Reply):
                if isinstance(event, Reply) and event.ok and self._wants_utf8 is not None:
                    self.utf8 = self._wants_utf8
                self._wants_utf8 = None
                self._played = False
                self.awaiting = Awaiting.LOGIN
        elif self.phase is Phase.PLAYING:
            if isinstance(event, CommandPrompt):
                self._aborting = False
                self.awaiting = Awaiting.COMMAND
            elif isinstance(event, ArgumentPrompt) and not self._aborting:
                self.awaiting = Awaiting.ANSWER

    # -- sending ----------------------------------------------------------------

    def send_login(self, verb: str, *args: str) -> bytes:
        """A login command (``coun``, ``pass``, ``options``, ``play``, ``quit``...)."""
        self._expect(Awaiting.LOGIN, f"login command '{verb}'")
        if verb == "options":
            wanted = [a.partition("=") for a in args if a.partition("=")[0] == "utf-8"]
            if wanted:
                self._wants_utf8 = wanted[-1][2] != "0"
        self._played = verb == "play"
        secret = verb == "pass" or (verb == "play" and len(args) >= 3)
        shown = [*args[:-1], "********"] if secret else list(args)
        return self._line(" ".join([verb, *args]), " ".join([verb, *shown]))

    def send_command(self, line: str) -> bytes:
        """A command at the command prompt, e.g. ``attack 2,0``."""
        self._expect(Awaiting.COMMAND, f"command {line!r}")
        if not line.strip():
            raise LocalProtocolError("an empty command line")
        self._refuse_special(line)
        return self._line(line)

    def send_answer(self, text: str) -> bytes:
        """The answer to the running command's question."""
        self._expect(Awaiting.ANSWER, f"answer {text!r}")
        self._refuse_special(text)
        return self._line(text)

    def send_interrupt(self) -> bytes:
        """Interrupt the question being asked: the server aborts the command."""
        self._expect(Awaiting.ANSWER, "an interrupt")
        self._aborting = True
        return self._line(INTERRUPT)

    def send_eof(self) -> bytes:
        """End of file: at a command prompt it ends the session; at a question it aborts
        the command first."""
        if self.awaiting not in (Awaiting.COMMAND, Awaiting.ANSWER):
            self._expect(Awaiting.COMMAND, "end of file")
        self._aborting = True
        line = self._line(EOF)
        self.awaiting = None
        return line

    def _expect(self, wanted: Awaiting, what: str) -> None:
        if self.awaiting is not wanted:
            now = self.awaiting.value if self.awaiting else "nothing"
            raise LocalProtocolError(
                f"cannot send {what}: the server ({self.phase.value}) waits for {now}"
            )

    @staticmethod
    def _refuse_special(text: str) -> None:
        if text in (INTERRUPT, EOF):
            raise LocalProtocolError(
                f"'{text}' is the protocol's {'interrupt' if text == INTERRUPT else 'end of file'};"
                " use send_interrupt() or send_eof()"
            )

    def _line(self, text: str, shown: str | None = None) -> bytes:
        if "\n" in text or "\r" in text or _CONTROL.search(text):
            raise LocalProtocolError(
                f"a line to the server cannot hold control characters: {text!r}"
            )
        try:
            data = text.encode("utf-8" if self.utf8 else "ascii")
        except UnicodeEncodeError:
            raise LocalProtocolError(
                f"{text!r} is not ASCII and the session is not UTF-8 (session option utf-8)"
            ) from None
        log.debug(">> %s", text if shown is None else shown)
        self.awaiting = None
        return data + b"\n"


#: Highlighting in an ASCII session is the high bit of each highlighted byte.
_ASCII = bytes(b & 0x7F for b in range(256))


def _make(n: int, text: str) -> Event:
    if n == OutputId.DATA:
        return Data(text)
    if n == OutputId.FLUSH:
        return ArgumentPrompt(text)
    if n == OutputId.PROMPT:
        numbers = [to_int(w, signed=True) for w in text.split()[:2]]
        if len(numbers) < 2 or None in numbers:
            raise RemoteProtocolError(f"malformed command prompt from the server: '{quoted(text)}'")
        minutes, btus = [v for v in numbers if v is not None]
        return CommandPrompt(minutes, btus)
    if n in (OutputId.CMDOK, OutputId.CMDERR, OutputId.BADCMD):
        return Reply(OutputId(n), text)
    if n == OutputId.INIT:
        return Init(text)
    if n == OutputId.EXIT:
        return Exit(text)
    if n == OutputId.FLASH:
        return Flash(text)
    if n == OutputId.INFORM:
        return Inform(text)
    return Other(n, text)
