"""Paradrops in the turn plan: which sectors the transports reach, and their orders played."""

from __future__ import annotations

import json
import shlex
from pathlib import Path

import pytest
from planworlds import airborne

from bellum.empire.io.sqlite.store import Store
from bellum.empire.plan.candidates import candidates, forces
from bellum.empire.plan.curves import LocalPool
from bellum.empire.plan.planner import Settings, plan_turn, prize
from bellum.empire.plan.value import DES_VALUE
from bellum.empire.rules import Rules
from bellum.empire.tables import plane_range
from bellum.empire.world import Sector
from clirunner import bellum


def test_paradrop_candidates_are_the_drop_zones_the_transports_reach() -> None:
    world = airborne(0)
    drops = [c for c in candidates(world, 1, Rules.of(world.options)) if c.planes]
    reach = plane_range(world.tables.planes["tr"], 100.0) // 2
    legal = {
        f"sector:{s.x},{s.y}"
        for s in world.sectors.values()
        if s.owner == 2
        and 0 < world.geometry.mapdist((0, 0), s.xy) <= reach
        and not s.type.has("capital")  # no drop on a capital (§1.2)
    }
    assert {c.target for c in drops} == legal
    assert any(s.type.has("capital") and s.owner == 2 for s in world.sectors.values())
    options = forces(drops, levels=2)
    assert {tuple(sorted(f.uses)) for f in options} == {
        ("btu", "mil:0,0", "plane:0"),
        ("btu", "mil:0,0", "plane:0", "plane:1"),
    }
    both = [f for f in options if "plane:1" in f.uses]
    assert all(f.uses["mil:0,0"] == 14 for f in both)  # 7 paratroopers a C-56


def test_a_planned_paradrop_agrees_with_its_odds_and_runs(tmp_path: Path) -> None:
    db = tmp_path / "airborne.db"
    Store.create(db, airborne(0)).close()
    ran = bellum("empire", "plan", "--db", str(db), "--as", "1", "--jobs", "1", "--levels", "2",
                 "--json", cwd=tmp_path)  # fmt: skip
    assert ran.returncode == 0, ran.stderr
    attacks = json.loads(ran.stdout)["waves"][0]["attacks"]
    drops = [a for a in attacks if a["order"].startswith("paradrop ")]
    assert drops and all(a["planes"] and a["mil"] == {} for a in drops)
    assert all(not a["planes"] for a in attacks if a not in drops)
    for a in drops:
        odds = bellum(*shlex.split(a["odds_command"])[1:], "--json", cwd=tmp_path)
        assert odds.returncode == 0, odds.stderr
        got = json.loads(odds.stdout)
        assert got["p_attacker_wins"] == pytest.approx(a["p_success"], rel=1e-5, abs=1e-9)
        played = bellum(*shlex.split(a["command"])[1:], cwd=tmp_path)
        assert played.returncode == 0, played.stderr
        assert "paratroopers" in played.stdout or "Final air-assault strength" in played.stdout


def test_a_paradrop_prize_is_the_same_formula_as_an_attacks() -> None:
    """Empty land nobody owns (wilderness at 100 %) is worth the same $100 whether it is
    taken by attack or by paradrop: the prize is the target's, whatever the command."""
    world = airborne(0)
    t = world.tables
    world.sectors[(8, 0)] = Sector(x=8, y=0, type=t.sector("wilderness"), eff=100)
    world.sector((7, 1)).items = {"mil": 50, "civ": 10}
    world.sector((7, 1)).mob = 100
    cands = [c for c in candidates(world, 1, Rules.of(world.options)) if c.target == "sector:8,0"]
    assert {c.order.name for c in cands} == {"attack", "paradrop"}
    assert prize(world, "sector:8,0", {}) == DES_VALUE["wilderness"] == 100
    plan = plan_turn(world, 1, Settings(levels=1), pool=LocalPool(1))
    (wave,) = plan.waves
    chosen = [a for a in (*wave.attacks, *wave.greedy_attacks) if a.target == "sector:8,0"]
    assert chosen and all(a.prize == 100 for a in chosen)
    assert all(a.value == pytest.approx(100 * a.point.p - a.cost) for a in chosen)
