"""tools/fog_calibration.py's statistics: the interval a bin's observed frequency lies in
when its predictions are right, the world the outcome is replayed on, and the verdicts
it prints."""

from __future__ import annotations

import json
import math

import pytest
from conftest import EXAMPLES
from fog_calibration import (
    gap_interval,
    gap_report,
    interval,
    logged_in,
    main,
    poisson_binomial,
    read_records,
    report,
    squared_gaps,
)

from bellum import empire
from bellum.empire.io.sqlite.store import Store
from bellum.empire.io.toml import load_world


def test_the_interval_is_the_central_95_percent_of_the_poisson_binomial() -> None:
    dist = poisson_binomial([0.5] * 10)
    assert math.fsum(dist) == pytest.approx(1.0)
    assert dist[0] == pytest.approx(1 / 1024) and dist[5] == pytest.approx(252 / 1024)
    # Binomial(10, 1/2): P(X <= 1) = 11/1024 < 2.5 % < P(X <= 2) = 56/1024
    assert interval([0.5] * 10) == (0.2, 0.8)
    assert interval([0.0] * 5 + [1.0] * 5) == (0.5, 0.5)  # certain predictions: no spread


def test_the_outcome_is_replayed_on_the_world_as_the_players_login_left_it() -> None:
    """The deity reads a country's count of unannounced telegrams (``nat_tgms``, 1 here:
    an enemy spy's report) before the country logs in to attack; the login zeroes it
    (player.c: ``status()`` runs before the first command and announces them), so the
    server says nothing of telegrams after the fight, and neither must bellum."""
    god = load_world(EXAMPLES / "paradrop.toml")
    god.nations[1].tgms = 1
    order = "paradrop 0 . 0,0 jh"
    as_read = empire.run_command(god.copy(), order, country=1, seed=1).transcript()
    assert as_read.endswith("command failed\nYou have a new telegram waiting ...\n")
    replayed = empire.run_command(logged_in(god, 1), order, country=1, seed=1).transcript()
    assert replayed == as_read.removesuffix("You have a new telegram waiting ...\n")
    assert god.nations[1].tgms == 1  # the deity's world is left as it was read


def record(p_fog: float, p_god: float, success: bool, command: str = "attack") -> dict[str, object]:
    return {"world": 1, "command": command, "p_fog": p_fog, "p_god": p_god,
            "success": success, "checked": True, "fresh": True}  # fmt: skip


def test_the_report_says_whether_each_criterion_is_met() -> None:
    honest = [record(0.5, 0.5, i % 2 == 0) for i in range(20)]
    text = report(honest)
    assert "fog-aware Brier within 0.02 of god's-eye: yes (+0.0000; 95 % bootstrap" in text
    assert "95 % interval (fog-aware): yes." in text
    assert "| attack | 20 | 0.500 | 0.500 | 0.500 | 0.2500 | 0.2500 |" in text
    hopeful = [record(0.45, 0.0, False) for _ in range(20)]
    text = report(hopeful)
    assert "within 0.02 of god's-eye: **no** (+0.2025; 95 % bootstrap interval" in text
    assert "**no**: 0.4-0.5." in text


def test_the_gap_has_a_bootstrap_interval() -> None:
    """Each attack's two squared errors are resampled together: the same prediction
    twice has no spread; half the attacks worse by 0.14 (0.45 against 0.25, all failed:
    0.2025 - 0.0625) gives a gap of 0.07, its interval inside 0 to 0.14."""
    same = [record(0.3, 0.3, i % 3 == 0) for i in range(30)]
    assert gap_interval(same) == (0.0, 0.0)
    mixed = [record(0.45, 0.25, False) for _ in range(20)] + [record(0.25, 0.25, False)] * 20
    low, high = gap_interval(mixed)
    assert 0.0 < low < 0.07 < high < 0.14
    assert gap_interval(mixed) == (low, high)  # a fixed seed


def test_rescore_recomputes_the_fog_odds_of_recorded_attacks_on_kept_worlds(tmp_path) -> None:  # type: ignore[no-untyped-def]
    """--rescore: each recorded attack's fog-aware P again from the kept view of its world
    (no server: the folder says it is done), the god's-eye P and the outcome as recorded;
    what is already in the output is not done twice."""
    kept = tmp_path / "worlds" / "w7"
    kept.mkdir(parents=True)
    Store.create(kept / "view-1.db", load_world(EXAMPLES / "fog-view.toml")).close()
    (kept / "done").write_text("views of world 7\n")
    old = dict(record(0.9, 0.4, False), world=7, country=1, order="attack 2,0",
               mil={"0,0": 60}, units=[], seed=11, inputs=0, fog_error="")  # fmt: skip
    path = tmp_path / "old.jsonl"
    path.write_text(json.dumps(old) + "\n")
    out = tmp_path / "new.jsonl"
    assert main(["--rescore", str(path), "--out", str(out), "--worlds", str(tmp_path / "worlds"),
                 "--draws", "4"]) == 0  # fmt: skip
    (new,) = read_records(out)
    assert new["p_fog"] != 0.9 and 0 < new["p_fog"] < 1 and new["inputs"] > 0
    assert {k: new[k] for k in ("p_god", "success", "seed", "order")} == {
        "p_god": 0.4, "success": False, "seed": 11, "order": "attack 2,0"}  # fmt: skip
    assert main(["--rescore", str(path), "--out", str(out), "--worlds", str(tmp_path / "worlds"),
                 "--draws", "4"]) == 0  # fmt: skip
    assert len(read_records(out)) == 1


def test_the_offline_gap_is_the_mean_squared_difference_less_the_gods_variance() -> None:
    """Where the god's-eye odds are right, E[(f - g)²] is the Brier gap without the
    outcomes' noise; the god's sampling variance is taken off, as it adds to it."""
    rows = [dict(record(0.6, 0.4, False), god_error=0.1), dict(record(0.2, 0.2, True))]
    assert squared_gaps(rows) == pytest.approx([0.04 - 0.01, 0.0])
    text = gap_report([*rows, dict(record(0.5, 0.0, False), fresh=False)])
    assert "| fresh | 2 | 0.0150 |" in text and "| not fresh | 1 | 0.2500 |" in text
    assert "| fresh attack | 2 | 0.0150 (share +0.0150) |" in text
