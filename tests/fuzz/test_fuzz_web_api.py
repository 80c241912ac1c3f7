"""Fuzzing the web app's requests (``bellum serve``): every page and its JSON twin, with
query and form values from what a hand-edited address or a hostile page sends.

Requests go through Starlette's TestClient (in process, no socket).  Each must be
answered below 500 - a 4xx names the field - with a JSON body for ``.json``; a
world file served is never written, and a database changes only through fights.
The counts go to docs/reliability.md.
"""

from __future__ import annotations

import json
import shutil
import sqlite3
from collections.abc import Iterator
from pathlib import Path
from urllib.parse import urlencode

import pytest
from harness import fuzz_settings, snapshot
from hypothesis import given
from hypothesis import strategies as st
from strategies import EMPIRE, PANZER, Line

from reliability import FIGURES

pytest.importorskip("starlette", reason="the web extra is not installed (pip install '.[web]')")

from starlette.testclient import TestClient

from bellum.web import create_app

CATEGORY = "web requests"
BIG = "9" * 5000
NOT_NUMBERS = ["-1", "²", "٣", "1e3", "", " ", "x", BIG, "-" + BIG, "9" * 21, "0x10", "1.5"]
#: Each field: values the page sends, and values it never would.
FIELDS: dict[str, tuple[list[str], list[str]]] = {
    "as": (["1", "2", "North", ""], ["3", "²", BIG, "x" * 300, "\x00"]),
    "command": (["attack", "assault", "paradrop", "board", "lboard"], ["x", "ATTACK", " "]),
    "target": (["2,0", "0,0", "4,0", "0", "1"], ["²,0", "2,", "0," + BIG, "x", "9" * 41]),
    "kind": (["sector", "ship", "unit"], ["x", ""]),
    "id": (["2,0", "0", "1", "4,0"], ["²", BIG, "0," + BIG, "x"]),
    "source": (["0,0", "", "ship:0", "0"], ["x" * 50, "²", "ship:" + BIG]),
    "unit": (["0", "1"], NOT_NUMBERS),
    "plane": (["0", "1"], NOT_NUMBERS),
    "escort": (["0", "1"], NOT_NUMBERS),
    "support_given": (["1"], ["", "x"]),
    "support": (["forts", "ships", "arty", "planes"], ["x", ""]),
    "profile": (["", "server-4.4.1", "info-page"], ["x", BIG]),
    "options": (["", "land_mob_max=5", "info_fight=on"], ["x=1", "land_mob_max=²", "=", BIG]),
    "seed": (["1", "7"], [*NOT_NUMBERS, str(2**32)]),
    "answer": (["50", "0", "y", "n"], [BIG, "\x00", "²", "x" * 201]),
    "base": (["0", "1"], NOT_NUMBERS),
    "runs": (["10", "20"], ["0", "1001", *NOT_NUMBERS]),
    "pick": (["all", ""], ["x"]),
}
MIL_KEYS = (["0,0", "4,0", "-2,0", "ship:0", "ship:1"], ["²,0", "ship:²", "ship:" + "9" * 30, "x"])
GETS = ["/", "/empire", "/empire/map", "/empire/target", "/empire/odds", "/empire/need",
        "/empire/play", "/empire/history", "/empire/history/{cid}",
        "/empire/history/{cid}/replay", "/panzer", "/panzer/plan", "/panzer/resolve"]  # fmt: skip
CIDS = (["1", "2"], ["0", "²", BIG, "-1", "x", "1.json"])


@st.composite
def request_form(draw: st.DrawFn) -> list[tuple[str, str]]:
    """Up to eight fields, each valued as the page would, but for one mistake at most."""
    line = Line(draw, 8)
    form = []
    for name in draw(st.lists(st.sampled_from(sorted(FIELDS)), max_size=7)):
        form.append((name, line.value(*FIELDS[name])))
    for _ in range(draw(st.integers(0, 2))):
        key = line.value(*MIL_KEYS)
        form.append((f"mil.{key}", line.value(["0", "20", "150"], NOT_NUMBERS)))
    return form


@pytest.fixture(scope="module")
def served(
    tmp_path_factory: pytest.TempPathFactory,
) -> Iterator[tuple[Path, TestClient, TestClient]]:
    """A world file and a scenario served as scratch copies, and a database with one fight."""
    folder = tmp_path_factory.mktemp("web")
    shutil.copy(EMPIRE / "vector-a.toml", folder / "w.toml")
    shutil.copy(PANZER / "bocage.toml", folder / "s.toml")
    from bellum.empire.io.sqlite import Store
    from bellum.empire.io.toml import load_world

    Store.create(folder / "g.db", load_world(folder / "w.toml")).close()
    world_app = create_app(world=folder / "w.toml", scenario=folder / "s.toml")
    db_app = create_app(folder / "g.db")
    with (
        TestClient(world_app, base_url="http://127.0.0.1") as on_world,  # type: ignore[arg-type]
        TestClient(db_app, base_url="http://127.0.0.1") as on_db,  # type: ignore[arg-type]
    ):
        fought = on_db.post(
            "/empire/fight.json",
            content=urlencode({"as": "1", "target": "2,0", "mil.0,0": "150", "seed": "1"}),
            headers={"Content-Type": "application/x-www-form-urlencoded"},
        )
        assert fought.status_code == 200, fought.text
        yield folder, on_world, on_db
    conn = sqlite3.connect(folder / "g.db")
    try:
        assert conn.execute("PRAGMA integrity_check").fetchone() == ("ok",)
    finally:
        conn.close()


def _answered(status: int, text: str, as_json: bool) -> None:
    """Count the answer, and hold it to the promises: below 500, JSON for .json."""
    FIGURES["inputs", CATEGORY] += 1
    FIGURES["status", CATEGORY, f"{status // 100}xx"] += 1
    if status >= 500 or "Traceback" in text:
        FIGURES["traceback", CATEGORY] += 1
        raise AssertionError(f"{status}: {text[:2000]}")
    if as_json and status != 303:
        doc = json.loads(text)
        if status >= 400:
            assert isinstance(doc["error"], str) and doc["error"], doc


@fuzz_settings(CATEGORY)
@given(
    path=st.sampled_from(GETS),
    cid=st.sampled_from(CIDS[0] * 3 + CIDS[1]),
    form=request_form(),
    as_json=st.booleans(),
    on_db=st.booleans(),
    fragment=st.booleans(),
)
def test_fuzz_web_requests(
    served: tuple[Path, TestClient, TestClient],
    path: str,
    cid: str,
    form: list[tuple[str, str]],
    as_json: bool,
    on_db: bool,
    fragment: bool,
) -> None:
    folder, on_world, on_db_client = served
    client = on_db_client if on_db else on_world
    before = snapshot(folder)
    url = path.replace("{cid}", cid) + (".json" if as_json else "")
    headers = {"x-bellum-fragment": "1"} if fragment else {}
    r = client.get(url, params=form, headers=headers, follow_redirects=False)
    _answered(r.status_code, r.text, as_json)
    after = snapshot(folder)
    changed = [name for name, data in before.items() if after.get(name) != data]
    if changed:
        FIGURES["changed", CATEGORY] += 1
        raise AssertionError(f"GET {url} changed {changed}")


@fuzz_settings(CATEGORY)
@given(form=request_form(), fragment=st.booleans(), on_db=st.booleans())
def test_fuzz_web_fights(
    served: tuple[Path, TestClient, TestClient],
    form: list[tuple[str, str]],
    fragment: bool,
    on_db: bool,
) -> None:
    folder, on_world, on_db_client = served
    client = on_db_client if on_db else on_world
    world_file = (folder / "w.toml").read_bytes()
    headers = {"Content-Type": "application/x-www-form-urlencoded"}
    if fragment:
        headers["x-bellum-fragment"] = "1"
    r = client.post("/empire/fight.json", content=urlencode(form), headers=headers)
    _answered(r.status_code, r.text, True)
    if (folder / "w.toml").read_bytes() != world_file:
        FIGURES["changed", CATEGORY] += 1
        raise AssertionError("a fight on the scratch copy wrote the world file")
