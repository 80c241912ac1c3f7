"""No two modules of bellum import each other, directly or around a loop.

Every import counts, a deferred one inside a function too: a loop of imports is a
loop of knowledge (each side must change with the other) wherever the statement
stands.  The modules that some imports name are resolved the way Python does:
``from a import b`` is module ``a.b`` when there is one, else ``a``.
"""

from __future__ import annotations

import ast
from pathlib import Path

SRC = Path(__file__).resolve().parents[1] / "src"


def _modules() -> dict[str, Path]:
    found = {}
    for path in sorted((SRC / "bellum").rglob("*.py")):
        parts = path.relative_to(SRC).with_suffix("").parts
        found[".".join(parts[:-1] if parts[-1] == "__init__" else parts)] = path
    return found


def _graph(modules: dict[str, Path]) -> dict[str, set[str]]:
    graph: dict[str, set[str]] = {name: set() for name in modules}
    for name, path in modules.items():
        for node in ast.walk(ast.parse(path.read_text(), str(path))):
            if isinstance(node, ast.Import):
                targets = [a.name for a in node.names]
            elif isinstance(node, ast.ImportFrom) and node.module:  # bellum's are absolute
                base = node.module
                targets = [f"{base}.{a.name}" if f"{base}.{a.name}" in modules else base
                           for a in node.names]  # fmt: skip
            else:
                continue
            for t in targets:
                graph[name].update(_loaded(t, name, modules))
    return graph


def _loaded(target: str, importer: str, modules: dict[str, Path]) -> set[str]:
    """The modules an import of ``target`` runs: it and the packages above it, but for
    the packages that hold the importer (Python has run them already)."""
    parts = target.split(".")
    above = (".".join(parts[:k]) for k in range(2, len(parts) + 1))
    return {m for m in above if m in modules and m != importer and not importer.startswith(m + ".")}


def _cycles(graph: dict[str, set[str]]) -> list[list[str]]:
    """The strongly connected components of more than one module (Tarjan)."""
    index: dict[str, int] = {}
    low: dict[str, int] = {}
    stack: list[str] = []
    on_stack: set[str] = set()
    found: list[list[str]] = []

    def visit(v: str) -> None:
        index[v] = low[v] = len(index)
        stack.append(v)
        on_stack.add(v)
        for w in sorted(graph[v]):
            if w not in index:
                visit(w)
                low[v] = min(low[v], low[w])
            elif w in on_stack:
                low[v] = min(low[v], index[w])
        if low[v] == index[v]:
            component = []
            while True:
                w = stack.pop()
                on_stack.discard(w)
                component.append(w)
                if w == v:
                    break
            if len(component) > 1:
                found.append(sorted(component))

    for v in sorted(graph):
        if v not in index:
            visit(v)
    return found


def test_the_finder_sees_a_loop() -> None:
    loop = {"a": {"b"}, "b": {"c"}, "c": {"a"}, "d": {"a"}}
    assert _cycles(loop) == [["a", "b", "c"]]
    assert _cycles({"a": {"b"}, "b": set()}) == []


def test_the_graph_reads_deferred_imports_and_submodules() -> None:
    graph = _graph(_modules())
    assert "bellum.web.empire_views" in graph["bellum.web.app"]  # inside create_app
    assert "bellum.web._charts" in graph["bellum.web.empire_views"]  # from bellum.web import


def test_no_import_cycle() -> None:
    cycles = _cycles(_graph(_modules()))
    assert not cycles, "modules that import each other: " + "; ".join(
        " <-> ".join(c) for c in cycles
    )
