"""Start-up time of the command line: ``python benchmarks/startup.py``.

Runs each case as a fresh process (``python -m bellum ...``) ``--repeat``
times and prints one JSON line per case on standard output: ``case``,
``seconds`` (fastest wall time), ``cpu_seconds`` (fastest CPU time of the
child: on a shared machine wall time includes waiting for a core),
``target_seconds`` where issue 16 sets one, ``floor_seconds`` and
``floor_cpu_seconds`` (the same interpreter importing only click, which no
command can beat) and ``ratio`` (seconds / floor).

The ``empire odds`` cases (issue 23) are the odds command refused for a
mistyped order (``board`` without its FROM: what a player pays for a typo,
imports and all) and a whole plan on the smallest example world (start-up plus
a fight solved at once).

``--importtime`` adds, for ``bellum --help``, the modules that took longest
to import (from ``python -X importtime``).  ``--src DIR`` measures the bellum
package found in ``DIR`` instead of the installed one (to compare with an
older checkout: ``git archive REV src | tar -x -C /tmp/old``).  ``--compare DIR``
times each case with ``DIR``'s ``src`` too, run for run in turn so that both
meet the same load, and adds ``before_seconds``, ``before_cpu_seconds`` and
``gain`` (before CPU / after CPU).
"""

from __future__ import annotations

import argparse
import json
import math
import os
import subprocess
import sys
import time
from pathlib import Path

from user_env import user_env

ROOT = Path(__file__).resolve().parents[1]
#: ``bellum empire odds`` on the smallest example world.
ODDS = ["-m", "bellum", "empire", "odds", "--world", str(ROOT / "examples/empire/vector-a.toml")]
#: name, arguments after ``python``, target in seconds (issue 16) or None, exit status.
CASES: list[tuple[str, list[str], float | None, int]] = [
    ("bellum --help", ["-m", "bellum", "--help"], 0.15, 0),
    ("bellum --version", ["-m", "bellum", "--version"], None, 0),
    ("bellum empire --help", ["-m", "bellum", "empire", "--help"], None, 0),
    ("bellum panzer rules", ["-m", "bellum", "panzer", "rules"], None, 0),
    (
        "bellum empire odds, a mistyped order",
        [*ODDS, "board", "3,-1", "--as", "1"],
        None,
        2,
    ),
    (
        "bellum empire odds, vector-a",
        [*ODDS, "attack", "2,0", "--mil", "0,0=150", "--as", "1", "--json", "--seed", "1"],
        None,
        0,
    ),
]
FLOOR = ["-c", "import click"]


def run_once(args: list[str], env: dict[str, str], expect: int = 0) -> tuple[float, float]:
    """Wall and CPU seconds of one ``python args`` process, which exits with ``expect``."""
    start = time.perf_counter()
    proc = subprocess.Popen(
        [sys.executable, *args], env=env, stdout=subprocess.DEVNULL, stderr=subprocess.PIPE
    )
    _, status, usage = os.wait4(proc.pid, 0)
    wall = time.perf_counter() - start
    proc.returncode = os.waitstatus_to_exitcode(status)
    err = proc.stderr.read().decode() if proc.stderr else ""
    if proc.returncode != expect:
        raise SystemExit(f"python {' '.join(args)} failed ({proc.returncode}): {err.strip()}")
    return wall, usage.ru_utime + usage.ru_stime


def best(
    args: list[str], envs: list[dict[str, str]], repeat: int, expect: int = 0
) -> list[tuple[float, float]]:
    """Fastest wall and CPU time of ``repeat`` runs in each environment (taking turns),
    after one warm-up run in each."""
    for env in envs:
        run_once(args, env, expect)
    times = [(math.inf, math.inf) for _ in envs]
    for _ in range(repeat):
        for i, env in enumerate(envs):
            w, c = run_once(args, env, expect)
            times[i] = (min(times[i][0], w), min(times[i][1], c))
    return times


def slowest_imports(env: dict[str, str], top: int) -> list[tuple[str, float]]:
    """The ``top`` modules of ``bellum --help`` by cumulative import time (seconds)."""
    done = subprocess.run(
        [sys.executable, "-X", "importtime", "-m", "bellum", "--help"],
        env=env,
        capture_output=True,
        text=True,
        check=True,
    )
    rows = []
    for line in done.stderr.splitlines():
        if not line.startswith("import time:") or "cumulative" in line:
            continue
        _, cumulative, name = line.split("|")
        rows.append((name.strip(), int(cumulative) / 1e6))
    return sorted(rows, key=lambda r: -r[1])[:top]


def main() -> None:
    parser = argparse.ArgumentParser(description=__doc__.splitlines()[0])
    parser.add_argument("--repeat", type=int, default=10, help="runs per case (default 10)")
    parser.add_argument("--src", help="import bellum from this folder instead")
    parser.add_argument(
        "--compare", metavar="DIR", help="also time the src of the checkout DIR (before)"
    )
    parser.add_argument(
        "--importtime", action="store_true", help="also list the slowest imports of --help"
    )
    args = parser.parse_args()
    env = user_env()
    if args.src:
        env["PYTHONPATH"] = os.path.abspath(args.src)
    envs = [env]
    if args.compare:
        envs.append(user_env() | {"PYTHONPATH": os.path.join(os.path.abspath(args.compare), "src")})
    [(floor, floor_cpu)] = best(FLOOR, [env], args.repeat)
    for name, argv, target, expect in CASES:
        times = best(argv, envs, args.repeat, expect)
        wall, cpu = times[0]
        line: dict[str, object] = {
            "case": name,
            "seconds": round(wall, 4),
            "cpu_seconds": round(cpu, 4),
            "target_seconds": target,
            "floor_seconds": round(floor, 4),
            "floor_cpu_seconds": round(floor_cpu, 4),
            "ratio": round(wall / floor, 2),
            "load": round(os.getloadavg()[0], 1),
        }
        if args.compare:
            before, before_cpu = times[1]
            line |= {
                "before_seconds": round(before, 4),
                "before_cpu_seconds": round(before_cpu, 4),
                "gain": round(before_cpu / cpu, 2),
            }
        print(json.dumps(line), flush=True)
    if args.importtime:
        for module, seconds in slowest_imports(env, 15):
            print(f"{seconds * 1000:8.1f} ms  {module}", file=sys.stderr)


if __name__ == "__main__":
    main()
