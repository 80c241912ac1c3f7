"""The ``--json`` documents of ``bellum panzer``, one per kind of result.

Each document names its kind in ``schema`` and its version in ``schema_version``; the JSON
Schema of every kind is in ``docs/schemas/panzer-*.schema.json``.  Only dicts, lists,
strings, numbers, booleans and None come out, in a stable key order.  Each figure has one
name across the documents, and the odds vocabulary is the odds engine's (``docs/odds.md``):
``outcomes``, ``p_attacker_wins``, ``expected_losses``, ``quantiles``, ``distributions``,
with sides named ``attacker`` and ``defender``.
"""

from __future__ import annotations

import dataclasses
import math
from typing import Any

from bellum.odds.report import to_json_dict
from bellum.odds.result import OddsResult
from bellum.panzer.assault import AssaultBreakdown, CombatRange, SideTotals
from bellum.panzer.distribution import Agreement, Distribution, Sweep
from bellum.panzer.results import AssaultResult, SideLoss
from bellum.panzer.rules import RULE_KEYS, Rules

ASSAULT_SCHEMA = "bellum.panzer.assault"
EXPLAIN_SCHEMA = "bellum.panzer.explain"
ODDS_SCHEMA = "bellum.panzer.odds"
SWEEP_SCHEMA = "bellum.panzer.sweep"
RULES_SCHEMA = "bellum.panzer.rules"
#: Version of each kind of document (documents change version only on incompatible changes).
SCHEMA_VERSIONS = {
    ASSAULT_SCHEMA: 2,
    EXPLAIN_SCHEMA: 2,
    ODDS_SCHEMA: 2,
    SWEEP_SCHEMA: 1,
    RULES_SCHEMA: 2,
}


def _head(schema: str) -> dict[str, Any]:
    return {"schema": schema, "schema_version": SCHEMA_VERSIONS[schema]}


def _finite(x: float) -> float | None:
    return x if math.isfinite(x) else None


def _side(t: SideTotals) -> dict[str, Any]:
    return {
        "side": t.side,
        "units": [dataclasses.asdict(u) for u in t.units],
        "total_assault": t.total_assault,
        "average_defense": t.average_defense,
        "modifiers": [dataclasses.asdict(m) for m in t.modifiers],
        "factor": t.factor,
        "modified_assault": t.modified_assault,
    }


def _range(cr: CombatRange, drawn: SideLoss | None = None) -> dict[str, Any]:
    out = dataclasses.asdict(cr)
    out["combat_value"] = _finite(cr.combat_value)  # null: the losing side has defense 0
    if drawn is not None:
        out.update(drawn=drawn.drawn, rounded=drawn.rounded, loss=drawn.loss)
    return out


def odds_json(bd: AssaultBreakdown) -> dict[str, Any]:
    """The two modified assault values and their ratio (null when the defenders have none)."""
    return {
        "attacker": bd.attackers.modified_assault,
        "defender": bd.defenders.modified_assault,
        "ratio": _finite(bd.odds),
    }


def breakdown_json(bd: AssaultBreakdown, result: AssaultResult | None = None) -> dict[str, Any]:
    ca = bd.combined_arms
    return {
        "target": str(bd.target),
        "attack_hexes": [str(h) for h in bd.attack_hexes],
        "attacker": _side(bd.attackers),
        "defender": _side(bd.defenders),
        "combined_arms": {
            "applies": ca.applies,
            "reason": ca.reason,
            "defending_infantry": ca.defending_infantry,
            "supporting_infantry": ca.supporting_infantry,
            "deficit": ca.deficit,
            "required": ca.required,
            "penalised": ca.penalised,
            "hexes": [{**dataclasses.asdict(h), "hex": str(h.hex)} for h in ca.hexes],
            "per_unit": dict(ca.per_unit),
        },
        "hard_share": None
        if bd.hard_share is None
        else {"defender": bd.hard_share[0], "attacker": bd.hard_share[1]},
        "reference_combat_value": bd.reference_combat_value,
        "against_defender": _range(
            bd.against_defenders, None if result is None else result.losses_to_defenders
        ),
        "against_attacker": _range(
            bd.against_attackers, None if result is None else result.losses_to_attackers
        ),
    }


def explain_json(bd: AssaultBreakdown, scenario: str, p_success: float | None) -> dict[str, Any]:
    """``explain --json``: the odds, the chance of success (null if too big to enumerate)."""
    return {
        **_head(EXPLAIN_SCHEMA),
        "scenario": scenario,
        "odds": odds_json(bd),
        "p_attacker_wins": p_success,
        "breakdown": breakdown_json(bd),
    }


def assault_json(result: AssaultResult, scenario: str, out: str | None) -> dict[str, Any]:
    units = []
    for o in result.units:
        after = o.unit_after
        units.append(
            {
                "id": o.unit_id,
                "side": o.side,
                "role": "attacker" if o.attacker else "defender",
                "strength_before": o.strength_before,
                "share": o.share,
                "loss": o.loss,
                "morale": None
                if o.morale is None
                else {
                    "value": o.morale.morale,
                    "roll": o.morale.roll,
                    "passed": o.morale.passed,
                    "state_after": o.morale.state_after.value,
                    "check_probability": o.morale.check_probability,
                },
                "fate": None
                if o.fate is None
                else {
                    "kind": o.fate.kind,
                    "destination": None if o.fate.destination is None else str(o.fate.destination),
                    "extra_loss": o.fate.extra_loss,
                    "reason": o.fate.reason,
                },
                "advanced": o.advanced,
                "fatigue_gain": o.fatigue_gain,
                "eliminated": after is None,
                "strength_after": 0 if after is None else after.strength,
                "state_after": None if after is None else after.state.value,
                "hex_after": None if after is None else str(after.hex),
                "fatigue_after": None if after is None else after.fatigue,
            }
        )
    return {
        **_head(ASSAULT_SCHEMA),
        "scenario": scenario,
        "seed": result.seed,
        "draws": result.draws,
        "odds": odds_json(result.breakdown),
        "breakdown": breakdown_json(result.breakdown, result),
        "units": units,
        "success": result.success,
        "reason": result.reason,
        "outcome": result.outcome,
        "hex_taken": result.hex_taken,
        "losses": {
            "attacker": result.side_loss_equivalent(True),
            "defender": result.side_loss_equivalent(False),
        },
        "out": out,
    }


def _resolver(check: Agreement, seed: int, sample: Distribution) -> dict[str, Any]:
    """The ``--resolver-runs`` comparison, in the odds vocabulary."""
    p = sample.p_success
    return {
        "runs": check.runs,
        "seed": seed,
        "p_attacker_wins": p,
        "standard_error": math.sqrt(max(0.0, p * (1 - p)) / check.runs),
        "expected_losses": {
            "attacker": sample.expected_loss(True),
            "defender": sample.expected_loss(False),
        },
        "rows": [
            {"quantity": q, "exact": e, "sampled": s, "z": _finite(z)} for q, e, s, z in check.rows
        ],
        "max_abs_z": _finite(check.max_abs_z),  # null: a deterministic figure was missed
    }


def assault_odds_json(
    dist: Distribution,
    bd: AssaultBreakdown,
    scenario: str,
    result: OddsResult | None = None,
    resolver: tuple[Agreement, int, Distribution] | None = None,
) -> dict[str, Any]:
    """``odds --json``: the odds engine's document of the assault's exact law, plus the target,
    the odds, the losses' standard deviations and, with ``--resolver-runs``, the comparison
    (``resolver``: the agreement, its seed and the sample)."""
    generic = to_json_dict(dist.odds_result() if result is None else result)
    del generic["schema_version"]  # the odds engine's own version; this document has its own
    return {
        **_head(ODDS_SCHEMA),
        "scenario": scenario,
        "target": str(bd.target),
        "odds": odds_json(bd),
        **generic,
        "standard_deviations": {"attacker": dist.loss_sd(True), "defender": dist.loss_sd(False)},
        "resolver": None if resolver is None else _resolver(*resolver),
    }


def sweep_json(sweep: Sweep, scenario: str, seconds: float | None = None) -> dict[str, Any]:
    return {
        **_head(SWEEP_SCHEMA),
        "scenario": scenario,
        "target": str(sweep.target),
        "rows": [
            {
                "scale": row.scale,
                "attacking_strength": row.strength,
                "odds": odds_json(row.breakdown),
                "p_attacker_wins": row.distribution.p_success,
                "expected_losses": {
                    "attacker": row.distribution.expected_loss(True),
                    "defender": row.distribution.expected_loss(False),
                },
            }
            for row in sweep.rows
        ],
        "seconds": seconds,
    }


def rules_json(rules: Rules) -> dict[str, Any]:
    return {
        **_head(RULES_SCHEMA),
        "rules": [
            {
                "key": k.name,
                "value": rules[k.name],
                "default": k.default,
                "tag": k.tag,
                "section": k.section,
                "doc": k.doc,
                "choices": list(k.choices),
            }
            for k in RULE_KEYS
        ],
    }
