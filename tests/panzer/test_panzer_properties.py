"""Properties over random small assaults: the exact law is a law, and covers what happens."""

from __future__ import annotations

from typing import Any

import pytest
from hypothesis import HealthCheck, given, settings
from hypothesis import strategies as st
from panzer_helpers import build, random_unit, unit

from bellum.panzer import exact_distribution, plan_assault, resolve_assault
from bellum.panzer.results import OUTCOMES


@st.composite
def assaults(draw: st.DrawFn) -> dict[str, Any]:
    def fighter(uid: str, hex: str, side: str) -> dict[str, Any]:
        organization = {"division": draw(st.sampled_from(["1st", "2nd", ""])), "corps": "V"}
        return random_unit(
            draw, uid, hex, side, max_men=400, min_defense=1, organization=organization
        )

    attackers = [
        fighter(f"a{i}", draw(st.sampled_from(["3,3", "3,4"])), "A")
        for i in range(draw(st.integers(1, 3)))
    ]
    defenders = [fighter(f"d{i}", "4,4", "D") for i in range(draw(st.integers(1, 3)))]
    hexes = sorted(draw(st.sets(st.sampled_from(["5,3", "5,4", "4,5"]))))
    blockers = [unit(f"z{h}", h, "A") for h in hexes]
    return {
        "units": attackers + defenders + blockers,
        "attackers": [u["id"] for u in attackers],
        "terrain": {"4,4": draw(st.sampled_from(["clear", "forest", "bocage", "town"]))},
        "params": {
            "assault_attacker_low": draw(st.integers(0, 60)),
            "assault_attacker_high": draw(st.integers(60, 200)),
            "assault_defender_low": draw(st.integers(0, 40)),
            "assault_defender_high": draw(st.integers(40, 120)),
        },
        "rules": {
            "optional_rules.optional_surrender": draw(st.booleans()),
            "optional_rules.alternative_assault_resolution": draw(st.booleans()),
            "combat.distribution": draw(
                st.sampled_from(["proportional_to_equivalent_strength", "single_random_weighted"])
            ),
            "unknowns.modifiers.combine": draw(st.sampled_from(["multiplicative", "additive"])),
            "unknowns.outcome.success_rule": draw(
                st.sampled_from(
                    ["defender_broken_or_outlost", "morale_only", "attacker_not_disrupted"]
                )
            ),
            "unknowns.outcome.loss_compare": draw(st.sampled_from(["absolute", "fraction"])),
            "morale.inferred.check_trigger": draw(
                st.sampled_from(["loss_over_loss_plus_base", "cwb_25", "any_loss"])
            ),
        },
    }


@settings(
    max_examples=60, deadline=None, derandomize=True, suppress_health_check=[HealthCheck.too_slow]
)
@given(assaults())
def test_exact_law_sums_to_one_and_covers_every_resolved_outcome(kw: dict[str, Any]) -> None:
    s = build(kw.pop("units"), **kw)
    plan = plan_assault(s)
    dist = exact_distribution(plan)
    assert dist.total == pytest.approx(1.0, abs=1e-9)
    assert set(dist.outcomes) == set(OUTCOMES)
    for seed in range(5):
        r = resolve_assault(s, seed=seed)
        key = (r.side_loss_equivalent(True), r.side_loss_equivalent(False), r.outcome)
        assert dist.probability(*key) > 0, key
        for o in r.units:
            assert 0 <= o.total_loss <= o.strength_before
        assert r.hex_taken == (
            r.success
            and all(u.hex != plan.breakdown.target for u in r.scenario.units if u.side == "D")
        )
