"""Resolver runs: the real command, played many times, to check the odds (issue 11 item 3).

Each run plays the whole command — reactions, support, morale, the capture —
on a scratch copy of the world (:class:`~bellum.empire.scratch.WorldTemplate`
freezes the world once; each run gets fresh copies of what it touches),
answering the prompts from the plan.  Run ``i`` always uses the ``i``-th seed
drawn from ``SeedSequence(seed)``, so the results do not depend on how the
runs are shared among ``jobs`` processes.
"""

from __future__ import annotations

import math
import signal
import time
from collections import Counter
from collections.abc import Callable
from dataclasses import dataclass
from typing import TYPE_CHECKING

import numpy as np

from bellum.dice import ServerRandom
from bellum.empire.combat.dispatch import run_order
from bellum.empire.odds.engine import SUCCESS
from bellum.empire.odds.plan import Plan, PlanPrompter
from bellum.empire.scratch import WorldTemplate
from bellum.empire.world import World

if TYPE_CHECKING:
    from concurrent.futures import Future

#: Runs handed to a worker at a time (progress is reported per chunk).
CHUNK = 100


@dataclass(frozen=True)
class ResolverRuns:
    """What ``runs`` plays of the real command gave."""

    runs: int
    seed: int
    outcomes: dict[str, int]
    attacker_losses: tuple[int, ...]
    defender_losses: tuple[int, ...]

    @property
    def p_success(self) -> float:
        return sum(self.outcomes.get(k, 0) for k in SUCCESS) / self.runs

    @property
    def standard_error(self) -> float:
        """Of :attr:`p_success` (binomial; at least that of one success in the runs)."""
        p = self.p_success
        return math.sqrt(max(p * (1 - p), 1.0 / self.runs) / self.runs)

    def mean(self, side: str) -> float:
        values = self.attacker_losses if side == "attacker" else self.defender_losses
        return float(np.mean(values))


# The worker's state, inherited when the pool forks (or set by its initializer).
_JOB: tuple[WorldTemplate, int, Plan, list[int]] | None = None


def _init(job: tuple[WorldTemplate, int, Plan, list[int]]) -> None:
    global _JOB
    _JOB = job
    signal.signal(signal.SIGINT, signal.SIG_IGN)  # the parent handles Ctrl-C


def _play(lo: int, hi: int) -> list[tuple[str, int, int]]:
    assert _JOB is not None
    template, country, plan, seeds = _JOB
    rules = plan.rules_in(template.frozen)
    out: list[tuple[str, int, int]] = []
    for s in seeds[lo:hi]:
        w = template.scratch()
        r = run_order(w, plan.order, country, ServerRandom(s), PlanPrompter(plan), rules=rules)
        out.append((r.outcome, r.attacker_casualties, r.defender_casualties))
    return out


def resolver_runs(
    world: World,
    country: int,
    plan: Plan,
    runs: int,
    seed: int,
    *,
    jobs: int = 1,
    progress: Callable[[float], None] | None = None,
) -> ResolverRuns:
    """Play ``plan`` ``runs`` times as ``country`` on copies of ``world`` (left unchanged)."""
    seeds = [int(s) for s in np.random.SeedSequence(seed).generate_state(runs)]
    job = (WorldTemplate(world), country, plan, seeds)
    chunks = [(lo, min(lo + CHUNK, runs)) for lo in range(0, runs, CHUNK)]
    results: dict[int, list[tuple[str, int, int]]] = {}
    if jobs <= 1 or runs <= CHUNK:
        _init_local(job)
        for i, (lo, hi) in enumerate(chunks):
            results[i] = _play(lo, hi)
            if progress is not None:
                progress(hi / runs)
    else:
        results = _parallel(job, chunks, jobs, runs, progress)
    played = [r for i in range(len(chunks)) for r in results[i]]
    return ResolverRuns(
        runs=runs,
        seed=seed,
        outcomes=dict(Counter(o for o, _, _ in played)),
        attacker_losses=tuple(a for _, a, _ in played),
        defender_losses=tuple(d for _, _, d in played),
    )


def seconds_per_run(
    world: World, country: int, plan: Plan, seed: int, *, budget: float = 0.2
) -> float:
    """What one run of :func:`resolver_runs` costs here, measured before a long job starts.

    A few runs (at most ``budget`` seconds' worth, and 30) are played on a frozen copy
    of ``world``; the first, which pays for warming up, and the freeze itself, paid once
    per job, are left out of the mean.  ``world`` is left unchanged.
    """
    template = WorldTemplate(world)
    rules = plan.rules_in(world)
    times: list[float] = []
    spent = 0.0
    for s in np.random.SeedSequence(seed).generate_state(31):
        started = time.perf_counter()
        prompter = PlanPrompter(plan)
        run_order(
            template.scratch(), plan.order, country, ServerRandom(int(s)), prompter, rules=rules
        )
        took = time.perf_counter() - started
        times.append(took)
        spent += took
        if len(times) > 2 and spent > budget:
            break
    measured = times[1:] or times
    return sum(measured) / len(measured)


def _init_local(job: tuple[WorldTemplate, int, Plan, list[int]]) -> None:
    global _JOB
    _JOB = job


def _parallel(
    job: tuple[WorldTemplate, int, Plan, list[int]],
    chunks: list[tuple[int, int]],
    jobs: int,
    runs: int,
    progress: Callable[[float], None] | None,
) -> dict[int, list[tuple[str, int, int]]]:
    # A process pool costs its imports only to a command that plays in parallel.
    import multiprocessing
    from concurrent.futures import FIRST_COMPLETED, ProcessPoolExecutor, wait

    methods = multiprocessing.get_all_start_methods()
    ctx = multiprocessing.get_context("fork" if "fork" in methods else None)
    results: dict[int, list[tuple[str, int, int]]] = {}
    pool = ProcessPoolExecutor(jobs, mp_context=ctx, initializer=_init, initargs=(job,))
    try:
        pending: dict[Future[list[tuple[str, int, int]]], int] = {
            pool.submit(_play, lo, hi): i for i, (lo, hi) in enumerate(chunks)
        }
        done_runs = 0
        while pending:
            done, _ = wait(pending, return_when=FIRST_COMPLETED)
            for fut in done:
                i = pending.pop(fut)
                results[i] = fut.result()
                done_runs += len(results[i])
            if progress is not None:
                progress(done_runs / runs)
    except BaseException:
        pool.shutdown(wait=False, cancel_futures=True)
        raise
    pool.shutdown()
    return results


__all__ = ["ResolverRuns", "resolver_runs", "seconds_per_run"]
