"""The Panzer Campaigns views in a real browser (see browser_support)."""

from __future__ import annotations

from collections.abc import Iterator
from pathlib import Path
from typing import Any

import pytest

from .browser_support import Server, shot
from .conftest import EMPIRE, PANZER

pytestmark = pytest.mark.browser


@pytest.fixture(scope="module")
def both_server() -> Iterator[Server]:
    server = Server(
        "--world", str(EMPIRE / "vector-a.toml"), "--scenario", str(PANZER / "hexsides.toml")
    )
    yield server
    print(server.stop())


@pytest.fixture(scope="module")
def panzer_server() -> Iterator[Server]:
    server = Server("--scenario", str(PANZER / "bocage.toml"))
    yield server
    print(server.stop())


def attacking(page: Any) -> set[str]:
    return set(
        page.evaluate(
            "[...document.querySelectorAll('#pzmap .counter.attacking')].map((c) => c.dataset.unit)"
        )
    )


def test_panzer_explain_then_resolve(page: Any, panzer_server: Server) -> None:
    page.goto(panzer_server.url + "/panzer")
    page.wait_for_selector("#pz-plan .odds-box")
    assert "modified assault =" in page.locator("#pz-explain").inner_text()
    assert attacking(page) == {"us-tk", "us-ai", "us-ai2"}
    # Leave the tank out: the explain table and the odds follow.
    before = page.locator("#pz-plan .odds-box").get_attribute("data-p")
    page.locator('#pz-plan input[name=unit][value="us-tk"]').uncheck()
    page.wait_for_function(
        "(p) => { const b = document.querySelector('#pz-plan .odds-box'); return b && b.dataset.p !== p; }",
        arg=before,
    )
    assert attacking(page) == {"us-ai", "us-ai2"}
    page.locator('#pz-plan input[name=unit][value="us-tk"]').check()
    page.wait_for_function(
        "() => document.querySelectorAll('#pzmap .pile .counter.attacking').length === 2"
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


def test_stacks_spread_in_their_hex_and_the_map_zooms(page: Any, panzer_server: Server) -> None:
    """Item 4: one stack per hex, inside it; a click spreads it; terrain drawn apart.
    Item 9: wheel and drag zoom and pan, and the links between the views."""
    page.goto(panzer_server.url + "/panzer")
    page.wait_for_selector("#pz-plan .odds-box")
    # Every stack's counter lies inside its own hex.
    inside = page.evaluate(
        """() => [...document.querySelectorAll('#pzmap .stack')].map((s) => {
            const hex = document.querySelector(`#pzmap .sec[data-key="${s.dataset.hex}"] .bg`)
              .getBoundingClientRect();
            const c = s.querySelector('.pile .face').getBoundingClientRect();
            return c.left >= hex.left && c.right <= hex.right && c.top >= hex.top
              && c.bottom <= hex.bottom; })"""
    )
    assert inside == [True, True, True]
    # The hex's coordinates and terrain stay readable around its stack.
    label = page.locator('#pzmap .sec[data-key="4,4"] .tlabel').bounding_box()
    face = page.locator('#pzmap .stack[data-hex="4,4"] .pile .face').bounding_box()
    assert label["y"] >= face["y"] + face["height"] - 1
    # Labels fit their counter: no text wider than the counter's face.
    widths = page.evaluate(
        """() => [...document.querySelectorAll('#pzmap .pile .counter')].map((c) =>
            Math.max(...[...c.querySelectorAll('text')].map((t) => t.getBBox().width)))"""
    )
    assert max(widths) <= 14
    # Terrain: bocage has its own fill and pattern.
    fills = page.evaluate(
        """() => ['4,4', '5,5'].map((k) => getComputedStyle(
            document.querySelector(`#pzmap .sec[data-key="${k}"] .bg`)).fill)"""
    )
    assert fills[0] != fills[1]
    stack = page.locator('#pzmap .stack[data-hex="3,3"]')
    assert stack.locator(".badge text").text_content() == "2"
    assert not stack.locator(".spread").is_visible()
    stack.locator(".pile").click()
    assert stack.locator(".spread").is_visible()
    assert page.locator("#pz-target").input_value() == "4,4"  # its own stack: no new target
    # A spread counter takes its unit out of the assault, and back.
    stack.locator('.spread .counter[data-unit="us-ai"]').click()
    page.wait_for_function(
        "() => !document.querySelector('#pz-plan input[value=\"us-ai\"]').checked"
    )
    page.keyboard.press("Escape")
    assert not stack.locator(".spread").is_visible()

    box = page.locator("#pzmap").bounding_box()
    before = page.locator("#pzmap").get_attribute("viewBox")
    page.mouse.move(box["x"] + box["width"] / 2, box["y"] + box["height"] / 2)
    page.mouse.wheel(0, -300)
    zoomed = page.locator("#pzmap").get_attribute("viewBox")
    assert float(zoomed.split()[2]) < float(before.split()[2])
    page.mouse.down()
    page.mouse.move(box["x"] + box["width"] / 2 + 80, box["y"] + box["height"] / 2, steps=5)
    page.mouse.up()
    assert page.locator("#pzmap").get_attribute("viewBox").split()[0] != zoomed.split()[0]
    page.evaluate("document.activeElement.blur()")
    shot(page, "web-panzer-stacks.png")


def test_the_views_link_to_each_other(page: Any, both_server: Server) -> None:
    page.goto(both_server.url + "/panzer")
    page.locator("header nav a", has_text="Empire map").click()
    page.wait_for_url("**/empire")
    page.locator("header nav a", has_text="Panzer battlefield").click()
    page.wait_for_url("**/panzer")
    assert page.locator("header nav a[aria-current=page]").inner_text() == "Panzer battlefield"


def calc_p(page: Any, after: int) -> float:
    """The calculator's P(success) once more than ``after`` answers came and none is due."""
    page.wait_for_function(
        """(n) => { const r = document.querySelector('.calc-table');
            return +r.dataset.updates > n && !document.querySelector('#calc-head .stale'); }""",
        arg=after,
        timeout=30_000,
    )
    return float(page.locator("#calc-head .odds-box").get_attribute("data-p"))


def calc_updates(page: Any) -> int:
    return int(page.locator(".calc-table").get_attribute("data-updates") or 0)


def test_the_calculator_by_keyboard(page: Any, panzer_server: Server, tmp_path: Path) -> None:
    """A form for the assault: odds and explain follow it; units are added and removed;
    Enter never leaves the page; the scenario is saved as TOML and loaded from it."""
    page.goto(panzer_server.url + "/panzer/calculator")
    p0 = calc_p(page, 0)
    plan = panzer_server.json("/panzer/plan.json?target=4,4&unit=us-tk&unit=us-ai&unit=us-ai2")
    assert p0 == pytest.approx(plan["odds"]["p_attacker_wins"], abs=1e-6)
    assert "modified assault =" in page.locator("#calc-explain").inner_text()
    shot(page, "web-panzer-calculator.png")

    def tab_to(selector: str) -> None:
        for _ in range(60):
            page.keyboard.press("Tab")
            if page.evaluate("(s) => document.activeElement.matches(s)", selector):
                return
        raise AssertionError(f"Tab never reached {selector}")

    page.locator("#calc input[name=name]").focus()
    tab_to('input[name="u.1.strength"]')
    n = calc_updates(page)
    page.keyboard.press("Control+a")
    page.keyboard.type("100")
    p1 = calc_p(page, n)
    assert p1 > p0, "fewer defenders, and the assault is no likelier"

    tab_to("button[data-add=attacker]")
    page.keyboard.press("Enter")
    assert page.evaluate("document.activeElement.name").endswith(".id")
    page.keyboard.type("us-x")
    tab_to('input[name$=".strength"]:focus')  # the new row's strength, next but two
    n = calc_updates(page)
    page.keyboard.press("Control+a")
    page.keyboard.type("900")
    assert calc_p(page, n) > p1
    tab_to("tr:last-child button[data-remove]")
    n = calc_updates(page)
    page.keyboard.press("Enter")
    assert calc_p(page, n) == pytest.approx(p1, abs=1e-6)

    # Enter in every box: the page stays, and shows odds still.
    url = page.url
    boxes = page.locator("#calc input:not([type=hidden]), #calc select")
    for i in range(0, boxes.count(), 7):  # every seventh: each kind of box, in bounded time
        boxes.nth(i).focus()
        page.keyboard.press("Enter")
    assert page.url == url and page.locator("#calc-head .odds-box").count() == 1

    with page.expect_download() as download:
        page.locator("button[data-save]").click()
    saved = tmp_path / download.value.suggested_filename
    download.value.save_as(saved)
    from bellum.panzer import exact_distribution, load_scenario, plan_assault

    assert exact_distribution(plan_assault(load_scenario(saved))).p_success == pytest.approx(
        p1, abs=1e-6
    )

    n = calc_updates(page)
    page.set_input_files("#calc-file", str(PANZER / "hexsides.toml"))
    page.wait_for_function("() => document.querySelector('.calc-table').dataset.loaded")
    p2 = calc_p(page, n)
    scenario = load_scenario(PANZER / "hexsides.toml")
    assert p2 == pytest.approx(exact_distribution(plan_assault(scenario)).p_success, abs=1e-6)
    assert page.locator('select[name="side.NW.feature"]').input_value() == "embankment"


def test_narrow_screens_reach_every_control(browser: Any, panzer_server: Server) -> None:
    """Item 5 for the Panzer pages at 800 x 1000: the battlefield's P(success) and Resolve
    on the first screen; the calculator's whole form reachable (nothing clipped), its odds
    after it."""
    page = browser.new_page()
    page.set_viewport_size({"width": 800, "height": 1000})

    def reachable(selector: str) -> bool:
        """On screen once scrolled to, by scrolling a person can do: a box that does not
        scroll (overflow hidden) moved to show it means a hand could not have."""
        el = page.locator(selector).first
        el.scroll_into_view_if_needed()
        return bool(
            page.evaluate(
                """(e) => { for (let a = e.parentElement; a; a = a.parentElement) {
                      const s = getComputedStyle(a);
                      if ((s.overflowY === 'hidden' && a.scrollTop) ||
                          (s.overflowX === 'hidden' && a.scrollLeft)) return false; }
                    const r = e.getBoundingClientRect();
                    const hit = document.elementFromPoint(r.x + r.width / 2, r.y + r.height / 2);
                    return hit === e || e.contains(hit); }""",
                el.element_handle(),
            )
        )

    try:
        page.goto(panzer_server.url + "/panzer")
        page.wait_for_selector("#pz-plan .odds-box")
        for what in ("#pz-plan .odds-box .p", "button[data-action=resolve]"):
            box = page.locator(what).bounding_box()
            assert box["y"] + box["height"] <= 1000, what
        page.goto(panzer_server.url + "/panzer/calculator")
        page.wait_for_selector("#calc-head .odds-box")
        assert page.evaluate("document.documentElement.scrollWidth") <= 800
        for what in (
            "table[data-role=attacker] tr:last-child button[data-remove]",
            'select[name="side.NW.crossing"]',
            "form.calc details:last-of-type > summary",
            "#calc-head .odds-box .p",
        ):
            assert reachable(what), f"{what} cannot be reached at 800 px"
        page.evaluate("window.scrollTo(0, 0)")
        shot(page, "web-panzer-calculator-800x1000.png")
    finally:
        page.close()
