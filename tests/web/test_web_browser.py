"""The planning table in a real browser: Debian's Chromium driven by Playwright.

A real ``bellum serve`` runs on 127.0.0.1 (port 0) over a generated 64 x 32 world; the
system Chromium is launched by path (never downloaded) with the flags that keep it off
the network.  Screenshots at 1280 x 800 go to build/ to be looked at; the odds latency
seen by the page and the frame times of a pan go to build/web-timings.json (measured,
not asserted: speed belongs to benchmarks).  Skips, saying why, only without a browser.
"""

from __future__ import annotations

import json
import os
import re
import shutil
import subprocess
import sys
import tempfile
import time
from collections.abc import Iterator
from typing import Any

import pytest

from .conftest import PANZER, ROOT
from .worldgen import frontier

pytestmark = pytest.mark.browser

BUILD = ROOT / "build"
TIMEOUT_MS = 20_000
FLAGS = [
    "--headless",
    "--no-sandbox",
    "--disable-gpu",
    "--disable-quic",
    "--no-first-run",
    "--disable-background-networking",
    "--disable-component-update",
    "--disable-sync",
]


def chromium() -> str:
    for candidate in (os.environ.get("BELLUM_CHROMIUM"), "/usr/bin/chromium", "chromium"):
        if candidate and (path := shutil.which(candidate)):
            return path
    pytest.skip("no Chromium on this machine (apt-get install chromium; .ci/run does)")


@pytest.fixture(scope="module")
def browser() -> Iterator[Any]:
    sync_api = pytest.importorskip("playwright.sync_api", reason="playwright is not installed")
    exe = chromium()
    profile = tempfile.mkdtemp(prefix="bellum-chromium-")
    with sync_api.sync_playwright() as pw:
        context = pw.chromium.launch_persistent_context(
            profile,
            executable_path=exe,
            headless=True,
            args=FLAGS,
            timeout=60_000,
            viewport={"width": 1280, "height": 800},
        )
        context.set_default_timeout(TIMEOUT_MS)
        try:
            yield context
        finally:
            context.close()
            shutil.rmtree(profile, ignore_errors=True)


class Server:
    """``bellum serve`` in a child process, with its output kept for failure reports."""

    def __init__(self, *args: str) -> None:
        self.proc = subprocess.Popen(
            [sys.executable, "-m", "bellum", "serve", "-p", "0", *args],
            cwd=ROOT,
            stdout=subprocess.PIPE,
            stderr=subprocess.STDOUT,
            text=True,
        )
        self.output: list[str] = []
        deadline = time.monotonic() + 30
        assert self.proc.stdout is not None
        while time.monotonic() < deadline:
            line = self.proc.stdout.readline()
            self.output.append(line)
            m = re.search(r"Listening on (http://\S+?)/?\s", line)
            if m:
                self.url = m.group(1)
                return
            if self.proc.poll() is not None:
                break
        self.stop()
        raise AssertionError("bellum serve did not start:\n" + "".join(self.output))

    def stop(self) -> str:
        if self.proc.poll() is None:
            self.proc.terminate()
            try:
                out, _ = self.proc.communicate(timeout=15)
            except subprocess.TimeoutExpired:
                self.proc.kill()
                out, _ = self.proc.communicate(timeout=5)
            self.output.append(out or "")
        return "".join(self.output)


@pytest.fixture(scope="module")
def frontier_server(tmp_path_factory: pytest.TempPathFactory) -> Iterator[Server]:
    world = tmp_path_factory.mktemp("web") / "frontier.toml"
    world.write_text(frontier())
    server = Server("--world", str(world), "--scenario", str(PANZER / "bocage.toml"))
    yield server
    print(server.stop())


@pytest.fixture
def page(browser: Any, frontier_server: Server) -> Iterator[Any]:
    p = browser.new_page()
    errors: list[str] = []
    p.on("pageerror", lambda e: errors.append(str(e)))
    yield p
    p.close()
    assert not errors, f"script errors: {errors}\nserver output:\n{frontier_server.stop()}"


def shot(page: Any, name: str) -> None:
    BUILD.mkdir(exist_ok=True)
    page.screenshot(path=str(BUILD / name))


def record(key: str, value: Any) -> None:
    """Keep a measurement in build/web-timings.json for the report."""
    BUILD.mkdir(exist_ok=True)
    path = BUILD / "web-timings.json"
    data = json.loads(path.read_text()) if path.exists() else {}
    data[key] = value
    path.write_text(json.dumps(data, indent=2) + "\n")


def test_plan_an_attack_watch_the_odds_and_fight(page: Any, frontier_server: Server) -> None:
    page.goto(frontier_server.url + "/empire?as=1")
    page.wait_for_selector("#map .sec")
    assert page.locator("#map .sec").count() == 1024
    shot(page, "web-empire-map.png")

    # Click an enemy sector on the front: the panel lists the attack with its sources.
    page.locator('#map .sec[data-key="1,1"]').click()
    page.wait_for_selector("#panel .way form[data-plan] .odds-box")
    attack = page.locator("#panel .way").first
    assert "Attack 1,1" in attack.locator("h3").inner_text()
    first_p = float(attack.locator(".odds-box").get_attribute("data-p"))
    ranges = attack.locator("input[type=range]")
    assert ranges.count() == 2
    assert ranges.first.get_attribute("max") == "107"

    # Move a slider with the keyboard: the odds follow as it moves, and once it rests.
    updates = int(attack.locator("form").get_attribute("data-updates") or 0)
    ranges.first.focus()
    for _ in range(60):
        page.keyboard.press("ArrowLeft")
    # Settled: the odds of the last position are shown.
    page.wait_for_function(
        """([f, n]) => +f.dataset.updates > n + 1
            && f.querySelector('.odds-box[data-request="rest"]:not(.stale)')""",
        arg=[attack.locator("form").element_handle(), updates],
        timeout=60_000,
    )
    assert ranges.first.input_value() == "47"
    assert attack.locator(".mirror").first.input_value() == "47"
    second_p = float(attack.locator(".odds-box").get_attribute("data-p"))
    assert second_p < first_p
    form = attack.locator("form")
    record("empire_odds_moving_ms", int(form.get_attribute("data-moving-ms") or -1))
    record("empire_odds_rest_ms", int(form.get_attribute("data-rest-ms") or -1))
    assert attack.locator("figure.chart").count() == 2
    shot(page, "web-empire-plan.png")

    # One click for the force a 90 % chance needs.
    attack.locator("button[data-action=need]").click()
    page.wait_for_selector("#panel .need-box")
    assert "Use this force" in attack.locator(".need-box").inner_text()
    attack.locator(".need-box button[data-use-mil]").click()
    page.wait_for_function(
        "(f) => +f.querySelector('input[type=range]').value > 47",
        arg=form.element_handle(),
    )

    # Fight with a seed, answering the server's questions as they come.
    attack.locator("input[name=seed]").fill("3")
    attack.locator("button.fight").click()
    answers = {"Are you sure": "y", "How many mil": "0", "Move in with": "n"}
    for step in range(6):
        page.wait_for_selector(f"#panel .fight-result[data-step='{step}']")
        question = page.locator("#panel form[data-answer] label.question")
        if question.count() == 0:
            break
        asked = question.inner_text()
        page.locator("#answer-input").fill(next(a for q, a in answers.items() if q in asked))
        page.keyboard.press("Enter")
    page.wait_for_selector("#panel .fight-result .outcome")
    page.wait_for_function("() => document.querySelector('#panel pre.transcript').dataset.done")
    text = page.locator("#panel pre.transcript").inner_text()
    assert "Final odds" in text and "Casualties" in text
    outcome = page.locator("#panel .fight-result").get_attribute("data-outcome")
    if outcome == "captured":
        page.wait_for_function(
            "() => document.querySelector('#map .sec[data-key=\"1,1\"]').classList.contains('r-own')"
        )
    shot(page, "web-empire-fight.png")

    # The command is in the history, and replays bit for bit.
    page.goto(frontier_server.url + "/empire/history")
    assert "attack 1,1" in page.locator("table.history").inner_text()
    page.locator("table.history a", has_text="replay").first.click()
    page.wait_for_selector(".replay.ok")


def test_click_their_ship_or_unit_on_the_map(page: Any, frontier_server: Server) -> None:
    """The markers of others' ships and units open the ways to take them."""
    page.goto(frontier_server.url + "/empire?as=1")
    page.wait_for_selector("#map .sec")
    page.click("button[data-zoom=fit]")
    page.locator('#map .thing[data-kind="ship"][data-id="1"]').click()
    page.wait_for_selector('#panel h2[data-at="27,-1"]')
    assert "cargo ship (#1)" in page.locator("#panel h2").inner_text()
    board = page.locator("#panel .way").first
    assert "board from tt troop transport (#0)" in board.locator("h3").inner_text().lower()
    # The generated cargo ship outruns the transport: the server's refusal, no controls.
    assert "moves faster than you do" in board.locator(".refusal").inner_text()
    assert page.locator("#map .thing.chosen").get_attribute("data-id") == "1"
    assert page.locator("#picked").get_attribute("visibility") == "visible"
    shot(page, "web-empire-ship.png")

    # A land unit on their land: lboard is refused, and its sector is one click away.
    page.locator('#map .thing[data-kind="unit"][data-id="4"]').click()
    page.wait_for_selector('#panel h2[data-at="3,-1"]')
    assert "cavalry #4" in page.locator("#panel h2").inner_text()
    page.locator("#panel button[data-pick][data-kind=sector]").click()
    page.wait_for_function(
        "() => document.querySelector('#panel h2').textContent.startsWith('3,-1 ')"
    )
    assert "attack 3,-1" in page.locator("#panel .way h3").first.inner_text().lower()


def test_refusal_is_shown_where_it_applies(page: Any, frontier_server: Server) -> None:
    page.goto(frontier_server.url + "/empire?as=1")
    page.fill("#goto", "9,1")
    page.keyboard.press("Enter")
    page.wait_for_selector("#panel .refusal")
    attack = page.locator("#panel .way").first
    assert "You are not adjacent to 9,1" in attack.locator(".refusal").inner_text()
    assert attack.locator("button.fight").count() == 0


def test_keyboard_only(page: Any, frontier_server: Server) -> None:
    """The map takes the focus, arrows move its cursor, Enter plans; sliders by Tab."""
    page.goto(frontier_server.url + "/empire?as=1")
    page.locator("#map").focus()
    for key in ["ArrowRight", "ArrowDown", "ArrowLeft", "ArrowUp", "Enter"]:
        page.keyboard.press(key)
    page.wait_for_selector("#panel .way form[data-plan]")
    # From 0,0: right to 2,0, down to 3,1, left to 1,1, up to 0,0 (the enemy's; the
    # first test's fight may have taken 1,1 but leaves 0,0 to Borduria).
    assert page.locator("#panel h2").inner_text().startswith("0,0 ")
    assert page.locator("#picked").get_attribute("visibility") == "visible"
    page.locator("#map").focus()
    width = float(page.locator("#map").get_attribute("viewBox").split()[2])
    page.keyboard.press("+")
    page.wait_for_function(
        "(w) => +document.querySelector('#map').getAttribute('viewBox').split(' ')[2] < w",
        arg=width,
    )
    # A screen reader hears what is under the cursor: the sector's own tooltip.
    page.keyboard.press("ArrowRight")
    assert page.locator("#cursor-say").inner_text().startswith("2,0 ")

    # Every control of the plan is reached with Tab from the panel, in order; the rule
    # profile and options once their summary is opened with Enter.
    expected = page.evaluate(
        """() => [...document.querySelectorAll('#panel .way form[data-plan] :is(input:not([type=hidden]), button, select, summary)')]
            .filter((e) => !e.disabled).map((e, i) => { e.dataset.kb = i; return i; })"""
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
        if page.evaluate("() => document.activeElement.tagName") == "SUMMARY":
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
    page.goto(frontier_server.url + "/empire?as=1")
    page.wait_for_selector("#map .sec")
    page.click("button[data-zoom=fit]")
    page.evaluate(
        """() => { window.frames_ = []; let last = performance.now();
        const tick = (t) => { window.frames_.push(t - last); last = t;
          if (window.frames_.length < 400) requestAnimationFrame(tick); };
        requestAnimationFrame(tick); }"""
    )
    before = page.locator("#map").get_attribute("viewBox")
    page.mouse.move(400, 400)
    for _ in range(10):
        page.mouse.wheel(0, -120)
        page.wait_for_timeout(16)
    page.mouse.down()
    for i in range(30):
        page.mouse.move(400 - 8 * i, 400 - 4 * i)
    page.mouse.up()
    page.wait_for_timeout(200)
    after = page.locator("#map").get_attribute("viewBox")
    assert after != before
    frames = page.evaluate("window.frames_")
    frames = sorted(frames[1:])
    if frames:
        record(
            "map_pan_zoom_frame_ms",
            {
                "median": round(frames[len(frames) // 2], 1),
                "p95": round(frames[int(0.95 * len(frames))], 1),
            },
        )
    shot(page, "web-empire-zoomed.png")


def test_panzer_explain_then_resolve(page: Any, frontier_server: Server) -> None:
    page.goto(frontier_server.url + "/panzer")
    page.wait_for_selector("#pz-plan .odds-box")
    assert "modified assault =" in page.locator("#pz-plan").inner_text()
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
    page.wait_for_function(  # the explain table of the three (the map shows them at once)
        "(p) => document.querySelector('#pz-plan .odds-box')?.dataset.p === p", arg=before
    )
    assert "us-tk" in page.locator("#pz-plan table.explain").first.inner_text()
    shot(page, "web-panzer-explain.png")
    page.fill("#pz-form input[name=seed]", "7")
    page.click("button[data-action=resolve]")
    page.wait_for_selector("#pz-result .pz-result")
    assert "vs d6" in page.locator("#pz-result").inner_text()
    assert "seed 7" in page.locator("#pz-result h3").inner_text()
    shot(page, "web-panzer-resolve.png")
