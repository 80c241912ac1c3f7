"""``benchmarks/odds_sampled.py``: what a realistic plan's odds sample, and why.

The reasons are the engine's own bounds (``engine.MAX_LEAVES``, ``EXACT_PAIRS``,
``CHAIN_PAIRS``, ``BIG_PAIRS`` with ``BIG_FIGHTS``), checked here on hand-made rows, and
one real plan of the suite (a boarding with a single path and a small exact fight) is
studied whole.
"""

from __future__ import annotations

import importlib
import json
from pathlib import Path
from types import ModuleType
from typing import Any

import pytest

from bellum.empire.odds import engine

BENCHMARKS = Path(__file__).resolve().parents[1] / "benchmarks"


@pytest.fixture
def tool(monkeypatch: pytest.MonkeyPatch) -> ModuleType:
    monkeypatch.syspath_prepend(str(BENCHMARKS))
    return importlib.import_module("odds_sampled")


def row(**kw: Any) -> dict[str, Any]:
    base: dict[str, Any] = {
        "case": "w1-attack-1",
        "tree": 10.0,
        "draws": {"support": 1.0},
        "paths": 100,
        "ends": {"fight": 100},
        "fights": 10,
        "osup": 10,
        "dsup": 1,
        "side_keys": 1,
        "losses_before": 1,
        "states": [50, 100],
        "chains": [False, False],
    }
    return base | kw


def test_a_walkable_plan_with_small_fights_is_exact(tool: ModuleType) -> None:
    assert tool.reason(row()) == "exact"


def test_a_fight_over_the_pairs_bound_is_named_with_its_size(tool: ModuleType) -> None:
    big = row(states=[200, 100])
    assert tool.reason(big) == f"fight 20,000 pairs > {engine.EXACT_PAIRS:,} (10 distinct)"
    # Two chains have the larger bound (sampling would only repeat the same fight).
    assert tool.reason(big | {"chains": [True, True]}) == "exact"


def test_the_kernel_takes_few_big_fights_of_a_walkable_plan(tool: ModuleType) -> None:
    few = row(states=[300, 300], fights=engine.BIG_FIGHTS)
    assert tool.reason(few) == "exact"
    assert tool.reason(few | {"fights": engine.BIG_FIGHTS + 1}).startswith("fight 90,000 pairs")


def test_a_tree_too_big_to_walk_names_its_draws(tool: ModuleType) -> None:
    wide = row(tree=1e60, draws={"dogfight": 40.2, "damage": 1.5, "sector_flak": 0.2})
    assert tool.reason(wide) == f"tree 1e+60 > {engine.MAX_LEAVES} (dogfight, damage)"


def test_the_table_has_a_line_per_row(tool: ModuleType, tmp_path: Path) -> None:
    rows = [row(), row(case="w1-board-1", ends={"aborted": 100}, fights=0, solve_s=[0.5, None])]
    for r in rows:
        r["reason"] = tool.reason(r)
    path = tmp_path / "rows.jsonl"
    path.write_text("".join(json.dumps(r) + "\n" for r in rows))
    lines = tool.table(path).splitlines()
    assert len(lines) == 4
    assert "| w1-attack-1 | 10 | support 1.0 | 10 / 100 |" in lines[2]
    assert "0 / 100 (100 end before)" in lines[3] and "0.5 (median of 1)" in lines[3]


def test_a_real_plan_of_one_path(tool: ModuleType) -> None:
    plan = next(p for p in tool.plans("w32x16") if p["id"] == "w32x16-board-2")
    world = tool.load_world(tool.WORLDS / "w32x16.xdump")
    out = tool.study_plan(world, plan, paths=3, solve=1)
    assert out["tree"] == 1.0 and out["draws"] == {}
    assert out["ends"] == {"fight": 3} and out["fights"] == 1
    assert out["reason"] == "exact"
    assert len(out["solve_s"]) == 1
