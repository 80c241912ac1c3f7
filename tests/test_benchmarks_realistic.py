"""The realistic suite's section of docs/benchmarks.md, made from a few rows (no long runs).

``benchmarks/run.py --realistic --rows FILE`` turns the JSON lines of a run of
``benchmarks/empire_odds.py`` into the section; these tests give it three hand-made plans
(an exact one, a sampled one with the resolver beside it, one that failed) and check the
table, the counts against issue 23's targets, and that the rest of the report stays.
"""

from __future__ import annotations

import importlib
import json
import math
import subprocess
import sys
from pathlib import Path
from types import ModuleType
from typing import Any

import pytest

ROOT = Path(__file__).resolve().parents[1]
BENCHMARKS = ROOT / "benchmarks"

META = {
    "realistic_run": {
        "command": "python benchmarks/run.py --realistic --resolver-runs 4000",
        "started": "2026-12-02 03:00 UTC",
        "commit": "abc1234",
        "numba": "0.68.1",
        "resolver_runs": 4000,
    }
}
EXACT = {
    "case": "w1-lboard-1",
    "wall_s": 0.42,
    "cpu_s": 0.3,
    "load": 1.5,
    "p": 0.5,
    "method": "exact",
    "samples": None,
    "se_p": 0.0,
    "se_att": 0.0,
    "se_def": 0.0,
    "losses": [21.4, 21.4],
    "resolver": {
        "runs": 4000,
        "p": 0.5,
        "se_p": 0.0079,
        "losses": [21.3, 21.5],
        "se_losses": [0.07, 0.07],
        "z": {"p_attacker_wins": 0.0, "attacker_losses": -1.2, "defender_losses": 1.3},
    },
}
SAMPLED = {
    "case": "w1-attack-1",
    "wall_s": 1.9,
    "cpu_s": 0.45,
    "load": 4.2,
    "p": 0.7742,
    "method": "mixture (500 samples: paths to the fight drawn, morale histories drawn in 500"
    " of the 500 fights, 500 of them simulated (400 runs each))",
    "samples": 500,
    "se_p": 0.011,
    "se_att": 1.7,
    "se_def": 0.71,
    "losses": [120.5, 80.25],
    "resolver": {
        "runs": 4000,
        "p": 0.8,
        "se_p": 0.0063,
        "losses": [118.0, 81.0],
        "se_losses": [0.5, 0.3],
        "z": {"p_attacker_wins": 2.0, "attacker_losses": -3.5, "defender_losses": math.inf},
    },
}
FAILED = {"case": "w1-paradrop-1", "wall_s": 600.0, "cpu_s": 590.0, "load": 6.0, "error": "timeout"}


@pytest.fixture
def run(monkeypatch: pytest.MonkeyPatch) -> ModuleType:
    """benchmarks/run.py as a module (it imports its neighbours by their bare names)."""
    monkeypatch.syspath_prepend(str(BENCHMARKS))
    return importlib.import_module("run")


def write_rows(path: Path, *docs: dict[str, Any]) -> Path:
    path.write_text("".join(json.dumps(d) + "\n" for d in docs))
    return path


def test_section_counts_the_targets_and_shows_the_resolver(run: ModuleType) -> None:
    text = run.realistic_section([EXACT, SAMPLED, FAILED], [META["realistic_run"]], "cmd")
    assert text.startswith("## Realistic suite")
    assert "at `abc1234` from 2026-12-02 03:00 UTC (numba: 0.68.1)" in text
    summary = next(line for line in text.splitlines() if line.startswith("**Targets**"))
    # One of three within the errors (the exact one), one under 0.5 s of wall time (the exact
    # one) and two in CPU time; the sampled plan has two |z| > 3 (-3.5 and inf).
    assert "of 3 plans: 1 exact or within the standard errors" in summary
    assert "1 of them exact" in summary
    assert "1 take ≤ 0.5 s of wall time (2 of CPU time)" in summary
    assert "against 4000 plays of the command (2 plans), 1 have a |z| > 3" in summary
    assert "(2 of 6 z-scores; the largest, inf, on w1-attack-1)" in summary
    assert "Failed: w1-paradrop-1." in summary
    rows = {line.split(" | ")[0][2:]: line for line in text.splitlines() if line.startswith("| w1")}
    assert rows["w1-lboard-1"] == (
        "| w1-lboard-1 | 0.5000 | exact | 0 | 21.40 / 21.40 | 0 / 0 | 0.42 | 0.30 | 1.5 | ✓ | ✓"
        " | 0.5000 ± 0.0079 | 21.30 ± 0.07 / 21.50 ± 0.07 | 0.00 / -1.20 / 1.30 |"
    )
    assert rows["w1-attack-1"] == (
        "| w1-attack-1 | 0.7742 | mixture 500: paths drawn, histories 500/500, simulated 500×400"
        " | 0.011 | 120.50 / 80.25 | 1.7 / 0.71 | 1.90 | 0.45 | 4.2 | ✗ | ✗ | 0.8000 ± 0.0063"
        " | 118.00 ± 0.5 / 81.00 ± 0.3 | 2.00 / -3.50 / inf |"
    )
    assert rows["w1-paradrop-1"].startswith("| w1-paradrop-1 | error | timeout |")
    # Every row has the header's number of cells.
    widths = {line.count("|") for line in text.splitlines() if line.startswith("|")}
    assert len(widths) == 1


def test_put_section_replaces_only_its_own_section(run: ModuleType) -> None:
    doc = "# B\n\n## Exact solvers\n\nsolver rows\n\n## Turn planner\n\nplans\n\n## Raw results\n"
    first = run.put_section(doc, run.REALISTIC, "## Realistic suite\n\nold\n")
    assert first.index("## Realistic suite") < first.index("## Turn planner")
    second = run.put_section(first, run.REALISTIC, "## Realistic suite\n\nnew\n")
    assert "old" not in second and "\nnew\n" in second
    assert second.replace("## Realistic suite\n\nnew\n\n", "") == doc
    # A run of the solver cases puts back the sections it did not measure.
    fresh = "# B\n\n## Exact solvers\n\nnew rows\n\n## Raw results\n"
    kept = run._keep_sections(second, fresh, (run.REALISTIC, run.PLANNER))
    assert kept.index("new rows") < kept.index("\nnew\n") < kept.index("plans")


def test_rows_of_a_later_run_replace_the_same_plan(tmp_path: Path, run: ModuleType) -> None:
    first = write_rows(tmp_path / "a.jsonl", META, EXACT, FAILED)
    again = FAILED | {"error": "no such unit", "wall_s": 0.5}
    second = write_rows(tmp_path / "b.jsonl", again)
    metas, rows = run.read_rows([first, second])
    assert metas == [META["realistic_run"]]
    assert [r["case"] for r in rows] == ["w1-lboard-1", "w1-paradrop-1"]
    assert rows[1]["error"] == "no such unit"


def test_the_command_rewrites_the_section_from_rows(tmp_path: Path) -> None:
    """``run.py --realistic --rows``, as the docs give it: the section, nothing else."""
    docs = tmp_path / "benchmarks.md"
    before = "# Benchmarks\n\n## Exact solvers\n\nnumba rows\n\n## Raw results\n\n{}\n"
    docs.write_text(before)
    rows = write_rows(tmp_path / "run.jsonl", META, EXACT, SAMPLED)
    argv = [sys.executable, str(BENCHMARKS / "run.py"), "--realistic", "--rows", str(rows)]
    done = subprocess.run([*argv, "--docs", str(docs)], capture_output=True, text=True)
    assert done.returncode == 0, done.stderr
    text = docs.read_text()
    assert text.startswith("# Benchmarks\n\n## Exact solvers\n\nnumba rows\n\n## Realistic suite")
    assert text.endswith("## Raw results\n\n{}\n")
    assert "| w1-attack-1 | 0.7742 |" in text
    missing = subprocess.run([*argv[:-1], str(tmp_path / "none.jsonl")], capture_output=True)
    assert missing.returncode == 1
    assert missing.stderr.decode().strip() == f"benchmarks: no such file: {tmp_path}/none.jsonl"


def test_figures_give_the_resolver_spread_from_the_odds_distribution(
    monkeypatch: pytest.MonkeyPatch,
) -> None:
    """The resolver's ± on losses: sqrt(variance / runs) of the odds' loss distribution."""
    monkeypatch.syspath_prepend(str(BENCHMARKS))
    empire_odds = importlib.import_module("empire_odds")
    dist = {"losses": [0, 10], "probabilities": [0.5, 0.5]}  # variance 25
    doc = {
        "p_attacker_wins": 0.5,
        "method": "exact",
        "expected_losses": {"attacker": 5.0, "defender": 5.0},
        "distributions": {"attacker": dist, "defender": {"losses": [3], "probabilities": [1.0]}},
        "resolver": {
            "runs": 100,
            "p_attacker_wins": 0.52,
            "standard_error": 0.05,
            "expected_losses": {"attacker": 5.2, "defender": 3.0},
            "z": {"p_attacker_wins": 0.4, "attacker_losses": 0.4, "defender_losses": 0.0},
        },
    }
    figures = empire_odds._figures(doc)
    assert figures["resolver"]["se_losses"] == [0.5, 0.0]
    assert figures["resolver"]["losses"] == [5.2, 3.0]
    assert figures["resolver"]["se_p"] == 0.05
