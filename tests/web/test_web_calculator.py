"""The Panzer calculator: an assault built in a form gives the library's odds, saves as a
scenario file that ``bellum panzer`` reads, and loads one back."""

from __future__ import annotations

from pathlib import Path
from typing import Any

import pytest
from starlette.testclient import TestClient

from bellum.panzer import exact_distribution, load_scenario, plan_assault
from bellum.web import create_app

from .conftest import EMPIRE, PANZER, client_for


def fields(calc: dict[str, Any]) -> list[tuple[str, str]]:
    """The form's fields for a calculator state, as the page sends them."""
    out = [("name", calc["name"]), ("att_side", calc["att_side"]),
           ("def_side", calc["def_side"]), ("terrain", calc["terrain"]),
           ("fort", calc["fort"]), ("elevation", "true" if calc["elevation"] else "false"),
           ("tables", calc["tables"])]  # fmt: skip
    for d, side in calc["sides"].items():
        out += [(f"side.{d}.feature", side["feature"]), (f"side.{d}.crossing", side["crossing"])]
    for k, u in enumerate(calc["units"]):
        out += [(f"u.{k}.{f}", str(u[f])) for f in ("role", "from", "id", "kind", "strength",
                "assault", "defense", "quality", "fatigue", "mode", "state", "more")]  # fmt: skip
    out += [(f"rule.{k}", str(v).lower() if isinstance(v, bool) else str(v))
            for k, v in calc["rules"].items()]  # fmt: skip
    out += [(f"param.{k}", str(v)) for k, v in calc["params"].items()]
    return out


def library_p(path: Path) -> float:
    return exact_distribution(plan_assault(load_scenario(path))).p_success


@pytest.fixture
def calc_client() -> Any:
    with client_for(create_app(world=EMPIRE / "vector-a.toml")) as client:
        yield client


def state_of(client: TestClient, path: Path) -> dict[str, Any]:
    r = client.post("/panzer/calculator/load.json", data={"name": path.name,
                                                          "toml": path.read_text()})  # fmt: skip
    assert r.status_code == 200, r.text
    calc: dict[str, Any] = r.json()["calc"]
    return calc


def test_it_starts_from_the_served_assault(panzer_client: TestClient) -> None:
    calc = panzer_client.get("/panzer/calculator.json").json()["calc"]
    assert (calc["att_side"], calc["def_side"], calc["terrain"]) == ("US", "Germany", "bocage")
    where = {u["id"]: (u["role"], u["from"]) for u in calc["units"]}
    assert where == {"de-fj": ("defender", ""), "us-tk": ("attacker", "NW"),
                     "us-ai": ("attacker", "NW"), "us-ai2": ("attacker", "SW")}  # fmt: skip
    assert '"motorized_infantry": true' in calc["units"][2]["more"]
    # Without a scenario it has an assault of its own, and works as well.
    with client_for(create_app(world=EMPIRE / "vector-a.toml")) as client:
        page = client.get("/panzer/calculator")
        assert page.status_code == 200 and 'name="u.101.strength"' in page.text


@pytest.mark.parametrize("path", sorted(PANZER.glob("*.toml")), ids=lambda p: p.stem)
def test_its_odds_are_the_library_s(calc_client: TestClient, path: Path) -> None:
    """Every example, loaded into the form, has the file's chance of success; and its
    whole outcome law, but where the file's other units block a retreat."""
    calc = state_of(calc_client, path)
    doc = calc_client.get("/panzer/calculator/odds.json", params=fields(calc)).json()
    assert doc["problem"] == ""
    dist = exact_distribution(plan_assault(load_scenario(path)))
    assert doc["odds"]["p_attacker_wins"] == pytest.approx(dist.p_success, abs=1e-12)
    assert doc["explain"]["schema"] == "bellum.panzer.explain"
    if not calc["notes"]:
        law = dist.odds_result().outcomes
        assert doc["odds"]["outcomes"] == pytest.approx(dict(law), abs=1e-12)


def test_it_saves_a_scenario_bellum_panzer_reads(calc_client: TestClient, tmp_path: Path) -> None:
    calc = state_of(calc_client, PANZER / "hexsides.toml")
    for u in calc["units"]:
        if u["id"] == "gb-2":
            u["strength"] = 900
    form = [*fields(calc), ("rule.optional_rules.alternative_assault_resolution", "true")]
    r = calc_client.get("/panzer/calculator/scenario.toml", params=form)
    assert r.status_code == 200
    assert r.headers["content-disposition"] == 'attachment; filename="hexsides.toml"'
    saved = tmp_path / "saved.toml"
    saved.write_text(r.text)
    assert '"optional_rules.alternative_assault_resolution" = true' in r.text
    shown = calc_client.get("/panzer/calculator/odds.json", params=form).json()
    assert shown["odds"]["p_attacker_wins"] == pytest.approx(library_p(saved), abs=1e-12)
    assert library_p(saved) != pytest.approx(library_p(PANZER / "hexsides.toml"))
    # And the saved file loads back into the same form.
    again = state_of(calc_client, saved)
    assert [(u["id"], u["from"], u["strength"]) for u in again["units"]] == [
        (u["id"], u["from"], u["strength"]) for u in calc["units"]
    ]
    assert again["rules"]["optional_rules.alternative_assault_resolution"] is True


def test_loading_fills_the_form_and_says_what_it_leaves(calc_client: TestClient) -> None:
    html = calc_client.post(
        "/panzer/calculator/load",
        data={"name": "hexsides.toml", "toml": (PANZER / "hexsides.toml").read_text()},
    ).text
    assert '<option value="embankment" selected>' in html
    calc = state_of(calc_client, PANZER / "surrender.toml")
    assert calc["notes"] == [
        "2 other units of Surrounded take no part: on the calculator's map nothing blocks a retreat"
    ]


@pytest.mark.parametrize(
    ("change", "message"),
    [
        (("u.1.strength", "lots"), "u.1.strength: expected a whole number, not 'lots'"),
        (("u.1.assault", "1e9"), "u.1.assault: expected a number, not '1e9'"),
        (("terrain", "lava"), "terrain: 'lava' is not one of clear, beach"),
        (("u.1.from", "UP"), "u.1.from: 'UP' is not one of N, NE, SE, S, SW, NW"),
        (("param.infantry_defense", "-1"), "param.infantry_defense: -1 is out of range"),
    ],
)
def test_a_bad_field_is_a_one_line_400(
    calc_client: TestClient, change: tuple[str, str], message: str
) -> None:
    calc = state_of(calc_client, PANZER / "bocage.toml")
    form = [(k, v) for k, v in fields(calc) if k != change[0]] + [change]
    r = calc_client.get("/panzer/calculator/odds.json", params=form)
    assert r.status_code == 400 and r.json()["error"].startswith(message)


def test_what_the_rules_refuse_is_shown_not_an_error(calc_client: TestClient) -> None:
    calc = state_of(calc_client, PANZER / "bocage.toml")
    form = [(k, v) for k, v in fields(calc) if k != "u.1.state"] + [("u.1.state", "broken")]
    doc = calc_client.get("/panzer/calculator/odds.json", params=form).json()
    assert "us-tk" in doc["problem"] and doc["odds"] is None
    twice = [(k, "us-ai" if k == "u.1.id" else v) for k, v in fields(calc)]
    doc = calc_client.get("/panzer/calculator/odds.json", params=twice).json()
    assert "appears twice" in doc["problem"]


def test_a_file_that_is_not_a_scenario_is_named(calc_client: TestClient) -> None:
    r = calc_client.post("/panzer/calculator/load.json",
                         data={"name": "vector-a.toml", "toml": (EMPIRE / "vector-a.toml").read_text()})  # fmt: skip
    assert r.status_code == 400 and r.json()["error"].startswith("vector-a.toml: this is an Empire")
    r = calc_client.post("/panzer/calculator/load.json", data={"name": "x.toml", "toml": "a = ["})
    assert r.status_code == 400 and r.json()["error"].startswith("x.toml")
