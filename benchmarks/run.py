"""Benchmarks of the odds engine: ``python benchmarks/run.py``.

Prints one JSON line per case on standard output (remarks go to standard
error) with ``case``, ``seconds``, ``baseline_seconds``,
``ratio`` (baseline / seconds), ``max_abs_error`` and some context.  Each case
runs with numba (if installed) and with numpy only; ``BELLUM_NO_NUMBA=1`` or
``--numpy-only`` skips numba.

The baseline, measured in the same run, is a plain-Python Monte Carlo that
simulates the same model casualty by casualty until its standard error equals
the accuracy the case reaches (at least 1e-12 for the exact solvers).  That
would take far too long, so its time per run is measured on a sample and
extrapolated; the line says so (``baseline_extrapolated_from_runs``).

Errors: a symmetric per-casualty fight has P(attacker wins) = 1/2 exactly, so
its error is ``|P - 1/2|`` together with the mass defect ``|Σ P - 1|``.  The
server model has no closed form; its error is the mass defect after adding the
reported pruned mass, plus the difference between the numba and numpy
solvers.  Monte Carlo cases report their distance from the exact answer.
"""

from __future__ import annotations

import argparse
import json
import math
import os
import random
import sys
import time
from collections.abc import Callable
from functools import partial
from typing import Any

import numpy as np

from bellum.odds import Side
from bellum.odds._common import numba_wanted
from bellum.odds.exact import per_casualty_exact, server_exact
from bellum.odds.montecarlo import monte_carlo
from bellum.odds.result import FightEndStates

EXACT_ACCURACY = 1e-12


CPU: dict[str, float] = {}


def best_time(fn: Callable[[], Any], repeat: int) -> tuple[float, Any]:
    """Fastest wall time of ``repeat`` calls after one untimed warm-up call.

    The fastest CPU time of the same calls is left in ``CPU["last"]``: on a
    shared machine wall time includes waiting for a core, CPU time does not.
    """
    out = fn()
    best = cpu_best = math.inf
    for _ in range(max(repeat, 1)):
        start, cpu = time.perf_counter(), time.process_time()
        out = fn()
        best = min(best, time.perf_counter() - start)
        cpu_best = min(cpu_best, time.process_time() - cpu)
    CPU["last"] = cpu_best
    return best, out


def python_mc_seconds_per_run(
    att: Side, dfd: Side, model: str, budget: float = 1.5
) -> tuple[float, int, float]:
    """Plain-Python casualty-by-casualty Monte Carlo: seconds per run, runs sampled, P."""
    sa = [float(x) for x in att.strength]
    sd = [float(x) for x in dfd.strength]
    ka, kd = att.rounds, dfd.rounds
    rng = random.Random(1)
    runs = wins = 0
    start = time.perf_counter()
    while time.perf_counter() - start < budget or runs < 3:
        a = d = left = 0
        p = 0.0
        while a < ka and d < kd:
            if model == "server":
                if left == 0:
                    x = sa[a] / (sa[a] + sd[d]) + (rng.randrange(11) - 5) / 100.0
                    p = 0.1 if x < 0 else min(x, 1.0)
                    left = rng.randrange(9, 52)
                left -= 1
            else:
                p = sa[a] / (sa[a] + sd[d])
            if rng.random() < p:
                d += 1
            else:
                a += 1
        runs += 1
        wins += d == kd
    return (time.perf_counter() - start) / runs, runs, wins / runs


def baseline(att: Side, dfd: Side, model: str, accuracy: float, p: float) -> dict[str, Any]:
    """Extrapolated time for plain-Python Monte Carlo to reach ``accuracy``."""
    per_run, sampled, _ = python_mc_seconds_per_run(att, dfd, model)
    needed = max(p * (1 - p), 1e-300) / accuracy**2
    return {
        "baseline_seconds": per_run * needed,
        "baseline_runs_needed": needed,
        "baseline_extrapolated_from_runs": sampled,
        "baseline_note": (
            f"extrapolated: plain-Python Monte Carlo timed on {sampled} runs, "
            f"scaled to the {needed:.3g} runs its standard error needs to reach {accuracy:g}"
        ),
    }


def note(text: str) -> None:
    """Remarks go to standard error, so standard output is one JSON line per case."""
    print(f"benchmarks: {text}", file=sys.stderr, flush=True)


def emit(row: dict[str, Any]) -> None:
    row["cpu_seconds"] = CPU.get("last")
    row["ratio"] = row["baseline_seconds"] / row["seconds"] if row["seconds"] > 0 else None
    print(json.dumps(row), flush=True)


def mass_defect(states: FightEndStates, pruned: float) -> float:
    return abs(float(states.attacker_wins.sum() + states.defender_wins.sum()) + pruned - 1.0)


def per_casualty_case(n: int, backends: list[str], baselines: dict[str, Any]) -> None:
    side = Side.troops(n)
    for backend in backends:
        repeat = 5 if n <= 1000 else 2
        secs, (states, pruned) = best_time(
            partial(per_casualty_exact, side, side, backend=backend),
            repeat,
        )
        err = max(abs(float(states.attacker_wins.sum()) - 0.5), mass_defect(states, pruned))
        key = f"per-casualty {n}"
        if key not in baselines:
            baselines[key] = baseline(side, side, "per-casualty", EXACT_ACCURACY, 0.5)
        emit(
            {
                "case": f"per-casualty exact {n}x{n}",
                "backend": backend,
                "seconds": secs,
                **baselines[key],
                "max_abs_error": err,
            }
        )


def server_case(n: int, backends: list[str], baselines: dict[str, Any], full: bool) -> None:
    side = Side.troops(n)
    results: dict[str, FightEndStates] = {}
    if n >= 1000 and "numba" in backends and not full:
        # numpy alone needs 15-60 s here; it would break the two-minute budget.
        note(f"server exact {n}x{n}: numpy skipped (use --full)")
        backends = ["numba"]
    for backend in backends:
        repeat = 3 if n <= 200 else 1
        if backend == "numpy" and n >= 1000:
            # One call only (the warm-up call is the measurement): it is slow.
            start, cpu = time.perf_counter(), time.process_time()
            states, pruned = server_exact(side, side, backend="numpy")
            secs = time.perf_counter() - start
            CPU["last"] = time.process_time() - cpu
        else:
            secs, (states, pruned) = best_time(
                partial(server_exact, side, side, backend=backend),
                repeat,
            )
        results[backend] = states
        err = mass_defect(states, pruned)
        if len(results) == 2:
            a, b = results.values()
            err = max(
                err,
                float(np.max(np.abs(a.attacker_wins - b.attacker_wins))),
                float(np.max(np.abs(a.defender_wins - b.defender_wins))),
            )
        key = f"server {n}"
        if key not in baselines:
            p = float(states.attacker_wins.sum())
            baselines[key] = baseline(side, side, "server", EXACT_ACCURACY, p)
        emit(
            {
                "case": f"server exact {n}x{n}",
                "backend": backend,
                "seconds": secs,
                **baselines[key],
                "max_abs_error": err,
                "pruned_mass": pruned,
            }
        )


def monte_carlo_case(model: str, backends: list[str]) -> None:
    att, dfd = Side.troops(200), Side.troops(200, 1.1)
    if model == "server":
        exact, _ = server_exact(att, dfd)
    else:
        exact, _ = per_casualty_exact(att, dfd)
    p_exact = float(exact.attacker_wins.sum())
    runs = 100_000
    for backend in backends:
        secs, run = best_time(
            partial(monte_carlo, att, dfd, model=model, runs=runs, seed=1, backend=backend),
            2,
        )
        per_run, sampled, _ = python_mc_seconds_per_run(att, dfd, model, budget=1.0)
        emit(
            {
                "case": f"monte carlo {model} 200x200(x1.1), {runs} runs",
                "backend": backend,
                "seconds": secs,
                "casualty_steps": run.steps,
                "casualty_steps_per_second": run.steps / secs,
                "baseline_seconds": per_run * runs,
                "baseline_extrapolated_from_runs": sampled,
                "baseline_note": (
                    f"extrapolated: plain-Python Monte Carlo timed on {sampled} runs, "
                    f"scaled to the same {runs} runs"
                ),
                "max_abs_error": abs(float(run.end_states.attacker_wins.sum()) - p_exact),
                "standard_error": run.standard_error,
            }
        )


def main() -> None:
    parser = argparse.ArgumentParser(description=__doc__.splitlines()[0])
    parser.add_argument("--numpy-only", action="store_true", help="skip the numba backend")
    parser.add_argument("--quick", action="store_true", help="skip the largest cases")
    parser.add_argument(
        "--full", action="store_true", help="also time numpy on the 1000x1000 server case"
    )
    args = parser.parse_args()
    if args.numpy_only:
        os.environ["BELLUM_NO_NUMBA"] = "1"
    backends = (["numba"] if numba_wanted() else []) + ["numpy"]
    if backends == ["numpy"]:
        note("numba not installed or disabled: numpy only")
    baselines: dict[str, Any] = {}
    start = time.perf_counter()
    per_casualty_case(1000, backends, baselines)
    if not args.quick:
        per_casualty_case(10000, backends, baselines)
    server_case(200, backends, baselines, args.full)
    if not args.quick:
        server_case(1000, backends, baselines, args.full)
    monte_carlo_case("per-casualty", backends)
    monte_carlo_case("server", backends)
    note(f"total {time.perf_counter() - start:.1f} s")


if __name__ == "__main__":
    sys.exit(main())
