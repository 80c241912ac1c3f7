"""The real Empire 4.4.1 server for tests: built once from the tarball, a fresh game per module.

The tarball lives next to the repository (``../shared/vendor/empire/``), never in it;
the build goes to ``build/empire`` (git ignores ``build/``) and is reused until
that folder is removed.  Each game runs in a temporary folder on a free
loopback port with ``running_test_suite 1``, so every command's seed is the
count of commands the server has run (:class:`~bellum.client.SeedCounter`).
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
from pathlib import Path

import pytest

from bellum.client import SeedCounter, Session, Transcript

ROOT = Path(__file__).resolve().parents[2]
TARBALL = ROOT.parent / "shared" / "vendor" / "empire" / "empire-4.4.1.tar.gz"
BUILD = ROOT / "build"
PREFIX = BUILD / "empire"
#: Written last by a successful build: a build cut short is started over.
STAMP = PREFIX / ".bellum-built"
DEITY, DEITY_PASSWORD = "POGO", "peter"
#: Signs that a deity command did not do what a world setup wanted.
FAILED = ("Usage:", "command failed", "is not a legal command", "is ambiguous")


def empire_install() -> Path:
    """The installed server (``build/empire``), built from the tarball if it is not there."""
    if not TARBALL.exists():
        pytest.skip(f"the Empire 4.4.1 tarball is not at {TARBALL} (live-server tests need it)")
    BUILD.mkdir(exist_ok=True)
    with (BUILD / "empire.lock").open("w") as lock:
        fcntl.flock(lock, fcntl.LOCK_EX)  # two test runs in one checkout build once
        if not STAMP.exists():
            _build()
    return PREFIX


def _build() -> None:
    source = BUILD / "empire-4.4.1"
    log = BUILD / "empire-build.log"
    shutil.rmtree(source, ignore_errors=True)
    shutil.rmtree(PREFIX, ignore_errors=True)
    steps = [
        (["tar", "xzf", str(TARBALL), "-C", str(BUILD)], BUILD),
        (["./configure", f"--prefix={PREFIX}"], source),
        (["make", "-j2"], source),
        (["make", "install"], source),
    ]
    with log.open("w") as out:
        for argv, cwd in steps:
            done = subprocess.run(argv, cwd=cwd, stdout=out, stderr=subprocess.STDOUT, check=False)
            if done.returncode:
                out.flush()
                tail = "".join(log.read_text(errors="replace").splitlines(True)[-25:])
                pytest.fail(f"building the Empire server failed at {' '.join(argv)}:\n{tail}")
    STAMP.write_text("built from empire-4.4.1.tar.gz\n")


def free_port() -> int:
    with socket.socket() as s:
        s.bind(("127.0.0.1", 0))
        return int(s.getsockname()[1])


class EmpireGame:
    """A fresh game on 127.0.0.1 in a temporary folder; :meth:`stop` always cleans up.

    ``econfig`` overrides keys of the server's default configuration.  Every
    session opened through the game shares :attr:`seeds`, so the tests know
    the seed of each command the server runs.
    """

    def __init__(self, install: Path, econfig: dict[str, str | int] | None = None) -> None:
        self.install = install
        self.econfig: dict[str, str | int] = {"WORLD_X": 32, "WORLD_Y": 16, **(econfig or {})}
        self.folder = Path(tempfile.mkdtemp(prefix="bellum-empire-"))
        self.data = self.folder / "data"
        self.seeds = SeedCounter()
        self.process: subprocess.Popen[bytes] | None = None
        self.port = 0

    @property
    def address(self) -> str:
        return f"127.0.0.1:{self.port}"

    def start(self) -> None:
        for _attempt in range(3):  # a port taken between picking and binding: pick again
            self.port = free_port()
            self._configure()
            if self._launch():
                return
        pytest.fail(f"the Empire server did not start:\n{self.log()}")

    def _configure(self) -> None:
        sbin = self.install / "sbin"
        shutil.rmtree(self.data, ignore_errors=True)
        self.data.mkdir(parents=True)
        text = subprocess.run(
            [str(sbin / "pconfig")], capture_output=True, text=True, check=True
        ).stdout
        keys: dict[str, str | int] = {
            "running_test_suite": 1,
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
        (self.folder / "schedule").write_text("")  # without one the server exits at once
        subprocess.run(
            [str(sbin / "files"), "-e", "econfig", "-f"],
            cwd=self.folder,
            capture_output=True,
            check=True,
        )

    def _launch(self) -> bool:
        with (self.folder / "server.out").open("wb") as out:
            self.process = subprocess.Popen(
                [str(self.install / "sbin" / "emp_server"), "-e", "econfig", "-d", "-E", "nothing"],
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

    def stop(self) -> None:
        """SIGTERM the server (SIGKILL if it hangs) and remove the game's folder."""
        try:
            if self.process is not None and self.process.poll() is None:
                self.process.send_signal(signal.SIGTERM)
                try:
                    self.process.wait(10)
                except subprocess.TimeoutExpired:
                    self.process.kill()
                    self.process.wait(10)
        finally:
            shutil.rmtree(self.folder, ignore_errors=True)

    def log(self) -> str:
        """The server's own log and console output, for failure messages."""
        parts = []
        for path in (self.data / "server.log", self.folder / "server.out"):
            if path.exists():
                parts.append(path.read_text(errors="replace")[-4000:])
        return "\n".join(parts)

    # -- talking to it ------------------------------------------------------------

    def session(self, country: str, password: str, timeout: float = 30.0) -> Session:
        return Session.open(
            self.address, country=country, password=password, timeout=timeout, seeds=self.seeds
        )

    def deity(self, *commands: str) -> list[Transcript]:
        """Run deity commands (one session); a command that fails fails the test."""
        out = []
        with self.session(DEITY, DEITY_PASSWORD) as session:
            for line in commands:
                done = session.command(line)
                text = done.text()
                if any(sign in text for sign in FAILED):
                    pytest.fail(f"deity command {line!r} failed:\n{text}")
                out.append(done)
        return out


#: Two countries at war on separate one-sector islands (their capitals at -10,0 and
#: 10,0), meeting at 0,0 (1's airfield, 100 mil) and 2,0 (2's highway, 40 mil): the
#: setup of the shared paradrop scenario.
FRONT = [
    "desi -10,0 c",
    "desi 10,0 c",
    "give c -10,0 100",
    "give c 10,0 100",
    "add 1 1 1 p",
    "add 2 2 2 p",
    "edit l -10,0 o 1 O 1",
    "edit l 10,0 o 2 O 2",
    "edit c 1 c -10,0 s 4 b 640 M 25000 T 100",
    "edit c 2 c 10,0 s 4 b 640 M 25000 T 100",
    "desi 0,0 *",
    "desi 2,0 +",
    "give m 0,0 100",
    "give m 2,0 40",
    "edit l 0,0 o 1 O 1",
    "edit l 2,0 o 2 O 2",
    "edit l * ?des#. e 100 m 127",
    "decl w 1 2",
    "decl w 2 1",
]

#: Four fronts between 1 and 2: the FRONT's attack on 2's highway 2,0; 1's troop
#: transport (ship 0) at sea off 2's highway 6,4; 1's destroyer (ship 1) beside 2's cargo
#: ship (ship 2) at 12,-4; 2's infantry (unit 0) in 1's wilderness -6,4.  A sector gets
#: an owner only once people are in it (the server gives an empty one back).
FRONTS = [
    *FRONT,
    "desi 6,4 +",
    "give m 6,4 10",
    "edit l 6,4 o 2 O 2",
    "edit l 6,4 e 100 m 127",
    "build s 8,4 tt",
    "edit s 0 O 1 E 100 M 127 m 100 f 100",
    "build s 12,-4 dd",
    "edit s 1 O 1 E 100 M 127 m 60",
    "build s 12,-4 cs",
    "edit s 2 O 2 E 100 M 127 m 20",
    "desi -6,4 -",
    "give m -6,4 200",
    "edit l -6,4 o 1 O 1",
    "edit l -6,4 e 100 m 127",
    "build l -6,4 inf",
    "edit u 0 O 2 e 100 m 30 M 30",
]

#: The shared paradrop scenario (S5) after the front: ten C-56 transports at 0,0, petrol to fly.
PARADROP = [
    "give p 0,0 100",
    "build p 0,0 tr",
    "edit p 0 O 1 e 100 m 127 t 85",
    "edit p 0 U 1 U 2 U 3 U 4 U 5 U 6 U 7 U 8 U 9",
]


def world_setup(world: Path) -> tuple[dict[str, str | int], list[str], dict[str, list[str]]]:
    """What builds a bellum world file on a fresh server: its econfig size, the deity's
    commands and each country's own (missions...), by ``tools/server-oracle/toml2setup.py``
    (countries log in with their name as password)."""
    import importlib.util

    path = ROOT / "tools" / "server-oracle" / "toml2setup.py"
    spec = importlib.util.spec_from_file_location("toml2setup", path)
    assert spec is not None and spec.loader is not None
    module = importlib.util.module_from_spec(spec)
    spec.loader.exec_module(module)
    with tempfile.TemporaryDirectory() as tmp:
        out = Path(tmp)
        module.setup(world, out)
        width, height = (int(v) for v in (out / "size").read_text().split())
        names = dict(line.split() for line in (out / "names").read_text().splitlines())
        players = {names[f.name[5:]]: f.read_text().splitlines() for f in out.glob("setup[0-9]*")}
        deity = (out / "setup").read_text().splitlines()
    return {"WORLD_X": width, "WORLD_Y": height}, deity, players
