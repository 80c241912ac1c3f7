"""Shared helpers of the store tests: the shared Empire dumps, the CLI, replay checks."""

from __future__ import annotations

from pathlib import Path

from bellum.empire.io.sqlite.store import Store
from bellum.empire.service import replay
from shareddata import shared_path

ROOT = Path(__file__).resolve().parents[2]
#: World sizes of the Empire test games that made the dumps (their econfig).
SIZES: dict[str, tuple[int, int] | None] = {
    "smoke-final.xdump": None,
    "fire-final.xdump": (32, 16),
    "retreat-final.xdump": (24, 12),
}
#: A frontier of smoke-final: country 1's radar at 11,-1 (absolute 16,18) borders
#: country 8's oil field at 13,-1 (18,18); they are at war.
SMOKE_ATTACK = ["13,-1", "n", "n", "n", "n"]


def dump_path(name: str) -> Path:
    """One of the real Empire dumps in ``../shared`` (skips without it, fails under CI)."""
    return shared_path("data", "empire-dumps", name)


def assert_history_replays(db: Path) -> int:
    """Every stored command of ``db`` reproduces its transcript and changes; returns how many."""
    store = Store.open(db)
    try:
        records = store.history()
        for rec in records:
            report = replay(store, rec.id)
            assert report.ok, (rec.id, report.differences)
    finally:
        store.close()
    return len(records)


def front_world_toml() -> str:
    """Two countries at war along the equator: 1 holds x = 0, 4, 8, ... with 200 mil,
    2 holds x = 2, 6, 10, ... with 5 mil.  Every attack changes both countries' sectors
    and 1's BTUs, so commands that ran on a stale world would be caught."""
    doc = """schema_version = 1
[world]
size = [64, 32]
fill = "wilderness"
fill_eff = 100

[[nation]]
cnum = 1
name = "North"
money = 25000
relations = { 2 = "at-war" }

[[nation]]
cnum = 2
name = "South"
money = 25000
capital = [62, 30]
relations = { 1 = "at-war" }
"""
    for x in range(0, 64, 4):
        for owner, dx, mil, civ in ((1, 0, 200, 100), (2, 2, 5, 50)):
            doc += (
                f'\n[[sector]]\nat = [{x + dx}, 0]\ndes = "wilderness"\nowner = {owner}\n'
                f"eff = 100\nmob = 127\nmil = {mil}\nciv = {civ}\n"
            )
    return doc
