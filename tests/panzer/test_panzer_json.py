"""Every ``bellum panzer ... --json`` document against its JSON Schema in docs/schemas/."""

from __future__ import annotations

import json
from collections.abc import Iterator
from pathlib import Path
from typing import Any

import pytest
from jsonschema import Draft202012Validator
from jsonschema.exceptions import ValidationError
from panzer_helpers import EXAMPLES

from bellum.cli import main
from jsonschemas import validator as schema_validator

EXAMPLE_FILES = sorted(EXAMPLES.glob("*.toml"))


def validator(kind: str) -> Draft202012Validator:
    return schema_validator(f"bellum.panzer.{kind}")


def document(capsys: pytest.CaptureFixture[str], *argv: str) -> dict[str, Any]:
    with pytest.raises(SystemExit) as exc:
        main(["panzer", *argv, "--json"])
    out, err = capsys.readouterr()
    assert exc.value.code in (0, None), err
    doc: dict[str, Any] = json.loads(out)  # strict: NaN or Infinity would fail here
    return doc


def keys(value: object) -> Iterator[str]:
    if isinstance(value, dict):
        for k, v in value.items():
            yield k
            yield from keys(v)
    elif isinstance(value, list):
        for v in value:
            yield from keys(v)


def check(kind: str, doc: dict[str, Any]) -> None:
    validator(kind).validate(doc)
    assert doc["schema"] == f"bellum.panzer.{kind}"
    # one name per figure: the odds vocabulary only (issue 15)
    assert not {"p_success", "expected_loss", "loss_distribution", "check"} & set(keys(doc))


@pytest.mark.parametrize("path", EXAMPLE_FILES, ids=lambda p: p.stem)
def test_every_document_of_every_example_follows_its_schema(
    capsys: pytest.CaptureFixture[str], path: Path
) -> None:
    check("assault", document(capsys, "assault", str(path), "--seed", "3"))
    check("explain", document(capsys, "explain", str(path)))
    check("odds", document(capsys, "odds", str(path)))


def test_odds_with_resolver_runs_sweep_and_rules_follow_their_schemas(
    capsys: pytest.CaptureFixture[str],
) -> None:
    path = str(EXAMPLES / "surrender.toml")
    doc = document(capsys, "odds", path, "--resolver-runs", "300", "--seed", "2")
    check("odds", doc)
    assert doc["resolver"]["runs"] == 300 and doc["resolver"]["seed"] == 2
    check("sweep", document(capsys, "odds", path, "--sweep"))
    check("rules", document(capsys, "rules", path))
    check("rules", document(capsys, "rules"))


def test_the_schemas_are_strict_enough_to_fail(capsys: pytest.CaptureFixture[str]) -> None:
    doc = document(capsys, "odds", str(EXAMPLES / "quality-fatigue.toml"))
    for broken in (
        doc | {"p_success": doc["p_attacker_wins"]},  # an undocumented second name
        {k: v for k, v in doc.items() if k != "expected_losses"},
        doc | {"schema_version": 1},
        doc | {"outcomes": doc["outcomes"] | {"failed": "0.5"}},
    ):
        with pytest.raises(ValidationError):
            validator("odds").validate(broken)
