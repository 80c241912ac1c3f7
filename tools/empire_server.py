"""The real Empire 4.4.1 server, for tests and tools: build it, run throw-away games on it.

The one implementation of "build the server / start a test-mode game on loopback /
run deity commands / stop it" that ``tests/live`` and ``tools/realistic.py`` share.

The tarball lives next to the repository (``../shared/vendor/empire/``), never in it;
the build goes to ``build/empire`` (git ignores ``build/``) and is reused until that
folder is removed.  Each game runs in a folder of its own (a temporary one unless
given) on a free loopback port with ``running_test_suite 1``, so every command's seed
is the count of commands the server has run since it started
(:class:`~bellum.client.SeedCounter`, reset by every start).

A game is made in steps, so that a tool can put the server's own ``fairland`` map in
before the server first reads it::

    game = EmpireGame(empire_install(), {"WORLD_X": 48, "WORLD_Y": 24})
    game.create()                       # econfig, schedule, an empty game (``files``)
    script = game.fairland(4242, 4, 25) # optional: the server's world generator
    game.launch()                       # the server, on 127.0.0.1:PORT
    game.deity("add 1 Rome Rome p", *script)
    ...
    game.stop()                         # SIGTERM, and the folder is removed

(:meth:`EmpireGame.start` is ``create`` then ``launch``.)  Errors are
:class:`ServerError`; a missing tarball is :class:`ServerUnavailable`, which tests
turn into a skip.
"""

from __future__ import annotations

import contextlib
import fcntl
import shutil
import signal
import socket
import subprocess
import tempfile
import time
from collections.abc import Iterator, Sequence
from pathlib import Path
from types import TracebackType

from bellum.client import SeedCounter, Session, Transcript

ROOT = Path(__file__).resolve().parents[1]
TARBALL = ROOT.parent / "shared" / "vendor" / "empire" / "empire-4.4.1.tar.gz"
BUILD = ROOT / "build"
PREFIX = BUILD / "empire"
#: Written last by a successful build: a build cut short is started over.
STAMP_NAME = ".bellum-built"
DEITY, DEITY_PASSWORD = "POGO", "peter"
#: Signs that a command did not do what a world set-up wanted.
FAILED = ("Usage:", "command failed", "is not a legal command", "is ambiguous")


class ServerError(RuntimeError):
    """The server could not be built or started, or a set-up command failed."""


class ServerUnavailable(ServerError):
    """There is no tarball to build the server from (a clone without ``../shared``)."""


class CommandFailed(ServerError):
    """A set-up command printed one of :data:`FAILED`; ``transcript`` is what it printed."""

    def __init__(self, line: str, transcript: str) -> None:
        super().__init__(f"command {line!r} failed:\n{transcript}")
        self.line = line
        self.transcript = transcript


def empire_install(prefix: Path | None = None, tarball: Path | None = None) -> Path:
    """The installed server (``build/empire``), built from the tarball if it is not there.

    Two processes that want it at once build it once (a lock file next to it).
    Raises :class:`ServerUnavailable` without the tarball, :class:`ServerError` if
    the build fails (with the end of its log).
    """
    prefix = prefix or PREFIX
    tarball = tarball or TARBALL
    if not tarball.exists():
        raise ServerUnavailable(
            f"the Empire 4.4.1 tarball is not at {tarball} (live-server tests need it)"
        )
    build = prefix.parent
    build.mkdir(parents=True, exist_ok=True)
    with (build / "empire.lock").open("w") as lock:
        fcntl.flock(lock, fcntl.LOCK_EX)  # two test runs in one checkout build once
        if not (prefix / STAMP_NAME).exists():
            _build(tarball, prefix)
    return prefix


def _build(tarball: Path, prefix: Path) -> None:
    build = prefix.parent
    source = build / "empire-4.4.1"
    log = build / "empire-build.log"
    shutil.rmtree(source, ignore_errors=True)
    shutil.rmtree(prefix, ignore_errors=True)
    steps = [
        (["tar", "xzf", str(tarball), "-C", str(build)], build),
        (["./configure", f"--prefix={prefix}"], source),
        (["make", "-j2"], source),
        (["make", "install"], source),
    ]
    with log.open("w") as out:
        for argv, cwd in steps:
            done = subprocess.run(argv, cwd=cwd, stdout=out, stderr=subprocess.STDOUT, check=False)
            if done.returncode:
                out.flush()
                tail = "".join(log.read_text(errors="replace").splitlines(True)[-25:])
                raise ServerError(f"building the Empire server failed at {' '.join(argv)}:\n{tail}")
    (prefix / STAMP_NAME).write_text(f"built from {tarball.name}\n")


def free_port() -> int:
    with socket.socket() as s:
        s.bind(("127.0.0.1", 0))
        return int(s.getsockname()[1])


class EmpireGame:
    """A game on 127.0.0.1 in a folder of its own; :meth:`stop` always cleans up.

    ``econfig`` overrides keys of the server's default configuration (``pconfig``);
    ``folder`` keeps the game somewhere given instead of a temporary folder (which
    :meth:`stop` removes either way); ``server_args`` go to ``emp_server`` (``-R 1``
    seeds its generator before the first command).  Every session opened through the game shares
    :attr:`seeds`, so the caller knows the seed of each command the server runs.
    """

    def __init__(
        self,
        install: Path,
        econfig: dict[str, str | int] | None = None,
        folder: Path | None = None,
        server_args: Sequence[str] = (),
    ) -> None:
        self.install = install
        self.econfig: dict[str, str | int] = {"WORLD_X": 32, "WORLD_Y": 16, **(econfig or {})}
        if folder is None:
            folder = Path(tempfile.mkdtemp(prefix="bellum-empire-"))
        else:
            folder.mkdir(parents=True, exist_ok=True)
        self.folder = folder
        self.data = self.folder / "data"
        self.seeds = SeedCounter()
        self.process: subprocess.Popen[bytes] | None = None
        self.port = 0
        self.server_args = list(server_args)

    @property
    def address(self) -> str:
        return f"127.0.0.1:{self.port}"

    @property
    def size(self) -> tuple[int, int]:
        return int(self.econfig["WORLD_X"]), int(self.econfig["WORLD_Y"])

    # -- making and running the game -------------------------------------------------

    def start(self) -> None:
        """A fresh, empty game, running: :meth:`create`, then :meth:`launch`."""
        self.create()
        self.launch()

    def create(self) -> None:
        """Write the configuration and an empty game (the server's ``files``)."""
        shutil.rmtree(self.data, ignore_errors=True)
        self.data.mkdir(parents=True)
        self.port = free_port()
        self._write_econfig()
        (self.folder / "schedule").write_text("")  # without one the server exits at once
        self._run_tool("files", "-e", "econfig", "-f")

    def _write_econfig(self) -> None:
        text = subprocess.run(
            [str(self.install / "sbin" / "pconfig")], capture_output=True, text=True, check=True
        ).stdout
        keys: dict[str, str | int] = {
            "running_test_suite": 1,  # a game's econfig may turn test mode off
            **self.econfig,
            "data": f'"{self.data}"',
            "port": f'"{self.port}"',
            "listen_addr": '"127.0.0.1"',
        }
        lines = []
        for line in text.splitlines():
            key = line.split(" ", 1)[0]
            lines.append(f"{key} {keys.pop(key)}" if key in keys else line)
        lines += [f"{k} {v}" for k, v in keys.items()]
        (self.folder / "econfig").write_text("\n".join(lines) + "\n")

    def _run_tool(self, name: str, *args: str) -> str:
        done = subprocess.run(
            [str(self.install / "sbin" / name), *args],
            cwd=self.folder,
            capture_output=True,
            text=True,
            check=False,
        )
        if done.returncode:
            raise ServerError(f"{name} {' '.join(args)} failed:\n{done.stdout}{done.stderr}")
        return done.stdout

    def fairland(
        self,
        seed: int,
        continents: int,
        continent_size: int,
        islands: int | None = None,
        island_size: int | None = None,
        *more: int,
    ) -> list[str]:
        """Generate the map with the server's ``fairland`` (the server must be stopped).

        The arguments are fairland's own: ``NC SC [NI] [IS] [SP] [PM] [DI] [ID]``
        (``more`` are the last four).  Returns the deity commands of its
        ``newcap_script``: an ``add`` and a ``newcap`` per continent.
        """
        if self.running:
            raise ServerError("fairland writes the game's files: stop the server first")
        args = [str(continents), str(continent_size)]
        args += [str(n) for n in (islands, island_size, *more) if n is not None]
        script = self.folder / "newcap_script"
        self._run_tool("fairland", "-e", "econfig", "-q", "-R", str(seed), "-s", str(script), *args)
        return [line for line in script.read_text().splitlines() if line.strip()]

    @property
    def running(self) -> bool:
        return self.process is not None and self.process.poll() is None

    def launch(self) -> None:
        """Start the server on the game made by :meth:`create`; its command count
        (:attr:`seeds`) starts again from 0."""
        for attempt in range(3):  # a port taken between picking and binding: pick again
            if attempt:
                self.port = free_port()
                self._write_econfig()
            self.seeds = SeedCounter()
            if self._launch():
                return
        raise ServerError(f"the Empire server did not start:\n{self.log()}")

    def _launch(self) -> bool:
        with (self.folder / "server.out").open("ab") as out:
            self.process = subprocess.Popen(
                [
                    str(self.install / "sbin" / "emp_server"),
                    *("-e", "econfig", "-d", "-E", "nothing"),
                    *self.server_args,
                ],
                cwd=self.folder,
                stdout=out,
                stderr=subprocess.STDOUT,
            )
        deadline = time.monotonic() + 20
        while time.monotonic() < deadline:
            if self.process.poll() is not None:
                return False
            with (
                contextlib.suppress(OSError),
                socket.create_connection(("127.0.0.1", self.port), 1),
            ):
                return True
            time.sleep(0.05)
        return False

    def halt(self) -> None:
        """Stop the server (SIGTERM, SIGKILL if it hangs) and keep the game's files."""
        if self.process is not None and self.process.poll() is None:
            self.process.send_signal(signal.SIGTERM)
            try:
                self.process.wait(10)
            except subprocess.TimeoutExpired:
                self.process.kill()
                self.process.wait(10)

    def restart(self) -> None:
        """Stop and start the server on the same game: the command count starts again."""
        self.halt()
        self.launch()

    def stop(self) -> None:
        """Stop the server and remove the game's folder."""
        try:
            self.halt()
        finally:
            shutil.rmtree(self.folder, ignore_errors=True)

    def __enter__(self) -> EmpireGame:
        return self

    def __exit__(
        self,
        kind: type[BaseException] | None,
        exc: BaseException | None,
        tb: TracebackType | None,
    ) -> None:
        self.stop()

    @contextlib.contextmanager
    def stopped(self) -> Iterator[None]:
        """The server stopped for the block (to copy or change the game's files), then
        started again if it was running."""
        was_running = self.running
        self.halt()
        try:
            yield
        finally:
            if was_running:
                self.launch()

    def snapshot(self, dest: Path) -> None:
        """Copy the game's data folder to ``dest`` (the server stopped meanwhile)."""
        with self.stopped():
            shutil.rmtree(dest, ignore_errors=True)
            shutil.copytree(self.data, dest)

    def restore(self, src: Path) -> None:
        """Put a :meth:`snapshot` back (the server stopped meanwhile): the same game again."""
        with self.stopped():
            shutil.rmtree(self.data, ignore_errors=True)
            shutil.copytree(src, self.data)

    def log(self) -> str:
        """The server's own log and console output, for failure messages."""
        parts = []
        for path in (self.data / "server.log", self.folder / "server.out"):
            if path.exists():
                parts.append(path.read_text(errors="replace")[-4000:])
        return "\n".join(parts)

    # -- talking to it ---------------------------------------------------------------

    def session(self, country: str, password: str, timeout: float = 30.0) -> Session:
        return Session.open(
            self.address, country=country, password=password, timeout=timeout, seeds=self.seeds
        )

    def play(
        self, country: str, password: str, commands: Sequence[str], *, check: bool = True
    ) -> list[Transcript]:
        """Run ``commands`` as ``country`` in one session, aborting every question; with
        ``check`` one that prints a sign of failure (:data:`FAILED`) raises
        :class:`CommandFailed`."""
        out = []
        with self.session(country, password) as session:
            for line in commands:
                done = session.command(line)
                text = done.text()
                if check and any(sign in text for sign in FAILED):
                    raise CommandFailed(line, text)
                out.append(done)
        return out

    def empdump(self) -> str:
        """The whole game as the server's ``empdump -x`` writes it (the server stopped
        meanwhile, so the files are whole)."""
        with self.stopped():
            return self._run_tool("empdump", "-e", "econfig", "-x")

    def deity(self, *commands: str) -> list[Transcript]:
        """Run deity commands (one session); see :meth:`play`."""
        return self.play(DEITY, DEITY_PASSWORD, commands)
