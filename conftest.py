"""Options of the whole test suite: longer fuzzing, and the reliability report.

At the root rather than in tests/, where ``conftest`` would shadow the
``from conftest import`` of tests/empire for linters.
"""

from __future__ import annotations

import os
from pathlib import Path

import pytest

ROOT = Path(__file__).resolve().parent
REPORT = ROOT / "docs" / "reliability.md"


def pytest_addoption(parser: pytest.Parser) -> None:
    parser.addoption(
        "--fuzz-long",
        action="store_true",
        help="Fuzz for long: 25 times the examples of tests/fuzz, with a new seed each run.",
    )
    parser.addoption(
        "--reliability-report",
        action="store_true",
        help="Write docs/reliability.md from the figures of tests/fuzz and tests/faults "
        "(only if every test passed).",
    )


def pytest_configure(config: pytest.Config) -> None:
    if config.getoption("--fuzz-long"):
        os.environ["BELLUM_FUZZ_LONG"] = "1"


def pytest_sessionfinish(session: pytest.Session, exitstatus: int) -> None:
    config = session.config
    if not config.getoption("--reliability-report") or exitstatus != 0:
        return
    from reliability import render

    long = config.getoption("--fuzz-long")
    mode = "long mode, a new seed" if long else "CI mode: fixed seed, the examples CI runs"
    command = "pytest tests/fuzz tests/faults --reliability-report" + (
        " --fuzz-long" if long else ""
    )
    REPORT.write_text(render(mode, command), "utf-8")
