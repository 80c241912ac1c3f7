"""Fixtures for tests against the real Empire server (see live_support)."""

from __future__ import annotations

from collections.abc import Iterator
from pathlib import Path

import pytest
from live_support import EmpireGame, empire_install


@pytest.fixture(scope="session")
def empire_server() -> Path:
    """The server installed under build/empire, built from the tarball once."""
    return empire_install()


@pytest.fixture(scope="module")
def empire_game(empire_server: Path, request: pytest.FixtureRequest) -> Iterator[EmpireGame]:
    """A fresh game for this test module; ``EMPIRE_ECONFIG`` in the module adds econfig keys."""
    game = EmpireGame(empire_server, getattr(request.module, "EMPIRE_ECONFIG", None))
    try:
        game.start()
        yield game
    finally:
        game.stop()
