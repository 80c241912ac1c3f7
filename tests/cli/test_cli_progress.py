"""The shared progress bar: drawn on a terminal, absent otherwise, closed on Ctrl-C."""

from __future__ import annotations

import io
import subprocess
import sys
from pathlib import Path

import pytest

from bellum.cli.progress import progress, progress_fraction, shows_progress
from bellum.odds import Side, fight_odds
from bellum.panzer.distribution import monte_carlo
from bellum.panzer.scenario import load_scenario

ROOT = Path(__file__).resolve().parents[2]


class Terminal(io.StringIO):
    """A stream that says it is a terminal."""

    def isatty(self) -> bool:
        return True


def test_nothing_is_written_when_the_stream_is_not_a_terminal() -> None:
    out = io.StringIO()
    assert not shows_progress(out)
    with progress("runs", total=10, stream=out) as advance:
        for _ in range(10):
            advance(1)
    assert out.getvalue() == ""


def test_a_terminal_gets_a_bar_that_is_cleared_at_the_end() -> None:
    out = Terminal()
    with progress("resolver runs", total=4, stream=out) as advance:
        advance(4)
    text = out.getvalue()
    assert text.startswith("\rresolver runs:   0%")
    assert "0/4" in text
    assert text.endswith("\r")  # the bar's line is blanked: the next output starts clean


def test_unknown_total_shows_a_count_and_a_rate() -> None:
    out = Terminal()
    with progress("Monte Carlo", stream=out, unit="fight") as advance:
        advance(7)
    assert "Monte Carlo: 0fight [" in out.getvalue()
    assert "fight/s]" in out.getvalue()


def test_ctrl_c_propagates_and_closes_the_bar() -> None:
    out = Terminal()
    with pytest.raises(KeyboardInterrupt), progress("runs", total=3, stream=out) as advance:
        advance(1)
        raise KeyboardInterrupt
    assert out.getvalue().endswith("\r")


def test_closed_stream_means_no_bar() -> None:
    out = io.StringIO()
    out.close()
    assert not shows_progress(out)


def test_importing_the_helper_does_not_import_tqdm() -> None:
    code = "import sys, bellum.cli.progress; print('tqdm' in sys.modules)"
    done = subprocess.run([sys.executable, "-c", code], capture_output=True, text=True, check=True)
    assert done.stdout.strip() == "False"


def test_a_fraction_bar_opens_only_when_work_reports() -> None:
    silent, busy = Terminal(), Terminal()
    with progress_fraction("Monte Carlo", stream=silent):
        pass  # an exact solution: nothing to report, so no bar at all
    with progress_fraction("Monte Carlo", stream=busy) as update:
        update(0.5)
        update(1.0)
    assert silent.getvalue() == ""
    assert busy.getvalue().startswith("\rMonte Carlo:")


def test_monte_carlo_reports_its_fraction_done_up_to_the_end() -> None:
    seen: list[float] = []
    fight_odds(Side.troops(300), Side.troops(300), runs=50_000, seed=3, progress=seen.append)
    assert len(seen) >= 3 and seen == sorted(seen) and seen[-1] == 1.0


def test_panzer_resolver_runs_report_their_fraction_done() -> None:
    seen: list[float] = []
    monte_carlo(
        load_scenario(ROOT / "examples" / "panzer" / "bocage.toml"), 200, 1, progress=seen.append
    )
    assert len(seen) == 100 and seen[0] == 0.0 and seen == sorted(seen) and seen[-1] < 1


def test_a_fraction_bar_counts_in_its_unit_or_shows_a_percentage() -> None:
    """No "0/1000 ‰/s": a count of real things, or the share done (issue 29, item 8)."""
    runs, share = Terminal(), Terminal()
    with progress_fraction("resolver runs", total=200, stream=runs) as update:
        update(0.5)
    with progress_fraction("odds", stream=share) as update:
        update(0.5)
    assert "/200 [" in runs.getvalue() and "run/s]" in runs.getvalue()
    assert "odds:   0%|" in share.getvalue() and "/1000" not in share.getvalue()
    assert "‰" not in runs.getvalue() + share.getvalue() and "/s" not in share.getvalue()
