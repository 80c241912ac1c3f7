"""What the browser tests share: the system Chromium, a real ``bellum serve``, and the
page's own hooks (``window.bellum``) to find a sector on the canvas map.

Chromium is Debian's, launched by path (never downloaded) with the flags that keep it
off the network.  Screenshots go to build/ to be looked at; latencies measured in the
page go to build/web-timings.json (measured, not asserted: speed belongs to benchmarks).
"""

from __future__ import annotations

import json
import os
import re
import shutil
import subprocess
import sys
import time
from pathlib import Path
from typing import Any

import pytest

from .conftest import ROOT

BUILD = ROOT / "build"
TIMEOUT_MS = 20_000
FLAGS = [
    "--headless",
    "--no-sandbox",
    "--disable-gpu",
    "--disable-quic",
    "--no-first-run",
    "--disable-background-networking",
    "--disable-component-update",
    "--disable-sync",
]
SIZES = {"1280x800": (1280, 800), "1920x1080": (1920, 1080), "800x1000": (800, 1000)}


def chromium() -> str:
    for candidate in (os.environ.get("BELLUM_CHROMIUM"), "/usr/bin/chromium", "chromium"):
        if candidate and (path := shutil.which(candidate)):
            return path
    pytest.skip("no Chromium on this machine (apt-get install chromium; .ci/run does)")


class Server:
    """``bellum serve`` in a child process, with its output kept for failure reports."""

    def __init__(self, *args: str) -> None:
        self.proc = subprocess.Popen(
            [sys.executable, "-m", "bellum", "serve", "-p", "0", *args],
            cwd=ROOT,
            stdout=subprocess.PIPE,
            stderr=subprocess.STDOUT,
            text=True,
        )
        self.output: list[str] = []
        deadline = time.monotonic() + 60
        assert self.proc.stdout is not None
        while time.monotonic() < deadline:
            line = self.proc.stdout.readline()
            self.output.append(line)
            m = re.search(r"Listening on (http://\S+?)/?\s", line)
            if m:
                self.url = m.group(1)
                return
            if self.proc.poll() is not None:
                break
        self.stop()
        raise AssertionError("bellum serve did not start:\n" + "".join(self.output))

    def stop(self) -> str:
        """Stop it as Ctrl-C does; one still working out odds for a page that is gone
        finishes them first, which the tests do not wait for past 5 s."""
        if self.proc.poll() is None:
            self.proc.terminate()
            try:
                out, _ = self.proc.communicate(timeout=5)
            except subprocess.TimeoutExpired:
                self.proc.kill()
                out, _ = self.proc.communicate(timeout=5)
            self.output.append(out or "")
        return "".join(self.output)

    def json(self, path: str) -> Any:
        from urllib.request import urlopen

        with urlopen(self.url + path, timeout=30) as r:
            return json.loads(r.read())


def shot(page: Any, name: str) -> Path:
    BUILD.mkdir(exist_ok=True)
    path = BUILD / name
    page.screenshot(path=str(path))
    return path


def record(key: str, value: Any) -> None:
    """Keep a measurement in build/web-timings.json for docs/web.md, with the machine's
    load average then (the times mean little without it)."""
    BUILD.mkdir(exist_ok=True)
    path = BUILD / "web-timings.json"
    data = json.loads(path.read_text()) if path.exists() else {}
    data[key] = value
    data.setdefault("load_average", {})[key] = round(os.getloadavg()[0], 1)
    path.write_text(json.dumps(data, indent=2, sort_keys=True) + "\n")


def median(values: list[float]) -> float:
    ordered = sorted(values)
    return ordered[len(ordered) // 2] if ordered else -1.0


# --------------------------------------------------------------------------- the map


def open_map(page: Any, url: str) -> None:
    """Load an Empire page and wait for its map's first frame."""
    page.goto(url)
    page.wait_for_function("() => window.bellum && window.bellum.timings.firstMap")


def click_sector(page: Any, key: str) -> None:
    """Click a sector where the canvas draws it (brought on screen first)."""
    p = page.evaluate("(k) => window.bellum.map.clientPoint(k)", key)
    page.mouse.click(p["x"], p["y"])


def click_thing(page: Any, kind: str, uid: int) -> None:
    p = page.evaluate("([k, i]) => window.bellum.map.thingPoint(k, i)", [kind, uid])
    assert p is not None, f"no {kind} #{uid} marker on the map"
    page.mouse.click(p["x"], p["y"])


def plan_for(page: Any, key: str, way: int = 0) -> Any:
    """Click a sector and wait for the odds of its ``way``-th way: the way's locator."""
    click_sector(page, key)
    return wait_odds(page, way)


def wait_odds(page: Any, way: int = 0, after: int = 0) -> Any:
    """The ``way``-th way, once more than ``after`` odds are shown and none are pending."""
    section = page.locator("#panel details.way").nth(way)
    page.wait_for_function(
        """([s, n]) => { const f = s.querySelector('form[data-plan]');
            return f && +f.dataset.updates > n && !s.querySelector('.odds-box.stale'); }""",
        arg=[section.element_handle(), after],
        timeout=60_000,
    )
    return section


def updates(section: Any) -> int:
    return int(section.locator("form[data-plan]").get_attribute("data-updates") or 0)
