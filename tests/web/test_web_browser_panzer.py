"""The Panzer Campaigns views in a real browser (see browser_support)."""

from __future__ import annotations

from collections.abc import Iterator
from typing import Any

import pytest

from .browser_support import Server, shot
from .conftest import PANZER

pytestmark = pytest.mark.browser


@pytest.fixture(scope="module")
def panzer_server() -> Iterator[Server]:
    server = Server("--scenario", str(PANZER / "bocage.toml"))
    yield server
    print(server.stop())


def test_panzer_explain_then_resolve(page: Any, panzer_server: Server) -> None:
    page.goto(panzer_server.url + "/panzer")
    page.wait_for_selector("#pz-plan .odds-box")
    assert "modified assault =" in page.locator("#pz-explain").inner_text()
    assert page.locator("#pzmap .counter.attacking").count() == 3
    # Leave the tank out: the explain table and the odds follow.
    before = page.locator("#pz-plan .odds-box").get_attribute("data-p")
    page.locator('#pz-plan input[name=unit][value="us-tk"]').uncheck()
    page.wait_for_function(
        "(p) => { const b = document.querySelector('#pz-plan .odds-box'); return b && b.dataset.p !== p; }",
        arg=before,
    )
    assert page.locator("#pzmap .counter.attacking").count() == 2
    page.locator('#pz-plan input[name=unit][value="us-tk"]').check()
    page.wait_for_function(
        "() => document.querySelectorAll('#pzmap .counter.attacking').length === 3"
    )
    page.wait_for_function(
        "(p) => document.querySelector('#pz-plan .odds-box')?.dataset.p === p", arg=before
    )
    assert "us-tk" in page.locator("#pz-explain table.explain").first.inner_text()
    # Item 6: the result and the action first, the explanations after them.
    for what in ("#pz-plan .odds-box .p", "button[data-action=resolve]"):
        box = page.locator(what).bounding_box()
        assert box["y"] + box["height"] <= 800, what
    shot(page, "web-panzer-explain.png")
    page.fill("#pz-form input[name=seed]", "7")
    page.keyboard.press("Enter")  # Enter in the seed never resolves
    page.wait_for_timeout(300)
    assert page.locator("#pz-result .pz-result").count() == 0
    page.click("button[data-action=resolve]")
    page.wait_for_selector("#pz-result .pz-result")
    assert "vs d6" in page.locator("#pz-result").inner_text()
    assert "seed 7" in page.locator("#pz-result h3").inner_text()
    shot(page, "web-panzer-resolve.png")
