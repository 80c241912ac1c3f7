"""Garbage in any field gives a 4xx (or a page), never a 500 and never a traceback."""

from __future__ import annotations

from collections.abc import Iterator
from urllib.parse import urlencode

import pytest
from hypothesis import HealthCheck, given, settings
from hypothesis import strategies as st
from starlette.testclient import TestClient

from bellum.web import create_app

from .conftest import EMPIRE, PANZER, client_for

FIELDS = ["as", "kind", "id", "command", "target", "source", "mil.0,0", "mil.ship:0", "unit",
          "plane", "escort", "support_given", "support", "profile", "options", "live", "seed",
          "answer", "base", "runs", "pick"]  # fmt: skip
VALUES = st.one_of(
    st.sampled_from(["", "0", "1", "-1", "2,0", "0,0", "ship:0", "attack", "board", "y", "n",
                     "999999999999999999999", "1e9", "nan", "x,y", "2,0,1", "<b>", "'", "%00"]),
    st.text(max_size=12),
)  # fmt: skip
FORMS = st.lists(st.tuples(st.sampled_from(FIELDS), VALUES), max_size=8)


@pytest.fixture(scope="module")
def client() -> Iterator[TestClient]:
    app = create_app(world=EMPIRE / "vector-a.toml", scenario=PANZER / "bocage.toml")
    with client_for(app) as c:
        yield c


@settings(
    max_examples=120, deadline=None, suppress_health_check=[HealthCheck.function_scoped_fixture]
)
@given(
    path=st.sampled_from(
        ["/empire", "/empire/map", "/empire/target", "/empire/odds", "/empire/need",
         "/empire/play", "/panzer", "/panzer/plan", "/panzer/resolve"]
    ),
    form=FORMS,
    as_json=st.booleans(),
)  # fmt: skip
def test_gets_never_fail_with_a_500(
    client: TestClient, path: str, form: list[tuple[str, str]], as_json: bool
) -> None:
    form = [(k, v) for k, v in form if not (k == "runs" and v.strip().isdigit())]  # keep it quick
    r = client.get(path + (".json" if as_json else ""), params=form)
    assert r.status_code < 500, r.text
    assert "Traceback" not in r.text


@settings(
    max_examples=60, deadline=None, suppress_health_check=[HealthCheck.function_scoped_fixture]
)
@given(form=FORMS)
def test_fights_never_fail_with_a_500(client: TestClient, form: list[tuple[str, str]]) -> None:
    r = client.post(
        "/empire/fight.json",
        content=urlencode(form),
        headers={"Content-Type": "application/x-www-form-urlencoded"},
    )
    assert r.status_code < 500, r.text
