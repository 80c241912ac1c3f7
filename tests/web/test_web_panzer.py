"""The Panzer pages: battlefield, explain, exact odds and resolve."""

from __future__ import annotations

import html
import re

import pytest
from starlette.testclient import TestClient

from bellum.panzer import exact_distribution, load_scenario, plan_assault

from .conftest import PANZER

UNITS = "unit=us-tk&unit=us-ai&unit=us-ai2"


def test_battlefield_shows_terrain_and_one_stack_per_hex(panzer_client: TestClient) -> None:
    """Item 4: each hex's terrain has its fill and pattern, each stack sits in its hex
    with a badge counting its units and all of them ready to spread."""
    page = panzer_client.get("/panzer").text
    assert 'class="sec terrain-bocage" data-key="4,4"' in page
    assert 'fill="url(#t-hedges)"' in page and '<pattern id="t-hedges"' in page
    assert len(re.findall(r'<g class="sec terrain-\w+" data-key=', page)) == 64
    stacks = re.findall(r'<g class="stack [^"]*" data-hex="([^"]+)" data-count="(\d)"', page)
    assert sorted(stacks) == [("3,3", "2"), ("3,4", "1"), ("4,4", "1")]
    pile = re.search(r'data-hex="3,3".*?<g class="pile">(.*?)</g>\n</g>', page, re.S)
    assert pile and '<g class="badge"><circle' in pile.group(1) and ">2</text>" in pile.group(1)
    spread = re.search(r'data-hex="3,3".*?<g class="spread"(.*?)\n</g>', page, re.S)
    assert spread and re.findall(r'data-unit="([^"]+)"', spread.group(1)) == ["us-tk", "us-ai"]


def test_plan_explains_and_solves_the_scenario_assault(panzer_client: TestClient) -> None:
    doc = panzer_client.get(f"/panzer/plan.json?target=4,4&{UNITS}").json()
    s = load_scenario(str(PANZER / "bocage.toml"))
    plan = plan_assault(s)
    explain, odds = doc["explain"], doc["odds"]
    # The very documents of `bellum panzer explain --json` and `bellum panzer odds --json`.
    assert (explain["schema"], odds["schema"]) == ("bellum.panzer.explain", "bellum.panzer.odds")
    assert explain["breakdown"]["attacker"]["modified_assault"] == pytest.approx(
        plan.breakdown.attackers.modified_assault
    )
    names = [m["name"] for m in explain["breakdown"]["attacker"]["modifiers"]]
    assert len(names) == 4
    p = exact_distribution(plan).p_success
    assert odds["p_attacker_wins"] == pytest.approx(p, abs=1e-12)
    assert explain["p_attacker_wins"] == pytest.approx(p, abs=1e-12)
    assert sum(odds["outcomes"].values()) == pytest.approx(1.0)
    ids = {c["id"]: c["allowed"] for c in doc["candidates"]}
    assert ids == {"us-tk": True, "us-ai": True, "us-ai2": True}


def test_plan_html_has_the_breakdown_table_and_charts(panzer_client: TestClient) -> None:
    html = panzer_client.get(f"/panzer/plan?target=4,4&{UNITS}").text
    assert '<table class="explain">' in html and "modified assault =" in html
    assert html.count('<figure class="chart">') == 2


def test_pick_all_chooses_every_unit_that_may_assault(panzer_client: TestClient) -> None:
    doc = panzer_client.get("/panzer/plan.json?target=4,4&pick=all").json()
    assert sorted(doc["units"]) == ["us-ai", "us-ai2", "us-tk"]


def test_resolve_is_reproducible_and_shows_the_after_state(panzer_client: TestClient) -> None:
    a = panzer_client.get(f"/panzer/resolve.json?target=4,4&{UNITS}&seed=7").json()
    b = panzer_client.get(f"/panzer/resolve.json?target=4,4&{UNITS}&seed=7").json()
    assert a["result"] == b["result"] and a["result"]["seed"] == 7
    assert a["result"]["schema"] == "bellum.panzer.assault"
    units = {u["id"]: u for u in a["result"]["units"]}
    assert set(units) == {"us-tk", "us-ai", "us-ai2", "de-fj"}
    html = panzer_client.get(f"/panzer/resolve?target=4,4&{UNITS}&seed=7").text
    assert '<template id="pz-after">' in html and "vs d6" in html


def test_a_refused_unit_shows_why(panzer_client: TestClient) -> None:
    doc = panzer_client.get("/panzer/plan.json?target=4,4&unit=de-fj").json()
    assert doc.get("problem")


@pytest.mark.parametrize(
    ("path", "status", "message"),
    [
        ("/panzer/plan?target=x", 400, "not a hex"),
        ("/panzer/plan?target=40,40&unit=us-tk", 400, "off the map"),
        ("/panzer/plan", 200, ""),
        ("/panzer/resolve?target=4,4", 400, "at least one"),
        ("/panzer/resolve?target=4,4&unit=ghost&seed=1", 422, "does not exist"),
        ("/panzer/resolve?target=4,4&unit=us-tk&seed=x", 400, "whole number"),
    ],
)
def test_bad_panzer_input(panzer_client: TestClient, path: str, status: int, message: str) -> None:
    r = panzer_client.get(path)
    assert r.status_code == status and message in html.unescape(r.text)
    assert "Traceback" not in r.text
