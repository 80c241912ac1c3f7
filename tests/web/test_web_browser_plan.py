"""The turn plan and the threat map in a real browser (Debian's Chromium, Playwright).

``bellum serve`` over the capital example: country 1 plans its turn (arrows with P(win)
on the map, one box per attack to accept or reject it), country 2 looks at its threats
(a heat map layer).  Screenshots go to build/.
"""

from __future__ import annotations

from collections.abc import Iterator
from typing import Any

import pytest

from .browser_support import Server, open_map, shot
from .conftest import EMPIRE

pytestmark = pytest.mark.browser


@pytest.fixture(scope="module")
def server() -> Iterator[Server]:
    s = Server("--world", str(EMPIRE / "capital.toml"))
    yield s
    print(s.stop())


def layers(page: Any) -> list[str]:
    return page.evaluate("() => window.bellum.map.layers.map((l) => l.name)")  # type: ignore[no-any-return]


def test_plan_the_turn_draws_arrows_and_rejects_an_attack(page: Any, server: Server) -> None:
    open_map(page, server.url + "/empire?as=1")
    page.locator("button[data-turnplan]").click()
    page.locator("#turnplan-data").wait_for(state="attached")
    rows = page.locator(".turnplan-table tbody tr")
    assert rows.count() >= 1
    assert "turnplan" in layers(page)
    assert "attack 24,0" in page.locator("pre.orders").inner_text()
    shot(page, "web-turn-plan.png")
    box = page.locator("input[name=accept]").first
    box.uncheck()
    assert "rejected" in (rows.first.get_attribute("class") or "")
    assert page.locator("pre.orders span").first.is_hidden()


def test_threats_shade_the_map(page: Any, server: Server) -> None:
    open_map(page, server.url + "/empire?as=2")
    button = page.locator("button[data-threats]")
    button.click()
    page.locator("#threats-data").wait_for(state="attached")
    page.wait_for_function("() => window.bellum.map.layers.some((l) => l.name === 'threats')")
    assert button.get_attribute("aria-pressed") == "true"
    assert "24,0" in page.locator(".threats-table").inner_text()
    shot(page, "web-threats.png")
    button.click()
    assert "threats" not in layers(page)
