"""The planning table on a player's view: the map shades what the country knows, saw
before the last update or never saw, and the odds list the same inputs as the command."""

from __future__ import annotations

from collections.abc import Iterator
from pathlib import Path

import pytest
from starlette.testclient import TestClient

from bellum.empire.intel.model import Seen
from bellum.empire.io.sqlite import Store
from bellum.empire.io.toml import load_world
from bellum.empire.world import BMap
from bellum.web import create_app
from fogviews import spied, view

from .conftest import EMPIRE, client_for


@pytest.fixture
def fog_client(tmp_path: Path) -> Iterator[TestClient]:
    world = load_world(EMPIRE / "vector-a.toml")
    v = view(world, 1)
    v.observations["sector 2,0"] = spied(world, (2, 0))
    old = spied(world, (24, 0), turn=1)  # 2's capital, seen two updates ago
    old.fields["mil"] = Seen(10, 1, 0, "llookout", 5, 14, "rounded to 10")
    v.observations["sector 24,0"] = old
    v.bmaps[1] = BMap.blank(1, v.geometry)
    v.bmaps[1].put((4, 0), "?")
    path = tmp_path / "view.db"
    Store.create(path, v).close()
    with client_for(create_app(path)) as client:
        yield client


def test_the_map_shades_known_stale_and_unknown(fog_client: TestClient) -> None:
    doc = fog_client.get("/empire.json?as=1").json()["map"]
    assert doc["view"] == "player"
    sectors = {s["key"]: s for s in doc["sectors"]}
    assert sectors["0,0"]["seen"] == "known" and sectors["0,0"]["relation"] == "own"
    assert (sectors["2,0"]["seen"], sectors["2,0"]["mil"], sectors["2,0"]["owner"]) == (
        "known", 40, 2
    )  # fmt: skip
    assert sectors["24,0"]["seen"] == "stale" and sectors["24,0"]["mil"] == 10
    assert sectors["4,0"]["seen"] == "unknown" and sectors["4,0"]["owner"] == 0
    assert "6,0" not in sectors  # blank on the bmap: nothing to draw
    page = fog_client.get("/empire?as=1").text
    assert "paler, seen before the last update" in page


def test_the_odds_list_their_inputs(fog_client: TestClient) -> None:
    ways = fog_client.get("/empire/target.json?as=1&kind=sector&id=2,0").json()["ways"]
    assert ways[0]["command"] == "attack" and ways[0]["refusal"] == ""
    doc = fog_client.get("/empire/odds.json?as=1&target=2,0&mil.0,0=60").json()["odds"]
    assert doc["method"].startswith("fog: ")
    inputs = {i["name"]: i for i in doc["inputs"]}
    assert inputs["2,0.mil"]["status"] == "known" and inputs["2,0.mil"]["value_seen"] == "40"
    assert inputs["2,0.mines"]["status"] == "unknown"
    html = fog_client.get("/empire/odds?as=1&target=2,0&mil.0,0=60").text
    assert '<tr class="seen-unknown"><td>2,0.mines</td><td>never</td>' in html


def test_a_whole_world_says_a_player_would_see_less() -> None:
    with client_for(create_app(world=EMPIRE / "vector-a.toml")) as client:
        assert client.get("/empire.json?as=1").json()["map"]["view"] == "whole"
        assert (
            "a player sees them only as the server rounds them" in client.get("/empire?as=1").text
        )
