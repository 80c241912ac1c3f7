"""No two modules of bellum import each other, directly or around a loop (the finder is
tools/arch_figures.py's, which docs/architecture.md's figures come from).

Every import counts, a deferred one inside a function too: a loop of imports is a
loop of knowledge (each side must change with the other) wherever the statement
stands.  The modules that some imports name are resolved the way Python does:
``from a import b`` is module ``a.b`` when there is one, else ``a``.
"""

from __future__ import annotations

from pathlib import Path

from arch_figures import cycles, import_graph, modules

SRC = Path(__file__).resolve().parents[1] / "src"


def test_the_finder_sees_a_loop() -> None:
    loop = {"a": {"b"}, "b": {"c"}, "c": {"a"}, "d": {"a"}}
    assert cycles(loop) == [["a", "b", "c"]]
    assert cycles({"a": {"b"}, "b": set()}) == []


def test_the_graph_reads_deferred_imports_and_submodules() -> None:
    graph = import_graph(modules(SRC))
    assert "bellum.web.empire_views" in graph["bellum.web.app"]  # inside create_app
    assert "bellum.web._charts" in graph["bellum.web.empire_views"]  # from bellum.web import


def test_no_import_cycle() -> None:
    found = cycles(import_graph(modules(SRC)))
    assert not found, "modules that import each other: " + "; ".join(" <-> ".join(c) for c in found)
