"""How the odds of a plan are shown: text, a comparison table, and the ``--json`` document.

The generic parts (outcomes, loss tables, histograms, the base JSON) come
from :mod:`bellum.odds.report`; this adds what belongs to a planned Empire
command: the method with its standard error, the strength lines the command
prints before its fight, and the resolver runs next to the odds.
"""

from __future__ import annotations

import math
from typing import Any

from bellum.empire.odds.engine import EmpireOdds
from bellum.empire.odds.plan import Plan
from bellum.empire.odds.resolver import ResolverRuns
from bellum.empire.world import World
from bellum.odds.report import histogram, loss_table, percent, to_json_dict

_BOLD = "\x1b[1m"
_RESET = "\x1b[0m"


def plan_json(plan: Plan, world: World, country: int) -> dict[str, Any]:
    """The plan as the player gave it (sources in the player's coordinates)."""
    mil = None
    if plan.mil is not None:
        mil = {("ship" if k == "ship" else world.fmt(k, country)): n for k, n in plan.mil.items()}
    return {
        "command": plan.order.text(),
        "mil": mil,
        "units": None if plan.units is None else sorted(plan.units),
    }


def to_json(
    odds: EmpireOdds, world: World, country: int, resolver: ResolverRuns | None = None
) -> dict[str, Any]:
    """The ``--json`` document of ``bellum empire odds`` (docs/odds.md)."""
    doc = to_json_dict(odds.odds)
    doc.pop("end_states", None)
    doc["method"] = odds.method
    doc["seed"] = odds.seed
    doc["samples"] = odds.samples
    doc["p_attacker_wins"] = odds.p_success
    doc["standard_error"] = odds.standard_error
    doc["standard_errors"] = {
        "p_attacker_wins": odds.standard_error,
        "expected_losses": dict(odds.expected_errors),
    }
    doc["notes"] = list(odds.notes)
    doc["plan"] = plan_json(odds.plan, world, country)
    doc["before_the_fight"] = {
        "lines": odds.lines,
        "paths": odds.leaves,
        "fights_solved": odds.fights,
        "final_strengths": {k: list(v) for k, v in odds.final.items()},
    }
    if resolver is not None:
        doc["resolver"] = resolver_json(odds, resolver)
    return doc


def resolver_json(odds: EmpireOdds, r: ResolverRuns) -> dict[str, Any]:
    """The resolver runs next to the odds, each figure with its z-score."""
    return {
        "runs": r.runs,
        "seed": r.seed,
        "outcomes": {k: v / r.runs for k, v in sorted(r.outcomes.items())},
        "p_attacker_wins": r.p_success,
        "standard_error": r.standard_error,
        "expected_losses": {s: r.mean(s) for s in ("attacker", "defender")},
        "z": z_scores(odds, r),
    }


def z_scores(odds: EmpireOdds, r: ResolverRuns) -> dict[str, float]:
    """(resolver - odds) / the standard error the odds predict for ``r.runs`` runs.

    The spread is the odds' own (binomial for P(success), the predicted loss
    distribution's variance for the losses), not the runs' sample spread, which
    underestimates it when a skewed distribution's tail is rarely drawn; the
    odds' own standard error is added when they were sampled.
    """
    n = r.runs
    p = min(1.0, max(0.0, odds.p_success))
    out = {"p_attacker_wins": _z(r.p_success, p, math.sqrt(p * (1 - p) / n), odds.standard_error)}
    for side in ("attacker", "defender"):
        dist = odds.odds.losses[side]
        mean = dist.mean()
        var = float(((dist.values - mean) ** 2 * dist.probs).sum() / max(dist.total, 1e-300))
        out[f"{side}_losses"] = _z(
            r.mean(side), mean, math.sqrt(var / n), odds.expected_errors[side]
        )
    return out


def _z(a: float, b: float, sa: float, sb: float) -> float:
    se = math.hypot(sa, sb)
    if se < 1e-9:  # every run alike and the odds exact: equal up to rounding, or not
        return 0.0 if abs(a - b) <= 1e-6 * (1 + abs(b)) else math.copysign(math.inf, a - b)
    return (a - b) / se


def method_line(odds: EmpireOdds) -> str:
    """How the numbers were found, with the standard error where they were sampled."""
    parts = [f"model {odds.model}", f"method {odds.method}"]
    if odds.leaves > 1 and odds.samples is None:
        parts.append(f"{odds.leaves} paths to the fight")
    if odds.samples is not None:
        parts.append(f"seed {odds.seed}")
        parts.append(f"standard error {odds.standard_error:.2g}")
    if odds.odds.pruned_mass:
        parts.append(f"pruned mass {odds.odds.pruned_mass:.2g}")
    if odds.odds.seconds is not None:
        parts.append(f"{odds.odds.seconds:.3g} s")
    return ", ".join(parts)


def render(odds: EmpireOdds, *, color: bool = False, width: int = 40) -> str:
    """The whole report: strength lines, outcomes, losses, histograms."""
    out = list(odds.lines)
    if odds.leaves > 1 and odds.final:
        (a0, a1), (d0, d1) = odds.final["attack"], odds.final["defense"]
        out.append(f"(over every path to the fight: final attack {a0}..{a1}, defense {d0}..{d1})")
    out.append("")
    rows = [("P(success)", odds.p_success)] + [
        (f"  P({k})", v) for k, v in odds.odds.outcomes.items()
    ]
    label_width = max(len(k) for k, _ in rows)
    se = f" ± {percent(odds.standard_error)}" if odds.samples is not None else ""
    for i, (label, p) in enumerate(rows):
        value = percent(p) + (se if i == 0 else "")
        out.append(f"{label.ljust(label_width)} {_BOLD + value + _RESET if color else value}")
    for side in ("attacker", "defender"):
        err = odds.expected_errors[side]
        plus = f" ± {err:.2f}" if odds.samples is not None else ""
        out.append(f"expected {side} losses: {odds.expected(side):.2f}{plus}")
    out.append(f"({method_line(odds)})")
    for note in odds.notes:
        out.append(f"note: {note}")
    out.append("")
    out.append(loss_table(odds.odds.losses))
    for side, dist in odds.odds.losses.items():
        out.append("")
        out.append(histogram(dist, title=f"{side} losses", width=width, color=color))
    return "\n".join(out)


def render_resolver(odds: EmpireOdds, r: ResolverRuns) -> str:
    """One paragraph: the real command played ``r.runs`` times, beside the odds."""
    z = z_scores(odds, r)
    shares = ", ".join(f"{k} {100 * v / r.runs:.2f}%" for k, v in sorted(r.outcomes.items()))
    return (
        f"the real command, played {r.runs} times (seed {r.seed}): "
        f"P(success) {100 * r.p_success:.2f}% ± {100 * r.standard_error:.2f}% "
        f"(z {z['p_attacker_wins']:+.2f}), "
        f"losses {r.mean('attacker'):.2f} (z {z['attacker_losses']:+.2f}) / "
        f"{r.mean('defender'):.2f} (z {z['defender_losses']:+.2f}); {shares}"
    )


def comparison(rows: list[tuple[str, EmpireOdds]]) -> str:
    """Several plans side by side: P(success), the outcomes and the expected losses."""
    names = sorted({k for _, o in rows for k in o.odds.outcomes})
    head = ["plan", "P(success)", *names, "att. losses (mil)", "def. losses (mil)", "method"]
    body = [
        [
            label,
            percent(o.p_success, 2),
            *(percent(o.odds.outcomes.get(k, 0.0), 2) for k in names),
            f"{o.expected('attacker'):.2f}",
            f"{o.expected('defender'):.2f}",
            o.method,
        ]
        for label, o in rows
    ]
    widths = [max(len(r[i]) for r in [head, *body]) for i in range(len(head))]
    return "\n".join(
        "  ".join(
            c.ljust(w) if i in (0, len(head) - 1) else c.rjust(w)
            for i, (c, w) in enumerate(zip(r, widths, strict=True))
        ).rstrip()
        for r in [head, *body]
    )


__all__ = [
    "comparison",
    "method_line",
    "plan_json",
    "render",
    "render_resolver",
    "to_json",
    "z_scores",
]
