"""The planner's use of its pool: candidates probed by the workers, runs cut so that the
workers end together, and the solver imported while they work."""

from __future__ import annotations

import multiprocessing
import os
import subprocess
import sys
import textwrap
import time
from dataclasses import dataclass, field

from planworlds import airborne, front

from bellum.empire.odds import Plan
from bellum.empire.orders import Order
from bellum.empire.plan.candidates import candidates, forces
from bellum.empire.plan.curves import (
    CHUNK,
    MIN_TASKS,
    LocalPool,
    WorldPickle,
    _chunks,
    solve_chunk,
    solve_points,
)
from bellum.empire.plan.precision import PLANNING
from bellum.empire.plan.threats import threat_map
from bellum.empire.rules import Rules
from bellum.empire.world import World


def _world() -> World:
    """A front (attacks, land units) with transports behind it (paradrops)."""
    world = airborne(3)
    plain = front(3)
    world.units.update(plain.units)
    return world


def test_a_pool_probes_the_same_candidates_in_the_same_order() -> None:
    world = _world()
    rules = Rules.of(world.options)
    alone = candidates(world, 1, rules)
    assert {c.order.name for c in alone} >= {"attack", "paradrop"}
    assert any(c.units for c in alone)
    with LocalPool(2) as pool:
        pooled = candidates(world, 1, rules, pool=pool)
    assert pooled == alone
    with LocalPool(1) as pool:  # in this process: the same again
        assert candidates(world, 1, rules, pool=pool) == alone
    some = {alone[0].target, alone[-1].target}
    with LocalPool(2) as pool:
        assert candidates(world, 1, rules, some, pool=pool) == candidates(world, 1, rules, some)


@dataclass
class _Watched(LocalPool):
    """A pool that notes which job each of its runs did."""

    jobs_run: list[str] = field(default_factory=list)

    def run(self, worlds, tasks, seed, precision, job=solve_chunk):  # type: ignore[no-untyped-def, override]
        self.jobs_run.append(job.__name__)
        return super().run(worlds, tasks, seed, precision, job)


def test_a_threat_maps_pool_probes_the_enemys_orders() -> None:
    """The enemy's orders are probed by the pool's workers (a whole turn of them on a
    real world is a third of the map's time), and the map is the one made without it."""
    world = _world()
    heard: dict[str, list[float]] = {}
    with _Watched(2) as pool:
        pooled = threat_map(world, 2, pool=pool,
                            progress=lambda what, f: heard.setdefault(what, []).append(f))  # fmt: skip
    assert "probe_chunk" in pool.jobs_run and "solve_chunk" in pool.jobs_run
    probed = heard["orders of country 1"]  # the probes are a phase of their own on a terminal
    assert probed == sorted(probed) and probed[-1] == 1.0 and heard["strikes of country 1"]
    alone = threat_map(world, 2)
    assert pooled.threats and pooled == alone


def _sleepy(digest, source, country, plans, seed, precision):  # type: ignore[no-untyped-def]
    """A pool job that takes ``plans[0]`` seconds."""
    time.sleep(plans[0])
    return [os.getpid()]


def test_a_run_stopped_early_ends_its_workers_and_the_pool_goes_on() -> None:
    """A caller that stops reading (the planner out of time, Ctrl-C) leaves no worker on
    a task nobody will read: it would take a core from the next run and hold up the
    exit.  The pool then starts new workers for its next run."""
    world = WorldPickle.of(_world())
    with LocalPool(2) as pool:
        run = pool.run([world], [(0, 1, [0.0])] + [(0, 1, [60.0])] * 4, 0, PLANNING, _sleepy)
        next(run)
        old = set(multiprocessing.active_children())
        assert len(old) == 2
        run.close()
        assert not set(multiprocessing.active_children()) & old
        again = pool.run([world], [(0, 1, [0.0])] * 2, 0, PLANNING, _sleepy)
        assert sorted(k for k, _ in again) == [0, 1]
    assert not multiprocessing.active_children()


def _plans(orders: list[str]) -> list[Plan]:
    return [Plan(Order.parse(o), {(0, 0): n}) for n, o in enumerate(orders)]


def test_few_plans_go_one_a_task_and_many_in_chunks_of_one_order() -> None:
    few = _plans(["attack 1,1"] * MIN_TASKS)
    assert [len(c) for _, c in _chunks(few)] == [1] * MIN_TASKS
    many = _plans(["attack 1,1"] * 9 + ["attack 3,1"] * 30 + ["attack 5,1"])
    chunks = list(_chunks(many))
    assert all(0 < len(c) <= CHUNK and len({p.order for p in c}) == 1 for _, c in chunks)
    assert [p for _, c in chunks for p in c] == many
    assert [start for start, _ in chunks] == [sum(len(c) for _, c in chunks[:k])
                                              for k in range(len(chunks))]  # fmt: skip
    assert max(len(c) for _, c in chunks) == CHUNK


def test_warm_imports_the_solver_in_the_background_and_a_fork_waits_for_it() -> None:
    code = textwrap.dedent(
        """
        import os, sys
        from bellum.empire.plan.allocate import warm
        assert "scipy.optimize" not in sys.modules
        thread = warm()
        assert thread is not None and thread.daemon and thread.is_alive()
        child = os.fork()  # at once, in the middle of the import
        if child == 0:  # the import was whole before the fork
            from scipy.optimize import milp
            os._exit(0 if callable(milp) and not thread.is_alive() else 3)
        assert not thread.is_alive()
        assert os.waitpid(child, 0)[1] == 0
        assert "scipy.optimize" in sys.modules and "scipy.sparse" in sys.modules
        assert warm() is None
        """
    )
    ran = subprocess.run([sys.executable, "-c", code], capture_output=True, text=True, timeout=60)
    assert ran.returncode == 0, ran.stderr


def test_plans_side_by_side_start_one_import_between_them() -> None:
    code = textwrap.dedent(
        """
        import sys, threading, time
        from bellum.empire.plan.allocate import warm
        assert "scipy.optimize" not in sys.modules
        start = threading.Thread.start
        def slow_start(thread):  # widen the race: without the lock, several imports start
            if thread.name == "import-highs":
                time.sleep(0.02)
            start(thread)
        threading.Thread.start = slow_start
        started, gate = [], threading.Barrier(8)
        def plan():
            gate.wait()
            started.append(warm())
        threads = [threading.Thread(target=plan) for _ in range(8)]
        for t in threads:
            t.start()
        for t in threads:
            t.join()
        imports = [t for t in started if t is not None]
        assert len(imports) == 1, started
        imports[0].join()
        assert "scipy.optimize" in sys.modules
        """
    )
    ran = subprocess.run([sys.executable, "-c", code], capture_output=True, text=True, timeout=60)
    assert ran.returncode == 0, ran.stderr


def test_a_fork_while_the_import_is_being_started_waits_for_it() -> None:
    """``warm`` names its thread before starting it; a fork from another thread in that
    moment must still wait for the import (the thread is not alive yet)."""
    code = textwrap.dedent(
        """
        import threading, time
        from bellum.empire.plan import allocate
        imported, settled, hooks = [], [], []
        allocate._import_solver = lambda: (time.sleep(0.3), imported.append(True))
        start = threading.Thread.start
        def fork_hook():
            allocate._settle()
            settled.append(bool(imported))
        def slow_start(thread):
            if thread.name == "import-highs":  # warm's thread, named and not started yet
                hooks.append(threading.Thread(target=fork_hook))
                start(hooks[0])
                time.sleep(0.1)
            start(thread)
        threading.Thread.start = slow_start
        allocate.warm()
        threading.Thread.start = start
        hooks[0].join()
        assert settled == [True], settled
        """
    )
    ran = subprocess.run([sys.executable, "-c", code], capture_output=True, text=True, timeout=60)
    assert ran.returncode == 0, ran.stderr


def test_a_run_without_a_pool_leaves_no_worker_behind(monkeypatch) -> None:
    monkeypatch.setattr("os.cpu_count", lambda: 2)  # a pool of workers even on one core
    world = front(3)
    plans = [f.plan for f in forces(candidates(world, 1, Rules.of(world.options)), 2)]
    assert len(plans) > 1  # more than one task: the run starts worker processes
    assert not multiprocessing.active_children()
    alone, _ = solve_points(world, 1, plans, seed=3)
    assert not multiprocessing.active_children()
    with LocalPool(1) as pool:
        assert solve_points(world, 1, plans, seed=3, pool=pool)[0] == alone
