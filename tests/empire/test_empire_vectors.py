"""Verified runs as data: every tests/vectors/*.toml replayed through bellum.

Each vector was played on a real Wolfpack Empire 4.4.1 server
(tools/server-oracle/mkvector.py): the world file, what country 1 typed, the
seed, what the server printed, the telegrams it sent (bellum keeps a telegram
without the server's final newline) and every object the command changed, as
the server's own dump shows it afterwards.  bellum must print the same text and
leave the world the same way; everything the vector does not list must be
unchanged.
"""

from __future__ import annotations

import tomllib
from pathlib import Path
from typing import Any

import pytest
from conftest import ROOT

from bellum.empire import run_command
from bellum.empire.combat import CombatResult
from bellum.empire.events import ScriptedPrompter
from bellum.empire.io.toml import load_world
from bellum.empire.world import World

VECTORS = sorted((ROOT / "tests" / "vectors").glob("*.toml"))


def server_view(result: CombatResult) -> str:
    """The transcript as the server's client shows piped input: answers are not echoed."""
    return "".join(e.text if e.kind == "prompt" else e.transcript() for e in result.events)


def replay(vector: dict[str, Any]) -> tuple[World, World, CombatResult]:
    world = load_world(ROOT / vector["world"])
    before = world.copy()
    prompter = ScriptedPrompter(list(vector["answers"]))
    result = run_command(
        world, vector["command"], country=1, seed=vector["seed"], prompter=prompter
    )
    return before, world, result


def _nonzero(items: dict[str, int]) -> dict[str, int]:
    return {k: v for k, v in items.items() if v}


def _check_sector(world: World, want: dict[str, Any]) -> None:
    s = world.sector(tuple(want["at"]))
    got = {k: getattr(s, k) for k in want if k not in ("at", "items")}
    assert got == {k: v for k, v in want.items() if k not in ("at", "items")}, want["at"]
    assert _nonzero(s.items) == want["items"], want["at"]


def _check_object(objects: dict[int, Any], want: dict[str, Any], kind: str) -> None:
    uid = want["uid"]
    if want.get("gone"):
        assert uid not in objects, f"{kind} #{uid} should be gone"
        return
    o = objects[uid]
    for key, value in want.items():
        if key == "uid":
            continue
        if key == "xy":
            assert list(o.xy) == value, f"{kind} #{uid}"
        elif key == "items":
            assert _nonzero(o.items) == value, f"{kind} #{uid}"
        else:
            assert getattr(o, key) == value, f"{kind} #{uid} {key}"


@pytest.mark.parametrize("path", VECTORS, ids=[p.stem for p in VECTORS])
def test_vector(path: Path) -> None:
    vector = tomllib.loads(path.read_text())
    before, world, result = replay(vector)
    assert server_view(result) == vector["transcript"]
    if "telegrams" in vector:
        sent = {str(n): "" for n in world.nations}
        for t in world.telegrams:
            sent[str(t.to)] += t.text + "\n"
        assert {n: text for n, text in sent.items() if text} == vector["telegrams"]
    after = vector.get("after", {})
    for want in after.get("sector", []):
        _check_sector(world, want)
    changed = {tuple(w["at"]) for w in after.get("sector", [])}
    for xy, s in before.sectors.items():
        if xy not in changed:
            b = world.sectors[xy]
            assert (b.owner, b.eff, b.mob, _nonzero(b.items)) == (
                s.owner,
                s.eff,
                s.mob,
                _nonzero(s.items),
            ), xy
    for kind, attr in (("plane", "planes"), ("unit", "units"), ("ship", "ships")):
        wanted = {w["uid"]: w for w in after.get(kind, [])}
        for want in wanted.values():
            _check_object(getattr(world, attr), want, kind)
        for uid, o in getattr(before, attr).items():
            if uid not in wanted:
                now = getattr(world, attr).get(uid)
                assert now is not None and (now.owner, now.eff, now.mob, now.xy) == (
                    o.owner,
                    o.eff,
                    o.mob,
                    o.xy,
                ), f"{kind} #{uid} changed"
