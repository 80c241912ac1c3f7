"""Plain-data views of results for ``--json`` (schemas documented in docs/panzer-scenario.md).

Only dicts, lists, strings, numbers, booleans and None come out, in a stable key order; the
``schema`` member names the document type and its version.
"""

from __future__ import annotations

import dataclasses
import math
from typing import Any

from bellum.odds.report import to_json_dict
from bellum.odds.result import OddsResult
from bellum.panzer.assault import AssaultBreakdown, CombatRange, SideTotals
from bellum.panzer.distribution import Agreement, Distribution
from bellum.panzer.results import AssaultResult, SideLoss
from bellum.panzer.rules import RULE_KEYS, Rules

ASSAULT_SCHEMA = "bellum.panzer.assault/1"
ODDS_SCHEMA = "bellum.panzer.odds/1"
RULES_SCHEMA = "bellum.panzer.rules/1"


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
    if not math.isfinite(cr.combat_value):
        out["combat_value"] = None  # a side with defense 0: it loses everything
    if drawn is not None:
        out.update(drawn=drawn.drawn, rounded=drawn.rounded, loss=drawn.loss)
    return out


def breakdown_json(bd: AssaultBreakdown, result: AssaultResult | None = None) -> dict[str, Any]:
    ca = bd.combined_arms
    return {
        "target": str(bd.target),
        "attack_hexes": [str(h) for h in bd.attack_hexes],
        "attackers": _side(bd.attackers),
        "defenders": _side(bd.defenders),
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
        else {"defenders": bd.hard_share[0], "attackers": bd.hard_share[1]},
        "reference_combat_value": bd.reference_combat_value,
        "against_defenders": _range(
            bd.against_defenders, None if result is None else result.losses_to_defenders
        ),
        "against_attackers": _range(
            bd.against_attackers, None if result is None else result.losses_to_attackers
        ),
    }


def assault_json(result: AssaultResult, scenario_name: str, out: str | None) -> dict[str, Any]:
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
        "schema": ASSAULT_SCHEMA,
        "scenario": scenario_name,
        "seed": result.seed,
        "draws": result.draws,
        "breakdown": breakdown_json(result.breakdown, result),
        "units": units,
        "success": result.success,
        "outcome": result.outcome,
        "hex_taken": result.hex_taken,
        "losses": {
            "attackers": result.side_loss_equivalent(True),
            "defenders": result.side_loss_equivalent(False),
        },
        "out": out,
    }


def odds_json(
    dist: Distribution,
    bd: AssaultBreakdown,
    scenario_name: str,
    check: Agreement | None,
    seed: int | None,
    result: OddsResult | None = None,
) -> dict[str, Any]:
    """The Panzer odds document, followed by the odds engine's keys for the same law.

    The Panzer keys come first and keep their meaning; the generic keys (``p_attacker_wins``,
    ``method``, ``model``, ``expected_losses``, ``quantiles``, ``distributions``, ...) are those
    of ``bellum odds fight --json``, so one reader handles both.  ``outcomes`` is in both and
    holds the same numbers.  ``result`` is ``dist`` as an odds result (timed by the caller);
    without it the conversion is done here.
    """
    generic = to_json_dict(dist.odds_result() if result is None else result)
    doc: dict[str, Any] = {
        "schema": ODDS_SCHEMA,
        "scenario": scenario_name,
        "target": str(bd.target),
        "p_success": dist.p_success,
        "outcomes": dist.outcomes,
        "expected_loss": {
            "attackers": dist.expected_loss(True),
            "defenders": dist.expected_loss(False),
        },
        "loss_distribution": {
            "attackers": [[k, p] for k, p in dist.losses(True).items()],
            "defenders": [[k, p] for k, p in dist.losses(False).items()],
        },
        "total_probability": dist.total,
        "check": None
        if check is None
        else {
            "runs": check.runs,
            "seed": seed,
            "rows": [
                {"quantity": q, "exact": e, "sampled": s, "z": z} for q, e, s, z in check.rows
            ],
            "max_abs_z": check.max_abs_z,
        },
    }
    for key, value in generic.items():
        doc.setdefault(key, value)
    return doc


def rules_json(rules: Rules) -> dict[str, Any]:
    return {
        "schema": RULES_SCHEMA,
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
