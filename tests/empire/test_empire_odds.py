"""Odds of planned attacks: the engine fed by the attack's own rules, checked against the command."""

from __future__ import annotations

import json
import tomllib
from pathlib import Path

import pytest
from test_empire_cli import bellum

from bellum.empire.io.toml import parse_world
from bellum.empire.planning import fight_sides, make_plan, prepare, resolver_runs
from bellum.empire.world import World
from bellum.errors import CommandError, UsageError
from bellum.odds import fight_odds

# A small world keeps the thousands of full command runs quick.
SMALL = """
schema_version = 1
[world]
size = [16, 8]
fill = "wilderness"
fill_eff = 100
[[nation]]
cnum = 1
name = "A"
tech = 100.0
relations = { 2 = "at-war" }
[[nation]]
cnum = 2
name = "D"
tech = 100.0
relations = { 1 = "at-war" }
[[sector]]
at = [0, 0]
des = "wilderness"
owner = 1
eff = 100
mob = 127
mil = 200
[[sector]]
at = [2, 0]
des = "wilderness"
owner = 2
eff = 100
mob = 80
mil = 40
[[sector]]
at = [4, 0]
des = "wilderness"
owner = 2
eff = 100
civ = 300
[[unit]]
uid = 0
type = "inf"
owner = 2
at = [2, 0]
tech = 100.0
mil = 30
retreat = 0
"""


def small() -> World:
    return parse_world(tomllib.loads(SMALL), "small.toml")


def test_strength_arrays_follow_the_casualty_rules() -> None:
    w = small()
    c, _ = prepare(w, 1, make_plan(w, 1, "2,0", ["0,0=100"], []))
    att, dfd = fight_sides(c)
    assert list(att.strength[:3]) == [100, 99, 98] and att.strength[-1] == 0
    # 40 mil x 2 die first (2 each), then the infantry (1.92426 x 2 per soldier, eff falling)
    assert list(dfd.strength[:3]) == [int(80 + 30 * 1.92426 * 2 + 0.5), 193, 191]
    assert dfd.casualties[-1] == 70
    assert w.sector((2, 0)).mil == 40  # the plan ran on a copy


@pytest.mark.parametrize("model", ["server", "per-casualty"])
@pytest.mark.parametrize("with_unit", [True, False])
def test_exact_odds_match_the_real_command(model: str, with_unit: bool) -> None:
    """Exact vs 600 full runs of `attack`, both models, with and without a land unit.

    The per-casualty model is the command under ``info_fight``.  Morale plays no
    part (the unit's retreat is 0 %).  The bound is 4 standard errors of the
    runs' mean (99.99 % two-sided); the seeds are fixed, so the test is
    deterministic.
    """
    w = small()
    if not with_unit:
        del w.units[0]
        w.sector((2, 0)).mil = 100  # a close fight: P(win) about 0.45
    w.overrides["info_fight"] = model == "per-casualty"
    plan = make_plan(w, 1, "2,0", ["0,0=140"], [])
    c, _ = prepare(w, 1, plan)
    exact = fight_odds(*fight_sides(c), model=model).p_attacker_wins  # type: ignore[arg-type]
    runs = resolver_runs(w, 1, plan, 600, seed=11)
    assert 0.05 < exact < 0.95
    assert abs(exact - runs.p_win) <= 4 * runs.standard_error


def test_bad_plans_are_one_line_errors() -> None:
    w = small()
    with pytest.raises(UsageError, match="not next to"):
        make_plan(w, 1, "2,0", ["6,0=10"], [])
    with pytest.raises(UsageError, match="SECT=N"):
        make_plan(w, 1, "2,0", ["0,0"], [])
    with pytest.raises(UsageError, match="no land unit #0"):
        make_plan(w, 1, "2,0", ["0,0=5"], [0])
    with pytest.raises(CommandError, match="no troops"):
        prepare(w, 1, make_plan(w, 1, "2,0", [], []))
    with pytest.raises(CommandError, match="You are not adjacent"):
        prepare(w, 1, make_plan(w, 1, "8,0", [], []))


def test_cli_json(tmp_path: Path) -> None:
    world = tmp_path / "w.toml"
    world.write_text(SMALL)
    r = bellum(
        "empire", "odds", "2,0", "--world", str(world), "--as", "A", "--mil", "0,0=140",
        "--json", "--resolver-runs", "20", "--seed", "5",
    )  # fmt: skip
    assert r.returncode == 0, r.stderr
    doc = json.loads(r.stdout)
    assert doc["method"] == "exact" and 0 < doc["p_attacker_wins"] < 1
    assert doc["plan"]["mil"] == {"0,0": 140} and doc["resolver"]["runs"] == 20
    assert world.read_text() == SMALL


def test_plans_beyond_the_limits_are_refused() -> None:
    w = small()
    with pytest.raises(CommandError, match=r"--mil 0,0=100000: at most 199 mil"):
        prepare(w, 1, make_plan(w, 1, "2,0", ["0,0=100000"], []))
    with pytest.raises(UsageError, match="given twice"):
        make_plan(w, 1, "2,0", ["0,0=5", "0,0=6"], [])
    with pytest.raises(CommandError, match=r"You are not adjacent to 0,0"):
        prepare(w, 1, make_plan(w, 1, "0,0", [], []))
