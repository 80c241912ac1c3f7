"""Benchmarks of the odds engine against real rivals: ``python benchmarks/run.py``.

Prints one JSON line per case on standard output (remarks go to standard
error) and writes ``docs/benchmarks.md`` (``--no-docs`` to skip, ``--docs PATH``
elsewhere).  Each case runs with numba (if installed) and with numpy only;
``BELLUM_NO_NUMBA=1`` or ``--numpy-only`` skips numba (and only ``--numpy-only``
lets numpy's figures replace a report made with numba).  ``seconds`` is the best
wall time of a few calls after a warm-up call, ``cpu_seconds`` the best CPU
time (on a shared machine wall time includes waiting for a core).  Such a run
keeps the report's realistic and planner sections as they are.

``--realistic [--resolver-runs N]`` instead times the realistic suite
(``benchmarks/empire_odds.py``: each plan of ``benchmarks/worlds/plans.toml`` as a
whole ``bellum empire odds`` process, then N plays of the real command beside it)
and rewrites only that section; ``--rows FILE ...`` makes the section from the JSON
lines of earlier runs instead (a later file's plan replaces an earlier one's).

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
import re
import shlex
import subprocess
import sys
import time
from collections.abc import Callable
from functools import partial
from pathlib import Path
from typing import Any

import numpy as np
from empire_odds import TARGETS as REALISTIC_TARGETS
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
#: The heading of the realistic suite's section (``--realistic``).
REALISTIC = "## Realistic suite"


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


def put_section(text: str, head: str, block: str) -> str:
    """``text`` with its section ``head`` (up to the next ``## ``) replaced by ``block``,
    or ``block`` put before the planner's section or the raw results when it has none."""
    block = block.rstrip("\n") + "\n\n"
    start = text.find(head)
    if start >= 0:
        end = text.find("\n## ", start + len(head))
        return text[:start] + block + (text[end + 1 :] if end >= 0 else "")
    for later in (PLANNER, "## Raw results"):
        if head != later and (at := text.find(later)) >= 0:
            return text[:at] + block + text[at:]
    return text.rstrip("\n") + "\n\n" + block


def section(text: str, head: str) -> str | None:
    """The section ``head`` of ``text`` (up to the next ``## ``), if it has one."""
    start = text.find(head)
    if start < 0:
        return None
    end = text.find("\n## ", start + len(head))
    return text[start : end + 1 if end >= 0 else len(text)]


def _keep_sections(old: str, new: str, heads: tuple[str, ...]) -> str:
    """``new`` with the sections ``heads`` of ``old`` put back: a run that does not measure
    them leaves their last tables standing."""
    for head in heads:
        kept = section(old, head)
        if kept is not None:
            new = put_section(new, head, kept)
    return new


# --- the realistic suite ---------------------------------------------------------------


def realistic_meta(command: str, resolver_runs: int | None) -> dict[str, Any]:
    """What a realistic run's rows do not say themselves: when, at which commit, with what."""
    commit = subprocess.run(
        ["git", "-C", str(ROOT), "describe", "--always", "--dirty"],
        capture_output=True,
        text=True,
    ).stdout.strip()
    numba = machine()["numba"]
    return {
        "realistic_run": {
            "command": command,
            "started": datetime.datetime.now(datetime.UTC).strftime("%Y-%m-%d %H:%M UTC"),
            "commit": commit or "?",
            "numba": numba,
            "resolver_runs": resolver_runs or 0,
        }
    }


def read_rows(paths: list[Path]) -> tuple[list[dict[str, Any]], list[dict[str, Any]]]:
    """The runs' descriptions and plan rows in ``paths`` (JSON lines, as ``--realistic``
    prints them); a plan in a later file replaces the same plan of an earlier one."""
    metas, rows = [], {}
    for path in paths:
        for line in path.read_text().splitlines():
            if not line.strip():
                continue
            doc = json.loads(line)
            if "realistic_run" in doc:
                metas.append(doc["realistic_run"])
            elif "case" in doc:
                rows[doc["case"]] = doc
    return metas, list(rows.values())


def _exact(row: dict[str, Any]) -> bool:
    return row.get("samples") is None and not any(row.get(k) for k in ("se_p", "se_att", "se_def"))


def _within_errors(row: dict[str, Any]) -> bool:
    """Issue 23's target on the figures: exact, or standard errors <= 0.001 and 0.1 men."""
    if "error" in row:
        return False
    return (row.get("se_p") or 0.0) <= REALISTIC_TARGETS["p"] and all(
        (row.get(k) or 0.0) <= REALISTIC_TARGETS["men"] for k in ("se_att", "se_def")
    )


def _zs(row: dict[str, Any]) -> list[float]:
    z = row.get("resolver", {}).get("z", {})
    return [
        float(z[k]) for k in ("p_attacker_wins", "attacker_losses", "defender_losses") if k in z
    ]


def _num(x: float) -> str:
    return f"{round(x, 2) + 0.0:.2f}" if math.isfinite(x) else ("inf" if x > 0 else "-inf")


def realistic_summary(rows: list[dict[str, Any]]) -> str:
    """How many plans meet each of issue 23's targets, in one paragraph."""
    ran = [r for r in rows if "error" not in r]
    exact = sum(map(_exact, ran))
    within = sum(map(_within_errors, ran))
    fast = sum(r["wall_s"] <= REALISTIC_TARGETS["seconds"] for r in ran)
    fast_cpu = sum(r["cpu_s"] <= REALISTIC_TARGETS["seconds"] for r in ran)
    compared = [r for r in ran if "resolver" in r]
    zs = [(abs(z), r["case"]) for r in compared for z in _zs(r)]
    far = [r for r in compared if any(abs(z) > 3 for z in _zs(r))]
    text = (
        f"**Targets** (issue 23), of {len(rows)} plans: {within} exact or within the standard"
        f" errors asked (≤ {REALISTIC_TARGETS['p']:g} on P, ≤ {REALISTIC_TARGETS['men']:g} men"
        f" on each side's losses), {exact} of them exact; {fast} take"
        f" ≤ {REALISTIC_TARGETS['seconds']:g} s of wall time ({fast_cpu} of CPU time)"
    )
    if compared:
        runs = sorted({r["resolver"]["runs"] for r in compared})
        worst = max(zs) if zs else (0.0, "")
        text += (
            f"; against {'/'.join(map(str, runs))} plays of the command ({len(compared)} plans),"
            f" {len(far)} have a |z| > 3 ({sum(z > 3 for z, _ in zs)} of {len(zs)} z-scores;"
            f" the largest, {_num(worst[0])}, on {worst[1]})"
        )
    failed = [r["case"] for r in rows if "error" in r or "resolver_error" in r]
    text += f". Failed: {', '.join(failed)}." if failed else "; none failed."
    return text


def realistic_table(rows: list[dict[str, Any]]) -> list[str]:
    """One table row per plan: the odds, their time, and the resolver beside them."""
    from empire_odds import _method

    lines = [
        "| plan | P | method | SE P | losses att / def | SE men | wall s | CPU s | load"
        " | errors ✓ | ≤ 0.5 s | resolver P ± SE | resolver losses ± SE | z P / att / def |",
        "|---|---|---|---|---|---|---|---|---|---|---|---|---|---|",
    ]
    for r in rows:
        if "error" in r:
            cells = [r["case"], "error", _method(r), *[""] * 3]
            cells += [f"{r['wall_s']:.2f}", f"{r['cpu_s']:.2f}", str(r["load"]), "✗", "✗"]
            lines.append("| " + " | ".join([*cells, "", "", ""]) + " |")
            continue
        att, dfd = r["losses"]
        cells = [r["case"], f"{r['p']:.4f}", _method(r), _se(r.get("se_p"))]
        cells += [f"{att:.2f} / {dfd:.2f}", f"{_se(r.get('se_att'))} / {_se(r.get('se_def'))}"]
        cells += [f"{r['wall_s']:.2f}", f"{r['cpu_s']:.2f}", str(r["load"])]
        cells += ["✓" if _within_errors(r) else "✗"]
        cells += ["✓" if r["wall_s"] <= REALISTIC_TARGETS["seconds"] else "✗"]
        res = r.get("resolver")
        if res is not None:
            (ra, rd), (sa, sd) = res["losses"], res["se_losses"]
            cells += [
                f"{res['p']:.4f} ± {res['se_p']:.2g}",
                f"{ra:.2f} ± {sa:.2g} / {rd:.2f} ± {sd:.2g}",
            ]
            cells += [" / ".join(_num(z) for z in _zs(r))]
        else:
            cells += [str(r.get("resolver_error", ""))[:60].replace("|", "/"), "", ""]
        lines.append("| " + " | ".join(cells) + " |")
    return lines


def _se(x: float | None) -> str:
    return "0" if not x else f"{x:.2g}"


def realistic_section(rows: list[dict[str, Any]], metas: list[dict[str, Any]], command: str) -> str:
    """The realistic suite's section of docs/benchmarks.md."""
    made = "; ".join(
        ("" if m["command"] == command else f"`{m['command']}` ")
        + f"at `{m['commit']}` from {m['started']} (numba: {m['numba']})"
        for m in metas
    )
    lines = [
        f"{REALISTIC} (`bellum empire odds`, benchmarks/empire_odds.py)",
        "",
        f"Generated by `{command}`{', rows of ' if '--rows' in command else ' '}{made};"
        " do not edit by hand.",
        "Each plan of `benchmarks/worlds/plans.toml` (five worlds the 4.4.1 server made with",
        "its own `fairland`, all five commands, every kind of support) is one whole",
        "`bellum empire odds … --json --seed 1` process, bytecode cached: `wall s` and `CPU s`",
        "are its wall time and its CPU time (its workers' included), `load` the machine's",
        "1-minute load average when it started (2 cores, shared with other jobs: under load the",
        "wall time is longer than the CPU time). `SE` is the standard error of an estimate",
        "(0: exact), `SE men` that of the attacker's / the defender's expected losses.",
        "Then the same command with `--resolver-runs N --jobs 2` plays the real command N",
        "times (its time is in the rows, not in `wall s`): the resolver's P ± its binomial",
        "standard error, its mean losses ± the standard error of a mean of N draws from the",
        "odds' distribution of the losses, and the z-scores the command prints:",
        "(resolver − odds) / √(s² + SE²), where s is the spread the odds predict for a mean of",
        "N runs (binomial for P, the loss distribution's for the losses) and SE the odds' own.",
        "",
        realistic_summary(rows),
        "",
        *realistic_table(rows),
    ]
    return "\n".join(lines) + "\n"


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
    parser.add_argument(
        "--realistic",
        action="store_true",
        help="time the realistic suite instead, and rewrite only its section of the report",
    )
    parser.add_argument(
        "--resolver-runs",
        type=int,
        metavar="N",
        help="with --realistic: also play each plan's command N times (the issue asks 4000)",
    )
    parser.add_argument(
        "--only", metavar="WORLD", help="with --realistic: the plans of this world alone"
    )
    parser.add_argument(
        "--rows",
        nargs="+",
        type=Path,
        metavar="FILE",
        help="with --realistic: make the section from these runs' JSON lines, not a new run",
    )
    args = parser.parse_args()
    command = "python benchmarks/run.py " + shlex.join(sys.argv[1:])
    if args.realistic:
        return realistic(args, command.strip())
    if args.rows or args.resolver_runs or args.only:
        parser.error("--rows, --only and --resolver-runs go with --realistic")
    if args.numpy_only:
        os.environ["BELLUM_NO_NUMBA"] = "1"
    before = args.docs.read_text() if args.docs.exists() and not args.no_docs else ""
    if machine()["numba"] == "not installed or disabled" and not args.numpy_only:
        made_with = re.search(r"^\| numba \| ([0-9][^ |]*) \|", before, re.MULTILINE)
        if made_with:
            sys.exit(
                f"benchmarks: {args.docs} was made with numba {made_with[1]} and this run has"
                " none: install bellum[fast], or pass --numpy-only to replace its rows with"
                " numpy's (--no-docs or --realistic to leave them)"
            )
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
        text = markdown(command.strip(), total)
        kept = (REALISTIC,) if PLAN_ROWS else (REALISTIC, PLANNER)
        args.docs.write_text(_keep_sections(before, text, kept))
        note(f"wrote {args.docs}")
    return None


def realistic(args: argparse.Namespace, command: str) -> None:
    """``--realistic``: run the suite (or read ``--rows``) and rewrite its section alone."""
    if args.rows:
        missing = [str(p) for p in args.rows if not p.is_file()]
        if missing:
            sys.exit(f"benchmarks: no such file: {', '.join(missing)}")
        metas, rows = read_rows(args.rows)
    else:
        import empire_odds

        meta = realistic_meta(command, args.resolver_runs)
        print(json.dumps(meta), flush=True)
        metas = [meta["realistic_run"]]
        rows = empire_odds.realistic_cases(args.only, args.resolver_runs)
    if not rows:
        sys.exit("benchmarks: no realistic rows to report")
    if not args.no_docs:
        old = args.docs.read_text() if args.docs.exists() else ""
        args.docs.write_text(put_section(old, REALISTIC, realistic_section(rows, metas, command)))
        note(f"wrote the realistic section of {args.docs}")


if __name__ == "__main__":
    sys.exit(main())
