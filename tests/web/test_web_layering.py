"""The web package reaches the rules and the odds through games.py only, the store
through the service (empire/service.py) only.

That is what makes switching to the coming entry points a change of one module; and the
core never imports the web app or its framework.
"""

from __future__ import annotations

import ast
from pathlib import Path

SRC = Path(__file__).resolve().parents[2] / "src" / "bellum"
CORE = ("bellum.empire", "bellum.panzer", "bellum.odds", "bellum.dice")


def imports(path: Path) -> set[str]:
    names: set[str] = set()
    for node in ast.walk(ast.parse(path.read_text(), str(path))):
        if isinstance(node, ast.Import):
            names.update(a.name for a in node.names)
        elif isinstance(node, ast.ImportFrom) and node.module:
            names.add(node.module)
    return names


def test_only_the_service_module_calls_into_the_core() -> None:
    for path in sorted((SRC / "web").glob("*.py")):
        if path.name == "games.py":
            continue
        reached = {n for n in imports(path) if n.startswith(CORE)}
        assert not reached, f"{path.name} imports {sorted(reached)}: go through games.py"


def test_the_core_never_imports_the_web() -> None:
    for package in ("empire", "panzer", "odds"):
        for path in sorted((SRC / package).rglob("*.py")):
            bad = {n for n in imports(path) if n.startswith(("bellum.web", "starlette", "jinja2"))}
            assert not bad, f"{path.relative_to(SRC)} imports {sorted(bad)}"


def test_the_web_reaches_storage_through_the_service_only() -> None:
    for path in sorted((SRC / "web").glob("*.py")):
        bad = {n for n in imports(path) if n.startswith(("bellum.empire.io", "sqlite3"))}
        assert not bad, f"{path.name} imports {sorted(bad)}: use bellum.empire.service"
