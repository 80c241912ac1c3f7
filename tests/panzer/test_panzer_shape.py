"""The shape of the outcome under the defaults (spec §16): it follows the odds.

Every probability here is exact (``exact_distribution``), so the assertions are about the
rules, not about sampling noise.  The reference is the spec's: C-quality infantry with
assault = defense = 10 in clear terrain, attacking one 600-man battalion in battalions of at
most 600 men.
"""

from __future__ import annotations

import re
from itertools import pairwise
from typing import Any

import pytest
from hypothesis import HealthCheck, given, settings
from hypothesis import strategies as st
from panzer_helpers import ROOT, build, random_unit, unit

from bellum.panzer import exact_distribution
from bellum.panzer.distribution import Distribution

# Three attack hexes, so that the defenders keep a line of retreat (5,4 and 4,5).
ATTACK_HEXES = ("3,3", "3,4", "4,3")
ODDS = (1 / 6, 1 / 3, 1 / 2, 1, 2, 3, 4, 6)


def battalion(uid: str, hex: str, side: str = "A", men: int = 600, **kw: Any) -> dict[str, Any]:
    return unit(uid, hex, side, strength=men, assault=10, defense=10, quality="C", **kw)


def attackers(men: int) -> list[dict[str, Any]]:
    """``men`` split into as few battalions of at most 600 as possible, round the target."""
    n = -(-men // 600)
    return [
        battalion(f"a{i}", ATTACK_HEXES[i % len(ATTACK_HEXES)], men=men // n + (i < men % n))
        for i in range(n)
    ]


def law(men: int, state: str = "normal", extra: list[dict[str, Any]] | None = None) -> Distribution:
    defender = battalion("d", "4,4", "D", state=state)
    return exact_distribution(build([*attackers(men), *(extra or []), defender]))


@pytest.fixture(scope="module")
def sweep() -> dict[tuple[float, str], Distribution]:
    return {
        (odds, state): law(round(600 * odds), state)
        for odds in ODDS
        for state in ("normal", "disrupted")
    }


def test_success_rises_with_the_odds(sweep: dict[tuple[float, str], Distribution]) -> None:
    fresh = [sweep[(odds, "normal")].p_success for odds in ODDS]
    assert all(a < b for a, b in pairwise(fresh)), fresh
    # A Disrupted defender gives way whenever the attackers stay steady (§16.3 3a): at 1:6 and
    # 1:3 that depends only on the attackers' morale, so the chance is flat there, then rises.
    shaken = [sweep[(odds, "disrupted")].p_success for odds in ODDS]
    assert all(a <= b for a, b in pairwise(shaken)), shaken
    assert shaken[0] < shaken[3] < shaken[-1]


def test_one_to_one_is_a_gamble_and_three_to_one_a_good_bet(
    sweep: dict[tuple[float, str], Distribution],
) -> None:
    assert sweep[(1, "normal")].p_success < 0.35
    assert sweep[(3, "normal")].p_success > 0.70
    assert sweep[(1 / 6, "normal")].p_success < 0.05
    assert sweep[(6, "normal")].p_success > 0.95


def test_a_disrupted_defender_falls_more_easily(
    sweep: dict[tuple[float, str], Distribution],
) -> None:
    for odds in ODDS:
        fresh, shaken = sweep[(odds, "normal")], sweep[(odds, "disrupted")]
        assert shaken.p_success > fresh.p_success or fresh.p_success > 1 - 1e-9, odds
        if odds >= 1 / 3:  # (at 1:6 the fresh defender would kill more than the 100 attackers)
            # it assaults at half value (§16.4), so the attackers lose half as much
            assert shaken.expected_loss(True) == pytest.approx(fresh.expected_loss(True) / 2)


@pytest.mark.parametrize("men", [200, 600, 1200, 1800])
@pytest.mark.parametrize(
    "fresh",
    [
        battalion("new", "3,4", men=100),
        battalion("new", "4,3", men=600),
        unit("new", "3,3", kind="vehicle", strength=10, assault=12, defense=10),
        battalion("new", "4,3", men=300, motorized_infantry=True, mode="travel"),
    ],
    ids=["company", "battalion", "tanks", "travel-mode"],
)
def test_adding_a_fresh_attacking_unit_never_lowers_the_odds(
    men: int, fresh: dict[str, Any]
) -> None:
    """A fresh unit as good as the others (quality C, defense 10) only adds."""
    before, after = law(men), law(men, extra=[fresh])
    assert after.p_success >= before.p_success - 1e-12, (before.p_success, after.p_success)


def test_a_weaker_unit_can_lower_the_odds_by_the_seed_s_own_rules() -> None:
    """The seed makes the attackers use their LOWEST unit modifier and their average defense,
    so a D-quality company drags 1,200 attackers down, and a poorly protected one makes them
    bleed faster: the rules, not a defect; the test above holds for units as good as the rest."""
    base = law(1200).p_success
    poor = unit("new", "4,3", strength=150, assault=4, defense=4, quality="D", size="company")
    assert law(1200, extra=[poor]).p_success < base - 0.1
    thin = unit("new", "4,3", strength=150, assault=2, defense=2, size="company")
    assert law(1200, extra=[thin]).p_success < base - 0.02


def test_the_documented_sweep_is_what_the_code_gives(
    sweep: dict[tuple[float, str], Distribution],
) -> None:
    """docs/panzer-defaults.md shows the sweep; its numbers must be the exact ones."""
    text = (ROOT / "docs" / "panzer-defaults.md").read_text()
    table = text.split("### What the defaults give", 1)[1].split("###", 1)[0]
    rows = re.findall(r"^\| (\d+):(\d+) \| ([\d.]+) % \| ([\d.]+) % \| ([\d.]+) \| ([\d.]+) \|$",
                      table, re.MULTILINE)  # fmt: skip
    assert len(rows) == len(ODDS)
    for (a, d, fresh, shaken, att_loss, def_loss), odds in zip(rows, ODDS, strict=True):
        assert int(a) / int(d) == pytest.approx(odds)
        assert float(fresh) == pytest.approx(100 * sweep[(odds, "normal")].p_success, abs=0.051)
        assert float(shaken) == pytest.approx(100 * sweep[(odds, "disrupted")].p_success, abs=0.051)
        assert float(att_loss) == pytest.approx(
            sweep[(odds, "normal")].expected_loss(True), abs=0.051
        )
        assert float(def_loss) == pytest.approx(
            sweep[(odds, "normal")].expected_loss(False), abs=0.051
        )


# ------------------------------------------------------------------------ monotone in strength


@st.composite
def assaults(draw: st.DrawFn) -> dict[str, Any]:
    """Small assaults of mixed units, default rules but for the success-test readings."""

    def fighter(uid: str, hex: str, side: str) -> dict[str, Any]:
        return random_unit(draw, uid, hex, side, max_men=200, min_defense=3)

    hexes = st.sampled_from(["3,3", "3,4", "4,3"])
    return {
        "attackers": [fighter(f"a{i}", draw(hexes), "A") for i in range(draw(st.integers(1, 3)))],
        "defenders": [fighter(f"d{i}", "4,4", "D") for i in range(draw(st.integers(1, 3)))],
        "terrain": {"4,4": draw(st.sampled_from(["clear", "forest", "bocage", "town"]))},
        "rules": {
            "unknowns.outcome.success_rule": draw(
                st.sampled_from(["defender_broken_or_outlost", "morale_only"])
            ),
            "unknowns.outcome.loss_compare": draw(st.sampled_from(["absolute", "fraction"])),
            "morale.inferred.check_trigger": draw(
                st.sampled_from(["loss_over_loss_plus_base", "cwb_25"])
            ),
        },
    }


def p_success(kw: dict[str, Any], scale_attackers: int = 1, scale_defenders: int = 1) -> float:
    def scaled(units: list[dict[str, Any]], k: int) -> list[dict[str, Any]]:
        return [u | {"strength": u["strength"] * k} for u in units]

    units = scaled(kw["attackers"], scale_attackers) + scaled(kw["defenders"], scale_defenders)
    s = build(units, terrain=kw["terrain"], rules=kw["rules"])
    return exact_distribution(s).p_success


@settings(
    max_examples=40, deadline=None, derandomize=True, suppress_health_check=[HealthCheck.too_slow]
)
@given(assaults(), st.sampled_from([2, 3]))
def test_success_is_monotone_in_each_side_s_strength(kw: dict[str, Any], k: int) -> None:
    """Scaling every unit of one side by k keeps every ratio the rules read (average defense,
    hard-target share, quality) and only adds men: the attackers' chance cannot drop when they
    grow, nor rise when the defenders grow."""
    base = p_success(kw)
    assert p_success(kw, scale_attackers=k) >= base - 1e-9
    assert p_success(kw, scale_defenders=k) <= base + 1e-9
