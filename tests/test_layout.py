"""The layering the folders promise (docs/architecture.md), checked on every import.

Imports point inward: the edges (``cli``, ``web``, ``client``) use the service,
the service uses the rules and the storage, the rules use ``dice`` and
``errors``.  Every ``import`` statement counts, inside functions and
``TYPE_CHECKING`` blocks too, except where a test says otherwise.
"""

from __future__ import annotations

import ast
import re
from collections.abc import Iterator
from pathlib import Path

import pytest

SRC = Path(__file__).resolve().parents[1] / "src"
PACKAGE = SRC / "bellum"
EDGES = ("bellum.cli", "bellum.web", "bellum.client", "click", "starlette")
STORAGE = "bellum.empire.io"


def module_name(path: Path) -> str:
    parts = list(path.relative_to(SRC).with_suffix("").parts)
    if parts[-1] == "__init__":
        parts.pop()
    return ".".join(parts)


def modules_under(*packages: str) -> list[tuple[str, Path]]:
    found = []
    for package in packages:
        root = SRC / package.replace(".", "/")
        files = sorted(root.rglob("*.py")) if root.is_dir() else [root.with_suffix(".py")]
        assert all(f.exists() for f in files) and files, package
        found += [(module_name(f), f) for f in files]
    return found


def imports(path: Path, *, typing_too: bool = True) -> Iterator[tuple[int, str]]:
    """``(line, module)`` for every module ``path`` imports, relative imports resolved."""
    tree = ast.parse(path.read_text(), str(path))
    here = module_name(path).split(".")
    if path.name != "__init__.py":
        here.pop()
    skipped: set[int] = set()
    if not typing_too:
        for node in ast.walk(tree):
            if isinstance(node, ast.If) and "TYPE_CHECKING" in ast.unparse(node.test):
                skipped |= {id(n) for n in ast.walk(node)}
    for node in ast.walk(tree):
        if id(node) in skipped:
            continue
        if isinstance(node, ast.Import):
            for alias in node.names:
                yield node.lineno, alias.name
        elif isinstance(node, ast.ImportFrom):
            base = here[: len(here) - node.level + 1] if node.level else []
            module = ".".join([*base, *([node.module] if node.module else [])])
            for alias in node.names:  # ``from bellum.empire import air`` imports a module
                sub = f"{module}.{alias.name}"
                yield node.lineno, sub if is_module(sub) else module


def is_module(name: str) -> bool:
    path = SRC / name.replace(".", "/")
    return path.is_dir() or path.with_suffix(".py").exists()


def reaches(module: str, target: str) -> bool:
    return module == target or module.startswith(target + ".")


CORE = modules_under("bellum.empire", "bellum.panzer", "bellum.odds")


def test_the_walk_sees_the_packages() -> None:
    names = {name for name, _ in CORE}
    assert {"bellum.empire.combat.attack", "bellum.panzer.results", "bellum.odds.engine"} <= names
    assert ("bellum.empire.io.sqlite.store", "sqlite3") in {
        (name, m) for name, path in CORE for _, m in imports(path)
    }


@pytest.mark.parametrize(("name", "path"), CORE, ids=[name for name, _ in CORE])
def test_core_never_imports_an_edge(name: str, path: Path) -> None:
    for line, module in imports(path):
        assert not any(reaches(module, edge) for edge in EDGES), f"{path}:{line}: {module}"
        if module == "sqlite3":
            assert reaches(name, f"{STORAGE}.sqlite"), f"{path}:{line}: sqlite3 outside storage"


def is_rules(name: str) -> bool:
    """Everything in the game and odds packages but storage, the service and the facade."""
    return not (reaches(name, STORAGE) or name in ("bellum.empire", "bellum.empire.service"))


RULES = [(name, path) for name, path in CORE if is_rules(name)]


@pytest.mark.parametrize(("name", "path"), RULES, ids=[name for name, _ in RULES])
def test_rules_never_import_storage_or_the_service(name: str, path: Path) -> None:
    for line, module in imports(path):
        assert not reaches(module, STORAGE), f"{path}:{line}: {module}"
        assert not reaches(module, "bellum.empire.service"), f"{path}:{line}: {module}"
        assert module != "bellum.empire", f"{path}:{line}: the facade imports the rules"


STORAGE_MODULES = modules_under(STORAGE)


@pytest.mark.parametrize(("name", "path"), STORAGE_MODULES, ids=[n for n, _ in STORAGE_MODULES])
def test_storage_knows_worlds_not_commands(name: str, path: Path) -> None:
    """Formats and storage run nothing: no combat, planning or service (types aside)."""
    for line, module in imports(path, typing_too=False):
        for runner in ("bellum.empire.combat", "bellum.empire.odds", "bellum.empire.service"):
            assert not reaches(module, runner), f"{path}:{line}: {module}"


@pytest.mark.parametrize(
    ("packages", "forbidden"),
    [
        (("bellum.budget", "bellum.collector", "bellum.dice", "bellum.errors", "bellum.fileio",
          "bellum.formulas",
          "bellum.numbers", "bellum.term"),
         ("bellum.empire", "bellum.panzer", "bellum.odds")),
        (("bellum.odds",), ("bellum.empire", "bellum.panzer")),
        (("bellum.empire",), ("bellum.panzer",)),
        (("bellum.panzer",), ("bellum.empire",)),
    ],
)  # fmt: skip
def test_shared_pieces_and_games_stay_apart(
    packages: tuple[str, ...], forbidden: tuple[str, ...]
) -> None:
    for _, path in modules_under(*packages):
        for line, module in imports(path):
            assert not any(reaches(module, f) for f in forbidden), f"{path}:{line}: {module}"


#: The command-line options of the inputs the core's errors name by their field.
FIELD_OPTIONS = re.compile(
    r"--(mil|unit|need|option|profile|defense-as-seen|prior|weight|runs|target-error)\b"
)


@pytest.mark.parametrize(("name", "path"), CORE, ids=[name for name, _ in CORE])
def test_core_errors_name_their_input_not_a_command_line_option(name: str, path: Path) -> None:
    """The core raises InputError naming the field; each edge words it for its users, so
    no error of the core says ``UsageError`` or names the option of such an input."""
    tree = ast.parse(path.read_text(), str(path))
    for node in ast.walk(tree):
        if not isinstance(node, ast.Raise) or node.exc is None:
            continue
        assert "UsageError" not in ast.unparse(node.exc), f"{path}:{node.lineno}"
        for part in ast.walk(node.exc):
            if isinstance(part, ast.Constant) and isinstance(part.value, str):
                assert not FIELD_OPTIONS.search(part.value), f"{path}:{node.lineno}"
