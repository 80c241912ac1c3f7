"""How fast does the planning table's odds panel follow a slider?  (``bellum serve``, issue 17)

Run by hand: ``python benchmarks/web_odds.py`` (``--quick`` for fewer plans).

A slider drag asks for a new plan at each step; the server answers with the planner's odds
(:func:`bellum.empire.odds.plan_odds`, the engine of ``bellum empire odds``: the command's
own flow to its fight, then the fight solved exactly, or a mixture over sampled paths) and
keeps them per plan, so the request sent when the slider rests is answered from memory.
This times :meth:`bellum.web.games.EmpireGame.odds` for both, median over the plans of a
simulated drag, on ``examples/empire/vector-a.toml`` (one source against 40 mil) and the
browser tests' generated 64 x 32 world (two sources against 246 mil and an infantry unit).
Each figure is wall time, then CPU time in brackets: on a busy machine the CPU time is
what an idle one would take (the work is one thread).  The load average is printed.  Exits
1 when the median new plan's CPU time misses 200 ms.
"""

from __future__ import annotations

import argparse
import os
import statistics
import sys
import time
from collections.abc import Callable
from pathlib import Path

ROOT = Path(__file__).resolve().parents[1]
sys.path.insert(0, str(ROOT / "tests" / "web"))

from worldgen import frontier  # noqa: E402

from bellum.web.games import EmpireGame, Plan  # noqa: E402

TARGET_MS = 200.0


def ms(work: Callable[[], object]) -> tuple[float, float]:
    """Wall and CPU milliseconds of one call of ``work``."""
    wall, cpu = time.perf_counter(), time.process_time()
    work()
    return 1000 * (time.perf_counter() - wall), 1000 * (time.process_time() - cpu)


def median(times: list[tuple[float, float]]) -> tuple[float, float]:
    return statistics.median(w for w, _ in times), statistics.median(c for _, c in times)


def shown(t: tuple[float, float]) -> str:
    return f"{t[0]:5.0f} ({t[1]:4.0f})"


def drag(
    game: EmpireGame, target: str, sources: dict[str, int], steps: int
) -> dict[str, tuple[float, float]]:
    """Each source's slider from its max down to a quarter of it, ``steps`` plans."""
    new: list[tuple[float, float]] = []
    again: list[tuple[float, float]] = []
    for i in range(steps):
        mil = {k: most - (most * 3 // 4) * i // max(1, steps - 1) for k, most in sources.items()}
        plan = Plan("attack", target, mil=mil)
        new.append(ms(lambda plan=plan: game.odds(1, plan)))
        again.append(ms(lambda plan=plan: game.odds(1, plan)))
    return {"new": median(new), "again": median(again)}


def main() -> int:
    parser = argparse.ArgumentParser(description=__doc__.split("\n")[0])
    parser.add_argument("--quick", action="store_true", help="4 plans per world instead of 16")
    args = parser.parse_args()
    steps = 4 if args.quick else 16
    build = ROOT / "build"
    build.mkdir(exist_ok=True)
    (build / "frontier.toml").write_text(frontier())
    cases = [
        ("vector-a.toml", ROOT / "examples" / "empire" / "vector-a.toml", "2,0", {"0,0": 199}),
        ("generated 64x32", build / "frontier.toml", "1,1", {"0,2": 107, "-1,1": 105}),
    ]
    print(f"load average {os.getloadavg()[0]:.2f} on {os.cpu_count()} cores")
    print("milliseconds, wall (CPU)")
    print(f"{'world':16} {'new plan':>12} {'same plan':>12}")
    worst = 0.0
    for name, path, target, sources in cases:
        game = EmpireGame(world_file=path)
        try:
            game.odds(1, Plan("attack", target, mil={k: 1 for k in sources}))  # warm up
            t = drag(game, target, sources, steps)
        finally:
            game.close()
        worst = max(worst, t["new"][1])
        print(f"{name:16} {shown(t['new']):>12} {shown(t['again']):>12}")
    print(f"median new plan, worst world: {worst:.0f} ms CPU (target {TARGET_MS:.0f} ms)")
    return 0 if worst <= TARGET_MS else 1


if __name__ == "__main__":
    sys.exit(main())
