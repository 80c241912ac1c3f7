"""Start-up time of the command line: ``python benchmarks/startup.py``.

Runs each case as a fresh process (``python -m bellum ...``) ``--repeat``
times and prints one JSON line per case on standard output: ``case``,
``seconds`` (fastest wall time), ``cpu_seconds`` (fastest CPU time of the
child: on a shared machine wall time includes waiting for a core),
``target_seconds`` where issue 16 sets one, ``floor_seconds`` and
``floor_cpu_seconds`` (the same interpreter importing only click, which no
command can beat) and ``ratio`` (seconds / floor).

``--importtime`` adds, for ``bellum --help``, the modules that took longest
to import (from ``python -X importtime``).  ``--src DIR`` measures the bellum
package found in ``DIR`` instead of the installed one (to compare with an
older checkout: ``git archive REV src | tar -x -C /tmp/old``).
"""

from __future__ import annotations

import argparse
import json
import math
import os
import subprocess
import sys
import time

from user_env import user_env

#: name, arguments after ``python``, target in seconds (issue 16) or None.
CASES: list[tuple[str, list[str], float | None]] = [
    ("bellum --help", ["-m", "bellum", "--help"], 0.15),
    ("bellum --version", ["-m", "bellum", "--version"], None),
    ("bellum empire --help", ["-m", "bellum", "empire", "--help"], None),
    ("bellum panzer rules", ["-m", "bellum", "panzer", "rules"], None),
]
FLOOR = ["-c", "import click"]


def run_once(args: list[str], env: dict[str, str]) -> tuple[float, float]:
    """Wall and CPU seconds of one ``python args`` process."""
    start = time.perf_counter()
    proc = subprocess.Popen(
        [sys.executable, *args], env=env, stdout=subprocess.DEVNULL, stderr=subprocess.PIPE
    )
    _, status, usage = os.wait4(proc.pid, 0)
    wall = time.perf_counter() - start
    proc.returncode = os.waitstatus_to_exitcode(status)
    err = proc.stderr.read().decode() if proc.stderr else ""
    if proc.returncode != 0:
        raise SystemExit(f"python {' '.join(args)} failed ({proc.returncode}): {err.strip()}")
    return wall, usage.ru_utime + usage.ru_stime


def best(args: list[str], env: dict[str, str], repeat: int) -> tuple[float, float]:
    """Fastest wall and CPU time of ``repeat`` runs, after one warm-up run."""
    run_once(args, env)
    wall = cpu = math.inf
    for _ in range(repeat):
        w, c = run_once(args, env)
        wall, cpu = min(wall, w), min(cpu, c)
    return wall, cpu


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
        "--importtime", action="store_true", help="also list the slowest imports of --help"
    )
    args = parser.parse_args()
    env = user_env()
    if args.src:
        env["PYTHONPATH"] = os.path.abspath(args.src)
    floor, floor_cpu = best(FLOOR, env, args.repeat)
    for name, argv, target in CASES:
        wall, cpu = best(argv, env, args.repeat)
        line = {
            "case": name,
            "seconds": round(wall, 4),
            "cpu_seconds": round(cpu, 4),
            "target_seconds": target,
            "floor_seconds": round(floor, 4),
            "floor_cpu_seconds": round(floor_cpu, 4),
            "ratio": round(wall / floor, 2),
        }
        print(json.dumps(line), flush=True)
    if args.importtime:
        for module, seconds in slowest_imports(env, 15):
            print(f"{seconds * 1000:8.1f} ms  {module}", file=sys.stderr)


if __name__ == "__main__":
    main()
