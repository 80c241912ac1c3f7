"""Compare a vector's random draws on the real server with bellum's, one by one.

    python draws.py NAME [--all]

Plays tests/vectors/NAME.toml again on the tracing server that
trace-build.sh builds (build/empire-trace), replays it through bellum with
every draw noted, and prints the draws around the first difference with the
functions that made them (``--all``: every draw).  "all N draws agree" means
that bellum drew what the server drew, in the same order.
"""

from __future__ import annotations

import os
import subprocess
import sys
import tomllib
import traceback
from pathlib import Path
from typing import Any

from bellum.dice import ServerRandom
from bellum.empire.combat import run_order
from bellum.empire.events import ScriptedPrompter
from bellum.empire.io.toml import load_world
from bellum.empire.orders import Order
from bellum.empire.rules import Rules

HERE = Path(__file__).resolve().parent
ROOT = HERE.parents[1]
TRACE = ROOT / "build" / "empire-trace"

Draw = tuple[str, float, float, str]


def server_draws(name: str, vector: dict[str, Any]) -> list[Draw]:
    """The draws of the vector's command on the tracing server, with their callers."""
    work = ROOT / "build" / "oracle" / f"{name}-trace"
    subprocess.run(
        [sys.executable, str(HERE / "toml2setup.py"), str(ROOT / vector["world"]), str(work)],
        check=True,
        capture_output=True,
    )
    lines = [f"__cmd added -{vector['seed'] - 1} 0 0", vector["command"], *vector["answers"]]
    (work / "cmds").write_text("\n".join(lines) + "\n")
    log = work / "draws.log"
    log.unlink(missing_ok=True)
    env = dict(os.environ, EMPIRE_PREFIX=str(TRACE), EMP_DRAWLOG=str(log))
    subprocess.run(
        [sys.executable, str(HERE / "scenario.py"), str(work)],
        env=env,
        check=True,
        capture_output=True,
    )
    rows = [line.split() for line in log.read_text().splitlines()]
    seeds = [i for i, r in enumerate(rows) if r[0] == "seed" and float(r[1]) == vector["seed"]]
    start = seeds[-1] + 1
    end = next((i for i in range(start, len(rows)) if rows[i][0] == "seed"), len(rows))
    rows = rows[start:end]
    addresses = sorted({a for r in rows for a in r[3:]})
    out = subprocess.run(
        ["addr2line", "-f", "-s", "-e", str(TRACE / "sbin" / "emp_server"), *addresses],
        capture_output=True,
        text=True,
        check=True,
    ).stdout.splitlines()
    where = {
        a: f"{out[2 * i]}:{out[2 * i + 1].rsplit(':', 1)[-1].split()[0]}"
        for i, a in enumerate(addresses)
    }
    return [(r[0], float(r[1]), float(r[2]), " < ".join(where[a] for a in r[3:7])) for r in rows]


def bellum_draws(vector: dict[str, Any]) -> list[Draw]:
    """The draws bellum makes replaying the vector, with the rules functions that made them."""
    found: list[Draw] = []
    chance, roll0 = ServerRandom.chance, ServerRandom.roll0

    def caller() -> str:
        frames = [f for f in traceback.extract_stack()[:-2] if "/bellum/" in f.filename]
        frames = [f for f in frames if not f.filename.endswith("dice.py")]
        return " < ".join(f"{f.name}:{f.lineno}" for f in reversed(frames[-4:]))

    def noted_chance(self: ServerRandom, p: float) -> bool:
        r = chance(self, p)
        found.append(("chance", p, float(r), caller()))
        return r

    def noted_roll0(self: ServerRandom, n: int) -> int:
        r = roll0(self, n)
        found.append(("roll0", float(n), float(r), caller()))
        return r

    ServerRandom.chance = noted_chance  # type: ignore[method-assign]
    ServerRandom.roll0 = noted_roll0  # type: ignore[method-assign]
    try:
        world = load_world(ROOT / vector["world"])
        prompter = ScriptedPrompter(list(vector["answers"]))
        order, dice = Order.parse(vector["command"]), ServerRandom(vector["seed"])
        run_order(world, order, 1, dice, prompter, rules=Rules.of(world.options))
    finally:
        ServerRandom.chance, ServerRandom.roll0 = chance, roll0  # type: ignore[method-assign]
    return found


def main(argv: list[str]) -> None:
    name = argv[0]
    vector = tomllib.loads((ROOT / "tests" / "vectors" / f"{name}.toml").read_text())
    theirs, ours = server_draws(name, vector), bellum_draws(vector)
    n = max(len(theirs), len(ours))
    missing: Draw = ("-", 0.0, 0.0, "")
    first = next(
        (i for i in range(n) if i >= len(theirs) or i >= len(ours) or theirs[i][:3] != ours[i][:3]),
        None,
    )
    for i in range(n):
        if "--all" in argv or (first is not None and first - 6 <= i <= first + 6):
            s = theirs[i] if i < len(theirs) else missing
            b = ours[i] if i < len(ours) else missing
            mark = "!!" if i == first else "  "
            print(f"{mark}{i:5d} server {s[0]:6} {s[1]:>10.6g} {s[2]:>4g}  {s[3][:70]}")
            print(f"{'':7} bellum {b[0]:6} {b[1]:>10.6g} {b[2]:>4g}  {b[3][:70]}")
    if first is None:
        print(f"{name}: all {n} draws agree")
    else:
        counts = f"server {len(theirs)} draws, bellum {len(ours)}"
        print(f"{name}: {counts}; first difference at {first}")
        sys.exit(1)


if __name__ == "__main__":
    main(sys.argv[1:])
