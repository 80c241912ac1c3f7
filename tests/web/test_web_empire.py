"""The Empire pages through Starlette's test client: map, target panel, odds, fights, history."""

from __future__ import annotations

import json
import re
import threading
from pathlib import Path
from typing import Any

import pytest
from starlette.testclient import TestClient

from bellum.empire import run_command
from bellum.empire.io.sqlite import Store
from bellum.empire.io.toml import load_world
from bellum.empire.odds import Request, make_plan, plan_odds, study
from bellum.empire.orders import Order
from bellum.web import create_app

from .conftest import EMPIRE, b1_transcript, client_for


def map_data(html: str) -> dict[str, Any]:
    """The map the page's script draws, as the page carries it."""
    m = re.search(r'<script type="application/json" id="map-data"[^>]*>(.*?)</script>', html, re.S)
    assert m is not None
    data: dict[str, Any] = json.loads(m.group(1))
    return data


def test_map_shows_every_sector_coloured_by_relation(world_client: TestClient) -> None:
    r = world_client.get("/empire?as=1")
    assert r.status_code == 200
    data = map_data(r.text)
    cols = data["sectors"]
    assert len(cols["x"]) == len(cols["des"]) == 64 * 32 // 2
    owner = {f"{x},{y}": o for x, y, o in zip(cols["x"], cols["y"], cols["owner"], strict=True)}
    relation = {n["cnum"]: n["relation"] for n in data["nations"]}
    assert relation[owner["0,0"]] == "own"
    assert relation[owner["2,0"]] == "war"
    assert owner["4,0"] == 0


def test_the_page_is_light_and_compressed(world_client: TestClient) -> None:
    """Item 10: the map is data (not one SVG group per sector) and the page is gzipped."""
    r = world_client.get("/empire?as=1", headers={"accept-encoding": "gzip"})
    assert r.headers["content-encoding"] == "gzip"
    assert len(r.content) < 60_000 and r.text.count("<g ") == 0
    raw = world_client.get("/empire?as=1", headers={"accept-encoding": "identity"})
    assert "content-encoding" not in raw.headers


def test_every_json_twin_names_its_schema_first(db_client: TestClient) -> None:
    """One envelope, as the command line's ``--json``: ``schema`` and ``schema_version``
    are the first two keys of every document, errors included."""
    fight = {"as": "1", "target": "2,0", "mil.0,0": "150", "seed": "1", "answer": "0"}
    kinds = {
        "/.json": "bellum.web.index",
        "/empire.json?as=1": "bellum.web.empire",
        "/empire/map.json?as=1": "bellum.web.empire.map",
        "/empire/target.json?as=1&kind=sector&id=2,0": "bellum.web.empire.target",
        "/empire/odds.json?as=1&target=2,0&mil.0,0=60": "bellum.web.empire.odds",
        "/empire/order.json?as=1&target=2,0&mil.0,0=60": "bellum.web.empire.order",
        "/empire/events.json?as=1": "bellum.web.empire.events",
        "POST /empire/fight.json": "bellum.web.empire.fight",
        "/empire/history.json": "bellum.web.empire.history",
        "/empire/history/1.json": "bellum.web.empire.command",
        "/empire/history/1/replay.json": "bellum.web.empire.replay",
        "/empire/odds.json?as=1&target=2,0&mil.0,0=lots": "bellum.web.error",
        "/nowhere.json": "bellum.web.error",
    }
    for path, kind in kinds.items():
        post = path.startswith("POST ")
        doc = (db_client.post(path[5:], data=fight) if post else db_client.get(path)).json()
        assert list(doc)[:2] == ["schema", "schema_version"], path
        assert (doc["schema"], doc["schema_version"]) == (kind, 1), path


def test_map_json_hides_what_show_hides(world_client: TestClient) -> None:
    doc = world_client.get("/empire.json?as=1").json()
    sectors = {s["key"]: s for s in doc["map"]["sectors"]}
    assert sectors["2,0"]["mil"] == 40  # `show 2,0` prints it
    assert sectors["2,0"]["mines"] is None  # `show` prints "?" for an enemy's mines
    assert sectors["0,0"]["mines"] == 0
    assert doc["map"]["planes"] == [] and doc["map"]["country"]["cnum"] == 1


def test_map_is_drawn_from_the_chosen_country_coordinates(world_client: TestClient) -> None:
    # Country 2 has origin 0,0 too in vector-a; it sees its own 2,0 and the enemy 0,0.
    doc = world_client.get("/empire.json?as=2").json()
    sectors = {s["key"]: s for s in doc["map"]["sectors"]}
    assert sectors["2,0"]["relation"] == "own" and sectors["0,0"]["relation"] == "war"


def test_target_panel_lists_the_attack_with_its_sources(world_client: TestClient) -> None:
    doc = world_client.get("/empire/target.json?as=1&kind=sector&id=2,0").json()
    attack = doc["ways"][0]
    assert attack["command"] == "attack" and attack["refusal"] == ""
    assert [(s["key"], s["max"]) for s in attack["sources"]] == [("0,0", 199)]
    html = world_client.get("/empire/target?as=1&kind=sector&id=2,0").text
    assert 'name="mil.0,0" min="0" max="199"' in html


def test_target_panel_shows_the_server_refusal(world_client: TestClient) -> None:
    doc = world_client.get("/empire/target.json?as=1&id=10,0").json()
    assert doc["ways"][0]["refusal"] == "You are not adjacent to 10,0"
    html = world_client.get("/empire/target?as=1&id=10,0").text
    assert "You are not adjacent to 10,0" in html and 'class="plan"' not in html


def test_a_mobility_limit_and_an_unfit_unit_are_shown_beside_their_controls() -> None:
    with client_for(create_app(world=EMPIRE / "reaction.toml")) as client:
        way = client.get("/empire/target.json?as=1&id=2,0").json()["ways"][0]
    src = way["sources"][0]
    assert src["key"] == "0,0" and src["max"] == 317
    assert any("mobility" in note for note in src["notes"])
    engineer = next(u for u in way["units"] if u["uid"] == 1)
    assert not engineer["allowed"] and "out of supply" in engineer["note"]


@pytest.mark.parametrize(
    ("world", "kind", "ident", "command", "key", "most"),
    [
        ("assault.toml", "sector", "0,0", "assault", "ship:0", 24),
        ("board.toml", "ship", "1", "board", "ship:0", 50),
        ("lboard.toml", "unit", "0", "lboard", "0,0", 100),
    ],
)
def test_naval_and_boarding_ways_come_with_their_limits(
    world: str, kind: str, ident: str, command: str, key: str, most: int
) -> None:
    with client_for(create_app(world=EMPIRE / world)) as client:
        ways = client.get(f"/empire/target.json?as=1&kind={kind}&id={ident}").json()["ways"]
    way = next(w for w in ways if w["command"] == command)
    assert way["refusal"] == ""
    assert [(s["key"], s["max"]) for s in way["sources"]] == [(key, most)]


def test_paradrop_way_lists_the_planes_standing_by() -> None:
    with client_for(create_app(world=EMPIRE / "paradrop.toml")) as client:
        ways = client.get("/empire/target.json?as=1&id=4,0").json()["ways"]
    drop = next(w for w in ways if w["command"] == "paradrop")
    assert drop["source"] == "0,0" and drop["refusal"] == ""
    assert [p["uid"] for p in drop["planes"]] == [0]
    assert any("standing by" in n for n in drop["notes"])


def test_odds_are_the_planner_s(world_client: TestClient) -> None:
    """The numbers of `bellum empire odds attack 2,0 --mil 0,0=60`, from the same planner."""
    doc = world_client.get("/empire/odds.json?as=1&target=2,0&mil.0,0=60").json()["odds"]
    world = load_world(EMPIRE / "vector-a.toml")
    plan = make_plan(world, 1, Order.parse("attack 2,0 y y y y"), ["0,0=60"], [])
    expected = plan_odds(world, 1, plan, seed=1)
    assert doc["method"] == expected.method == "exact"
    assert doc["p_win"] == pytest.approx(expected.p_success, abs=1e-12)
    assert doc["final"] == {"attack": [60, 60], "defense": [80, 80]}
    # Asked while a control moves, the same numbers: they are kept per plan.
    live = world_client.get("/empire/odds.json?as=1&target=2,0&mil.0,0=60&live=1").json()
    assert live["odds"]["p_win"] == doc["p_win"]


@pytest.mark.parametrize(
    ("world", "query", "order", "mil"),
    [
        ("assault.toml", "command=assault&target=0,0&source=ship:0&mil.ship:0=24",
         "assault 0,0 0 y y y y", ["ship=24"]),
        ("board.toml", "command=board&target=1&source=ship:0&mil.ship:0=50", "board 1 0",
         ["ship=50"]),
        ("lboard.toml", "command=lboard&target=0&source=0,0&mil.0,0=100", "lboard 0 0,0",
         ["0,0=100"]),
        ("paradrop.toml", "command=paradrop&target=4,0&source=0,0&plane=0",
         'paradrop 0 "" 0,0 4,0', []),
    ],
)  # fmt: skip
def test_every_command_is_planned(world: str, query: str, order: str, mil: list[str]) -> None:
    with client_for(create_app(world=EMPIRE / world)) as client:
        doc = client.get(f"/empire/odds.json?as=1&{query}").json()["odds"]
    w = load_world(EMPIRE / world)
    expected = plan_odds(w, 1, make_plan(w, 1, Order.parse(order), mil, []), seed=1)
    assert doc["method"] == expected.method
    assert doc["p_win"] == pytest.approx(expected.p_success, abs=1e-12)
    assert doc["outcomes"] == pytest.approx(dict(expected.odds.outcomes))


def test_odds_page_draws_both_loss_histograms(world_client: TestClient) -> None:
    html = world_client.get("/empire/odds?as=1&target=2,0&mil.0,0=60").text
    assert html.count('<figure class="chart">') == 2
    assert re.search(r"<rect [^>]*><title>\d+(–\d+)? lost: \d+\.\d%</title></rect>", html)


def test_force_needed_for_ninety_percent(world_client: TestClient) -> None:
    doc = world_client.get("/empire/need.json?as=1&target=2,0&mil.0,0=10").json()["need"]
    assert doc["reached"] and doc["p_win"] >= 0.9
    total = doc["total"]
    below = world_client.get(f"/empire/odds.json?as=1&target=2,0&mil.0,0={total - 3}").json()
    assert below["odds"]["p_win"] < 0.9


def test_plays_estimate_the_commands_the_planner_cannot_solve() -> None:
    with client_for(create_app(world=EMPIRE / "board.toml")) as client:
        doc = client.get(
            "/empire/play.json?as=1&command=board&target=1&source=ship:0&mil.ship:0=50&runs=20"
        ).json()["odds"]
        page = client.get(
            "/empire/play?as=1&command=board&target=1&source=ship:0&mil.ship:0=50&runs=20"
        )
    assert doc["runs"] == 20 and 0.0 <= doc["p_win"] <= 1.0
    assert sum(p for _, p in doc["losses"]["attacker"]) == pytest.approx(1.0)
    assert page.status_code == 200 and "plays of the real command, 20 runs" in page.text


def test_fight_asks_then_commits_the_real_transcript(db_client: TestClient, db_path: Path) -> None:
    form = {"as": "1", "command": "attack", "target": "2,0", "mil.0,0": "150", "seed": "1"}
    first = db_client.post("/empire/fight.json", data=form).json()["fight"]
    assert first["state"] == "question"
    assert first["question"] == "How many mil to move in from 0,0 (135 max)? "
    assert (first["kind"], first["most"]) == ("move_in_mil", 135)
    html = db_client.post("/empire/fight", data=form).text
    assert 'name="answer" type="number" min="0" max="135"' in html and "data-quick" not in html
    assert len(Store.open(db_path).history()) == 0  # nothing kept while a question is open
    done = db_client.post(
        "/empire/fight.json", data={**form, "answer": "0", "base": str(first["base"])}
    ).json()["fight"]
    assert done["state"] == "done" and done["outcome"] == "captured"
    assert done["transcript"] == b1_transcript()  # the web runs the very same command
    history = db_client.get("/empire/history.json").json()["history"]
    assert [(h["id"], h["order"], h["seed"], h["answers"]) for h in history] == [
        (1, "attack 2,0 y y y y", 1, ["150", "0"])
    ]
    replayed = db_client.get("/empire/history/1/replay.json").json()["replay"]
    assert replayed["ok"] and replayed["transcript"] == done["transcript"]
    sectors = {s["key"]: s for s in db_client.get("/empire.json?as=1").json()["map"]["sectors"]}
    assert sectors["2,0"]["relation"] == "own"


def test_fight_page_escapes_the_server_text(world_client: TestClient) -> None:
    form = {"as": "1", "command": "attack", "target": "2,0", "mil.0,0": "150", "seed": "1"}
    html = world_client.post("/empire/fight", data=form).text
    assert '<label for="answer-input" class="question">How many mil to move in' in html
    templates = world_client.app.state.bellum.templates  # type: ignore[attr-defined]
    text = templates.get_template("_fight.html").render(
        fight={"state": "question", "order": "paradrop 1", "seed": 1, "answers": [],
               "question": "<2: 0,0> ", "kind": "argument", "most": None,
               "transcript": "<script>", "base": 0},
        keep=[],
    )  # fmt: skip
    assert "&lt;2: 0,0&gt;" in text and "<script>" not in text


def test_a_refused_fight_is_an_outcome_not_an_error(world_client: TestClient) -> None:
    r = world_client.post(
        "/empire/fight.json", data={"as": "1", "command": "attack", "target": "10,0", "seed": "1"}
    )
    assert r.status_code == 200
    fight = r.json()["fight"]
    assert fight["outcome"] == "refused" and "You are not adjacent to 10,0" in fight["transcript"]


def test_answers_to_a_world_that_changed_are_refused(db_client: TestClient) -> None:
    form = {"as": "1", "command": "attack", "target": "2,0", "mil.0,0": "150", "seed": "1"}
    first = db_client.post("/empire/fight.json", data=form).json()["fight"]
    db_client.post("/empire/fight.json", data={**form, "answer": "0"})
    late = db_client.post(
        "/empire/fight.json", data={**form, "answer": "0", "base": str(first["base"])}
    )
    assert late.status_code == 409 and "world changed" in late.json()["error"]


def test_two_fights_at_once_both_enter_the_history(db_path: Path) -> None:
    """Two tabs fire at the same moment: one command waits for the other, none is lost."""
    app = create_app(db_path)
    form = {"as": "1", "command": "attack", "target": "2,0", "mil.0,0": "150", "answer": "0"}
    results: list[dict[str, object]] = []
    start = threading.Barrier(2)

    def fire(seed: int) -> None:
        with client_for(app) as client:
            start.wait(timeout=10)
            r = client.post("/empire/fight.json", data={**form, "seed": str(seed)})
            results.append(r.json()["fight"])

    threads = [threading.Thread(target=fire, args=(s,)) for s in (1, 2)]
    for t in threads:
        t.start()
    for t in threads:
        t.join(timeout=60)
    assert sorted(r["id"] for r in results) == [1, 2]  # type: ignore[type-var]
    outcomes = sorted(str(r["outcome"]) for r in results)
    # Whichever ran second found 2,0 already taken: the server refuses that one.
    assert outcomes == ["captured", "refused"]
    store = Store.open(db_path)
    assert [r.outcome for r in store.history()] == [
        next(str(r["outcome"]) for r in results if r["id"] == 1),
        next(str(r["outcome"]) for r in results if r["id"] == 2),
    ]
    won = next(r for r in results if r["outcome"] == "captured")
    lost = won["result"]["casualties"]["attacker"]  # type: ignore[index]
    # One attack's worth, once: its dead and the one soldier who occupies 2,0.
    assert store.world().sector((0, 0)).mil == 200 - lost - 1


def test_history_pages_render(db_client: TestClient) -> None:
    form = {"as": "1", "command": "attack", "target": "2,0", "mil.0,0": "150", "seed": "1"}
    db_client.post("/empire/fight", data={**form, "answer": "0"})
    assert "attack 2,0 y y y y" in db_client.get("/empire/history").text
    page = db_client.get("/empire/history/1").text
    assert "Replay it" in page and "We have captured 2,0, sir!" in page
    assert "bit for bit" in db_client.get("/empire/history/1/replay").text
    for path in ("/empire/history/2.json", "/empire/history/2/replay.json"):
        r = db_client.get(path)
        assert r.status_code == 404 and r.json()["error"].startswith("no command 2 in the history")
        assert "bellum-serve" not in r.text  # the world as the user named it, no scratch copy


@pytest.mark.parametrize(
    ("world", "form", "order", "answers"),
    [
        (
            "assault.toml",
            {"command": "assault", "target": "0,0", "source": "ship:0", "mil.ship:0": "24"},
            "assault 0,0 0 y y y y",
            ["24"],
        ),
        (
            "board.toml",
            {"command": "board", "target": "1", "source": "ship:0", "mil.ship:0": "50"},
            "board 1 0",
            ["50"],
        ),
        (
            "lboard.toml",
            {"command": "lboard", "target": "0", "source": "0,0", "mil.0,0": "100"},
            "lboard 0 0,0",
            ["100"],
        ),
        (
            "paradrop.toml",
            {"command": "paradrop", "target": "4,0", "source": "0,0", "plane": "0"},
            'paradrop 0 "" 0,0 4,0',
            [],
        ),
    ],
)
def test_every_command_fights_as_the_library_runs_it(
    world: str, form: dict[str, str], order: str, answers: list[str]
) -> None:
    """The order the panel builds runs the very command the CLI and library run."""
    with client_for(create_app(world=EMPIRE / world)) as client:
        done = client.post("/empire/fight.json", data={"as": "1", "seed": "18", **form}).json()
    fight = done["fight"]
    assert fight["state"] == "done" and fight["order"] == order
    expected = run_command(load_world(EMPIRE / world), order, country=1, seed=18, answers=answers)
    assert fight["transcript"] == expected.transcript()
    assert fight["outcome"] == expected.outcome


def test_no_btus_is_the_server_refusal_on_every_way(tmp_path: Path) -> None:
    text = (EMPIRE / "vector-a.toml").read_text().replace("btu = 640", "btu = 1", 1)
    (tmp_path / "poor.toml").write_text(text)
    with client_for(create_app(world=tmp_path / "poor.toml")) as client:
        way = client.get("/empire/target.json?as=1&id=2,0").json()["ways"][0]
        assert way["refusal"] == "You don't have the BTUs, bozo" and way["sources"] == []
        html = client.get("/empire/target?as=1&id=2,0").text
    assert "You don&#39;t have the BTUs, bozo" in html


def test_fight_without_script_is_a_whole_page(world_client: TestClient) -> None:
    form = {"as": "1", "command": "attack", "target": "2,0", "mil.0,0": "150", "seed": "1"}
    page = world_client.post("/empire/fight", data=form).text
    assert page.startswith("<!doctype html>") and 'action="/empire/fight"' in page
    fragment = world_client.post("/empire/fight", data=form, headers={"X-Bellum-Fragment": "1"})
    assert fragment.text.lstrip().startswith('<div class="fight-result"')


def test_plays_refuse_a_plan_that_does_not_start(world_client: TestClient) -> None:
    r = world_client.get("/empire/play.json?as=1&target=2,0&mil.0,0=0&runs=5")
    assert r.status_code == 422 and "No troops for attack" in r.json()["error"]
    ok = world_client.get("/empire/play.json?as=1&target=2,0&mil.0,0=150&runs=5")
    assert ok.status_code == 200
    # A plan's rules are its own: the world all requests share keeps its options.
    game = world_client.app.state.bellum.empire  # type: ignore[attr-defined]
    assert "scout_estimate" not in game.world().options


def test_paradrop_without_planes_is_a_400(world_client: TestClient) -> None:
    r = world_client.get("/empire/play.json?as=1&command=paradrop&target=2,0&source=0,0")
    assert r.status_code == 400 and "at least one transport plane" in r.json()["error"]


def test_owners_are_told_apart_without_colour(world_client: TestClient) -> None:
    """Each relation has its pattern in the legend, and the map data gives each sector's
    owner (the page writes the number in the sector; the browser tests look at it)."""
    html = world_client.get("/empire?as=1").text
    legend = re.search(r'<div class="legend".*?</div>', html, re.S)
    assert legend is not None
    for words in ("yours (solid)", "allied (dots)", "at war (stripes)", "hostile (cross-hatch)"):
        assert words in legend.group(0)
    assert 'fill="url(#lg-war)"' in legend.group(0)


def test_others_ships_and_units_are_on_the_map() -> None:
    """Their ships and land units are in the map data, where the page draws a marker."""
    with client_for(create_app(world=EMPIRE / "board.toml")) as client:
        data = map_data(client.get("/empire?as=1").text)
    ship = next(s for s in data["ships"] if s["uid"] == 1)
    assert ship["owner"] == 2 and ship["relation"] == "war"
    with client_for(create_app(world=EMPIRE / "scouts.toml")) as client:
        data = map_data(client.get("/empire?as=1").text)
        here = [u["uid"] for u in data["units"] if u["key"] == "-14,2" and u["owner"] != 1]
        assert here == [22, 41, 42, 43]
        panel = client.get("/empire/target.json?as=1&kind=unit&id=22").json()
    assert panel["at"] == "-14,2" and panel["sector"] == "-14,2"
    assert [w["command"] for w in panel["ways"]] == ["lboard"]


def test_a_yes_no_question_gets_yes_and_no_buttons() -> None:
    """The scouts' "Are you sure" is known by its kind, not its wording."""
    form = {"as": "1", "command": "attack", "target": "-14,2", "mil.-15,3": "10", "seed": "1"}
    with client_for(create_app(world=EMPIRE / "scouts.toml")) as client:
        doc = client.post("/empire/fight.json", data=form).json()["fight"]
        html = client.post("/empire/fight", data=form).text
    assert (doc["question"], doc["kind"]) == ("Are you sure you want to attack [yn]? ", "abort")
    assert '<button name="answer" value="y" data-quick>y</button>' in html
    assert 'type="number"' not in html


def test_force_needed_from_a_ship() -> None:
    """The need search is the planner's for every command; the ship's mil come back under
    the slider's key."""
    q = "as=1&command=assault&target=0,0&source=ship:0&mil.ship:0="
    with client_for(create_app(world=EMPIRE / "assault.toml")) as client:
        doc = client.get(f"/empire/need.json?{q}1").json()["need"]
        found = doc["mil"]["ship:0"]
        below = client.get(f"/empire/odds.json?{q}{found - 1}").json()
    assert doc["reached"] and doc["p_win"] >= 0.9 and list(doc["mil"]) == ["ship:0"]
    assert below["odds"]["p_win"] < 0.9


BIG = "9" * 5000


@pytest.mark.parametrize(
    ("path", "query", "says"),
    [
        ("/empire/odds.json", {"target": "2,0", "mil.0,0": "²"}, "mil.0,0: expected a whole"),
        ("/empire/odds.json", {"target": "2,0", "mil.0,0": BIG}, "mil.0,0: expected a whole"),
        ("/empire/odds.json", {"target": "2,0", "unit": "٣"}, "unit: expected a whole number"),
        ("/empire/odds.json", {"target": "٣,0"}, "target: '٣,0' is neither"),
        ("/empire/odds.json", {"target": "2,0", "mil.ship:" + BIG: "1"}, "not a sector"),
        ("/empire/target.json", {"kind": "ship", "id": "²"}, "ship number: expected a whole"),
        ("/empire/target.json", {"kind": "unit", "id": BIG}, "at most 20 digits"),
        ("/empire/target.json", {"kind": "sector", "id": "0," + BIG}, "at most 20 digits"),
        ("/empire/history/²/replay.json", {}, "command id: expected a whole number"),
    ],
)
def test_numbers_that_are_not_ascii_or_too_long_are_a_400(
    world_client: TestClient, path: str, query: dict[str, str], says: str
) -> None:
    """Read by bellum.numbers, as on the command line: a 400 quoting the field short, not a 500."""
    r = world_client.get(path, params={"as": "1", **query})
    assert r.status_code == 400 and says in r.json()["error"], r.text
    assert len(r.json()["error"]) < 200


def test_events_say_when_the_world_changes(db_path: Path) -> None:
    """Item 8: the page's event stream says each change, with the header's figures."""
    with client_for(create_app(db_path)) as client:
        assert client.get("/empire/events.json?as=1").json() == {
            "schema": "bellum.web.empire.events", "schema_version": 1,
            "version": 0, "as": 1, "money": 25000, "btu": 640,
        }  # fmt: skip
        with client.stream("GET", "/empire/events?as=1") as r:
            assert r.headers["content-type"].startswith("text/event-stream")
            lines = r.iter_lines()
            assert [next(lines) for _ in range(3)] == ["retry: 2000", "", "event: world"]
            assert json.loads(next(lines).removeprefix("data: "))["version"] == 0
            form = {"as": "1", "command": "attack", "target": "2,0", "mil.0,0": "150",
                    "seed": "1", "answer": "0"}  # fmt: skip
            assert client.post("/empire/fight.json", data=form).json()["fight"]["state"] == "done"
            while next(lines) != "event: world":
                pass
            doc = json.loads(next(lines).removeprefix("data: "))
    assert doc["version"] == 1 and doc["btu"] < 640


def test_a_stopping_server_drops_the_planner_s_work() -> None:
    """Ctrl-C sets the app's ``stopping``: odds, force needed, plays and the turn planner
    then give up at their next step (a 503) rather than keep the server running on for
    minutes (a 500-sample mixture of realistic.toml took 150 s); fights are not cut."""
    with client_for(create_app(world=EMPIRE / "vector-a.toml")) as client:
        plan = "as=1&target=2,0&mil.0,0=60"
        assert client.get(f"/empire/odds.json?{plan}").status_code == 200
        client.app.state.bellum.stopping.set()  # type: ignore[attr-defined]
        for path in (f"odds.json?{plan}&mil.0,0=61", f"need.json?{plan}",
                     f"play.json?{plan}&seed=1", "turnplan.json?as=1"):  # fmt: skip
            r = client.get("/empire/" + path)
            assert (r.status_code, r.json()["error"]) == (503, "the server is stopping"), path
        assert client.get(f"/empire/odds.json?{plan}").status_code == 200  # known: no work


def test_the_turn_plan_shows_a_paradrop_s_planes(tmp_path: Path) -> None:
    from plan.planworlds import airborne

    db = tmp_path / "airborne.db"
    Store.create(db, airborne(0)).close()
    with client_for(create_app(db)) as client:
        page = client.get("/empire/turnplan?as=1")
    assert page.status_code == 200, page.text
    doc = json.loads(re.search(r'id="turnplan-data">(.*?)</script>', page.text, re.S)[1])  # type: ignore[index]
    drops = [a for a in doc["waves"][0]["attacks"] if a["planes"]]
    assert drops and all(a["order"].startswith("paradrop ") for a in drops)
    assert f"planes {'/'.join(map(str, drops[0]['planes']))}</td>" in page.text
    assert drops[0]["sources"] == ["0,0"]  # the arrow starts at the assembly point


def test_the_commands_other_answers_are_the_command_lines() -> None:
    """The page's answers are `bellum empire odds`'s: --no-units, --yes and the move-in
    answers, in the same study; a fight answers with them instead of asking."""
    base = "/empire/odds.json?as=1&target=2,0&mil.0,0=14"
    world = load_world(EMPIRE / "cavalry.toml")
    order = Order.parse("attack 2,0 y y y y")
    with client_for(create_app(world=EMPIRE / "cavalry.toml")) as client:
        alone = client.get(f"{base}&no_units=1").json()["odds"]
        expected = study(world, 1, Request(order, mil=("0,0=14",), no_units=True, seed=1))
        assert alone["p_win"] == pytest.approx(expected.p_success, abs=1e-12)
        moved = client.get(f"{base}&unit=0&move_in=5&move_in_unit=0&yes=1").json()["odds"]
        joined = client.get(f"{base}&unit=0").json()["odds"]
        assert moved["p_win"] == joined["p_win"] > alone["p_win"]
        both = client.get(f"{base}&unit=0&no_units=1")
        assert both.status_code == 400 and "not both" in both.json()["error"]
        none = client.get(f"{base}&move_in_unit=0&no_move_in_units=1")
        assert none.status_code == 400 and none.json()["error"].startswith("move_in_unit: ")
        form = {"as": "1", "command": "attack", "target": "2,0", "mil.0,0": "150",
                "unit": "0", "seed": "1", "move_in": "7", "no_move_in_units": "1"}  # fmt: skip
        confirm = client.get("/empire/order.json", params=form).json()
        done = client.post("/empire/fight.json", data=form).json()["fight"]
    assert confirm["answers"] == ["7 mil move in", "units that move in: none"]
    assert done["state"] == "done" and done["outcome"] == "captured"
    assert "How many mil to move in from 0,0 (" in done["transcript"]
