"""The plans of one question share work without changing an answer (issue 23).

A sampled plan meets the same paths to its fight again and again: the runs of the command
are kept and a known path is drawn without running it, with the same draws, so the
samples are the ones a fresh run per sample gives.  The garrisons of the defense as seen
are one world frozen once and edited, not copied whole.  A sweep's plans may be shared
with a worker process.  Each time the answer is the one of the plan studied alone, bit
for bit: on the realistic suite's smallest world (w32x16-attack-2: a fortified
defender, forts and artillery, reserve units), whose plans are sampled.
"""

from __future__ import annotations

import sys
import threading
from functools import cache
from pathlib import Path

import numpy as np
import pytest

from bellum.empire.combat.state import roundint10
from bellum.empire.odds import Plan, Request, Sweep, engine, plan_odds, study
from bellum.empire.odds.branching import BranchingDice
from bellum.empire.odds.engine import PlanRunner, _Bounded
from bellum.empire.odds.questions import OFFSETS, as_seen
from bellum.empire.orders import Order
from bellum.empire.scratch import WorldTemplate
from bellum.empire.world import World

#: The module, which the package's function of the same name hides.
study_module = sys.modules["bellum.empire.odds.study"]
DUMP = Path(__file__).resolve().parents[2] / "benchmarks" / "worlds" / "w32x16.xdump"
ROME = 1
ORDER = Order("attack", ("-9,7",))
SOURCE = (3, 9)  # -8,6 to Rome
TARGET = (2, 10)  # -9,7


@cache
def _world() -> World:
    from bellum.empire.io.xdump.mapping import dump_to_world, read_dump

    return dump_to_world(read_dump(DUMP))


def world() -> World:
    return _world().copy()


def plan(mil: int) -> Plan:
    return Plan(ORDER, {SOURCE: mil}, frozenset({1}))


def odds_doc(o: object) -> tuple[object, ...]:
    """Everything an answer says, timings aside."""
    from bellum.empire.odds.engine import EmpireOdds

    assert isinstance(o, EmpireOdds)
    losses = {k: (d.values.tolist(), d.probs.tolist()) for k, d in o.odds.losses.items()}
    return (o.odds.outcomes, losses, o.method, o.standard_error, o.expected_errors,
            o.samples, o.leaves, o.fights, o.lines, o.final, o.notes)  # fmt: skip


@pytest.mark.parametrize("keep", [40, 2], ids=["paths kept", "paths dropped"])
def test_a_known_path_is_drawn_as_a_run_draws_it_without_running_the_command(
    keep: int, monkeypatch: pytest.MonkeyPatch
) -> None:
    """Keeping the paths, or dropping them once they do not repeat enough (here after 2
    runs), the samples are a fresh run's, with the same draws."""
    monkeypatch.setattr(engine, "KEEP_PATHS", keep)
    w = world()
    kept = PlanRunner(w, ROME, plan(80))
    fresh = PlanRunner(w, ROME, plan(80))
    a, b = np.random.default_rng(7), np.random.default_rng(7)
    paths: set[tuple[int, ...]] = set()
    for _ in range(100):
        dice = BranchingDice(rng=b)
        got, want = kept.sample(a), fresh(dice)
        paths.add(tuple(dice.path))
        assert got.combat is not None and want.combat is not None
        assert got.text == want.text
        assert (got.combat.osup, got.combat.dsup) == (want.combat.osup, want.combat.dsup)
        assert got.result.final_attack == want.result.final_attack
    assert a.random() == b.random()  # the same draws of the generator
    if keep == 2:
        assert kept.samples == 100 and kept.runs < 10 and not kept.keeping
        return
    # The command ran once per path, not once per sample.
    assert (kept.samples, kept.runs) == (100, len(paths)) and len(paths) < 50


def test_a_garrison_is_the_world_frozen_once_with_its_mil() -> None:
    w = world()
    base = WorldTemplate(w)
    xy = TARGET
    before = w.sector(xy).mil

    def set_mil(scratch: World) -> None:
        scratch.sector(xy).mil = before + 3

    garrison = base.edited(set_mil)
    assert garrison.scratch().sector(xy).mil == before + 3
    assert base.scratch().sector(xy).mil == before == w.sector(xy).mil
    copied = w.copy()
    set_mil(copied)
    assert garrison.frozen.sector(xy) == copied.sector(xy)
    assert garrison.scratch().units == copied.units


def test_the_defense_as_seen_of_one_garrison_is_that_garrisons_odds() -> None:
    w = world()
    xy = TARGET
    shown = roundint10(w.sector(xy).mil)
    weights = [0.0] * len(OFFSETS)
    weights[OFFSETS.index(2)] = 1.0
    seen = as_seen(w, ROME, plan(120), weights=weights, seed=5)
    alone = w.copy()
    alone.sector(xy).mil = shown + 2
    o = plan_odds(alone, ROME, plan(120), seed=5)
    assert seen.odds.outcomes == o.odds.outcomes
    assert seen.expected("defender") == o.expected("defender")
    assert seen.standard_error == o.standard_error


@pytest.mark.parametrize("shared", [False, True], ids=["one process", "with a worker"])
def test_a_sweeps_rows_are_each_plan_studied_alone(
    shared: bool, monkeypatch: pytest.MonkeyPatch
) -> None:
    """A sweep shares a process's caches between its plans and, past a second of work,
    its plans with a worker: each row is still the plan's own answer, bit for bit."""
    monkeypatch.setattr(study_module, "SHARE_FROM", 0.0 if shared else float("inf"))
    monkeypatch.setattr(study_module.os, "cpu_count", lambda: 2)
    monkeypatch.setattr(study_module.os, "getloadavg", lambda: (0.5, 0.5, 0.5))
    monkeypatch.setattr(study_module.threading, "active_count", lambda: 1)
    values = (60, 90, 240)
    w = world()
    done = study(w, ROME, Request(ORDER, units=(1,), sweep=Sweep("-8,6", values), seed=3))
    for row, n in zip(done.rows, values, strict=True):
        alone = plan_odds(world(), ROME, plan(n), seed=3)
        assert odds_doc(row.odds) == odds_doc(alone)


@pytest.mark.parametrize("targets", [(0.5, 0.9, 0.99)])
def test_the_force_needed_with_a_worker_is_the_least_as_alone(
    targets: tuple[float, ...], monkeypatch: pytest.MonkeyPatch
) -> None:
    """With a worker the search also solves the totals beside each step's (ahead of need):
    the total found is the least that reaches the chance, as one plan a step finds it."""
    from bellum.empire import load_world

    world_a = load_world(Path(__file__).resolve().parents[2] / "examples/empire/vector-a.toml")
    order = Order("attack", ("2,0",))
    monkeypatch.setattr(study_module.os, "cpu_count", lambda: 2)
    monkeypatch.setattr(study_module.os, "getloadavg", lambda: (0.5, 0.5, 0.5))
    monkeypatch.setattr(study_module.threading, "active_count", lambda: 1)
    seen: list[float] = []

    def heard(stage: str, done: float) -> None:
        seen.append(done)

    for target in targets:
        found = []
        for share in (float("inf"), 0.0):
            monkeypatch.setattr(study_module, "SHARE_FROM", share)
            seen.clear()
            done = study(world_a, 1, Request(order, need=target, seed=1), progress=heard)
            assert done.need is not None and done.need.total is not None
            assert seen == sorted(seen) and seen[-1] == 1.0 and seen[0] < 0.5
            found.append((done.need.total, odds_doc(done.odds)))
        assert found[0] == found[1]
        total = found[0][0]
        fewer = Plan(order, {(0, 0): total - 1})
        assert plan_odds(world_a, 1, fewer, seed=1).p_success < target


def test_a_process_running_other_threads_forks_no_worker(monkeypatch: pytest.MonkeyPatch) -> None:
    """A web server answers in threads: a fork there could leave a lock held for good
    in the child, so its studies solve their plans in the process itself."""
    import threading

    monkeypatch.setattr(study_module.os, "cpu_count", lambda: 2)
    monkeypatch.setattr(study_module.os, "getloadavg", lambda: (0.5, 0.5, 0.5))
    monkeypatch.setattr(study_module.threading, "active_count", lambda: 1)
    assert study_module._workers_for(1.0, 10) == 1
    monkeypatch.undo()
    monkeypatch.setattr(study_module.os, "cpu_count", lambda: 2)
    monkeypatch.setattr(study_module.os, "getloadavg", lambda: (0.5, 0.5, 0.5))
    stop = threading.Event()
    other = threading.Thread(target=stop.wait)
    other.start()
    try:
        assert study_module._workers_for(1.0, 10) == 0
    finally:
        stop.set()
        other.join()


def test_the_shared_caches_take_stores_from_several_threads() -> None:
    """The web server answers odds from a thread pool on one world, so its caches of
    shared work are stored into by several threads at once: eviction must not trip over
    another thread's (it raised KeyError within a few thousand stores before it was
    locked)."""
    shared = _Bounded(4)
    errors: list[BaseException] = []

    def store(base: int) -> None:
        try:
            for i in range(20_000):
                shared[(base, i)] = i
        except Exception as exc:  # any failure is the finding
            errors.append(exc)

    interval = sys.getswitchinterval()
    sys.setswitchinterval(1e-6)
    try:
        threads = [threading.Thread(target=store, args=(k,)) for k in range(4)]
        for t in threads:
            t.start()
        for t in threads:
            t.join()
    finally:
        sys.setswitchinterval(interval)
    assert errors == []
    assert len(shared) <= 4


def test_a_big_fight_another_answer_solved_does_not_change_this_one(monkeypatch) -> None:
    """An answer that may not solve a big fight exactly gets the same figures whether or
    not an earlier answer in the process (planning precision, the compiled kernel) solved
    it into the world's shared cache: same question, same seed, same answer.  The kernel
    runs as plain Python here, so the test needs no numba."""
    from bellum.empire.io.toml import load_world
    from bellum.empire.odds import make_plan
    from bellum.odds import _kernels

    monkeypatch.setattr(engine, "numba_wanted", lambda: True)
    monkeypatch.setattr(engine, "numba_importable", lambda: None)
    monkeypatch.setattr(_kernels, "compiled", lambda name: getattr(_kernels, name))
    examples = Path(__file__).resolve().parents[2] / "examples" / "empire"
    w = load_world(examples / "vector-b.toml")
    p = make_plan(w, 1, Order.parse("attack 2,0"), ["0,0=150"], [])
    sampled = {"exact_pairs": 1_000, "samples": 8, "seed": 3}
    before = plan_odds(w, 1, p, **sampled)
    assert "drawn" in before.method  # the fight is too big for this answer's limits
    planned = plan_odds(w, 1, p, exact_pairs=1_000)
    assert planned.method == "exact"  # ... and one the kernel solves under the planner's
    assert odds_doc(plan_odds(w, 1, p, **sampled)) == odds_doc(before)


def test_a_fight_the_kernel_solved_does_not_change_the_numpy_answer(monkeypatch) -> None:
    """The compiled kernel and numpy sum in different orders, so the same fight's ends
    differ in their last bits: a fight one answer gave to the kernel (``exact_pairs``
    under the fight's size) is not the fight another answer solves with numpy."""
    from bellum.empire.io.toml import load_world
    from bellum.empire.odds import make_plan
    from bellum.odds import _kernels

    monkeypatch.setattr(engine, "numba_wanted", lambda: True)
    monkeypatch.setattr(engine, "numba_importable", lambda: None)
    monkeypatch.setattr(_kernels, "compiled", lambda name: getattr(_kernels, name))
    examples = Path(__file__).resolve().parents[2] / "examples" / "empire"
    w, fresh = (load_world(examples / "vector-b.toml") for _ in range(2))
    p = make_plan(w, 1, Order.parse("attack 2,0"), ["0,0=150"], [])
    kernel = plan_odds(w, 1, p, exact_pairs=1_000, seed=3)
    alone = odds_doc(plan_odds(fresh, 1, p, seed=3))
    assert kernel.method == "exact" and odds_doc(kernel) != alone
    assert odds_doc(plan_odds(w, 1, p, seed=3)) == alone
