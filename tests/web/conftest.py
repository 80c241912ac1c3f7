"""Fixtures of the web tests: apps over the example worlds and scenarios, and clients."""

from __future__ import annotations

from collections.abc import Iterator
from pathlib import Path
from typing import Any

import pytest

pytest.importorskip("starlette", reason="the web extra is not installed (pip install '.[web]')")

from starlette.testclient import TestClient

from bellum.empire.io.sqlite import Store
from bellum.empire.io.toml import load_world
from bellum.web import create_app

ROOT = Path(__file__).resolve().parents[2]
EMPIRE = ROOT / "examples" / "empire"
PANZER = ROOT / "examples" / "panzer"


def b1_transcript() -> str:
    """What the library prints for ``make demo`` (vector B.1; bit-exact per the Empire tests)."""
    from bellum import empire

    world = empire.load_world(EMPIRE / "vector-a.toml")
    return empire.attack(world, "2,0", country=1, seed=1, answers=["150", "0"]).transcript()


def client_for(app: object) -> TestClient:
    return TestClient(app, base_url="http://127.0.0.1")  # type: ignore[arg-type]


@pytest.fixture
def world_client() -> Iterator[TestClient]:
    """The planning table over a scratch copy of vector-a.toml."""
    with client_for(create_app(world=EMPIRE / "vector-a.toml")) as client:
        yield client


@pytest.fixture
def db_path(tmp_path: Path) -> Path:
    """A world database made from vector-a.toml."""
    path = tmp_path / "game.db"
    Store.create(path, load_world(EMPIRE / "vector-a.toml")).close()
    return path


@pytest.fixture
def db_client(db_path: Path) -> Iterator[TestClient]:
    with client_for(create_app(db_path)) as client:
        yield client


@pytest.fixture
def panzer_client() -> Iterator[TestClient]:
    with client_for(create_app(scenario=PANZER / "bocage.toml")) as client:
        yield client


@pytest.fixture(scope="module")
def browser() -> Iterator[Any]:
    """Debian's Chromium under Playwright (1280 x 800 pages), for one test module: its
    event loop must be gone before the next module runs an app in process."""
    import shutil
    import tempfile

    from .browser_support import FLAGS, TIMEOUT_MS, chromium

    sync_api = pytest.importorskip("playwright.sync_api", reason="playwright is not installed")
    exe = chromium()
    profile = tempfile.mkdtemp(prefix="bellum-chromium-")
    with sync_api.sync_playwright() as pw:
        context = pw.chromium.launch_persistent_context(
            profile,
            executable_path=exe,
            headless=True,
            args=FLAGS,
            timeout=60_000,
            viewport={"width": 1280, "height": 800},
        )
        context.set_default_timeout(TIMEOUT_MS)
        try:
            yield context
        finally:
            context.close()
            shutil.rmtree(profile, ignore_errors=True)


@pytest.fixture
def page(browser: Any) -> Iterator[Any]:
    """A new page of the module's browser; a script error on it fails the test."""
    p = browser.new_page()
    errors: list[str] = []
    p.on("pageerror", lambda e: errors.append(str(e)))
    yield p
    p.close()
    assert not errors, f"script errors: {errors}"
