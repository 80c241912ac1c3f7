"""How fast are the exact odds of a Panzer assault, against the resolver's own Monte Carlo?

Run by hand: ``python benchmarks/panzer_odds.py`` (``--quick`` for fewer repetitions).

The case is issue 13's target, ``examples/panzer/brigade.toml``: three attacking hexes, six
attacking and six defending units, with the spec §16 defaults (loss pairs 40/200 and 20/100,
probable morale checks, the success test that follows the odds).  The exact law
(``exact_distribution``) is timed, best of several runs, in wall and CPU time (CPU time is the
steadier figure on a shared machine).  The Monte Carlo is the resolver itself
(``monte_carlo``: ``resolve_plan`` run after run); its time per run is measured on a sample,
and the time to reach a given accuracy of P(success) is that times the runs the accuracy
needs, p(1 - p) / SE^2.  The exact law has no sampling error at all; the table shows what the
Monte Carlo pays for a standard error of 1, 0.1 and 0.01 percentage points, and the ratio to
the exact time.  Exits 1 when the exact time misses the 0.5 s target.
"""

from __future__ import annotations

import argparse
import math
import sys
import time
from pathlib import Path
from typing import Any

from bellum.panzer import load_scenario, plan_assault
from bellum.panzer.assault import AssaultPlan
from bellum.panzer.distribution import compare, exact_distribution, monte_carlo

TARGET_SECONDS = 0.5
EXAMPLE = Path(__file__).resolve().parents[1] / "examples" / "panzer" / "brigade.toml"


def brigade_assault() -> AssaultPlan:
    """Six units from three hexes assault six defenders in a village (spec §16 defaults)."""
    return plan_assault(load_scenario(EXAMPLE))


def best_of(repeats: int, work: Any) -> tuple[float, float, Any]:
    """Best wall and best CPU seconds of ``repeats`` calls of ``work``, and its last result."""
    walls, cpus, result = [], [], None
    for _ in range(repeats):
        w, c = time.perf_counter(), time.process_time()
        result = work()
        walls.append(time.perf_counter() - w)
        cpus.append(time.process_time() - c)
    return min(walls), min(cpus), result


def main(argv: list[str] | None = None) -> int:
    parser = argparse.ArgumentParser(description=__doc__.splitlines()[0])
    parser.add_argument("--quick", action="store_true", help="fewer repetitions and MC runs")
    args = parser.parse_args(argv)
    repeats, sample_runs = (3, 1000) if args.quick else (7, 4000)

    plan = brigade_assault()
    bd = plan.breakdown
    print(
        f"case: {len(bd.attack_hexes)} attacking hexes, {len(plan.attackers)} attacking and "
        f"{len(plan.defenders)} defending units, odds {bd.odds:.2f} : 1"
    )
    for cr in (bd.against_defenders, bd.against_attackers):
        print(
            f"  losses to {cr.losing_side}: {cr.low:.1f} .. {cr.high:.1f} men-equivalents"
            f" ({cr.pair.name} {cr.pair.low:g}/{cr.pair.high:g})"
        )

    exact_distribution(plan)  # warm up caches and imports
    wall, cpu, law = best_of(repeats, lambda: exact_distribution(plan))
    p = law.p_success
    verdict = "meets" if wall <= TARGET_SECONDS else "MISSES"
    print(f"exact: {wall:.3f} s wall, {cpu:.3f} s CPU (best of {repeats}); {verdict} the target")
    print(f"  of {TARGET_SECONDS} s; P(success) = {p:.6f}, total probability {law.total:.15f}")

    mc_wall, mc_cpu, sample = best_of(1, lambda: monte_carlo(plan, sample_runs, seed=1))
    agreement = compare(law, sample)
    per_run_wall, per_run_cpu = mc_wall / sample_runs, mc_cpu / sample_runs
    print(
        f"resolver Monte Carlo: {1e3 * per_run_wall:.3f} ms wall, {1e3 * per_run_cpu:.3f} ms CPU"
        f" per run ({sample_runs} runs); max |z| against the exact law {agreement.max_abs_z:.2f}"
    )
    print()
    print("  accuracy of P(success)    MC runs    MC wall s    MC CPU s   ratio (CPU)")
    for se in (0.01, 0.001, 0.0001):
        runs = math.ceil(p * (1 - p) / se**2)
        mc_w, mc_c = runs * per_run_wall, runs * per_run_cpu
        print(
            f"  standard error {100 * se:<6g} pp  {runs:>9,}  {mc_w:>11,.1f}  {mc_c:>10,.1f}"
            f"  {mc_c / cpu:>10,.0f}x"
        )
    print(
        "  (the exact law is exact to rounding, about 1e-15: no run count reaches that;"
        " the ratios above only grow with the accuracy asked)"
    )
    return 0 if wall <= TARGET_SECONDS else 1


if __name__ == "__main__":
    sys.exit(main())
