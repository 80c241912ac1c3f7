"""The collector's thresholds while odds are solved (bellum.collector)."""

from __future__ import annotations

import gc
import os
import threading
import time
from collections.abc import Iterator
from pathlib import Path

import pytest

import bellum.collector as collector
from bellum.collector import THRESHOLDS, fewer_collections
from bellum.empire import load_world
from bellum.empire.odds import plan_odds
from bellum.empire.odds.plan import make_plan
from bellum.empire.orders import Order

EXAMPLES = Path(__file__).resolve().parents[1] / "examples" / "empire"


@pytest.fixture(autouse=True)
def default_thresholds() -> Iterator[None]:
    before = gc.get_threshold()
    gc.set_threshold(700, 10, 10)
    yield
    gc.set_threshold(*before)


def test_raised_inside_and_restored_after() -> None:
    with fewer_collections():
        assert gc.get_threshold() == THRESHOLDS
        with fewer_collections():
            assert gc.get_threshold() == THRESHOLDS
        assert gc.get_threshold() == THRESHOLDS  # the outer block still runs
    assert gc.get_threshold() == (700, 10, 10)


def test_restored_after_an_error() -> None:
    with pytest.raises(ZeroDivisionError), fewer_collections():
        1 / 0  # noqa: B018
    assert gc.get_threshold() == (700, 10, 10)


def test_threads_overlapping_restore_the_first_setting() -> None:
    """Thread A enters, B enters, A leaves, B leaves: B must not restore A's raised
    thresholds as the ones before."""
    a_in, b_in, a_out = threading.Event(), threading.Event(), threading.Event()
    seen: list[tuple[int, int, int]] = []

    def a() -> None:
        with fewer_collections():
            a_in.set()
            b_in.wait(5)
        a_out.set()

    def b() -> None:
        a_in.wait(5)
        with fewer_collections():
            b_in.set()
            a_out.wait(5)
            seen.append(gc.get_threshold())

    threads = [threading.Thread(target=f) for f in (a, b)]
    for t in threads:
        t.start()
    for t in threads:
        t.join(10)
    assert seen == [THRESHOLDS]  # still raised while B runs, after A left
    assert gc.get_threshold() == (700, 10, 10)


def test_a_child_forked_while_another_thread_holds_the_lock_can_enter() -> None:
    with collector._lock:  # as another thread entering or leaving a block at the fork
        pid = os.fork()
        if pid == 0:  # the child: entering must not wait for the parent's thread
            with fewer_collections():
                entered = gc.get_threshold() == THRESHOLDS
            os._exit(0 if entered else 1)
        deadline = time.monotonic() + 20
        while (done := os.waitpid(pid, os.WNOHANG))[0] == 0 and time.monotonic() < deadline:
            time.sleep(0.05)
        if done[0] == 0:
            os.kill(pid, 9)
            os.waitpid(pid, 0)
    assert done[0] == pid, "the child waited for a lock no thread of it holds"
    assert os.waitstatus_to_exitcode(done[1]) == 0


def test_odds_are_solved_with_fewer_collections_and_leave_the_setting(
    monkeypatch: pytest.MonkeyPatch,
) -> None:
    world = load_world(EXAMPLES / "vector-a.toml")
    during: list[tuple[int, int, int]] = []
    real = gc.get_threshold
    import bellum.empire.odds.engine as engine

    original = engine.PlanRunner.__call__

    def spy(self: engine.PlanRunner, *args: object, **kw: object) -> object:
        during.append(real())
        return original(self, *args, **kw)  # type: ignore[arg-type]

    monkeypatch.setattr(engine.PlanRunner, "__call__", spy)
    plan = make_plan(world, 1, Order.parse("attack 2,0 y y y y"), ["0,0=60"], [])
    assert plan_odds(world, 1, plan, seed=1).method == "exact"
    assert during and set(during) == {THRESHOLDS}
    assert gc.get_threshold() == (700, 10, 10)


def test_a_child_forked_inside_another_threads_block_gets_the_default_back() -> None:
    """The parent's thread never leaves its block in the child: the child must not keep
    the raised thresholds once its own block ends."""
    inside, release = threading.Event(), threading.Event()

    def study() -> None:
        with fewer_collections():
            inside.set()
            release.wait(10)

    t = threading.Thread(target=study)
    t.start()
    inside.wait(5)
    try:
        pid = os.fork()
        if pid == 0:
            with fewer_collections():
                pass
            os._exit(0 if gc.get_threshold() == (700, 10, 10) else 1)
        _, status = os.waitpid(pid, 0)
    finally:
        release.set()
        t.join(10)
    assert os.waitstatus_to_exitcode(status) == 0
    assert gc.get_threshold() == (700, 10, 10)
