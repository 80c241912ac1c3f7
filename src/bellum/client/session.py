"""A blocking session with an Empire server: a socket around the sans-I/O protocol.

:class:`Session` logs in, runs one command at a time and relays the command's
questions to a :class:`~bellum.empire.events.Prompter`, the same interface the
local rules ask through, so one answering strategy serves both.  It sends only
the lines it is given, never on its own, and waits at most ``timeout`` seconds
for each piece of the server's answer (never while the player thinks).

An interrupted question (Ctrl-C while the prompter asks, or any error of the
prompter) is answered with the protocol's interrupt, so the server aborts the
command instead of waiting half-answered; the session reads on to the next
command prompt and the exception goes on up.
"""

from __future__ import annotations

import logging
import socket
import time
from dataclasses import dataclass, field
from types import TracebackType

import bellum
from bellum.client.errors import ConnectionLost, LoginRefused, RemoteProtocolError, ServerTimeout
from bellum.client.events import (
    ArgumentPrompt,
    CommandPrompt,
    ConnectionClosed,
    Data,
    Exit,
    Flash,
    Inform,
    Init,
    NeedData,
    Other,
    Reply,
)
from bellum.client.events import Event as ServerEvent
from bellum.client.protocol import EOF, INTERRUPT, Awaiting, Connection, Phase
from bellum.empire.events import (
    Event,
    EventKind,
    Prompt,
    Prompter,
    Sink,
    parse_prompt,
    transcript,
)
from bellum.empire.geometry import Geometry
from bellum.errors import UsageError
from bellum.numbers import shown, to_int

log = logging.getLogger("bellum.client")

#: Seconds to wait for the server before giving up: to connect, and for each whole line.
DEFAULT_TIMEOUT = 30.0
#: The most a server may send for one command (or the login): lines, and bytes.  The
#: largest table of a 256x256 game (``xdump sect``) is some 65,536 lines and 11 MB.
MAX_REPLY_LINES = 1 << 17
MAX_REPLY_BYTES = 32 << 20


def parse_address(text: str) -> tuple[str, int]:
    """``HOST:PORT`` (``[v6]:PORT`` for IPv6) as a host and a port number."""
    host, sep, port = text.strip().rpartition(":")
    host = host[1:-1] if host.startswith("[") and host.endswith("]") else host
    number = to_int(port)
    if not sep or not host or number is None or not 0 < number < 65536:
        raise UsageError(
            f"expected the server as HOST:PORT (e.g. 127.0.0.1:6665), not '{shown(text)}'"
        )
    try:
        host.encode("idna")  # what the resolver does: an empty or 64-letter label fails
    except UnicodeError:
        raise UsageError(f"'{shown(host)}' is not a host name or address") from None
    return host, number


@dataclass
class SeedCounter:
    """The command count of a server in test mode (econfig ``running_test_suite 1``).

    Such a server re-seeds its generator before every command with the number
    of commands it has run since it started, so whoever knows the count knows
    each command's seed.  Commands the server turns away before running them
    (unknown, ambiguous, or without the BTUs) do not count; ``__cmd added N``
    counts back N.  Share one counter among every session with the server.
    """

    commands: int = 0

    @property
    def next_seed(self) -> int:
        """The seed the server will use for the next command it runs."""
        return self.commands + 1

    def count(self, line: str, output: str) -> int | None:
        """Follow the command ``line`` that printed ``output``; its seed if it ran."""
        words = line.split()
        added = to_int(words[2], signed=True) if len(words) > 2 else None
        if words[:2] == ["__cmd", "added"] and added is not None:
            self.commands -= added
            return None
        first = output.split("\n", 1)[0]
        unknown = first.startswith('"') and first.endswith('" is not a legal command')
        ambiguous = first.startswith('Command "') and '" is ambiguous -- ' in first
        if unknown or ambiguous or first == BOZO:
            return None
        self.commands += 1
        return self.commands


#: What the server says when it will not run a command for want of BTUs.
BOZO = "You don't have the BTUs, bozo"


@dataclass
class Transcript:
    """One command on the server as its player saw it.

    ``events`` are bellum's transcript events (``text`` for output, ``prompt``
    for a question and its answer), so ``text()`` prints exactly like a local
    resolution.  ``notices`` are flashes and telegram notices that arrived
    meanwhile; they are not the command's output.
    """

    command: str
    events: list[Event] = field(default_factory=list)
    notices: list[str] = field(default_factory=list)
    btus: int | None = None
    #: The seed the server ran the command with (known when the session has a
    #: :class:`SeedCounter`; ``None`` if not, or if the server did not run it).
    seed: int | None = None

    def text(self) -> str:
        return transcript(self.events)

    @property
    def answers(self) -> list[str | None]:
        return [e.answer for e in self.events if e.kind is EventKind.PROMPT]


class Session:
    """A logged-in session; open one with :meth:`open` (or :func:`connect`)."""

    def __init__(
        self,
        sock: socket.socket,
        address: str,
        *,
        timeout: float = DEFAULT_TIMEOUT,
        seeds: SeedCounter | None = None,
    ) -> None:
        self.sock = sock
        self.address = address
        self.timeout = timeout
        self.seeds = seeds
        self.conn = Connection()
        #: Lines sent at the command prompt.
        self.commands_sent = 0
        #: What the server printed between the login and the first command prompt.
        self.greeting: list[str] = []
        self.btus: int | None = None
        self._reply_lines = 0  # of the reply being read (see MAX_REPLY_LINES)
        self._reply_from = 0  # where it starts in the bytes received
        #: The last command's transcript, complete or not (when a prompter stopped it,
        #: what the server printed until it finished the command).
        self.last: Transcript | None = None

    # -- opening and closing ----------------------------------------------------

    @classmethod
    def open(
        cls,
        address: str,
        *,
        country: str,
        password: str,
        timeout: float = DEFAULT_TIMEOUT,
        utf8: bool = True,
        seeds: SeedCounter | None = None,
    ) -> Session:
        """Connect to ``HOST:PORT`` and log in as ``country`` (the deity too).

        ``seeds`` follows a test-mode server's command count (see :class:`SeedCounter`).
        """
        host, port = parse_address(address)
        try:
            sock = socket.create_connection((host, port), timeout=timeout)
        except TimeoutError:
            raise ServerTimeout(f"{address}: no answer within {timeout:g} s") from None
        except socket.gaierror as exc:
            raise ConnectionLost(f"{address}: unknown host ({exc.strerror})") from None
        except OSError as exc:
            reason = exc.strerror or str(exc)
            raise ConnectionLost(f"cannot connect to {address}: {reason.lower()}") from None
        log.debug("connected to %s", address)
        session = cls(sock, address, timeout=timeout, seeds=seeds)
        try:
            session._login(country, password, utf8)
        except BaseException:
            session.sock.close()
            raise
        return session

    def _login(self, country: str, password: str, utf8: bool) -> None:
        self._new_reply()
        first = self._next()
        if not isinstance(first, Init):
            raise RemoteProtocolError(f"{self.address}: not an Empire server (it said {first!r})")
        self._login_step("client", f"bellum {bellum.__version__}")
        if utf8:
            self._login_step("options", "utf-8")
        reply = self._login_step("coun", country)
        if not reply.ok:
            raise LoginRefused(f"{self.address}: {reply.text.strip() or 'no such country'}")
        reply = self._login_step("pass", password)
        if not reply.ok:
            raise LoginRefused(f"{self.address}: bad password for country {country}")
        self._send(self.conn.send_login("play"))
        event = self._next()
        if isinstance(event, Exit | Reply):
            raise LoginRefused(f"{self.address}: cannot play {country}: {event.text.strip()}")
        if not isinstance(event, Init):
            raise RemoteProtocolError(f"{self.address}: unexpected answer to play: {event!r}")
        while not isinstance(event := self._next(), CommandPrompt):
            if isinstance(event, Data | Flash | Inform):
                self.greeting.append(event.text)
            else:
                self._ended(event)
        self.btus = event.btus

    def _login_step(self, verb: str, *args: str) -> Reply:
        self._send(self.conn.send_login(verb, *args))
        while True:
            event = self._next()
            if isinstance(event, Reply):
                return event
            if isinstance(event, Exit):
                raise LoginRefused(f"{self.address}: {event.text.strip()}")
            self._ended(event)

    def _ended(self, event: ServerEvent) -> None:
        """Raise :class:`ConnectionLost` if ``event`` ends the session."""
        if isinstance(event, Exit):
            raise ConnectionLost(f"{self.address}: the server ended the session: {event.text}")
        if isinstance(event, ConnectionClosed):
            raise ConnectionLost(f"{self.address}: the server closed the connection")

    def close(self) -> None:
        """End the session politely (end of file at the command prompt) and disconnect."""
        try:
            if self.conn.phase is Phase.PLAYING and self.conn.awaiting is Awaiting.COMMAND:
                self._send(self.conn.send_eof())
                while not isinstance(self._next(), ConnectionClosed):
                    pass
        except (ConnectionLost, RemoteProtocolError):
            pass
        finally:
            self.sock.close()
            log.debug("disconnected from %s", self.address)

    def __enter__(self) -> Session:
        return self

    def __exit__(
        self,
        exc_type: type[BaseException] | None,
        exc: BaseException | None,
        tb: TracebackType | None,
    ) -> None:
        self.close()

    # -- commands ---------------------------------------------------------------

    def command(
        self,
        line: str,
        *,
        prompter: Prompter | None = None,
        sink: Sink | None = None,
        geometry: Geometry | None = None,
    ) -> Transcript:
        """Run ``line`` on the server; questions go to ``prompter`` (none: abort them).

        Each question reaches the prompter as the :class:`~bellum.empire.events.Prompt`
        its wording says (:func:`~bellum.empire.events.parse_prompt`; sectors in the
        session's coordinates, normalised on ``geometry`` when given), so one answering
        strategy serves the server and the local rules.  ``sink`` sees each piece of
        output as it arrives.  Returns at the next command prompt with what the
        player saw.

        If the prompter raises (Ctrl-C, a bad answer), the question is answered with
        the protocol's interrupt, the server aborts and finishes the command, and the
        exception goes on up once the server is ready for the next command; what it
        printed meanwhile is in :attr:`last`.
        """
        self._send(self.conn.send_command(line))
        self.commands_sent += 1
        self._new_reply()
        out = self.last = Transcript(line)
        stopped: BaseException | None = None

        def emit(event: Event) -> None:
            out.events.append(event)
            if sink is not None:
                sink(event)

        while True:
            event = self._next()
            if isinstance(event, Data):
                emit(Event(EventKind.TEXT, event.text + "\n"))
            elif isinstance(event, ArgumentPrompt):
                answer = None
                if self.conn.awaiting is not Awaiting.ANSWER:  # asked after an abort:
                    emit(Event(EventKind.TEXT, event.text + "\n"))  # the server reads nothing
                    continue
                if prompter is None:
                    self._send(self.conn.send_interrupt())
                else:
                    try:
                        answer = self._answer(parse_prompt(event.text, geometry), prompter)
                    except BaseException as exc:  # Ctrl-C, or the prompter failed: the
                        stopped = exc  # server aborts the command and finishes it
                        self._send(self.conn.send_interrupt())
                emit(Event(EventKind.PROMPT, event.text, answer=answer))
            elif isinstance(event, CommandPrompt):
                out.btus = self.btus = event.btus
                if self.seeds is not None:
                    out.seed = self.seeds.count(line, out.text())
                if stopped is not None:
                    raise stopped
                return out
            elif isinstance(event, Flash | Inform | Other):
                out.notices.append(event.text)
            else:
                self._ended(event)

    def _answer(self, question: Prompt, prompter: Prompter) -> str | None:
        """The prompter's answer, sent; end of input (``None``) aborts the command, as
        the server's own client does."""
        answer = prompter.ask(question)
        if answer is None or answer in (INTERRUPT, EOF):
            self._send(self.conn.send_interrupt())
            return None
        self._send(self.conn.send_answer(answer))
        return answer

    # -- I/O --------------------------------------------------------------------

    def _send(self, data: bytes) -> None:
        try:
            self.sock.sendall(data)
        except TimeoutError:
            raise ServerTimeout(f"{self.address}: the server stopped reading") from None
        except OSError as exc:
            raise ConnectionLost(
                f"{self.address}: connection lost ({exc.strerror or exc})"
            ) from None

    def _new_reply(self) -> None:
        """Start counting what the server sends in answer to one line."""
        self._reply_lines, self._reply_from = 0, self.conn.received

    def _next(self) -> ServerEvent:
        """The next server event: a whole line within ``timeout`` seconds (a server that
        trickles a byte at a time gets no longer), and the reply within its bounds."""
        deadline = time.monotonic() + self.timeout
        while isinstance(event := self.conn.next_event(), NeedData):
            left = deadline - time.monotonic()
            if left <= 0:
                raise ServerTimeout(
                    f"{self.address}: the server sent no whole line for {self.timeout:g} s"
                )
            self.sock.settimeout(left)
            try:
                data = self.sock.recv(65536)
            except TimeoutError:
                raise ServerTimeout(
                    f"{self.address}: the server sent nothing for {self.timeout:g} s"
                ) from None
            except OSError as exc:
                raise ConnectionLost(
                    f"{self.address}: connection lost ({exc.strerror or exc})"
                ) from None
            self.conn.receive_data(data)
        self._reply_lines += 1
        if self._reply_lines > MAX_REPLY_LINES:
            raise RemoteProtocolError(
                f"{self.address}: the server sent more than {MAX_REPLY_LINES:,} lines in one reply"
            )
        if self.conn.received - self._reply_from > MAX_REPLY_BYTES:
            raise RemoteProtocolError(
                f"{self.address}: the server sent more than {MAX_REPLY_BYTES >> 20} MB in one reply"
            )
        return event
