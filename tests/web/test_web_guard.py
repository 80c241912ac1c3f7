"""Bad input gives a 4xx with a clear message; the host, token and origin guards hold."""

from __future__ import annotations

import html

import pytest
from starlette.testclient import TestClient

from bellum.web import create_app

from .conftest import EMPIRE, client_for

BAD_GETS = [
    ("/empire?as=9", 400, "no country '9'"),
    ("/empire/target?as=1", 400, "id:"),
    ("/empire/target?as=1&id=zz", 400, "not a sector"),
    ("/empire/target?as=1&id=1,0", 400, "x + y must be even"),
    ("/empire/target?as=1&kind=plane&id=1", 400, "not 'plane'"),
    ("/empire/target?as=1&kind=ship&id=7", 400, "no enemy ship #7"),
    ("/empire/odds?as=1&target=2,0&mil.0,0=lots", 400, "expected a whole number"),
    ("/empire/odds?as=1&target=2,0&mil.0,0=-5", 400, "out of range"),
    ("/empire/odds?as=1&target=2,0&mil.0,0=999999999999", 400, "out of range"),
    ("/empire/odds?as=1&target=2,0&mil.0,0=500", 422, "mil.0,0: at most 199 mil can go"),
    ("/empire/odds?as=1&target=2,0&mil.0,0=0", 422, "No troops for attack"),
    ("/empire/odds?as=1&target=2%3C0", 400, "neither a sector"),
    ("/empire/odds?as=1&command=nuke&target=2,0", 400, "'nuke' is not one of"),
    ("/empire/odds?as=1&target=2,0&mil.0,0=5&unit=x", 400, "expected a whole number"),
    ("/empire/odds?as=1&target=2,0&mil.0,0=5&profile=nope", 400, "unknown profile 'nope'"),
    ("/empire/odds?as=1&target=2,0&mil.0,0=5&options=WHAT=1", 400, "unknown option 'WHAT'"),
    ("/empire/odds?as=1&target=2,0&mil.0,0=5&support_given=1&support=guns", 400, "'guns'"),
    # The command's own refusal first, as `bellum empire odds board 1 0 --need 0.9` says it.
    ("/empire/need?as=1&command=board&target=1&source=ship:0", 422, "Board aborted"),
    ("/empire/play?as=1&target=2,0&runs=0", 400, "out of range"),
    ("/empire/history/0", 400, "out of range"),
    ("/empire/history/abc", 400, "expected a whole number"),
    ("/empire/history/5", 404, "no command 5"),
    ("/empire/nowhere", 404, "Not Found"),
]


@pytest.mark.parametrize(("path", "status", "message"), BAD_GETS)
def test_bad_input_is_a_4xx_with_a_clear_message(
    world_client: TestClient, path: str, status: int, message: str
) -> None:
    page = world_client.get(path)
    assert page.status_code == status
    assert message in html.unescape(page.text) and "Traceback" not in page.text
    if not path.endswith("nowhere"):
        twin = path.replace("?", ".json?", 1) if "?" in path else path + ".json"
        doc = world_client.get(twin)
        assert doc.status_code == status and message in doc.json()["error"]


def test_a_fragment_request_gets_a_fragment_error(world_client: TestClient) -> None:
    r = world_client.get(
        "/empire/odds?as=1&target=2,0&mil.0,0=500", headers={"X-Bellum-Fragment": "1"}
    )
    assert r.status_code == 422
    assert r.text.startswith('<p class="error" role="alert"') and "<html" not in r.text


@pytest.mark.parametrize(
    ("data", "status", "message"),
    [
        ({"as": "1", "target": "2,0", "answer": ["x"] * 300}, 400, "too many"),
        ({"as": "1", "target": "2,0", "seed": "-1"}, 400, "out of range"),
        ({"as": "1", "target": "2,0", "seed": str(2**40)}, 400, "out of range"),
        ({"as": "1"}, 400, "target:"),
        ({"as": "1", "target": "2,0", "command": "assault", "source": "x" * 50}, 400, "too long"),
    ],
)
def test_bad_fights_are_refused_before_they_run(
    world_client: TestClient, data: dict[str, object], status: int, message: str
) -> None:
    r = world_client.post("/empire/fight.json", data=data)  # type: ignore[arg-type]
    assert r.status_code == status and message in r.json()["error"]


def test_fight_wants_a_form(world_client: TestClient) -> None:
    r = world_client.post("/empire/fight", json={"target": "2,0"})
    assert r.status_code == 415


def test_fight_is_not_a_get(world_client: TestClient) -> None:
    assert world_client.get("/empire/fight?as=1&target=2,0").status_code == 405


def test_cross_origin_posts_are_refused(world_client: TestClient) -> None:
    form = {"as": "1", "target": "10,0"}
    r = world_client.post("/empire/fight", data=form, headers={"Origin": "http://evil.example"})
    assert r.status_code == 403 and "cross-origin" in r.text
    r = world_client.post("/empire/fight", data=form, headers={"Sec-Fetch-Site": "cross-site"})
    assert r.status_code == 403
    ok = world_client.post("/empire/fight", data=form, headers={"Origin": "http://127.0.0.1"})
    assert ok.status_code == 200


def test_other_host_names_are_not_answered(world_client: TestClient) -> None:
    r = world_client.get("/empire", headers={"Host": "attacker.example"})
    assert r.status_code == 400 and "does not answer" in r.text
    assert world_client.get("/empire", headers={"Host": "localhost:8001"}).status_code == 200


def test_token_is_required_and_kept_in_a_cookie() -> None:
    app = create_app(world=EMPIRE / "vector-a.toml", token="s3cret", hosts=None)
    with client_for(app) as client:
        assert client.get("/empire").status_code == 401
        assert client.get("/empire?token=wrong").status_code == 403
        r = client.get("/empire?as=1&token=s3cret", follow_redirects=False)
        assert r.status_code == 303 and r.headers["location"] == "/empire?as=1"
        assert "token" not in r.headers["location"]
        assert client.get("/empire").status_code == 200  # the cookie now
        client.cookies.clear()
        assert client.get("/empire").status_code == 401
        auth = {"Authorization": "Bearer s3cret"}
        assert client.get("/empire.json", headers=auth).status_code == 200
        # Any host name may be used when the server is bound to a public interface.
        assert client.get("/empire", headers={**auth, "Host": "10.0.0.5:8001"}).status_code == 200


def test_index_lists_both_games() -> None:
    app = create_app(
        world=EMPIRE / "vector-a.toml", scenario=EMPIRE.parent / "panzer" / "bocage.toml"
    )
    with client_for(app) as client:
        page = client.get("/")
        assert page.status_code == 200
        assert 'href="/empire"' in page.text and 'href="/panzer"' in page.text
        doc = client.get("/.json").json()
        assert doc["panzer"]["scenario"].endswith("bocage.toml") and doc["empire"]["source"]
        assert client.get("/empire").status_code == 200


def test_only_the_games_served_have_pages(world_client: TestClient) -> None:
    r = world_client.get("/panzer")
    assert r.status_code == 404 and "no Panzer scenario is served" in r.text
    assert world_client.get("/", follow_redirects=False).headers["location"] == "/empire"
