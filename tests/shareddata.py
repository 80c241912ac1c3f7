"""The real data next to the clone (``../shared``), which is never committed here.

A fresh clone without it still passes: the tests that need it skip, and say why in
the summary (``-rs``).  CI has it, so ``.ci/run`` sets ``BELLUM_REQUIRE_SHARED=1``
and a missing file fails the run instead of hiding 30 tests behind a skip.
"""

from __future__ import annotations

import os
from pathlib import Path

import pytest

ROOT = Path(__file__).resolve().parents[1]
SHARED = ROOT.parent / "shared"


def required() -> bool:
    """Whether a missing shared file is a failure (CI) rather than a skip."""
    return os.environ.get("BELLUM_REQUIRE_SHARED", "") == "1"


def shared_path(*parts: str) -> Path:
    """``../shared/<parts>``; skips the test when it is absent (fails under CI)."""
    path = SHARED.joinpath(*parts)
    if not path.exists():
        reason = f"needs {path}: clone next to shared/ to run it"
        if required():
            pytest.fail(f"{reason} (BELLUM_REQUIRE_SHARED=1: CI must run it)", pytrace=False)
        pytest.skip(reason)
    return path
