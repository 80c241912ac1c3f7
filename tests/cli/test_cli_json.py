"""Every ``--json`` document is one object that names its kind (``schema``) and version
(``schema_version``) and follows its JSON Schema in docs/schemas/ (issue 29, item 5).

Panzer's documents are checked in tests/panzer/test_panzer_json.py, the live server's in
tests/live/test_live_cli.py; this covers the rest and the schemas themselves.
"""

from __future__ import annotations

import json
import re
from pathlib import Path
from typing import Any

import pytest
from jsonschema.exceptions import ValidationError

from clirunner import ROOT, bellum
from jsonschemas import SCHEMAS, schema_path, validate, validator

EX = ROOT / "examples" / "empire"
A = str(EX / "vector-a.toml")
#: The commands, the kind of document each prints and its exit status.
CASES: dict[str, tuple[list[str], str, int]] = {
    "show": (["empire", "show", "--world", A, "--as", "1"], "bellum.empire.show", 0),
    "show enemy": (["empire", "show", "--world", A, "--as", "1", "2,0"], "bellum.empire.show", 0),
    "show ships and planes": (
        ["empire", "show", "--world", str(EX / "landing.toml"), "--as", "1", "--ships", "--planes"],
        "bellum.empire.show",
        0,
    ),
    "show planes": (
        ["empire", "show", "--world", str(EX / "paradrop.toml"), "--as", "1"],
        "bellum.empire.show",
        0,
    ),
    "strength": (["empire", "strength", "--world", A, "--as", "2"], "bellum.empire.strength", 0),
    "rules": (["empire", "rules"], "bellum.empire.rules", 0),
    "types": (["empire", "types"], "bellum.empire.types", 0),
    "types of ships": (["empire", "types", "--ships", "--world", A], "bellum.empire.types", 0),
    "attack": (
        ["empire", "attack", "2,0", "--world", A, "--as", "1", "--seed", "1", "--mil", "0,0=150",
         "--move-in", "0", "--out", "{tmp}/a.toml"],
        "bellum.empire.combat",
        0,
    ),
    "attack refused": (
        ["empire", "attack", "5,5", "--world", A, "--as", "1", "--seed", "1"],
        "bellum.empire.combat",
        1,
    ),
    "odds fight exact": (["odds", "fight", "--att", "10", "--def", "5"], "bellum.odds.fight", 0),
    "odds fight sampled": (
        ["odds", "fight", "--att", "10", "--def", "5", "--monte-carlo", "--runs", "500", "--seed",
         "1"],
        "bellum.odds.fight",
        0,
    ),
    "empire odds": (
        ["empire", "odds", "attack", "2,0", "--world", A, "--as", "1", "--seed", "1"],
        "bellum.empire.odds",
        0,
    ),
    "empire odds with resolver runs": (
        ["empire", "odds", "attack", "2,0", "--world", A, "--as", "1", "--seed", "1", "--mil",
         "0,0=60", "--resolver-runs", "20"],
        "bellum.empire.odds",
        0,
    ),
    "empire odds, a need met": (
        ["empire", "odds", "attack", "2,0", "--world", A, "--as", "1", "--seed", "1", "--need",
         "0.9"],
        "bellum.empire.odds",
        0,
    ),
    "empire odds, a need out of reach": (
        ["empire", "odds", "attack", "2,0", "--world", str(EX / "failed.toml"), "--as", "1",
         "--seed", "1", "--need", "0.9"],
        "bellum.empire.odds",
        1,
    ),
    "empire odds of several plans": (
        ["empire", "odds", "attack", "2,0", "--world", A, "--as", "1", "--seed", "1", "--mil",
         "0,0=10", "--mil", "0,0=100"],
        "bellum.empire.comparison",
        0,
    ),
    "plan": (
        ["empire", "plan", "--world", str(EX / "capital.toml"), "--as", "1", "--jobs", "1"],
        "bellum.empire.plan",
        0,
    ),
    "threats": (
        ["empire", "threats", "--world", str(EX / "capital.toml"), "--as", "2", "--jobs", "1"],
        "bellum.empire.threats",
        0,
    ),
}  # fmt: skip


def document(argv: list[str], status: int, tmp_path: Path) -> dict[str, Any]:
    r = bellum(*[a.format(tmp=tmp_path) for a in argv], "--json")
    assert r.returncode == status, r.stderr
    doc = json.loads(r.stdout)  # one document, nothing else on standard output
    assert isinstance(doc, dict)
    return doc


@pytest.mark.parametrize("case", CASES)
def test_every_json_document_names_its_kind_and_follows_its_schema(
    case: str, tmp_path: Path
) -> None:
    argv, kind, status = CASES[case]
    doc = document(argv, status, tmp_path)
    assert list(doc)[:2] == ["schema", "schema_version"]
    assert doc["schema"] == kind
    validate(doc)


def test_history_is_an_object_with_its_commands(tmp_path: Path) -> None:
    db = str(tmp_path / "g.db")
    assert bellum("empire", "world", "new", "--db", db, "--from", A).returncode == 0
    empty = document(["empire", "history", "--db", db], 0, tmp_path)
    assert empty["commands"] == []
    validate(empty)
    attack = ["empire", "attack", "2,0", "--db", db, "--as", "1", "--seed", "1"]
    assert bellum(*attack, "--mil", "0,0=150", "--move-in", "0").returncode == 0
    assert bellum(*attack).returncode == 1  # 2,0 is ours now: refused, and kept as such
    doc = document(["empire", "history", "--db", db], 0, tmp_path)
    validate(doc)
    assert [(c["id"], c["order"], c["outcome"]) for c in doc["commands"]] == [
        (1, "attack 2,0", "captured"), (2, "attack 2,0", "refused")
    ]  # fmt: skip


def test_a_need_out_of_reach_gives_the_best_plan_and_no_mil() -> None:
    argv, _, _ = CASES["empire odds, a need out of reach"]
    r = bellum(*argv, "--json")
    assert r.returncode == 1
    assert r.stderr.endswith("bellum: error: even everything the command allows succeeds only"
                             " 0.00% of the time\n")  # fmt: skip
    doc = json.loads(r.stdout)
    assert doc["need"] == {"target": 0.9, "mil": None, "sampled": False}
    assert doc["p_attacker_wins"] < 0.9 and doc["plan"]["command"] == "attack 2,0"


def test_every_schema_file_is_documented_and_named_after_its_kind() -> None:
    table = (ROOT / "docs" / "cli.md").read_text()
    rows = dict(re.findall(r"\| `(bellum\.[a-z.-]+)` \| (\d+) \|", table))
    files = sorted(SCHEMAS.glob("*.schema.json"))
    kinds = set()
    for path in files:
        schema = json.loads(path.read_text())
        assert schema["$id"] == f"urn:bellum:schema:{path.name.removesuffix('.schema.json')}"
        if "schema" not in schema.get("properties", {}):
            continue  # parts other schemas refer to (panzer-breakdown)
        kind = schema["properties"]["schema"]["const"]
        kinds.add(kind)
        assert schema_path(kind) == path
        assert rows.get(kind) == str(schema["properties"]["schema_version"]["const"]), kind
        assert "schema_version" in schema["required"] and "schema" in schema["required"]
    assert kinds == set(rows), "docs/cli.md lists every kind of document, and only those"
    tested = {kind for _, kind, _ in CASES.values()} | {"bellum.empire.history"}
    elsewhere = {k for k in kinds if k.startswith("bellum.panzer.")} | {"bellum.empire.live"}
    assert kinds == tested | elsewhere


def test_the_schemas_refuse_what_a_document_must_not_be(tmp_path: Path) -> None:
    doc = document(CASES["show"][0], 0, tmp_path)
    for broken in (
        [doc],  # a bare list
        {k: v for k, v in doc.items() if k != "schema"},
        doc | {"schema_version": 2},
        doc | {"sector": doc["sectors"]},  # an undocumented key
        doc | {"nation": doc["nation"] | {"money": "25000"}},
    ):
        with pytest.raises(ValidationError):
            validator("bellum.empire.show").validate(broken)
    plans = document(CASES["empire odds of several plans"][0], 0, tmp_path)
    with pytest.raises(ValidationError):  # each plan is checked as a plan
        validator("bellum.empire.comparison").validate(
            plans | {"plans": [p | {"surplus": 1} for p in plans["plans"]]}
        )
