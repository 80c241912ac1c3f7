"""The planning table on a real game: examples/empire/realistic.toml, a mid-game the 4.4.1
server made (fairland's map, forts with guns, ships, units and planes; see its header),
served as a database.  The README's and docs/web.md's screenshots come from here."""

from __future__ import annotations

from collections.abc import Iterator
from typing import Any

import pytest

from bellum.empire.io.sqlite import Store
from bellum.empire.io.toml import load_world

from .browser_support import SIZES, Server, open_map, plan_for, record, shot
from .conftest import EMPIRE

pytestmark = pytest.mark.browser

#: Sparta's attack on Athens' 5,1: mil from one sector and two land units (the odds take
#: a few seconds the first time, then come from memory).
TARGET = "5,1"
#: Whether the map legend's last line is hidden: scrolled out of its box, or under the panel
#: (which sits below the map on narrow screens).
LEGEND_CUT = """() => {
  const legend = document.querySelector('.legend');
  const keys = legend.querySelectorAll('.key');
  const last = keys[keys.length - 1].getBoundingClientRect();
  const box = legend.getBoundingClientRect();
  const panel = document.querySelector('#panel').getBoundingClientRect();
  return legend.scrollHeight > legend.clientHeight + 1 || last.bottom > box.bottom + 1
    || (panel.top >= box.top && last.bottom > panel.top + 1);
}"""


@pytest.fixture(scope="module")
def game(tmp_path_factory: pytest.TempPathFactory) -> Iterator[Server]:
    db = tmp_path_factory.mktemp("realistic") / "game.db"
    Store.create(db, load_world(EMPIRE / "realistic.toml")).close()
    server = Server("--db", str(db))
    yield server
    print(server.stop())


def test_a_real_game_at_three_sizes(browser: Any, game: Server) -> None:
    """Sparta plans an attack: P(win), Fight and the force on screen at every size."""
    for name, (w, h) in SIZES.items():
        page = browser.new_page()
        page.set_viewport_size({"width": w, "height": h})
        try:
            open_map(page, game.url + "/empire?as=Sparta")
            record(
                f"first_map_ms_realistic_{name}", page.evaluate("window.bellum.timings.firstMap")
            )
            attack = plan_for(page, TARGET)
            assert attack.locator("input[name=unit]:checked").count() == 2
            page.mouse.move(w - 5, 5)  # no tooltip in the picture
            if w < 1000:
                page.locator("#panel").scroll_into_view_if_needed()
            for what in (".odds-box .p", "button.fight", "input[type=range]"):
                box = attack.locator(what).first.bounding_box()
                assert box["y"] >= 0 and box["y"] + box["height"] <= page.evaluate("innerHeight")
            if w < 1000:
                page.evaluate("window.scrollTo(0, 0)")
            assert not page.evaluate(LEGEND_CUT), f"the legend's last line is cut at {name}"
            shot(page, f"web-realistic-{name}.png")
        finally:
            page.close()


def test_a_real_fight_is_confirmed_then_kept(page: Any, game: Server) -> None:
    open_map(page, game.url + "/empire?as=Sparta")
    attack = plan_for(page, TARGET)
    attack.locator("input[name=seed]").fill("131")
    attack.locator("button.fight").click()
    dialog = page.locator("dialog#confirm")
    dialog.wait_for()
    assert f"attack {TARGET} y y y y" in dialog.inner_text()
    assert "cannot be undone" in dialog.inner_text()
    dialog.locator("button[value=fight]").click()
    from .test_web_browser import fight_through

    fight_through(page, attack)
    history = game.json("/empire/history.json")["history"]
    assert history[0]["order"] == f"attack {TARGET} y y y y" and history[0]["seed"] == 131


def test_a_paradrop_s_result_and_fight_are_in_view(page: Any, game: Server) -> None:
    """Item 6: each way opens on its own, its P(win) and Fight first: the paradrop below
    an attack is one click away, not below the fold."""
    open_map(page, game.url + "/empire?as=Sparta&target=1,-3")
    drop = page.locator("#panel details.way[data-command=paradrop]")
    drop.locator(":scope > summary").click()
    assert drop.get_attribute("open") is not None
    # The page closes the other ways on the toggle event, which the browser fires after
    # the click has returned: wait for it rather than race it.
    page.wait_for_function(
        "!document.querySelector('#panel details.way[data-command=attack]').open", timeout=5000
    )
    drop.locator(".odds .odds-box").wait_for(timeout=60_000)
    for what in (".odds-box .p", "button.fight"):
        box = drop.locator(what).bounding_box()
        assert box["y"] >= 0 and box["y"] + box["height"] <= 800, what
    assert drop.locator(":scope > summary .way-p").inner_text().endswith("to win")
    shot(page, "web-realistic-paradrop.png")
