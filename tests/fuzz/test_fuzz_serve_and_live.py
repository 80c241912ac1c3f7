"""Fuzzing the edges that reach the network: ``bellum serve``'s arguments, and ``bellum
empire sync`` / ``--live HOST:PORT`` on the combat commands.

No server is left running and none is needed: ``serve`` binds its socket for real
(a taken port, a foreign address and a bad host name are real errors) but uvicorn's
loop is replaced by one that returns at once; ``sync`` and ``--live`` meet a port on
127.0.0.1 that refuses connections (bound, never listening), one that accepts but
never speaks (a short ``--timeout``), or addresses that must be refused before any
connection.  Every run is held to :func:`harness.check`.
"""

from __future__ import annotations

import logging
import os
import shutil
import socket
from collections.abc import Iterator
from pathlib import Path
from unittest import mock

import pytest
from harness import check, fuzz_settings, run, sandbox, snapshot
from hypothesis import given
from hypothesis import strategies as st
from strategies import EMPIRE, PANZER, Line

BIG = "9" * 5000
#: The files every example starts with.
FILES = ["w.toml", "g.db", "s.toml", "notes.txt", "pw.txt", "empty.txt"]
PATHS = [*FILES, "fifo", "dir", "/dev/zero", "/dev/null", "missing.db", "", "-", "dir/x.db"]
NOT_NUMBERS = ["²", "٣", BIG, "x", "", "8.5", "-" + BIG]


@pytest.fixture(scope="module")
def ports() -> Iterator[dict[str, int]]:
    """Ports on 127.0.0.1 that refuse (bound, not listening), that accept and never
    answer (listening, never accepting), and one in use by a listener (for serve)."""
    refusing = socket.socket()
    refusing.bind(("127.0.0.1", 0))
    silent = socket.socket()
    silent.bind(("127.0.0.1", 0))
    silent.listen(64)
    try:
        yield {
            "refusing": refusing.getsockname()[1],
            "silent": silent.getsockname()[1],
        }
    finally:
        refusing.close()
        silent.close()


@pytest.fixture(scope="module")
def starting_files(tmp_path_factory: pytest.TempPathFactory) -> Path:
    folder = tmp_path_factory.mktemp("serve-live")
    shutil.copy(EMPIRE / "vector-a.toml", folder / "w.toml")
    assert run(["empire", "world", "new", "--from", "w.toml", "--db", "g.db"], cwd=folder).code == 0
    shutil.copy(PANZER / "bocage.toml", folder / "s.toml")
    (folder / "notes.txt").write_text("remember the milk\n")
    (folder / "pw.txt").write_text("secret\n")
    (folder / "empty.txt").write_text("")
    return folder


def _copy(starting: Path, folder: Path) -> None:
    for name in FILES:
        shutil.copy(starting / name, folder / name)
    (folder / "dir").mkdir()
    os.mkfifo(folder / "fifo")


# -- bellum serve --------------------------------------------------------------------

BAD_PATHS = [p for p in PATHS if p not in ("w.toml", "g.db", "s.toml")] + ["w.toml", "g.db"]
HOSTS = ["", " ", "a..b", "x" * 300, "256.1.1.1", "1.2.3.4", "é", "-", "\x00", "127.0.0.1:80"]
TOKENS = ["", " ", "é", "a\nb", "x" * 5000, "\x00"]
GETS = ["x", "", "/empire/odds.json?as=1&target=2,0&mil.0,0=²", "/empire/history/²", "/nope",
        "/empire/target.json?as=1&kind=ship&id=" + "9" * 50, "/empire/map?as=" + "9" * 300,
        "/%ff", "//", "/empire?as=²"]  # fmt: skip


@st.composite
def serve_line(draw: st.DrawFn) -> list[str]:
    line = Line(draw, 7)
    args = ["serve"]
    for option, good in (("--db", "g.db"), ("--world", "w.toml"), ("--scenario", "s.toml")):
        if line.flag():
            args += [option, line.value([good], BAD_PATHS)]
    if line.flag():
        args += ["--host", line.value(["127.0.0.1", "localhost", "::1", "[::1]", "0.0.0.0"], HOSTS)]
    args += ["--port", line.value(["0"], ["{busy}", "-1", "65536", *NOT_NUMBERS])]
    if line.flag():
        args += ["--token", line.value(["t0ken"], TOKENS)]
    if line.flag():
        args += ["--get", line.value(["/", "/empire.json?as=1", "/panzer.json"], GETS)]
    return args


@fuzz_settings("serve arguments")
@given(args=serve_line())
def test_fuzz_serve_arguments(starting_files: Path, ports: dict[str, int], args: list[str]) -> None:
    import uvicorn

    served: list[list[socket.socket]] = []

    def run_nothing(self: uvicorn.Server, sockets: list[socket.socket]) -> None:
        served.append(sockets)  # the server would have run here: it returns at once

    busy = socket.socket()
    busy.bind(("127.0.0.1", 0))
    busy.listen(1)
    args = [a.replace("{busy}", str(busy.getsockname()[1])) for a in args]
    try:
        with sandbox() as folder, mock.patch.object(uvicorn.Server, "run", run_nothing):
            _copy(starting_files, folder)
            before = snapshot(folder)
            ran = run(args, cwd=folder)
            check(ran, "serve arguments", before, snapshot(folder))
    finally:
        busy.close()
    for sockets in served:
        assert all(s.fileno() == -1 for s in sockets), "serve left its socket open"
    if ran.code == 0 and "--get" not in args:
        assert served and "Listening on http://" in ran.stdout


# -- bellum empire sync and --live ---------------------------------------------------

ADDRESSES = ["127.0.0.1:{refusing}", "localhost:{refusing}", "[::1]:{refusing}",
             "127.0.0.1:{silent}"]  # fmt: skip
BAD_ADDRESSES = ["127.0.0.1", ":80", "127.0.0.1:0", "127.0.0.1:65536", "127.0.0.1:²",
                 "127.0.0.1:٣", "127.0.0.1:" + BIG, "127.0.0.1:-1", "a..b:1", "x" * 300 + ":1",
                 "[::1:1", "[]:1", "256.256.256.256:1", " :1", "", "\x00:1", "127.0.0.1: 80",
                 "127.0.0.1:+80"]  # fmt: skip
ORDERS = [["attack", "2,0"], ["assault", "2,0", "0"], ["board", "1", "0"], ["lboard", "0", "0,0"],
          ["paradrop", "0", "", "0,0", "jj"]]  # fmt: skip


@st.composite
def live_line(draw: st.DrawFn) -> tuple[list[str], str]:
    """``empire sync`` or a combat command with ``--live``, and what is piped to it."""
    line = Line(draw, 6)
    address = line.value(ADDRESSES, BAD_ADDRESSES)
    args = ["--timeout", line.value(["0.2"], ["0", "-1", "x", "nan", "inf", BIG])]
    if line.flag():
        args = []  # the default 30 s: only where a refusal comes at once
        address = address.replace("{silent}", "{refusing}")
    if draw(st.integers(0, 3)):
        args += ["--password-file", line.value(["pw.txt"], BAD_PATHS)]
    if draw(st.booleans()):
        args = ["empire", "sync", address, *args]
        args += ["--as", line.value(["1", "North"], ["", "²", BIG])]
        if line.flag():
            args += ["--db", line.value(["g.db", "new.db"], BAD_PATHS)]
        if line.flag():
            args.append("-v")
        return args, draw(st.sampled_from(["", "secret\n", "\xff\n"]))
    order = draw(st.sampled_from(ORDERS))
    args = ["empire", *order, "--live", address, "--as", "1", *args]
    args += draw(st.sampled_from([[], ["--db", "g.db"], ["--db", "new.db"]]))
    extra = draw(st.sampled_from([[], ["--check"], ["--mil", "0,0=1"],
                                  ["--check", "--deity-password-file", "pw.txt"]]))  # fmt: skip
    mistake = line.value([""], ["--check", "--commands-run 3", "--check --deity ²",
                                "--seed 1", "--out o.toml", "--world w.toml", "--profile x",
                                "--deity-password-file pw.txt"])  # fmt: skip
    return [*args, *extra, *mistake.split()], draw(st.sampled_from(["", "1\n", "y\n"]))


@fuzz_settings("live arguments")
@given(line=live_line())
def test_fuzz_live_arguments(
    starting_files: Path, ports: dict[str, int], line: tuple[list[str], str]
) -> None:
    args, stdin = line
    args = [a.format(**ports) if "{" in a else a for a in args]
    client_log = logging.getLogger("bellum.client")
    handlers = list(client_log.handlers)
    try:
        with sandbox() as folder, mock.patch.dict("os.environ", clear=False) as env:
            env.pop("BELLUM_PASSWORD", None)
            env.pop("BELLUM_DEITY_PASSWORD", None)
            _copy(starting_files, folder)
            before = snapshot(folder)
            ran = run(args, stdin=stdin, cwd=folder)
            # Nothing reaches a server here, so nothing is synced or recorded.
            check(ran, "live arguments", before, snapshot(folder))
    finally:
        for handler in client_log.handlers[len(handlers) :]:  # -v's, one per run here
            client_log.removeHandler(handler)
    assert ran.code != 0, "no server answered, yet the command succeeded"
