"""`bellum empire odds` runs with the collector's passes made rare from its first line:
its world load, freeze and first run of the command allocate hundreds of thousands of
long-lived objects that Python's default thresholds pass over again and again (a plan
of w96x48: 122 young passes, 11 middle and one over the whole heap, 30-40 ms of CPU)."""

from __future__ import annotations

import gc
import json
from typing import Any

import pytest

import bellum.cli.empire_odds as odds_cli
from bellum.collector import THRESHOLDS
from clirunner import ROOT, bellum


def test_the_world_loads_with_fewer_collections(monkeypatch: pytest.MonkeyPatch) -> None:
    seen: list[tuple[int, int, int]] = []
    load = odds_cli.open_world

    def watched(*args: Any, **kwargs: Any) -> Any:
        seen.append(gc.get_threshold())
        return load(*args, **kwargs)

    monkeypatch.setattr(odds_cli, "open_world", watched)
    before = gc.get_threshold()
    world = str(ROOT / "examples" / "empire" / "vector-a.toml")
    r = bellum("empire", "odds", "attack", "2,0", "--world", world, "--as", "1", "--json")
    assert r.returncode == 0, r.stderr
    assert json.loads(r.stdout)["method"] == "exact"
    assert seen == [THRESHOLDS]
    assert gc.get_threshold() == before
