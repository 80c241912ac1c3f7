"""Test helpers: small Panzer scenarios around target 4,4 (attack hexes 3,3 and 3,4)."""

from __future__ import annotations

import tomllib
from pathlib import Path
from typing import Any

from hypothesis import strategies as st

from bellum.panzer import Scenario, scenario_from_dict

ROOT = Path(__file__).resolve().parents[2]
EXAMPLES = ROOT / "examples" / "panzer"


def revision_1() -> dict[str, Any]:
    """The TOML block docs/panzer-defaults.md offers to resolve a scenario as revision 1 did."""
    text = (ROOT / "docs" / "panzer-defaults.md").read_text()
    section = text.split("### Going back to revision 1", 1)[1]
    return tomllib.loads(section.split("```toml\n", 1)[1].split("```", 1)[0])


def merged(doc: dict[str, Any], extra: dict[str, Any]) -> dict[str, Any]:
    """``doc`` with the tables of ``extra`` merged in, recursively."""
    out = dict(doc)
    for key, value in extra.items():
        if isinstance(value, dict) and isinstance(out.get(key), dict):
            out[key] = merged(out[key], value)
        else:
            out[key] = value
    return out


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


def random_unit(
    draw: st.DrawFn,
    uid: str,
    hex: str,
    side: str,
    *,
    max_men: int,
    min_defense: int,
    **fields: Any,
) -> dict[str, Any]:
    """A random unit for property tests: personnel (up to ``max_men``), vehicles or guns
    (a tenth of that), any quality and fatigue; defenders may already be shaken."""
    kind = draw(st.sampled_from(["personnel", "personnel", "vehicle", "gun"]))
    big = kind == "personnel"
    return unit(
        uid,
        hex,
        side,
        kind=kind,
        strength=draw(st.integers(1, max_men if big else max_men // 20)),
        assault=draw(st.integers(1 if side == "A" else 0, 12)),
        defense=draw(st.integers(min_defense, 12)),
        quality=draw(st.sampled_from("ABCDEF")),
        fatigue=draw(st.integers(0, 299 if side == "A" else 300)),
        mode=draw(st.sampled_from(["travel", "deployed"])) if big else "deployed",
        motorized_infantry=big and draw(st.booleans()),
        state="normal" if side == "A" else draw(st.sampled_from(["normal", "disrupted", "broken"])),
        **fields,
    )


def pairs(low: float, high: float) -> dict[str, float]:
    """Parameter Data giving both sides' losses one LCV/HCV pair (spec §16.1 has one per side)."""
    return {
        "assault_attacker_low": low,
        "assault_attacker_high": high,
        "assault_defender_low": low,
        "assault_defender_high": high,
    }


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
