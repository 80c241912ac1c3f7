"""Rendering a generic result: percentages, quantiles, tables, histograms, JSON."""

from __future__ import annotations

import json
from pathlib import Path

import numpy as np
import pytest

from bellum.errors import InputError
from bellum.odds import LossDistribution, OddsResult, Side, fight_odds
from bellum.odds.report import histogram, loss_table, percent, render_text, to_json_dict


def test_percent_never_rounds_a_near_certainty_to_certainty() -> None:
    assert percent(1.0) == "100 %"
    assert percent(0.0) == "0 %"
    assert percent(0.99999) == "99.999 %"
    assert percent(0.5) == "50.00 %"
    assert percent(1e-9) == "1e-07 %"


def test_a_table_cell_has_its_places_and_still_never_shows_certainty() -> None:
    assert percent(0.99999999999998, 2) == "> 99.99 %"
    assert percent(1.9e-12, 2) == "< 0.01 %"
    assert (percent(0.6911, 2), percent(0.9999, 2)) == ("69.11 %", "99.99 %")
    assert (percent(1.0, 2), percent(0.0, 2)) == ("100 %", "0 %")


def test_quantiles_are_the_smallest_value_reaching_the_level() -> None:
    d = LossDistribution(np.array([1, 2, 5]), np.array([0.25, 0.5, 0.25]))
    assert d.quantiles((0.05, 0.25, 0.5, 0.75, 0.95)) == {
        0.05: 1,
        0.25: 1,
        0.5: 2,
        0.75: 2,
        0.95: 5,
    }
    assert d.mean() == 2.5


def generic_result() -> OddsResult:
    """A result that is not a two-sided fight: three outcomes, one loss pmf."""
    return OddsResult(
        outcomes={"defender retreats": 0.5, "defender holds": 0.3, "attacker routed": 0.2},
        losses={"attacker": LossDistribution(np.array([0, 1, 2]), np.array([0.2, 0.5, 0.3]))},
        method="exact",
        model="panzer",
        pruned_mass=0.0,
    )


def test_any_result_renders() -> None:
    text = render_text(generic_result())
    assert "P(defender retreats)" in text and "attacker losses" in text
    doc = to_json_dict(generic_result())
    assert "p_attacker_wins" not in doc
    assert doc["outcomes"]["defender holds"] == 0.3


def test_histogram_has_no_escape_codes_without_colour() -> None:
    dist = fight_odds(Side.troops(50), Side.troops(30)).losses["attacker"]
    plain = histogram(dist, title="x")
    assert "\x1b" not in plain and "█" in plain
    assert "\x1b[" in histogram(dist, color=True)


def test_loss_table_lists_the_five_quantiles() -> None:
    table = loss_table(fight_odds(Side.troops(50), Side.troops(30)).losses)
    assert table.splitlines()[0].split() == ["losses", "mean", "5%", "25%", "50%", "75%", "95%"]


def test_json_document_is_serialisable() -> None:
    result = fight_odds(Side.troops(20), Side.troops(15), runs=1000, seed=3, backend="numpy")
    doc = json.loads(json.dumps(to_json_dict(result)))
    assert doc["method"] == "monte-carlo" and doc["seed"] == 3 and doc["runs"] == 1000
    assert abs(sum(doc["distributions"]["attacker"]["probabilities"]) - 1) < 1e-12


def test_an_outcome_lost_to_pruning_is_shown_as_bounded() -> None:
    result = fight_odds(Side.troops(150), Side.troops(40, 2.0), "server", "exact")
    assert result.outcomes["defender wins"] == 0.0
    assert "P(defender wins) below" in render_text(result)


def test_write_plot_names_the_extensions_it_supports(tmp_path: Path) -> None:
    # The one writer every --plot goes through (odds fight, panzer odds, empire odds).
    pytest.importorskip("matplotlib")
    from bellum.odds.report import write_plot

    with pytest.raises(InputError) as err:
        write_plot(generic_result(), tmp_path / "x.txt")
    assert "extension .txt" in str(err.value) and ".png, .pdf, .svg" in str(err.value)
    assert not (tmp_path / "x.txt").exists()
    with pytest.raises(InputError, match=r"x\.png: cannot write: no folder"):
        write_plot(generic_result(), tmp_path / "missing" / "x.png")
    write_plot(generic_result(), tmp_path / "x.PDF")
    assert (tmp_path / "x.PDF").read_bytes().startswith(b"%PDF")


def test_write_plot_is_a_safe_write(tmp_path: Path) -> None:
    """Whole or nothing, never over a read-only file (even as root), and over a file that
    is no image only when forced."""
    pytest.importorskip("matplotlib")
    from bellum.odds.report import write_plot

    locked = tmp_path / "locked.png"
    locked.write_bytes(b"\x89PNG old")
    locked.chmod(0o444)
    with pytest.raises(InputError, match="read-only"):
        write_plot(generic_result(), locked)
    assert locked.read_bytes() == b"\x89PNG old"
    note = tmp_path / "note.svg"
    note.write_text("my notes")
    with pytest.raises(InputError, match="is not an image; not overwritten"):
        write_plot(generic_result(), note)
    assert note.read_text() == "my notes"
    write_plot(generic_result(), note, force=True)
    assert b"<svg" in note.read_bytes()
    assert sorted(p.name for p in tmp_path.iterdir()) == ["locked.png", "note.svg"]
