"""Timings of `bellum empire odds` on the example worlds, and resolver runs per second.

    python benchmarks/empire_odds.py [--runs N]

Each case is the whole command in a fresh process (start-up included), best
and median wall time of three; then the resolver's throughput with one and two
jobs on vector A.  One JSON line per case.
"""

from __future__ import annotations

import argparse
import json
import statistics
import subprocess
import sys
import time
from pathlib import Path

from user_env import user_env

ROOT = Path(__file__).resolve().parents[1]
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


def main() -> None:
    parser = argparse.ArgumentParser()
    parser.add_argument("--runs", type=int, default=2000, help="resolver runs to time")
    args = parser.parse_args()
    for name, words in CASES:
        cmd = [sys.executable, "-m", "bellum", "empire", "odds", *words]
        cmd += [
            "--world",
            str(ROOT / "examples" / "empire" / f"{name}.toml"),
            "--as",
            "1",
            "--json",
        ]
        env = user_env()
        subprocess.run(cmd, capture_output=True, check=True, env=env)  # writes the bytecode
        walls = []
        method = ""
        for _ in range(3):
            start = time.perf_counter()
            out = subprocess.run(cmd, capture_output=True, text=True, check=True, env=env).stdout
            walls.append(time.perf_counter() - start)
            method = json.loads(out)["method"]
        case = {"case": f"empire odds {name}", "method": method}
        case |= {"best_s": round(min(walls), 3), "median_s": round(statistics.median(walls), 3)}
        print(json.dumps(case), flush=True)
    from bellum.empire.io.toml import load_world
    from bellum.empire.odds import make_plan, resolver_runs
    from bellum.empire.orders import Order

    world = load_world(ROOT / "examples" / "empire" / "vector-a.toml")
    plan = make_plan(world, 1, Order.parse("attack 2,0"), ["0,0=150"], [])
    for jobs in (1, 2):
        start = time.perf_counter()
        resolver_runs(world, 1, plan, args.runs, seed=1, jobs=jobs)
        rate = args.runs / (time.perf_counter() - start)
        print(
            json.dumps(
                {"case": f"resolver runs vector-a, {jobs} job(s)", "runs_per_s": round(rate)}
            )
        )


if __name__ == "__main__":
    main()
