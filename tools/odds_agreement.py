"""The odds against the real command, as a Markdown table: ``python tools/odds_agreement.py``.

For every case of ``tests/empire/test_empire_odds.py`` (each example world and
command), the odds of ``bellum empire odds`` beside ``--resolver-runs N`` plays of
the real command: P(success), both expected losses, and the z-score of each
(the spread the odds predict for N runs, plus the odds' own standard error where
they were sampled).  ``--runs`` (default 2000) and ``--seed`` pick the plays.
"""

from __future__ import annotations

import argparse
import sys
import time
from pathlib import Path

ROOT = Path(__file__).resolve().parents[1]
sys.path.insert(0, str(ROOT / "tests" / "empire"))

from test_empire_odds import CASES, EXAMPLES  # noqa: E402

from bellum.empire.io.toml import load_world  # noqa: E402
from bellum.empire.odds import make_plan, plan_odds, resolver_runs  # noqa: E402
from bellum.empire.odds.report import z_scores  # noqa: E402
from bellum.empire.orders import Order  # noqa: E402


def main() -> None:
    parser = argparse.ArgumentParser(description=__doc__.splitlines()[0])
    parser.add_argument("--runs", type=int, default=2000, help="plays of the real command per case")
    parser.add_argument("--seed", type=int, default=1, help="seed of the plays")
    args = parser.parse_args()
    print(
        "| world | command | force | method | P(success) odds / runs | z | "
        "attacker losses odds / runs | z | defender losses odds / runs | z | odds s |"
    )
    print("|---|---|---|---|---|---|---|---|---|---|---|")
    for name, order, mil, units in CASES:
        world = load_world(EXAMPLES / f"{name}.toml")
        plan = make_plan(world, 1, Order.parse(order), mil, units)
        started = time.perf_counter()
        odds = plan_odds(world, 1, plan, seed=5)
        took = time.perf_counter() - started
        runs = resolver_runs(world, 1, plan, args.runs, seed=args.seed)
        z = z_scores(odds, runs)
        force = " ".join([*(f"--mil {m}" for m in mil), *(f"--unit {u}" for u in units)]) or "all"
        print(
            f"| {name} | `{order}` | `{force}` | {odds.method} "
            f"| {odds.p_success:.4f} / {runs.p_success:.4f} | {z['p_attacker_wins']:+.2f} "
            f"| {odds.expected('attacker'):.2f} / {runs.mean('attacker'):.2f} "
            f"| {z['attacker_losses']:+.2f} "
            f"| {odds.expected('defender'):.2f} / {runs.mean('defender'):.2f} "
            f"| {z['defender_losses']:+.2f} | {took:.2f} |",
            flush=True,
        )


if __name__ == "__main__":
    main()
