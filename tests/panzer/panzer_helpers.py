"""Test helpers: small Panzer scenarios around target 4,4 (attack hexes 3,3 and 3,4)."""

from __future__ import annotations

from pathlib import Path
from typing import Any

from bellum.panzer import Scenario, scenario_from_dict

EXAMPLES = Path(__file__).resolve().parents[2] / "examples" / "panzer"


def unit(uid: str, hex: str, side: str = "A", **fields: Any) -> dict[str, Any]:
    """A unit table with neutral defaults (C quality, no fatigue, personnel)."""
    base: dict[str, Any] = {
        "id": uid,
        "side": side,
        "hex": hex,
        "kind": "personnel",
        "strength": 100,
        "assault": 5,
        "defense": 5,
    }
    base.update(fields)
    return base


def build_doc(
    units: list[dict[str, Any]],
    *,
    attackers: list[str] | None = None,
    target: str = "4,4",
    terrain: dict[str, Any] | None = None,
    hexsides: list[dict[str, Any]] | None = None,
    rules: dict[str, Any] | None = None,
    params: dict[str, Any] | None = None,
    width: int = 8,
    height: int = 8,
) -> dict[str, Any]:
    doc: dict[str, Any] = {
        "schema_version": 1,
        "name": "test",
        "map": {
            "width": width,
            "height": height,
            "terrain": terrain or {},
            "hexsides": hexsides or [],
        },
        "units": units,
        "rules": rules or {},
        "parameter_data": params or {},
    }
    if attackers is None:
        attackers = [u["id"] for u in units if u["side"] == "A"]
    doc["assault"] = {"target": target, "units": attackers}
    return doc


def build(units: list[dict[str, Any]], **kw: Any) -> Scenario:
    return scenario_from_dict(build_doc(units, **kw), "test.toml")
