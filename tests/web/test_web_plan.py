"""The turn plan and the threat map on the planning table (docs/plan.md, docs/web.md)."""

from __future__ import annotations

import shlex

from starlette.testclient import TestClient

from bellum.web import create_app

from .conftest import EMPIRE, client_for


def _client() -> TestClient:
    return client_for(create_app(world=EMPIRE / "capital.toml"))


def test_turn_plan_gives_the_map_its_arrows_and_each_attack_its_order() -> None:
    with _client() as client:
        doc = client.get("/empire/turnplan.json?as=1").json()["turnplan"]
        assert doc["schema"] == "bellum.empire.plan"
        attacks = doc["waves"][0]["attacks"]
        first = attacks[0]
        assert (first["order"], first["at"], first["sources"]) == ("attack 24,0", "24,0", ["22,0"])
        assert first["p_success"] > 0.99
        words = shlex.split(first["command"])
        assert words[:4] == ["bellum", "empire", "attack", "24,0"] and "--mil" in words
        page = client.get("/empire/turnplan?as=1", headers={"x-bellum-fragment": "1"}).text
        assert page.count('name="accept"') == len(attacks)
        assert 'id="turnplan-data"' in page and "attack 24,0" in page
        again = client.get("/empire/turnplan.json?as=1").json()["turnplan"]
        assert again["waves"][0]["solved"] == 0  # the odds are kept by the world's version


def test_threats_name_each_threatened_place_as_the_map_does() -> None:
    with _client() as client:
        doc = client.get("/empire/threats.json?as=2").json()["threats"]
        assert doc["schema"] == "bellum.empire.threats"
        top = doc["threats"][0]
        assert (top["at"], top["enemy"]) == ("24,0", 1) and top["p_success"] > 0.99
        page = client.get("/empire/threats?as=2", headers={"x-bellum-fragment": "1"}).text
        assert 'id="threats-data"' in page and "24,0" in page


def test_the_map_page_offers_both() -> None:
    with _client() as client:
        page = client.get("/empire?as=1").text
        assert "data-turnplan" in page and "data-threats" in page


def test_an_unknown_country_is_a_400() -> None:
    with _client() as client:
        r = client.get("/empire/turnplan.json?as=9")
        assert r.status_code == 400 and "no country '9'" in r.json()["error"]
