"""``bellum serve``: --get, one-line errors, the token, and a clean Ctrl-C (real processes)."""

from __future__ import annotations

import io
import os
import re
import signal
import socket
import subprocess
import sys
import time
from contextlib import redirect_stderr, redirect_stdout
from pathlib import Path

import pytest

from .conftest import EMPIRE, PANZER, ROOT

BELLUM = [sys.executable, "-m", "bellum"]


def run(*args: str, cwd: Path = ROOT) -> tuple[int, str, str]:
    """The command line in this process: exit status, stdout, stderr."""
    from bellum.cli import main

    out, err = io.StringIO(), io.StringIO()
    here = Path.cwd()
    os.chdir(cwd)
    try:
        with redirect_stdout(out), redirect_stderr(err):
            try:
                main(list(args))
            except SystemExit as exc:
                code = int(exc.code or 0)
    finally:
        os.chdir(here)
    return code, out.getvalue(), err.getvalue()


def test_get_prints_the_page_and_exits_zero() -> None:
    code, out, _ = run("serve", "--world", str(EMPIRE / "vector-a.toml"), "--get", "/empire?as=1")
    assert code == 0 and 'id="map-data"' in out and "Empire as 1" in out


def test_get_exits_non_zero_unless_200() -> None:
    code, _, err = run("serve", "--scenario", str(PANZER / "bocage.toml"), "--get", "/empire")
    assert code == 1 and "GET /empire answered 404" in err


@pytest.mark.parametrize(
    ("args", "message"),
    [
        (["--db", "missing.db"], "--db missing.db: no such bellum database"),
        (["--world", "missing.toml"], "--world missing.toml: no such world file"),
        (["--db", "a.db", "--world", "b.toml"], "either --db or --world"),
        (["--world", "README.md"], "README.md"),
        (["--db", "README.md"], "README.md: not a bellum database"),
        (["--scenario", "README.md"], "README.md"),
        ([], "bellum.db: no such database"),
        (["--world", "fifo"], "--world fifo: a pipe (FIFO), not a world file"),
    ],
)
def test_bad_files_are_one_line_errors(tmp_path: Path, args: list[str], message: str) -> None:
    (tmp_path / "README.md").write_text("not a world\n")
    os.mkfifo(tmp_path / "fifo")  # would block the first request for ever
    code, _, err = run("serve", *args, "--get", "/", cwd=tmp_path)
    assert code != 0 and message in err
    assert err.startswith("bellum: error: ") and err.count("\n") == 1


def test_without_the_web_extra_it_says_which_to_install(monkeypatch: pytest.MonkeyPatch) -> None:
    monkeypatch.setitem(sys.modules, "uvicorn", None)
    code, _, err = run("serve", "--world", str(EMPIRE / "vector-a.toml"))
    assert code == 1 and "pip install 'bellum[web]'" in err


def test_another_interface_needs_the_printed_token(monkeypatch: pytest.MonkeyPatch) -> None:
    import uvicorn

    from bellum.cli import web_app

    def fake_bind(host: str, port: int) -> socket.socket:
        sock = socket.socket()
        sock.bind(("127.0.0.1", 0))
        return sock

    seen = {}

    def fake_run(self: uvicorn.Server, sockets: list[socket.socket]) -> None:
        seen["app"] = self.config.app

    monkeypatch.setattr(web_app, "_bind", fake_bind)
    monkeypatch.setattr(uvicorn.Server, "run", fake_run)
    code, out, err = run("serve", "--world", str(EMPIRE / "vector-a.toml"), "--host", "0.0.0.0")
    assert code == 0
    token = re.search(r"\?token=(\S+)", out)
    assert token and len(token.group(1)) >= 20
    assert "give the token only to your players" in err
    assert "app" in seen  # the server would have run the app (its guard: test_web_guard.py)


def _start(*args: str) -> tuple[subprocess.Popen[str], str]:
    proc = subprocess.Popen(
        [*BELLUM, "serve", "-p", "0", *args],
        cwd=ROOT,
        stdout=subprocess.PIPE,
        stderr=subprocess.PIPE,
        text=True,
    )
    assert proc.stdout is not None
    deadline = time.monotonic() + 30
    lines = []
    while time.monotonic() < deadline:
        line = proc.stdout.readline()
        lines.append(line)
        m = re.search(r"Listening on (http://\S+)", line)
        if m:
            return proc, m.group(1)
        if proc.poll() is not None:
            break
    proc.kill()
    raise AssertionError(f"no address printed: {lines} {proc.stderr.read() if proc.stderr else ''}")


def test_serves_on_loopback_and_stops_cleanly_on_ctrl_c() -> None:
    import httpx

    proc, url = _start("--world", str(EMPIRE / "vector-a.toml"))
    try:
        assert url.startswith("http://127.0.0.1:")
        r = httpx.get(url + "empire", timeout=10)
        assert r.status_code == 200 and 'id="map-data"' in r.text
        proc.send_signal(signal.SIGINT)
        out, err = proc.communicate(timeout=20)
    finally:
        if proc.poll() is None:
            proc.kill()
    assert proc.returncode == 0, err
    assert "bellum serve: stopped" in out and "Traceback" not in err


def test_ctrl_c_does_not_wait_for_an_open_event_stream() -> None:
    """A page keeps /empire/events open; Ctrl-C still stops the server at once."""
    import httpx

    proc, url = _start("--world", str(EMPIRE / "vector-a.toml"))
    try:
        with httpx.stream("GET", url + "empire/events?as=1", timeout=10) as r:
            assert r.headers["content-type"].startswith("text/event-stream")
            lines = r.iter_lines()
            assert next(lines) == "retry: 2000"
            assert [next(lines) for _ in range(3)] == [
                "",
                "event: world",
                'data: {"version": 0, "as": 1, "money": 25000, "btu": 640}',
            ]
            started = time.monotonic()
            proc.send_signal(signal.SIGINT)
            out, err = proc.communicate(timeout=20)
            stopped = time.monotonic() - started
    finally:
        if proc.poll() is None:
            proc.kill()
    assert proc.returncode == 0, err
    assert "bellum serve: stopped" in out and "Traceback" not in err
    assert stopped < 5, f"the server took {stopped:.1f} s to stop"


def test_get_of_the_event_stream_prints_its_first_second() -> None:
    code, out, _ = run("serve", "--world", str(EMPIRE / "vector-a.toml"), "--get", "/empire/events")
    assert code == 0 and out.startswith("retry: 2000\n\nevent: world\ndata: {")


def test_a_taken_port_is_a_one_line_error() -> None:
    with socket.socket() as taken:
        taken.bind(("127.0.0.1", 0))
        taken.listen(1)
        port = str(taken.getsockname()[1])
        proc = subprocess.run(
            [*BELLUM, "serve", "--world", str(EMPIRE / "vector-a.toml"), "-p", port],
            cwd=ROOT,
            capture_output=True,
            text=True,
            timeout=60,
        )
    assert proc.returncode == 1
    assert proc.stderr == (
        f"bellum: error: port {port} on 127.0.0.1 is already in use: choose another with"
        " --port (--port 0 picks a free one)\n"
    )
