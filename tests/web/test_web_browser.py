"""The Empire planning table in a real browser: Debian's Chromium driven by Playwright.

Real ``bellum serve`` processes on 127.0.0.1 (port 0): a generated 64 x 32 world served
as a scratch copy, the same world as a database (fights there are confirmed), and the
landing example.  Each defect of issue 28 has its test here; screenshots and the
latencies the page measured go to build/ (see browser_support).
"""

from __future__ import annotations

import json
from collections.abc import Iterator
from pathlib import Path
from typing import Any

import pytest

from bellum.empire.io.sqlite import Store
from bellum.empire.io.toml import load_world
from clirunner import bellum

from .browser_support import (
    SIZES,
    Server,
    click_sector,
    click_thing,
    median,
    open_map,
    plan_for,
    record,
    shot,
    updates,
    wait_odds,
)
from .conftest import EMPIRE, PANZER
from .worldgen import frontier

pytestmark = pytest.mark.browser


@pytest.fixture(scope="module")
def world_file(tmp_path_factory: pytest.TempPathFactory) -> Path:
    path = tmp_path_factory.mktemp("web") / "frontier.toml"
    path.write_text(frontier())
    return path


@pytest.fixture(scope="module")
def frontier_server(world_file: Path) -> Iterator[Server]:
    server = Server("--world", str(world_file), "--scenario", str(PANZER / "bocage.toml"))
    yield server
    print(server.stop())


@pytest.fixture(scope="module")
def db_server(world_file: Path, tmp_path_factory: pytest.TempPathFactory) -> Iterator[Server]:
    db = tmp_path_factory.mktemp("webdb") / "game.db"
    Store.create(db, load_world(world_file)).close()
    server = Server("--db", str(db))
    server.db = db  # type: ignore[attr-defined]
    yield server
    print(server.stop())


def fight_through(page: Any, section: Any, answers: dict[str, str] | None = None) -> str:
    """Answer the server's questions as they come; the outcome once the fight is done."""
    answers = answers or {"Are you sure": "y", "How many mil": "0", "Move in with": "n"}
    for step in range(8):
        section.locator(f".fight-result[data-step='{step}']").wait_for()
        question = section.locator("form[data-answer] label.question")
        if question.count() == 0:
            break
        asked = question.inner_text()
        page.locator("#answer-input").fill(next(a for q, a in answers.items() if q in asked))
        page.keyboard.press("Enter")
    section.locator(".fight-result .outcome").wait_for()
    page.wait_for_function(
        "(s) => s.querySelector('pre.transcript')?.dataset.done", arg=section.element_handle()
    )
    return str(section.locator(".fight-result").get_attribute("data-outcome"))


# --------------------------------------------------------------------------- planning


def test_plan_an_attack_watch_the_odds_and_fight(page: Any, frontier_server: Server) -> None:
    open_map(page, frontier_server.url + "/empire?as=1")
    record("first_map_ms_64x32", page.evaluate("window.bellum.timings.firstMap"))
    shot(page, "web-empire-map.png")

    # Click an enemy sector on the front: the panel lists the attack with its sources.
    attack = plan_for(page, "1,1")
    record("click_to_odds_ms", page.evaluate("window.bellum.timings.clickToOdds[0]"))
    assert "Attack 1,1" in attack.locator("h3").inner_text()
    first_p = float(attack.locator(".odds-box").get_attribute("data-p"))
    ranges = attack.locator("input[type=range]")
    assert ranges.count() == 2
    assert ranges.first.get_attribute("max") == "107"

    # Move a slider with the keyboard: the odds follow, and settle on its last position.
    n = updates(attack)
    ranges.first.focus()
    for _ in range(60):
        page.keyboard.press("ArrowLeft")
    wait_odds(page, 0, after=n)
    assert ranges.first.input_value() == "47"
    assert attack.locator(".mirror").first.input_value() == "47"
    assert float(attack.locator(".odds-box").get_attribute("data-p")) < first_p
    assert attack.locator("figure.chart").count() == 2
    shot(page, "web-empire-plan.png")

    # Fight with a seed (a scratch copy: no confirmation), answering the questions.
    attack.locator("input[name=seed]").fill("3")
    attack.locator("button.fight").click()
    assert not page.locator("dialog#confirm").is_visible()
    outcome = fight_through(page, attack)
    text = attack.locator("pre.transcript").inner_text()
    assert "Final odds" in text and "Casualties" in text
    if outcome == "captured":
        page.wait_for_function("() => window.bellum.map.sector('1,1').relation === 'own'")
    shot(page, "web-empire-fight.png")

    # The command is in the history, and replays bit for bit.
    page.goto(frontier_server.url + "/empire/history")
    assert "attack 1,1" in page.locator("table.history").inner_text()
    page.locator("table.history a", has_text="replay").first.click()
    page.wait_for_selector(".replay.ok")


def test_odds_follow_a_drag(page: Any, frontier_server: Server) -> None:
    """Item 2: throttled, not debounced; greyed while new odds come; one request at a time."""
    open_map(page, frontier_server.url + "/empire?as=1")
    attack = plan_for(page, "0,-2")
    slider = attack.locator("input[type=range]").first
    page.evaluate(
        """(s) => { window.greyed = 0; new MutationObserver(() => {
              if (s.querySelector('.odds-box.stale')) window.greyed++; })
            .observe(s, {subtree: true, attributes: true, childList: true}); }""",
        attack.element_handle(),
    )
    requests: list[str] = []
    inflight = [0, 0]  # now, most at once

    def sent(r: Any) -> None:
        if "/empire/odds?" in r.url:
            requests.append(r.url)
            inflight[0] += 1
            inflight[1] = max(inflight)

    def done(r: Any) -> None:
        if "/empire/odds?" in r.url:
            inflight[0] -= 1

    page.on("request", sent)
    page.on("requestfinished", done)
    page.on("requestfailed", done)
    box = slider.bounding_box()
    y = box["y"] + box["height"] / 2
    # A slow hand's drag across the slider: 1.6 s, or three of this machine's answers
    # when it is loaded, so that an answer can come back while the hand still moves.
    first = int(attack.locator(".odds-box").get_attribute("data-latency"))
    steps, pause = 40, max(40, 3 * first // 40)
    page.mouse.move(box["x"] + box["width"] - 6, y)
    page.mouse.down()
    start = page.evaluate("performance.now()")
    before = updates(attack)
    for i in range(steps):
        page.mouse.move(box["x"] + box["width"] - 6 - (i + 1) * (box["width"] - 12) / steps, y)
        page.wait_for_timeout(pause)
    during = updates(attack) - before
    page.mouse.up()
    wait_odds(page, 0, after=before + during)
    lags = page.evaluate(
        "(t0) => window.bellum.timings.odds.filter((o) => o.at > t0).map((o) => o.ms)", start
    )
    assert during >= 1, f"the odds never updated during a {steps * pause} ms drag"
    assert page.evaluate("window.greyed") > 0, "the old figures were never greyed"
    assert inflight[1] == 1, "more than one odds request at a time"
    assert len(requests) < steps, "every position was asked for: nothing was throttled"
    assert slider.input_value() == "0"
    record(
        "odds_during_drag_ms",
        {
            "median": median(lags),
            "max": max(lags),
            "updates": during,
            "inputs": steps,
            "drag_ms": steps * pause,
            "first_answer_ms": first,
        },
    )


def test_force_for_90_answers_beside_its_button(page: Any, frontier_server: Server) -> None:
    """Item 3: the search's progress and its answer appear where the button is."""
    open_map(page, frontier_server.url + "/empire?as=1")
    attack = plan_for(page, "1,-1")
    button = attack.locator("button[data-action=need]")
    button.click()
    working = attack.locator(".need .working")
    working.wait_for()
    top = button.bounding_box()
    note = working.bounding_box()
    assert note["y"] + note["height"] <= 800, "the progress is below the fold"
    assert abs(note["y"] - (top["y"] + top["height"])) < 60, "the progress is far from its button"
    attack.locator(".need-box").wait_for(timeout=60_000)
    answer = attack.locator(".need-box").bounding_box()
    assert answer["y"] + answer["height"] <= 800
    assert "Use this force" in attack.locator(".need-box").inner_text()


def test_result_and_action_come_first_at_three_sizes(browser: Any, frontier_server: Server) -> None:
    """Items 5 and 6: P(win) and Fight without scrolling; below 1000 px the panel goes
    under the map, which keeps the whole width.  Screenshots for the README and docs."""
    for name, (w, h) in SIZES.items():
        page = browser.new_page()
        page.set_viewport_size({"width": w, "height": h})
        try:
            open_map(page, frontier_server.url + "/empire?as=1")
            attack = plan_for(page, "1,3")
            page.mouse.move(5, h - 5)  # no tooltip in the picture
            if w < 1000:
                canvas = page.locator("#map").bounding_box()
                panel = page.locator("#panel").bounding_box()
                assert canvas["width"] >= w - 20, "the map does not take the width"
                assert panel["y"] >= canvas["y"] + canvas["height"] - 1, "the panel is not below"
                page.locator("#panel").scroll_into_view_if_needed()
            else:
                assert page.locator("#map").bounding_box()["width"] >= w - 460
            for what in (".odds-box .p", "button.fight"):
                box = attack.locator(what).bounding_box()
                viewport_bottom = page.evaluate("window.innerHeight")
                assert box["y"] >= 0 and box["y"] + box["height"] <= viewport_bottom, (name, what)
            if w < 1000:
                page.evaluate("window.scrollTo(0, 0)")
            shot(page, f"web-empire-{name}.png")
        finally:
            page.close()


def test_the_two_probabilities_are_explained(page: Any, frontier_server: Server) -> None:
    """Item 7: one line beside P(win) says what the server's "Final odds" is."""
    open_map(page, frontier_server.url + "/empire?as=1")
    attack = plan_for(page, "1,-3")
    line = attack.locator(".odds .two-odds")
    assert line.is_visible()
    assert "Final odds" in line.inner_text() and "each single casualty" in line.inner_text()


def test_histograms_have_readable_axes(page: Any, frontier_server: Server) -> None:
    """Item 9: x and y ticks a person can read, the mean and the median marked."""
    open_map(page, frontier_server.url + "/empire?as=1")
    attack = plan_for(page, "0,-2")
    chart = attack.locator("figure.chart").first
    assert chart.locator("text.tick.y").count() >= 3
    assert chart.locator("text.tick.x").count() >= 2
    assert chart.locator("line.mean").count() == 1 and chart.locator("line.median").count() == 1
    assert "mean" in chart.locator("figcaption").inner_text()
    height = chart.locator("text.tick.x").first.bounding_box()["height"]
    assert height >= 9, f"tick labels are {height:.1f} px high"


# --------------------------------------------------------------------------- the map


def test_the_map_shows_the_plan_wraps_and_tells_owners_apart(
    page: Any, frontier_server: Server
) -> None:
    """Item 9: sources highlighted with an arrow to the target; the world wraps."""
    open_map(page, frontier_server.url + "/empire?as=1")

    def pixel(key: str, dx: float = -0.45, dy: float = 0.0) -> list[int]:
        return page.evaluate(
            """([k, dx, dy]) => { const m = window.bellum.map; m.draw();
                const p = m.positions(k)[0], r = m.view.s, d = m.dpr;
                return [...m.ctx.getImageData(Math.round((p.x + dx * r) * d),
                                              Math.round((p.y + dy * r) * d), 1, 1).data]; }""",
            [key, dx, dy],
        )

    plain = pixel("-2,-2")
    assert plain[:3] == [0x56, 0xB4, 0xE9], plain  # yours: solid blue
    attack = plan_for(page, "0,-2")
    assert page.evaluate("window.bellum.map.plan") == {
        "target": "0,-2",
        "sources": ["-1,-1", "-2,-2"],
    }
    assert pixel("-2,-2") != plain, "the source is not highlighted"
    # 0.6 radii from -1,-1 towards 0,-2 (up and right): the arrow's dark line.
    assert max(pixel("-1,-1", 0.3, -0.52)[:3]) < 90, "no arrow from -1,-1 to 0,-2"
    # No source left: nothing highlighted.
    for r in range(2):
        attack.locator("input.mirror").nth(r).fill("0")
        attack.locator("input.mirror").nth(r).press("Tab")
    assert page.evaluate("window.bellum.map.plan.sources") == []

    # Whole world, then drag half a world to the right: what comes in from the left edge
    # is the world's east, drawn, not an empty margin.
    page.click("button[data-zoom=fit]")
    box = page.locator("#map").bounding_box()
    page.mouse.move(box["x"] + 100, box["y"] + box["height"] / 2)
    page.mouse.down()
    page.mouse.move(box["x"] + 100 + box["width"] / 2, box["y"] + box["height"] / 2, steps=8)
    page.mouse.up()
    seen = page.evaluate(
        """(y) => { const m = window.bellum.map, span = m.W * Math.sqrt(3) / 2 * m.view.s;
            const key = (x) => m.hit(x, y)?.sector.key ?? null;
            const px = [...m.ctx.getImageData(20 * m.dpr, y * m.dpr, 1, 1).data];
            return { left: key(20), again: key(20 + span), inside: 20 + span < m.cw, px }; }""",
        box["height"] / 2 + 3,
    )
    assert seen["inside"] and seen["left"] is not None, seen
    assert seen["left"] == seen["again"], "the world does not repeat one world-width on"
    assert seen["px"][:3] != [0xDF, 0xE8, 0xEF], "nothing drawn past the world's edge"
    shot(page, "web-empire-wrapped.png")


def test_a_click_leaves_no_keyboard_cursor_beside_it(page: Any, frontier_server: Server) -> None:
    """Item 9: the dashed cursor shows for the keyboard only, and starts where you clicked."""
    open_map(page, frontier_server.url + "/empire?as=1")
    click_sector(page, "-3,-1")
    page.wait_for_selector("#panel details.way")
    assert page.evaluate("window.bellum.map.showCursor") is False
    assert page.evaluate("window.bellum.map.picked") == "-3,-1"
    page.keyboard.press("ArrowRight")
    assert page.evaluate("window.bellum.map.showCursor") is True
    assert page.evaluate("window.bellum.map.cursor") == "-1,-1"


def test_goto_reads_spaces_and_refuses_what_is_off_the_map(
    page: Any, frontier_server: Server
) -> None:
    """Item 9: " 2 , 2 " is 2,2; 999,999 is said to be off the map, not moved."""
    open_map(page, frontier_server.url + "/empire?as=1")
    page.fill("#goto", " 2 , 2 ")
    page.keyboard.press("Enter")
    page.wait_for_function(
        "() => document.querySelector('#panel h2')?.textContent.startsWith('2,2 ')"
    )
    page.fill("#goto", "999,999")
    page.keyboard.press("Enter")
    err = page.locator("#goto-err")
    assert "999,999 is off the map: x runs from -32 to 31" in err.inner_text()
    assert page.locator("#panel h2").inner_text().startswith("2,2 ")
    page.fill("#goto", "2,1")
    page.keyboard.press("Enter")
    assert "x + y is even" in err.inner_text()


def test_click_their_ship_or_unit_on_the_map(page: Any, frontier_server: Server) -> None:
    """The markers of others' ships and units open the ways to take them."""
    open_map(page, frontier_server.url + "/empire?as=1")
    click_thing(page, "ship", 1)
    page.wait_for_selector('#panel h2[data-at="27,-1"]')
    assert "cargo ship (#1)" in page.locator("#panel h2").inner_text()
    board = page.locator("#panel .way").first
    assert "board from tt troop transport (#0)" in board.locator("h3").inner_text().lower()
    # The generated cargo ship outruns the transport: the server's refusal, no controls.
    assert "moves faster than you do" in board.locator(".refusal").inner_text()
    assert page.evaluate("window.bellum.map.chosen") == {"kind": "ship", "id": "1"}
    assert page.evaluate("window.bellum.map.picked") == "27,-1"
    shot(page, "web-empire-ship.png")

    # A land unit on their land: lboard is refused, and its sector is one click away.
    click_thing(page, "unit", 4)
    page.wait_for_selector('#panel h2[data-at="3,-1"]')
    assert "cavalry #4" in page.locator("#panel h2").inner_text()
    page.locator("#panel button[data-pick][data-kind=sector]").click()
    page.wait_for_function(
        "() => document.querySelector('#panel h2').textContent.startsWith('3,-1 ')"
    )
    assert "attack 3,-1" in page.locator("#panel .way h3").first.inner_text().lower()


def test_refusal_is_shown_where_it_applies(page: Any, frontier_server: Server) -> None:
    open_map(page, frontier_server.url + "/empire?as=1")
    page.fill("#goto", "9,1")
    page.keyboard.press("Enter")
    page.wait_for_selector("#panel .refusal")
    attack = page.locator("#panel .way").first
    assert "You are not adjacent to 9,1" in attack.locator(".refusal").inner_text()
    assert attack.locator("button.fight").count() == 0


def test_keyboard_only(page: Any, frontier_server: Server) -> None:
    """The map takes the focus, arrows move its cursor, Enter plans; sliders by Tab."""
    open_map(page, frontier_server.url + "/empire?as=1")
    page.keyboard.press("Tab")  # the skip link
    while page.evaluate("document.activeElement.id") != "map":
        page.keyboard.press("Tab")
    for key in ["ArrowRight", "ArrowDown", "ArrowLeft", "ArrowUp", "Enter"]:
        page.keyboard.press(key)
    page.wait_for_selector("#panel .way form[data-plan]")
    # From 0,0: right to 2,0, down to 3,1, left to 1,1, up to 0,0 (the enemy's; the
    # first test's fight may have taken 1,1 but leaves 0,0 to Borduria).
    assert page.locator("#panel h2").inner_text().startswith("0,0 ")
    assert page.evaluate("window.bellum.map.picked") == "0,0"
    page.locator("#map").focus()
    scale = page.evaluate("window.bellum.map.view.s")
    page.keyboard.press("+")
    assert page.evaluate("window.bellum.map.view.s") > scale
    # A screen reader hears what is under the cursor.
    page.keyboard.press("ArrowRight")
    assert page.locator("#cursor-say").inner_text().startswith("2,0 ")

    # Every control of the plan is reached with Tab from the panel; the command's other
    # answers, the rule profile and options once their summaries are opened with Enter.
    expected = page.evaluate(
        """() => [...document.querySelectorAll('#panel details.way')[0].querySelectorAll(
              ':is(input:not([type=hidden]), button, select, summary)')]
            .filter((e) => !e.disabled && !e.hidden).map((e, i) => { e.dataset.kb = i; return i; })"""
    )
    page.locator("#panel h2").focus()
    assert page.evaluate("() => document.activeElement.id") == "panel-title"
    reached: list[int] = []
    for _ in range(80):
        page.keyboard.press("Tab")
        kb = page.evaluate("() => document.activeElement.dataset.kb ?? null")
        if kb is None:
            if reached:
                break
            continue
        reached.append(int(kb))
        if page.evaluate(
            "() => document.activeElement.matches(':is(details.rules, details.answers) > summary')"
        ):
            page.keyboard.press("Enter")
    assert sorted(set(reached)) == expected, (reached, expected)

    # Choosing a country with the arrows browses; Enter applies it.
    page.locator("#as").focus()
    page.keyboard.press("ArrowDown")
    page.wait_for_timeout(300)
    assert "as=1" in page.url and page.locator("#as").input_value() == "2"
    page.keyboard.press("Enter")
    page.wait_for_url("**/empire?as=2")


def test_pan_and_zoom_on_the_whole_world(page: Any, frontier_server: Server) -> None:
    """Drag and wheel over 1024 sectors; the frame times are kept for the report."""
    open_map(page, frontier_server.url + "/empire?as=1")
    page.click("button[data-zoom=fit]")
    page.evaluate(
        """() => { window.frames_ = []; let last = performance.now();
        const tick = (t) => { window.frames_.push(t - last); last = t;
          if (window.frames_.length < 400) requestAnimationFrame(tick); };
        requestAnimationFrame(tick); }"""
    )
    before = page.evaluate("JSON.stringify(window.bellum.map.view)")
    page.mouse.move(400, 400)
    for _ in range(10):
        page.mouse.wheel(0, -120)
        page.wait_for_timeout(16)
    page.mouse.down()
    for i in range(30):
        page.mouse.move(400 - 8 * i, 400 - 4 * i)
    page.mouse.up()
    page.wait_for_timeout(200)
    assert page.evaluate("JSON.stringify(window.bellum.map.view)") != before
    frames = sorted(page.evaluate("window.frames_")[1:])
    record(
        "map_pan_zoom_frame_ms_64x32",
        {"median": round(median(frames), 1), "p95": round(frames[int(0.95 * len(frames))], 1)},
    )
    shot(page, "web-empire-zoomed.png")


# --------------------------------------------------------------------------- safety


def test_enter_in_every_input_never_fights(page: Any, db_server: Server) -> None:
    """Item 1: Enter in any box takes its value; only the Fight button fights, and on a
    database it shows the exact order and asks first."""
    open_map(page, db_server.url + "/empire?as=1")
    attack = plan_for(page, "1,1")
    attack.locator("details.rules summary").click()
    attack.locator("details.answers summary").click()
    page.locator("#panel button[data-pick]").count()  # the panel is fully there
    # The panel's boxes first: Enter in the goto box plans again (a new panel).
    boxes = page.locator("#panel input:not([type=hidden]):not([disabled]), #panel select")
    count = boxes.count()
    assert count >= 10
    typed = {"number": "50", "text": "50", "range": None, "checkbox": None, "select-one": None}
    for i in range(count):
        box = boxes.nth(i)
        kind = box.evaluate("(e) => e.type")
        box.focus()
        if typed.get(kind):
            box.fill("SLOW_WAR=true" if box.get_attribute("name") == "options" else "50")
        page.keyboard.press("Enter")
    page.locator("#as").focus()
    page.keyboard.press("Enter")
    page.fill("#goto", "1,1")
    page.keyboard.press("Enter")
    page.wait_for_timeout(500)
    assert db_server.json("/empire/history.json")["history"] == []
    assert page.locator("#panel .fight-result").count() == 0
    assert not page.locator("dialog#confirm").is_visible()
    assert page.url.split("?")[0].endswith("/empire")  # no form was submitted

    # Fight: the dialog shows the order as typed and the force; Escape cancels.
    attack = wait_odds(page, 0)
    attack.locator("input.mirror").first.fill("47")
    attack.locator("input.mirror").first.press("Tab")
    wait_odds(page, 0, after=updates(attack))
    attack.locator("input[name=seed]").fill("3")
    attack.locator("button.fight").click()
    dialog = page.locator("dialog#confirm")
    dialog.wait_for()
    text = dialog.inner_text()
    assert "attack 1,1 y y y y" in text and "47 mil from 0,2" in text
    assert "cannot be undone" in text and "Seed: 3" in text
    shot(page, "web-empire-confirm.png")
    assert page.evaluate("document.activeElement.value") == "cancel"
    page.keyboard.press("Enter")  # Enter on the focused Cancel: nothing happens
    assert not dialog.is_visible()
    attack.locator("button.fight").click()
    dialog.wait_for()
    page.keyboard.press("Escape")
    assert not dialog.is_visible()
    assert db_server.json("/empire/history.json")["history"] == []

    attack.locator("button.fight").click()
    dialog.locator("button[value=fight]").click()
    fight_through(page, attack)
    history = db_server.json("/empire/history.json")["history"]
    assert len(history) == 1 and history[0]["order"] == "attack 1,1 y y y y"
    assert history[0]["seed"] == 3


def fight_confirmed(page: Any, section: Any) -> str:
    """Fight a plan on a database: Fight…, then the dialog's Fight; the outcome."""
    section.locator("button.fight").click()
    page.locator("dialog#confirm button[value=fight]").click()
    return fight_through(page, section)


def test_another_tab_s_fight_shows_here(browser: Any, db_server: Server) -> None:
    """Item 8: the map, the header and the plans follow a fight made elsewhere."""
    here, there = browser.new_page(), browser.new_page()
    try:
        open_map(here, db_server.url + "/empire?as=1")
        mine = plan_for(here, "1,-1")
        btu = here.locator("header .stat").inner_text()
        open_map(there, db_server.url + "/empire?as=1")
        fight_confirmed(there, plan_for(there, "1,-3"))
        version = str(db_server.json("/empire/events.json?as=1")["version"])
        mine.locator(".stale-note").wait_for(timeout=10_000)
        assert here.evaluate("document.querySelector('.table.em').dataset.version") == version
        assert here.locator("header .stat").inner_text() != btu
        mil = db_server.json("/empire/map.json?as=1")["map"]["sectors"]
        mil = next(s["mil"] for s in mil if s["key"] == "0,-4")
        assert here.evaluate("window.bellum.map.sector('0,-4').mil") == mil
        # Fighting the stale plan asks first, and says why.
        mine.locator("button.fight").click()
        warning = here.locator("dialog#confirm .stale-warning")
        warning.wait_for()
        assert "The world changed since this plan was made" in warning.inner_text()
        here.keyboard.press("Escape")
    finally:
        here.close()
        there.close()


def test_an_answer_refused_after_a_change_redraws_the_map(browser: Any, db_server: Server) -> None:
    """Item 8: the 409 of an answer to a world that changed brings the new map."""
    here, there = browser.new_page(), browser.new_page()
    try:
        open_map(here, db_server.url + "/empire?as=1")
        here.evaluate("window.bellum.events.close()")  # only the 409 can tell this page
        attack = plan_for(here, "0,-2")
        attack.locator("input[name=seed]").fill("1")
        attack.locator("button.fight").click()
        here.locator("dialog#confirm button[value=fight]").click()
        attack.locator("form[data-answer] label.question").wait_for()
        before = here.evaluate("document.querySelector('.table.em').dataset.version")

        open_map(there, db_server.url + "/empire?as=1")
        fight_confirmed(there, plan_for(there, "-1,3"))
        version = str(db_server.json("/empire/events.json?as=1")["version"])
        assert version != before

        here.locator("#answer-input").fill("0")
        here.keyboard.press("Enter")
        error = attack.locator(".fight-out .error")
        error.wait_for()
        assert error.get_attribute("data-status") == "409"
        assert "start the command again" in error.inner_text()
        here.wait_for_function(
            "(v) => document.querySelector('.table.em').dataset.version === v", arg=version
        )
        attack.locator(".stale-note").wait_for()
    finally:
        here.close()
        there.close()


def test_reload_keeps_the_plan_and_the_fight(page: Any, frontier_server: Server) -> None:
    """Item 9: the whole plan is in the address: a reload shows the same force and result."""
    open_map(page, frontier_server.url + "/empire?as=1")
    attack = plan_for(page, "-1,3")
    n = updates(attack)
    mirrors = attack.locator("input.mirror")
    for i in range(mirrors.count()):  # 12 mil against a fortress: it holds, and stays theirs
        mirrors.nth(i).fill("12" if i == 0 else "0")
    mirrors.last.press("Tab")
    attack.locator("input[name=support][value=ships]").uncheck()
    wait_odds(page, 0, after=n + 1)
    attack.locator("input[name=seed]").fill("5")
    attack.locator("button.fight").click()
    assert fight_through(page, attack) == "defeated"
    fought = attack.locator(".fight-result").get_attribute("data-id")
    url = page.url
    assert "mil.0,2=12" in url.replace("%2C", ","), url
    assert f"fight={fought}" in url

    page.reload()
    page.wait_for_function("() => window.bellum && window.bellum.timings.firstMap")
    again = page.locator("#panel details.way").first
    again.locator(".fight-result .outcome").wait_for()
    assert again.locator(".fight-result").get_attribute("data-id") == fought
    assert again.locator("input[type=range]").first.input_value() == "12"
    assert again.locator("input[type=range]").last.input_value() == "0"
    assert not again.locator("input[name=support][value=ships]").is_checked()
    assert again.locator("input[name=support][value=forts]").is_checked()
    assert again.locator("input[name=seed]").input_value() == "5"


def test_a_landing_offers_its_units_checked(browser: Any) -> None:
    """Item 9: the marines aboard are offered checked: the landing's odds count them."""
    server = Server("--world", str(EMPIRE / "landing.toml"))
    page = browser.new_page()
    try:
        open_map(page, server.url + "/empire?as=1&target=0,0")
        landing = page.locator("#panel details.way[data-command=assault]")
        landing.locator("form[data-plan]").wait_for()
        page.wait_for_function(
            "(s) => +s.querySelector('form').dataset.updates > 0", arg=landing.element_handle()
        )
        boxes = landing.locator("input[name=unit]")
        assert boxes.count() == 2 and all(boxes.nth(i).is_checked() for i in range(2))
        assert float(landing.locator(".odds-box").get_attribute("data-p")) > 0.5
    finally:
        page.close()
        server.stop()


def test_a_256_by_128_map_is_usable(browser: Any, tmp_path: Path) -> None:
    """Item 10: 16,384 sectors (9,078 of land) load, pan and plan; the times are kept."""
    world = tmp_path / "big.toml"
    world.write_text(frontier(scale=4))
    server = Server("--world", str(world))
    page = browser.new_page()
    try:
        open_map(page, server.url + "/empire?as=1")
        record("first_map_ms_256x128", page.evaluate("window.bellum.timings.firstMap"))
        page.click("button[data-zoom=fit]")
        whole = page.evaluate(
            "(() => { const m = window.bellum.map; m.draw(); return m.drawMs; })()"
        )
        page.evaluate(
            """() => { window.frames_ = []; let last = performance.now();
            const tick = (t) => { window.frames_.push(t - last); last = t;
              if (window.frames_.length < 120) requestAnimationFrame(tick); };
            requestAnimationFrame(tick); }"""
        )
        page.mouse.move(400, 400)
        page.mouse.down()
        for i in range(40):
            page.mouse.move(400 - 6 * i, 400 - 3 * i)
        page.mouse.up()
        frames = sorted(page.evaluate("window.frames_")[1:])
        record(
            "map_256x128",
            {"whole_world_draw_ms": round(whole, 1), "pan_frame_ms_median": round(median(frames), 1),
             "pan_frame_ms_p95": round(frames[int(0.95 * len(frames))], 1)},
        )  # fmt: skip
        attack = plan_for(page, "1,1")
        assert "Attack 1,1" in attack.locator("h3").inner_text()
        assert attack.locator("input[type=range]").count() == 2
        record("click_to_odds_ms_256x128", page.evaluate("window.bellum.timings.clickToOdds[0]"))
        shot(page, "web-empire-256x128.png")
    finally:
        page.close()
        server.stop()


def test_the_issue_s_enter_in_the_lboard_mil_box(browser: Any, tmp_path: Path) -> None:
    """Item 1 as the issue reproduced it: lboard.toml on a database, click unit #0, type
    50 in the mil box, press Enter: the odds follow, nothing is fought or asked."""
    db = tmp_path / "lboard.db"
    Store.create(db, load_world(EMPIRE / "lboard.toml")).close()
    server = Server("--db", str(db))
    page = browser.new_page()
    try:
        open_map(page, server.url + "/empire?as=1")
        click_thing(page, "unit", 0)
        lboard = wait_odds(page, 0)
        assert "lboard" in lboard.locator("h3").inner_text().lower()
        n = updates(lboard)
        box = lboard.locator("input.mirror").first
        box.fill("50")
        box.press("Enter")
        wait_odds(page, 0, after=n)
        assert lboard.locator("input[type=range]").first.input_value() == "50"
        page.wait_for_timeout(300)
        assert server.json("/empire/history.json")["history"] == []
        assert page.locator("#panel .fight-result").count() == 0
        assert not page.locator("dialog#confirm").is_visible()
    finally:
        page.close()
        server.stop()


def test_the_commands_other_answers_are_on_the_page(browser: Any) -> None:
    """Issue 23: the page asks what `bellum empire odds` and the command take: no unit
    joins, the mil and units that move in, yes; the odds take them as the command line's
    do, and a fight answers with them instead of asking."""
    server = Server("--world", str(EMPIRE / "cavalry.toml"))
    page = browser.new_page()
    try:
        open_map(page, server.url + "/empire?as=1&target=2,0")
        attack = wait_odds(page, 0)
        form = attack.locator("form[data-plan]")
        n = updates(attack)
        mirrors = form.locator("input.mirror")
        for i in range(mirrors.count()):
            mirrors.nth(i).fill("14" if i == 0 else "0")
        mirrors.last.press("Tab")
        wait_odds(page, 0, after=n)
        with_unit = float(attack.locator(".odds-box").get_attribute("data-p"))
        unit = form.locator("input[name=unit][value='0']")
        none_join = form.locator("input[name=no_units]")
        assert unit.is_checked() and not none_join.is_checked()

        # No unit joins: the unit's box clears, and the odds are those of --no-units.
        n = updates(attack)
        none_join.check()
        wait_odds(page, 0, after=n)
        assert not unit.is_checked()
        alone = float(attack.locator(".odds-box").get_attribute("data-p"))
        cli = bellum("empire", "odds", "attack", "2,0", "--world", str(EMPIRE / "cavalry.toml"),
                     "--as", "1", "--seed", "1", "--mil", "0,0=14", "--no-units", "--json")  # fmt: skip
        assert alone == pytest.approx(json.loads(cli.stdout)["p_attacker_wins"], abs=1e-6)
        assert alone < with_unit
        n = updates(attack)
        unit.check()  # a unit that joins clears "no unit joins"
        wait_odds(page, 0, after=n)
        assert not none_join.is_checked()
        one_unit = float(attack.locator(".odds-box").get_attribute("data-p"))

        # The answers after the fight: the odds end with the fight, so they stay.
        form.locator("details.answers summary").click()
        n = updates(attack)
        form.locator("input[name=move_in]").fill("5")
        form.locator("input[name=move_in_unit][value='0']").check()
        form.locator("input[name=yes]").check()
        wait_odds(page, 0, after=n)
        assert float(attack.locator(".odds-box").get_attribute("data-p")) == one_unit
        assert attack.locator(".odds .err, .odds .error").count() == 0
        form.locator("input[name=no_move_in_units]").check()
        assert form.locator("input[name=move_in_unit]:checked").count() == 0
        shot(page, "web-empire-answers.png")
        assert "move_in=5" in page.url and "no_move_in_units=1" in page.url

        # A fight answers its move-in questions from the page, and asks nothing.
        attack.locator("input[name=seed]").fill("1")
        attack.locator("button.fight").click()
        attack.locator(".fight-result .outcome").wait_for()
        assert attack.locator("form[data-answer]").count() == 0
        assert attack.locator(".fight-result").get_attribute("data-outcome") == "captured"
        text = server.json("/empire/history.json")["history"][0]
        assert text["answers"][-2:] == ["5", "n"]
    finally:
        page.close()
        server.stop()
