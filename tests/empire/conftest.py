"""Shared helpers for the Empire tests: small worlds written as TOML text."""

from __future__ import annotations

import tomllib
from pathlib import Path

import pytest

from bellum.empire.io.toml import parse_world
from bellum.empire.world import World

ROOT = Path(__file__).resolve().parents[2]
EXAMPLES = ROOT / "examples" / "empire"

NATIONS = """
schema_version = 1
[world]
size = [64, 32]
fill = "wilderness"
fill_eff = 100

[[nation]]
cnum = 1
name = "1"
money = 25000
tech = 100.0
relations = { 2 = "at-war" }

[[nation]]
cnum = 2
name = "2"
money = 25000
tech = 100.0
capital = [24, 0]
relations = { 1 = "at-war" }
"""


def world_from(extra: str) -> World:
    """The two warring nations of the spec's vectors plus ``extra`` TOML entries."""
    return parse_world(tomllib.loads(NATIONS + extra), "test.toml")


@pytest.fixture
def vector_a_path() -> Path:
    return EXAMPLES / "vector-a.toml"
