"""How fast does the planning table's odds panel follow a slider?  (``bellum serve``, issue 17)

Run by hand: ``python benchmarks/web_odds.py`` (``--quick`` for fewer plans).

A slider drag asks for a new plan at each step: the server runs the command to its fight
(the planner's ``prepare``), turns it into the odds engine's two sides (``fight_sides``),
and answers a seeded Monte Carlo estimate of 10,000 fights (``live``); when the slider
rests it asks again for the exact odds, which reuse the sides kept for that plan.  This
times :meth:`bellum.web.service.EmpireGame.odds` for both, median over the plans of a
simulated drag, on two worlds: ``examples/empire/vector-a.toml`` (one source against 40
mil) and the browser tests' generated 64 x 32 world (two sources against 246 mil and an
infantry unit).  ``fight_sides`` alone is also timed with and without the web layer's
pickling copy, to show what that saves.  Each figure is wall time, then CPU time in
brackets: on a busy machine the CPU time is what an idle one would take (the work is
one thread).  The load average is printed.  Exits 1 when the median live estimate's CPU
time misses 200 ms.
"""

from __future__ import annotations

import argparse
import copy
import os
import statistics
import sys
import time
from collections.abc import Callable
from pathlib import Path

ROOT = Path(__file__).resolve().parents[1]
sys.path.insert(0, str(ROOT / "tests" / "web"))

from worldgen import frontier  # noqa: E402

from bellum.empire.planning import fight_sides, make_plan, prepare  # noqa: E402
from bellum.web.service import EmpireGame, Plan, _copies_by_pickling  # noqa: E402

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
    live: list[tuple[float, float]] = []
    exact: list[tuple[float, float]] = []
    deep: list[tuple[float, float]] = []
    pickled: list[tuple[float, float]] = []
    world = game.world()
    for i in range(steps):
        mil = {k: most - (most * 3 // 4) * i // max(1, steps - 1) for k, most in sources.items()}
        plan = Plan("attack", target, mil=mil)
        live.append(ms(lambda plan=plan: game.odds(1, plan, live=True)))
        exact.append(ms(lambda plan=plan: game.odds(1, plan, live=False)))
        words = plan.mil_words()
        combat, _ = prepare(world, 1, make_plan(world, 1, target, words, []))
        deep.append(ms(lambda combat=combat: fight_sides(copy.deepcopy(combat))))
        _copies_by_pickling(combat)
        pickled.append(ms(lambda combat=combat: fight_sides(combat)))
    return {
        "live": median(live),
        "exact": median(exact),
        "sides_deepcopy": median(deep),
        "sides_pickled": median(pickled),
    }


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
    print(f"{'world':16} {'live':>12} {'exact':>12} {'sides, deepcopy':>16} {'sides, pickled':>15}")
    worst = 0.0
    for name, path, target, sources in cases:
        game = EmpireGame(world_file=path)
        try:
            game.odds(1, Plan("attack", target, mil=dict(sources)), live=True)  # warm up
            t = drag(game, target, sources, steps)
        finally:
            game.close()
        worst = max(worst, t["live"][1])
        print(
            f"{name:16} {shown(t['live']):>12} {shown(t['exact']):>12}"
            f" {shown(t['sides_deepcopy']):>16} {shown(t['sides_pickled']):>15}"
        )
    print(f"median live estimate, worst world: {worst:.0f} ms CPU (target {TARGET_MS:.0f} ms)")
    return 0 if worst <= TARGET_MS else 1


if __name__ == "__main__":
    sys.exit(main())
