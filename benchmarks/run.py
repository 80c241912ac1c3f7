"""Benchmarks of the odds engine against real rivals: ``python benchmarks/run.py``.

Prints one JSON line per case on standard output (remarks go to standard
error) and writes ``docs/benchmarks.md`` (``--no-docs`` to skip, ``--docs PATH``
elsewhere).  Each case runs with numba (if installed) and with numpy only;
``BELLUM_NO_NUMBA=1`` or ``--numpy-only`` skips numba.  ``seconds`` is the best
wall time of a few calls after a warm-up call, ``cpu_seconds`` the best CPU
time (on a shared machine wall time includes waiting for a core).

Every rival is measured in the same run, and each reports a ``ratio`` whose
meaning it states (``ratio_means``); above 1, bellum is ahead:

* ``compiled_monte_carlo`` - the approach of the TripleA battle calculator:
  simulate many fights of the *same model* and count.  This one is bellum's
  own numba loop (``bellum.odds._kernels.mc_loops``), compiled like the
  exact solver.  It is given the exact solver's time; ``ratio`` is the
  standard error it reaches in that time divided by the exact solver's error
  (the larger of the measured error, the pruned mass and one ulp of 1).
* ``closed_form`` - the approach of Freeciv's ``win_chance``: when the
  per-casualty probability ``p`` is constant, a fight is a race of
  independent rounds, and the attacker wins with D defender losses before A
  attacker losses, a negative-binomial sum.  It is both a speed reference
  (``ratio`` = closed-form seconds / exact seconds, below 1 when the formula
  is faster, as it should be) and a correctness check: ``max_abs_error`` of
  these cases is the largest difference over the whole joint end-state
  distribution.
* ``bandwidth`` - the memory-bandwidth limit of a solver that touches every
  lattice cell: ``ratio`` = lattice cells per second of the solver / cells per
  second of one plain numpy pass (read and write) over an array of the
  lattice's size (measured on at most 2**24 doubles and scaled linearly).
  Above 1 means the solver is faster than any full sweep could be, which
  only pruning makes possible.

Errors: a symmetric per-casualty fight has P(attacker wins) = 1/2 exactly, so
its error is ``|P - 1/2|`` together with the mass defect ``|Σ P + pruned - 1|``;
a constant-odds fight is compared with the closed form; the server model has
no closed form: its error is the mass defect plus the numba/numpy difference.
"""

from __future__ import annotations

import argparse
import datetime
import json
import math
import os
import platform
import shlex
import subprocess
import sys
import time
from collections.abc import Callable
from functools import partial
from pathlib import Path
from typing import Any

import numpy as np
from user_env import user_env

from bellum.odds import Side
from bellum.odds._common import numba_importable, numba_wanted
from bellum.odds.exact import per_casualty_exact, server_exact
from bellum.odds.montecarlo import Model, monte_carlo
from bellum.odds.result import FightEndStates

ROOT = Path(__file__).resolve().parents[1]
DOCS = ROOT / "docs" / "benchmarks.md"
#: One ulp of 1: no double-precision answer is more accurate than this.
ULP = float(np.finfo(np.float64).eps)
#: Largest array used for the bandwidth pass (128 MB); larger lattices scale linearly.
BANDWIDTH_CELLS = 1 << 24
#: What issue 16 asks of each case (case name, backend) -> target seconds.
TARGETS: dict[tuple[str, str], tuple[float, str]] = {
    ("per-casualty exact 1000x1000", "numba"): (0.001, "keep ~0.8 ms"),
    ("per-casualty exact 10000x10000", "numba"): (0.05, "<= 0.05 s"),
    ("server exact 200x200", "numpy"): (0.25, "<= 0.25 s"),
    ("server exact 1000x1000", "numba"): (0.6, "<= 0.6 s"),
}

ROWS: list[dict[str, Any]] = []
#: The turn planner's rows (``--plan``, benchmarks/plan.py).
PLAN_ROWS: list[dict[str, Any]] = []
#: The heading of benchmarks/plan.py's section of the report.
PLANNER = "## Turn planner"


def note(text: str) -> None:
    """Remarks go to standard error, so standard output is one JSON line per case."""
    print(f"benchmarks: {text}", file=sys.stderr, flush=True)


def emit(row: dict[str, Any]) -> None:
    target = TARGETS.get((row["case"], row.get("backend", "")))
    if target is not None:
        row["target"] = target[1]
        row["target_met"] = row["seconds"] <= target[0]
        # Single-threaded work: on an idle machine wall time is the CPU time.
        row["target_met_in_cpu_time"] = row["cpu_seconds"] <= target[0]
    ROWS.append(row)
    print(json.dumps(row), flush=True)


def timed(fn: Callable[[], Any], repeat: int) -> tuple[float, float, Any]:
    """Best wall and CPU seconds of ``repeat`` calls after one untimed warm-up call."""
    out = fn()
    wall = cpu = math.inf
    for _ in range(max(repeat, 1)):
        start, cpu_start = time.perf_counter(), time.process_time()
        out = fn()
        wall = min(wall, time.perf_counter() - start)
        cpu = min(cpu, time.process_time() - cpu_start)
    return wall, cpu, out


def mass_defect(states: FightEndStates, pruned: float) -> float:
    return abs(float(states.attacker_wins.sum() + states.defender_wins.sum()) + pruned - 1.0)


def constant_side(rounds: int, strength: float) -> Side:
    """A side whose strength stays ``strength`` until its last round (constant odds)."""
    return Side.from_arrays([strength] * rounds + [0.0])


# --- rivals ---------------------------------------------------------------------------


def compiled_monte_carlo(
    att: Side, dfd: Side, model: Model, seconds: float, p_exact: float, exact_error: float
) -> dict[str, Any]:
    """The numba Monte Carlo of the same model, given the exact solver's time."""
    if not numba_wanted() or numba_importable() is not None:
        return {"skipped": "numba is not installed or disabled"}

    def run(n: int) -> Any:
        return monte_carlo(att, dfd, model=model, runs=n, seed=1, backend="numba")

    run(1)  # load the compiled loop
    probe = 1
    while True:
        start = time.perf_counter()
        run(probe)
        spent = time.perf_counter() - start
        if spent >= 0.02 or probe >= 1 << 20:
            break
        probe *= 4
    runs = max(1, int(seconds / (spent / probe)))
    start = time.perf_counter()
    mc = run(runs)
    mc_seconds = time.perf_counter() - start
    # With p̂ = 0 or 1 (few runs) the sample's own standard error is 0: use the exact p.
    se = math.sqrt(max(p_exact * (1 - p_exact), 1e-300) / mc.runs)
    return {
        "rival": "compiled Monte Carlo (numba), same model and time",
        "runs": mc.runs,
        "seconds": mc_seconds,
        "standard_error": se,
        "abs_error": abs(float(mc.end_states.attacker_wins.sum()) - p_exact),
        "runs_for_exact_error": p_exact * (1 - p_exact) / exact_error**2,
        "ratio": se / exact_error,
        "ratio_means": "Monte Carlo standard error / exact error, in the same time",
    }


def race_end_states(att_rounds: int, def_rounds: int, p: float) -> FightEndStates:
    """The closed form of a race with constant ``p`` (negative binomial, Freeciv's way).

    The attacker wins having lost ``k`` rounds with probability
    ``C(D-1+k, k) p**D q**k``: the pmf of the number of failures before the
    D-th success.  Each pmf is built from its mode by ratios and normalised by
    its own total over all k (which is 1), so nothing underflows.
    """
    return FightEndStates(
        _negative_binomial(def_rounds, p, att_rounds),
        _negative_binomial(att_rounds, 1.0 - p, def_rounds),
    )


def _negative_binomial(successes: int, p: float, length: int) -> np.ndarray[Any, Any]:
    """P(k failures before the ``successes``-th success) for ``k < length``."""
    q = 1.0 - p
    mean = successes * q / p
    span = int(mean + 40 * math.sqrt(successes * q) / p + 60)
    k = np.arange(span, dtype=np.float64)
    mode = int(max(0.0, (successes - 1) * q / p))
    ratio = q * (successes + k) / (k + 1)  # pmf(k + 1) / pmf(k)
    g = np.empty(span)
    g[mode] = 1.0
    g[mode + 1 :] = np.cumprod(ratio[mode : span - 1])
    if mode:
        g[:mode] = np.cumprod(1.0 / ratio[mode - 1 :: -1])[::-1]
    pmf = g / g.sum()
    out = np.zeros(length)
    n = min(length, span)
    out[:n] = pmf[:n]
    return out


def closed_form(
    att: Side, dfd: Side, p: float, exact: FightEndStates, seconds: float
) -> dict[str, Any]:
    """Time the closed form and compare it with the exact solver's distribution."""
    wall, _, race = timed(partial(race_end_states, att.rounds, dfd.rounds, p), 5)
    error = max(
        float(np.max(np.abs(race.attacker_wins - exact.attacker_wins))),
        float(np.max(np.abs(race.defender_wins - exact.defender_wins))),
    )
    return {
        "rival": "closed-form negative binomial (constant p)",
        "seconds": wall,
        "p_attacker_wins": float(race.attacker_wins.sum()),
        "max_abs_difference": error,
        "ratio": wall / seconds,
        "ratio_means": "closed-form seconds / exact seconds (a speed reference)",
    }


BANDWIDTH: dict[int, float] = {}


def bandwidth(cells: int, seconds: float) -> dict[str, Any]:
    """Lattice cells per second against one numpy read-write pass over as many doubles."""
    n = min(cells, BANDWIDTH_CELLS)
    if n not in BANDWIDTH:
        x = np.ones(n)
        wall, _, _ = timed(partial(np.multiply, x, 1.0, out=x), 5)
        BANDWIDTH[n] = n / wall
    rate = BANDWIDTH[n]
    mine = cells / seconds
    return {
        "rival": "memory bandwidth: one numpy pass over the lattice's size",
        "pass_cells_per_second": rate,
        "pass_measured_on_cells": n,
        "solver_cells_per_second": mine,
        "ratio": mine / rate,
        "ratio_means": "solver lattice cells per second / numpy pass cells per second",
    }


# --- cases ----------------------------------------------------------------------------


def exact_error_bound(error: float, pruned: float) -> float:
    return max(error, pruned, ULP)


def per_casualty_case(n: int, backends: list[str]) -> None:
    side = Side.troops(n)
    for backend in backends:
        repeat = 5 if n <= 1000 else 3
        wall, cpu, (states, pruned) = timed(
            partial(per_casualty_exact, side, side, backend=backend), repeat
        )
        err = max(abs(float(states.attacker_wins.sum()) - 0.5), mass_defect(states, pruned))
        unpruned, _, _ = timed(partial(per_casualty_exact, side, side, tau=0.0, backend=backend), 1)
        emit(
            {
                "case": f"per-casualty exact {n}x{n}",
                "backend": backend,
                "seconds": wall,
                "cpu_seconds": cpu,
                "unpruned_seconds": unpruned,
                "max_abs_error": err,
                "pruned_mass": pruned,
                "rivals": {
                    "compiled_monte_carlo": compiled_monte_carlo(
                        side, side, "per-casualty", wall, 0.5, exact_error_bound(err, pruned)
                    ),
                    "bandwidth": bandwidth(n * n, wall),
                },
            }
        )


def constant_odds_case(n: int, backends: list[str]) -> None:
    """Constant per-casualty odds 11:10, where the closed form applies."""
    att, dfd = constant_side(n, 11.0), constant_side(n, 10.0)
    p = 11.0 / 21.0
    for backend in backends:
        wall, cpu, (states, pruned) = timed(
            partial(per_casualty_exact, att, dfd, backend=backend), 5 if n <= 1000 else 3
        )
        rival = closed_form(att, dfd, p, states, wall)
        err = max(rival["max_abs_difference"], mass_defect(states, pruned))
        emit(
            {
                "case": f"per-casualty exact {n}x{n}, constant odds 11:10",
                "backend": backend,
                "seconds": wall,
                "cpu_seconds": cpu,
                "p_attacker_wins": float(states.attacker_wins.sum()),
                "max_abs_error": err,
                "pruned_mass": pruned,
                "rivals": {
                    "closed_form": rival,
                    "compiled_monte_carlo": compiled_monte_carlo(
                        att,
                        dfd,
                        "per-casualty",
                        wall,
                        float(states.attacker_wins.sum()),
                        exact_error_bound(err, pruned),
                    ),
                    "bandwidth": bandwidth(n * n, wall),
                },
            }
        )


def server_case(n: int, backends: list[str], full: bool) -> None:
    side = Side.troops(n)
    results: dict[str, FightEndStates] = {}
    if n >= 1000 and "numba" in backends and not full:
        note(f"server exact {n}x{n}: numpy skipped (use --full)")
        backends = ["numba"]
    for backend in backends:
        slow = backend == "numpy" and n >= 1000
        wall, cpu, (states, pruned) = timed(
            partial(server_exact, side, side, backend=backend), 0 if slow else 3
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
        p = float(states.attacker_wins.sum())
        emit(
            {
                "case": f"server exact {n}x{n}",
                "backend": backend,
                "seconds": wall,
                "cpu_seconds": cpu,
                "max_abs_error": err,
                "pruned_mass": pruned,
                "rivals": {
                    "compiled_monte_carlo": compiled_monte_carlo(
                        side, side, "server", wall, p, exact_error_bound(err, pruned)
                    ),
                    "bandwidth": bandwidth(n * n, wall),
                },
            }
        )


def monte_carlo_case(model: Model, backends: list[str]) -> None:
    """Throughput of bellum's own Monte Carlo (no rival: it *is* the compiled rival)."""
    att, dfd = Side.troops(200), Side.troops(200, 1.1)
    solver = server_exact if model == "server" else per_casualty_exact
    exact, _ = solver(att, dfd)
    p_exact = float(exact.attacker_wins.sum())
    runs = 100_000
    for backend in backends:
        wall, cpu, run = timed(
            partial(monte_carlo, att, dfd, model=model, runs=runs, seed=1, backend=backend), 2
        )
        emit(
            {
                "case": f"monte carlo {model} 200x200(x1.1), {runs} runs",
                "backend": backend,
                "seconds": wall,
                "cpu_seconds": cpu,
                "casualty_steps_per_second": run.steps / wall,
                "max_abs_error": abs(float(run.end_states.attacker_wins.sum()) - p_exact),
                "standard_error": run.standard_error,
            }
        )


def cli_case(args: list[str]) -> None:
    """A fresh ``bellum`` process, as a user runs it (includes Python's start-up)."""
    command = [sys.executable, "-m", "bellum", *args]
    env = user_env()
    subprocess.run(command, check=True, capture_output=True, env=env)  # writes the bytecode
    best = math.inf
    for _ in range(3):
        start = time.perf_counter()
        subprocess.run(command, check=True, capture_output=True, env=env)
        best = min(best, time.perf_counter() - start)
    emit({"case": "bellum " + " ".join(args), "backend": "process", "seconds": best})


# --- the report -----------------------------------------------------------------------


def machine() -> dict[str, str]:
    cpu = platform.processor() or platform.machine()
    try:
        for line in Path("/proc/cpuinfo").read_text().splitlines():
            if line.startswith("model name"):
                cpu = line.split(":", 1)[1].strip()
                break
    except OSError:
        pass
    if numba_wanted() and numba_importable() is None:
        import numba

        numba_version = numba.__version__
    else:
        numba_version = "not installed or disabled"
    usable = len(os.sched_getaffinity(0)) if hasattr(os, "sched_getaffinity") else os.cpu_count()
    load = ", ".join(f"{x:.1f}" for x in os.getloadavg()) if hasattr(os, "getloadavg") else "?"
    return {
        "CPU": cpu,
        "cores": f"{os.cpu_count()} ({usable} usable)",
        "load average at the end (1, 5, 15 min)": load,
        "system": platform.platform(),
        "Python": platform.python_version(),
        "numpy": np.__version__,
        "numba": numba_version,
    }


def _fmt_seconds(x: float) -> str:
    return f"{x * 1e3:.3g} ms" if x < 0.1 else f"{x:.3g} s"


def _fmt(x: float) -> str:
    return f"{x:.2g}"


def markdown(command: str, total: float) -> str:
    """docs/benchmarks.md, from the rows of this run."""
    when = datetime.datetime.now(datetime.UTC).strftime("%Y-%m-%d %H:%M UTC")
    lines = [
        "# Benchmarks",
        "",
        f"Generated by `{command}` on {when} ({total:.0f} s in all); do not edit by hand.",
        "What each case and rival measures is explained in the docstring of",
        "`benchmarks/run.py` and in [odds.md](odds.md#benchmarks).",
        "",
        "## Machine",
        "",
        "| | |",
        "|---|---|",
        *(f"| {k} | {v} |" for k, v in machine().items()),
        "",
        "The machine may be shared with other jobs: `seconds` is the best wall time of a few",
        "calls, `CPU` the best CPU time of the same calls (steadier under load; for this",
        "single-threaded work it is what the wall time is on an idle machine). `unpruned` is",
        "the wall time of the same solver with `tau=0` (`--exact-unpruned`).",
        "",
        "## Exact solvers",
        "",
        "| case | backend | seconds | CPU | unpruned | target | error | pruned | "
        "vs compiled MC | vs closed form | vs bandwidth |",
        "|---|---|---|---|---|---|---|---|---|---|---|",
    ]
    for row in ROWS:
        if "exact" not in row["case"]:
            continue
        rivals = row.get("rivals", {})

        def ratio(name: str, rivals: dict[str, Any] = rivals) -> str:
            r = rivals.get(name)
            if r is None:
                return ""
            return "skipped" if "ratio" not in r else _fmt(r["ratio"])

        target = row.get("target", "")
        if target:
            if row["target_met"]:
                target += " ✓"
            elif row["target_met_in_cpu_time"]:
                target += " ✓ in CPU time only"
            else:
                target += " ✗"
        unpruned = row.get("unpruned_seconds")
        lines.append(
            f"| {row['case']} | {row['backend']} | {_fmt_seconds(row['seconds'])} | "
            f"{_fmt_seconds(row['cpu_seconds'])} | {_fmt_seconds(unpruned) if unpruned else ''} | "
            f"{target} | {_fmt(row['max_abs_error'])} | "
            f"{_fmt(row['pruned_mass'])} | {ratio('compiled_monte_carlo')} | "
            f"{ratio('closed_form')} | {ratio('bandwidth')} |"
        )
    lines += [
        "",
        "Ratios, as in `benchmarks/run.py`: **vs compiled MC** = standard error that a numba",
        "Monte Carlo of the same model reaches in the exact solver's time / the exact solver's",
        "error (at least one ulp); **vs closed form** = seconds of the negative-binomial formula /",
        "seconds of the exact solver (below 1: the formula is faster; its `error` column is the",
        "largest difference between the two joint distributions); **vs bandwidth** = lattice cells",
        "per second / cells per second of one numpy pass over an array of the lattice's size",
        "(above 1 only because pruning skips cells).",
        "",
        "## Monte Carlo and the command line",
        "",
        "| case | backend | seconds | casualty-steps/s | error vs exact | standard error |",
        "|---|---|---|---|---|---|",
    ]
    for row in ROWS:
        if "exact" in row["case"]:
            continue
        cells = [
            _fmt(row[key]) if key in row else ""
            for key in ("casualty_steps_per_second", "max_abs_error", "standard_error")
        ]
        lines.append(
            f"| {row['case']} | {row['backend']} | {_fmt_seconds(row['seconds'])} | "
            + " | ".join(cells)
            + " |"
        )
    if PLAN_ROWS:
        import plan

        lines += ["", *plan.table(PLAN_ROWS)]
    lines += [
        "",
        "## Raw results",
        "",
        "```json",
        *(json.dumps(row) for row in ROWS + PLAN_ROWS),
        "```",
        "",
    ]
    return "\n".join(lines)


def _keep_planner_section(old: str, new: str) -> str:
    """``new`` with the planner's section of ``old`` put back before its raw results: a
    run without ``--plan`` does not measure the planner, so its last table stands."""
    start = old.find(PLANNER)
    if start < 0:
        return new
    end = old.find("\n## ", start + len(PLANNER))
    section = old[start : end + 1 if end >= 0 else len(old)].rstrip("\n") + "\n\n"
    raw = new.find("## Raw results")
    return new[:raw] + section + new[raw:] if raw >= 0 else new + "\n" + section


def main() -> None:
    parser = argparse.ArgumentParser(description=__doc__.splitlines()[0])
    parser.add_argument("--numpy-only", action="store_true", help="skip the numba backend")
    parser.add_argument("--quick", action="store_true", help="skip the largest cases")
    parser.add_argument(
        "--full", action="store_true", help="also time numpy on the 1000x1000 server case"
    )
    parser.add_argument("--docs", type=Path, default=DOCS, help="where to write the report")
    parser.add_argument("--no-docs", action="store_true", help="do not write the report")
    parser.add_argument(
        "--plan", action="store_true", help="also time the turn planner (benchmarks/plan.py)"
    )
    parser.add_argument(
        "--plan-worlds",
        default="w32x16",
        help="with --plan: the realistic worlds to plan on (NAME,NAME; default w32x16)",
    )
    args = parser.parse_args()
    if args.numpy_only:
        os.environ["BELLUM_NO_NUMBA"] = "1"
    backends = (["numba"] if numba_wanted() else []) + ["numpy"]
    if backends == ["numpy"]:
        note("numba not installed or disabled: numpy only, no compiled Monte Carlo rival")
    start = time.perf_counter()
    sizes = [1000] if args.quick else [1000, 10000]
    for n in sizes:
        per_casualty_case(n, backends)
    for n in sizes:
        constant_odds_case(n, backends)
    server_case(200, backends, args.full)
    if not args.quick:
        server_case(1000, backends, args.full)
    monte_carlo_case("per-casualty", backends)
    monte_carlo_case("server", backends)
    cli_case(["--help"])
    cli_case(["odds", "fight", "--att", "150", "--def", "40"])
    if args.plan:
        import plan

        names = [n for n in args.plan_worlds.split(",") if n]
        PLAN_ROWS.extend(plan.realistic_cases(names) + plan.big_cases())
    total = time.perf_counter() - start
    note(f"total {total:.1f} s")
    if not args.no_docs:
        command = "python benchmarks/run.py " + shlex.join(sys.argv[1:])
        before = args.docs.read_text() if args.docs.exists() else ""
        text = markdown(command.strip(), total)
        if not PLAN_ROWS:
            text = _keep_planner_section(before, text)
        args.docs.write_text(text)
        note(f"wrote {args.docs}")


if __name__ == "__main__":
    sys.exit(main())
