"""The shared progress bar: drawn on a terminal, absent otherwise, closed on Ctrl-C."""

from __future__ import annotations

import io
import subprocess
import sys

import pytest

from bellum.cli.progress import progress, shows_progress


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
