"""The JSON Schemas of docs/schemas/, to check a ``--json`` document against its own.

A document names its kind in ``schema``; its JSON Schema is the file named after the kind
without ``bellum.`` and with ``-`` for ``.`` (``bellum.empire.show``:
``docs/schemas/empire-show.schema.json``).  The schemas refer to each other by ``$id``.
"""

from __future__ import annotations

import json
from pathlib import Path
from typing import Any

from jsonschema import Draft202012Validator
from referencing import Registry, Resource

from clirunner import ROOT

SCHEMAS = ROOT / "docs" / "schemas"


def schema_path(kind: str) -> Path:
    """The JSON Schema file of the documents whose ``schema`` is ``kind``."""
    return SCHEMAS / f"{kind.removeprefix('bellum.').replace('.', '-')}.schema.json"


def _registry() -> Registry:
    resources = []
    for path in sorted(SCHEMAS.glob("*.schema.json")):
        schema = json.loads(path.read_text())
        Draft202012Validator.check_schema(schema)
        resources.append((schema["$id"], Resource.from_contents(schema)))
    return Registry().with_resources(resources)


REGISTRY = _registry()


def validator(kind: str) -> Draft202012Validator:
    return Draft202012Validator(json.loads(schema_path(kind).read_text()), registry=REGISTRY)


def validate(doc: Any) -> None:
    """Raise :class:`jsonschema.ValidationError` unless ``doc`` is an object that follows
    the schema it names."""
    assert isinstance(doc, dict), f"a JSON document is an object, not {type(doc).__name__}"
    validator(doc["schema"]).validate(doc)


__all__ = ["SCHEMAS", "schema_path", "validate", "validator"]
