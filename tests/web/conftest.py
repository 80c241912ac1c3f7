"""Fixtures of the web tests: apps over the example worlds and scenarios, and clients."""

from __future__ import annotations

from collections.abc import Iterator
from pathlib import Path

import pytest

pytest.importorskip("starlette", reason="the web extra is not installed (pip install '.[web]')")

from starlette.testclient import TestClient

from bellum.empire.store import Store
from bellum.empire.worldfile import load_world
from bellum.web import create_app

ROOT = Path(__file__).resolve().parents[2]
EMPIRE = ROOT / "examples" / "empire"
PANZER = ROOT / "examples" / "panzer"
#: The server's transcript of ``make demo`` (the spec's vector B.1), byte for byte.
B1 = """\
2,0 is a 100% 2 wilderness with approximately 40 military.
Number of mil from wilderness at 0,0 (max 199) : 150

             Initial attack strength:      150
               Final attack strength:      150
              Final defense strength:       80
                          Final odds:       65%
!@!!!!!!!!!@!@!!@!!!!!@!!!!!@!!@!@@!!!@@!@!!!!@!!!@!!!
- Casualties -
     Yours: 14
    Theirs: 40
Paper-shuffling ... 8.1 BTU
We have captured 2,0, sir!
1 mil from 0,0 moves into 2,0
How many mil to move in from 0,0 (135 max)? 0
1 of your troops now occupy 2,0
"""


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
