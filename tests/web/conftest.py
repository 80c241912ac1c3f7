"""Fixtures of the web tests: apps over the example worlds and scenarios, and clients."""

from __future__ import annotations

from collections.abc import Iterator
from pathlib import Path

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
