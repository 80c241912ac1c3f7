"""Timings of `bellum empire odds`: the example worlds, and the realistic suite.

    python benchmarks/empire_odds.py [--runs N]
    python benchmarks/empire_odds.py --realistic [--only W] [--resolver-runs N] [--before DIR]
    python benchmarks/empire_odds.py --realistic --compare DIR > run.jsonl
    python benchmarks/empire_odds.py --table BEFORE AFTER  (or --table run.jsonl)

Each case is the whole command in a fresh process (start-up included), as a user runs
it, with bytecode cached (a first run writes it).  The example worlds: best and median
wall time of three, then the resolver's throughput with one and two jobs on vector A.
``--realistic``: every plan of ``benchmarks/worlds/plans.toml`` (five worlds made by
the 4.4.1 server's fairland, all five commands, every kind of support) once, each
world imported into a scratch database first; its wall time, its CPU time (the
process's own, from ``wait4``, which load on a shared machine inflates less), and
what the odds said: P(success), method, samples and standard errors.  With
``--resolver-runs N`` each plan also plays the real command N times and reports the
z-scores.  ``--before DIR`` times the ``src`` of another checkout instead (the same
commands, ``PYTHONPATH=DIR/src``), for a table of before and after; ``--compare DIR``
runs each plan with DIR's ``src`` and then this checkout's, one after the other, so both
meet the same load on a shared machine.  One JSON line per case on standard output;
``--table`` prints two such runs side by side (the table in docs/odds.md).
"""

from __future__ import annotations

import argparse
import json
import math
import os
import re
import resource
import shlex
import statistics
import subprocess
import sys
import tempfile
import time
import tomllib
from pathlib import Path
from typing import Any

from user_env import user_env

ROOT = Path(__file__).resolve().parents[1]
WORLDS = ROOT / "benchmarks" / "worlds"
#: The issue's targets: a plan in half a second; estimates to these standard errors.
TARGETS = {"seconds": 0.5, "p": 0.001, "men": 0.1}
#: A plan that takes longer than this is stopped and reported as such.
PLAN_LIMIT = 600
CASES = [
    ("vector-a", ["attack", "2,0", "--mil", "0,0=150"]),
    ("vector-b", ["attack", "2,0", "--mil", "0,0=150"]),
    ("cavalry", ["attack", "2,0", "--mil", "0,0=14", "--unit", "0"]),
    ("failed", ["attack", "2,0", "--mil", "0,0=29"]),
    ("capital", ["attack", "24,0", "--mil", "22,0=150"]),
    ("allied-fort", ["attack", "2,0", "--unit", "0"]),
    ("assault", ["assault", "0,0", "0", "--mil", "ship=24"]),
    ("landing", ["assault", "4,0", "1", "--mil", "ship=98"]),
    ("board", ["board", "1", "0", "--mil", "ship=50"]),
    ("lboard", ["lboard", "0", "0,0", "--mil", "0,0=100"]),
    ("paradrop", ["paradrop", "0", ".", "0,0", "4,0"]),
]


def note(text: str) -> None:
    print(text, file=sys.stderr, flush=True)


def run_timed(
    argv: list[str], env: dict[str, str], limit: float
) -> tuple[str, str, float, float, int]:
    """``argv`` as a process: its output, wall and CPU seconds (its own and its children's,
    from the kernel's accounting of reaped children), status; past ``limit`` seconds it is
    killed (status -9)."""
    before = resource.getrusage(resource.RUSAGE_CHILDREN)
    start = time.perf_counter()
    proc = subprocess.Popen(
        argv, stdout=subprocess.PIPE, stderr=subprocess.PIPE, env=env, text=True
    )
    try:
        out, err = proc.communicate(timeout=limit)
    except subprocess.TimeoutExpired:
        proc.kill()
        out, err = proc.communicate()
    wall = time.perf_counter() - start
    after = resource.getrusage(resource.RUSAGE_CHILDREN)
    cpu = (after.ru_utime - before.ru_utime) + (after.ru_stime - before.ru_stime)
    return out, err, wall, cpu, proc.returncode


def examples(runs: int) -> None:
    """The example worlds, as before: best and median of three, and the resolver's rate."""
    env = user_env()
    for name, words in CASES:
        cmd = [sys.executable, "-m", "bellum", "empire", "odds", *words]
        cmd += [
            "--world",
            str(ROOT / "examples" / "empire" / f"{name}.toml"),
            "--as",
            "1",
            "--json",
        ]
        run_timed(cmd, env, PLAN_LIMIT)  # writes the bytecode
        walls, cpus = [], []
        method = ""
        for _ in range(3):
            out, _err, wall, cpu, _status = run_timed(cmd, env, PLAN_LIMIT)
            walls.append(wall)
            cpus.append(cpu)
            method = json.loads(out)["method"]
        case = {"case": f"empire odds {name}", "method": method}
        case |= {"best_s": round(min(walls), 3), "median_s": round(statistics.median(walls), 3)}
        case |= {"best_cpu_s": round(min(cpus), 3)}
        print(json.dumps(case), flush=True)
    from bellum.empire.io.toml import load_world
    from bellum.empire.odds import make_plan, resolver_runs
    from bellum.empire.orders import Order

    world = load_world(ROOT / "examples" / "empire" / "vector-a.toml")
    plan = make_plan(world, 1, Order.parse("attack 2,0"), ["0,0=150"], [])
    for jobs in (1, 2):
        start = time.perf_counter()
        resolver_runs(world, 1, plan, runs, seed=1, jobs=jobs)
        rate = runs / (time.perf_counter() - start)
        print(
            json.dumps(
                {"case": f"resolver runs vector-a, {jobs} job(s)", "runs_per_s": round(rate)}
            )
        )


def plans(only: str | None = None) -> list[dict[str, Any]]:
    """The realistic suite's plans (``benchmarks/worlds/plans.toml``), of world ``only``."""
    doc = tomllib.loads((WORLDS / "plans.toml").read_text())
    return [p for p in doc["plan"] if only is None or p["world"] == only]


def realistic_cases(
    only: str | None = None,
    resolver_runs: int | None = None,
    versions: dict[str, Path | None] | None = None,
) -> list[dict[str, Any]]:
    """Every realistic plan timed as a whole process; one row per plan (printed too).

    ``versions`` names the checkouts to time (``None``: this one); with more than one,
    each plan is run by each in turn, so that both meet the same load, and each row
    says which (``version``)."""
    versions = versions or {"": None}
    envs = {}
    for name, src in versions.items():
        envs[name] = user_env()
        if src is not None:
            envs[name]["PYTHONPATH"] = str(src / "src")
    rows = []
    with tempfile.TemporaryDirectory() as tmp:
        dbs: dict[str, str] = {}
        todo = plans(only)
        for i, plan in enumerate(todo, 1):
            world = plan["world"]
            if world not in dbs:
                dbs[world] = str(Path(tmp) / f"{world}.db")
                dump = str(WORLDS / f"{world}.xdump")
                imp = [sys.executable, "-m", "bellum", "empire", "world", "import", dump]
                env = next(iter(envs.values()))
                subprocess.run([*imp, "--db", dbs[world]], env=env, check=True, capture_output=True)
                if len(dbs) == 1:  # bytecode written by a first run
                    for env in envs.values():
                        run_timed(_odds_argv(plan, dbs[world], None), env, PLAN_LIMIT)
            for name, env in envs.items():
                load = os.getloadavg()[0]
                argv = _odds_argv(plan, dbs[world], None)
                out, err, wall, cpu, status = run_timed(argv, env, PLAN_LIMIT)
                row: dict[str, Any] = {"case": plan["id"]} | ({"version": name} if name else {})
                row |= {"wall_s": round(wall, 3), "cpu_s": round(cpu, 3), "load": round(load, 1)}
                if status != 0:
                    row["error"] = _error(status, err)
                else:
                    row |= _figures(json.loads(out))
                if resolver_runs and status == 0:
                    # Played apart, so that the plan's own time is the odds' alone.
                    argv = _odds_argv(plan, dbs[world], resolver_runs)
                    out, err, wall, cpu, status = run_timed(argv, env, 10 * PLAN_LIMIT)
                    row["resolver_wall_s"], row["resolver_cpu_s"] = round(wall, 1), round(cpu, 1)
                    if status != 0:
                        row["resolver_error"] = _error(status, err)
                    else:
                        again = _figures(json.loads(out))
                        row["resolver"] = again["resolver"]
                        if again["p"] != row["p"]:  # the z-scores are against these odds
                            row["resolver"]["odds_p"] = again["p"]
                print(json.dumps(row), flush=True)
                rows.append(row)
                played = row.get("resolver_wall_s")
                played = "" if played is None else f", {resolver_runs} plays {played} s"
                note(f"[{i}/{len(todo)}] {row['case']}: {row['wall_s']:.2f} s{played}")
    return rows


def _odds_argv(plan: dict[str, Any], db: str, resolver_runs: int | None) -> list[str]:
    argv = [sys.executable, "-m", "bellum", "empire", "odds", *shlex.split(plan["command"])]
    argv += shlex.split(plan.get("answers", ""))
    argv += ["--as", plan["as"], "--db", db, "--json", "--seed", "1"]
    if resolver_runs:
        argv += ["--resolver-runs", str(resolver_runs), "--jobs", "2"]
    return argv


def _error(status: int, err: str) -> str:
    """What went wrong: the exit status (a signal as its negative number) and the last
    line of standard error."""
    if status == -9:
        return "timeout"
    return f"exit {status}: {(err.strip().splitlines() or ['?'])[-1]}"


def _figures(doc: dict[str, Any]) -> dict[str, Any]:
    """What the odds said: P(success), method, samples, standard errors, own timing."""
    errors = doc.get("standard_errors", {})
    losses = errors.get("expected_losses", {})
    out = {
        "p": round(doc["p_attacker_wins"], 5),
        "method": doc["method"],
        "samples": doc.get("samples"),
        "se_p": doc.get("standard_error", 0.0),
        "se_att": losses.get("attacker", 0.0),
        "se_def": losses.get("defender", 0.0),
        "losses": [round(doc["expected_losses"][s], 2) for s in ("attacker", "defender")],
        "seconds": doc.get("seconds"),
        "cpu_seconds": doc.get("cpu_seconds"),
    }
    resolver = doc.get("resolver")
    if resolver is not None:
        runs = resolver["runs"]
        out["resolver"] = {
            "runs": runs,
            "p": resolver["p_attacker_wins"],
            "se_p": resolver["standard_error"],
            "losses": [round(resolver["expected_losses"][s], 2) for s in ("attacker", "defender")],
            # The standard error of a mean of ``runs`` draws from the odds' distribution of
            # the losses: the resolver's own spread in the z-scores (beside the odds' error).
            "se_losses": [
                round(math.sqrt(_variance(doc["distributions"][s]) / runs), 3)
                for s in ("attacker", "defender")
            ],
            "z": {k: round(v, 2) for k, v in resolver["z"].items()},
        }
    return out


def _variance(dist: dict[str, list[float]]) -> float:
    """Of a distribution of losses as the odds' JSON gives it (values and chances)."""
    total = sum(dist["probabilities"]) or 1.0
    mean = sum(v * p for v, p in zip(dist["losses"], dist["probabilities"], strict=True)) / total
    return (
        sum((v - mean) ** 2 * p for v, p in zip(dist["losses"], dist["probabilities"], strict=True))
        / total
    )


def table(*paths: Path) -> str:
    """A Markdown table of two ``--realistic`` runs (their JSON lines, in two files or in
    one ``--compare`` file), plan by plan, load beside each."""
    lines = [json.loads(x) for p in paths for x in p.read_text().splitlines() if x.strip()]
    if len(paths) == 1:
        old = {r["case"]: r for r in lines if r.get("version") == "before"}
        new = {r["case"]: r for r in lines if r.get("version") == "after"}
    else:
        old, new = (
            {r["case"]: r for r in map(json.loads, p.read_text().splitlines()) if r} for p in paths
        )
    head = (
        "| plan | P before | method before | CPU s | wall s | load | P after | method after"
        " | CPU s | wall s | load | SE P | SE men |\n"
        "|---|---|---|---|---|---|---|---|---|---|---|---|---|"
    )
    out = [head]
    for case in [*old, *(c for c in new if c not in old)]:
        a, b = old.get(case, {}), new.get(case, {})
        cells = [case, _p(a), _method(a), _s(a, "cpu_s"), _s(a, "wall_s"), str(a.get("load", ""))]
        cells += [_p(b), _method(b), _s(b, "cpu_s"), _s(b, "wall_s"), str(b.get("load", ""))]
        cells += [_se(b, "se_p"), _se(b, "se_att") + " / " + _se(b, "se_def")]
        out.append("| " + " | ".join(cells) + " |")
    return "\n".join(out)


def _p(row: dict[str, Any]) -> str:
    if not row:
        return "not run"
    return "error" if "error" in row else f"{row['p']:.4f}"


def _method(row: dict[str, Any]) -> str:
    """The method, shortened for a table: ``mixture 20: paths drawn, histories 20/20,
    simulated 20×400`` for the engine's sentence."""
    if "error" in row:
        return str(row["error"])[:60].replace("|", "/")
    m = str(row.get("method", "")).replace("|", "/")
    for long, short in (
        (r"mixture \((\d+) samples: ", r"mixture \1: "),
        (r"paths to the fight drawn by their exact chances", "paths drawn (known)"),
        (r"paths to the fight drawn", "paths drawn"),
        (r"morale histories drawn in (\d+) of the (\d+) fights", r"histories \1/\2"),
        (r"(\d+) of them simulated \((\d+) runs each\)\)", r"simulated \1×\2"),
        (r"their fights exact\)", "fights exact"),
    ):
        m = re.sub(long, short, m)
    return m


def _s(row: dict[str, Any], key: str) -> str:
    return f"{row[key]:.2f}" if key in row else ""


def _se(row: dict[str, Any], key: str) -> str:
    return f"{row[key]:.2g}" if row.get(key) is not None else ""


def main() -> None:
    parser = argparse.ArgumentParser(description=__doc__.splitlines()[0])
    parser.add_argument("--runs", type=int, default=2000, help="resolver runs to time")
    parser.add_argument("--realistic", action="store_true", help="time the realistic suite")
    parser.add_argument("--only", help="one world of the realistic suite (e.g. w32x16)")
    parser.add_argument("--resolver-runs", type=int, help="also play each plan N times")
    parser.add_argument("--before", type=Path, help="time another checkout's src instead")
    parser.add_argument(
        "--compare",
        type=Path,
        metavar="DIR",
        help="time another checkout's src (before) and this one (after), plan by plan",
    )
    parser.add_argument(
        "--table",
        nargs="+",
        type=Path,
        metavar="RUN",
        help="print two --realistic runs (BEFORE AFTER, or one --compare run) as a Markdown table",
    )
    args = parser.parse_args()
    if args.table:
        print(table(*args.table))
    elif args.realistic:
        versions: dict[str, Path | None] | None = None
        if args.compare is not None:
            versions = {"before": args.compare, "after": None}
        elif args.before is not None:
            versions = {"": args.before}
        realistic_cases(args.only, args.resolver_runs, versions)
    else:
        examples(args.runs)


if __name__ == "__main__":
    main()
