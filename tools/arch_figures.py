"""The figures of docs/architecture.md's "Before and after": run it on any checkout.

    python tools/arch_figures.py [ROOT]      (ROOT: a checkout, default this one)

It reads the source only (nothing is imported or run):

* import cycles: groups of modules of ``src/bellum`` that import each other around a
  loop, every import counted, a deferred one too; tests/test_import_cycles.py asserts
  with this finder that there are none;
* the ten longest functions, in lines;
* the files under ``src/`` that name ``lboard``, the last command added (what adding a
  command touched);
* regular expressions, and ``startswith``/``in`` tests of the rules' own wording, in the
  modules outside the rules that read a result (web/, empire/odds/, empire/plan/);
* ``raise UsageError`` outside the edges (cli/, web/, client/).
"""

from __future__ import annotations

import ast
import re
import sys
from pathlib import Path

EDGES = ("cli", "web", "client")
READERS = ("web", "empire/odds", "empire/plan")
#: The rules' wording that a reader outside them once matched (issue 24).
WORDING = ("Usage:", "Scouts report", "standing by", "not|too|out|standing")


def modules(src: Path) -> dict[str, Path]:
    found = {}
    for path in sorted((src / "bellum").rglob("*.py")):
        parts = path.relative_to(src).with_suffix("").parts
        found[".".join(parts[:-1] if parts[-1] == "__init__" else parts)] = path
    return found


def import_graph(mods: dict[str, Path]) -> dict[str, set[str]]:
    graph: dict[str, set[str]] = {name: set() for name in mods}
    for name, path in mods.items():
        for node in ast.walk(ast.parse(path.read_text())):
            if isinstance(node, ast.Import):
                targets = [a.name for a in node.names]
            elif isinstance(node, ast.ImportFrom) and node.module:
                base = node.module
                targets = [f"{base}.{a.name}" if f"{base}.{a.name}" in mods else base
                           for a in node.names]  # fmt: skip
            else:
                continue
            for t in targets:
                graph[name].update(_loaded(t, name, mods))
    return graph


def _loaded(target: str, importer: str, mods: dict[str, Path]) -> set[str]:
    """The modules an import of ``target`` runs: it and the packages above it, but for
    the packages that hold the importer (Python has run them already)."""
    parts = target.split(".")
    above = (".".join(parts[:k]) for k in range(2, len(parts) + 1))
    return {m for m in above if m in mods and m != importer and not importer.startswith(m + ".")}


def cycles(graph: dict[str, set[str]]) -> list[list[str]]:
    """Strongly connected components of more than one module (iterative Tarjan)."""
    index: dict[str, int] = {}
    low: dict[str, int] = {}
    stack: list[str] = []
    on: set[str] = set()
    out: list[list[str]] = []
    for root in sorted(graph):
        if root in index:
            continue
        work = [(root, iter(sorted(graph[root])))]
        index[root] = low[root] = len(index)
        stack.append(root)
        on.add(root)
        while work:
            v, it = work[-1]
            w = next(it, None)
            if w is not None:
                if w not in index:
                    index[w] = low[w] = len(index)
                    stack.append(w)
                    on.add(w)
                    work.append((w, iter(sorted(graph[w]))))
                elif w in on:
                    low[v] = min(low[v], index[w])
                continue
            work.pop()
            if work:
                low[work[-1][0]] = min(low[work[-1][0]], low[v])
            if low[v] == index[v]:
                comp = []
                while True:
                    x = stack.pop()
                    on.discard(x)
                    comp.append(x)
                    if x == v:
                        break
                if len(comp) > 1:
                    out.append(sorted(comp))
    return out


def longest(src: Path, n: int = 10) -> list[tuple[int, str]]:
    sizes = []
    for path in (src / "bellum").rglob("*.py"):
        for node in ast.walk(ast.parse(path.read_text())):
            if isinstance(node, ast.FunctionDef | ast.AsyncFunctionDef) and node.end_lineno:
                where = f"{path.relative_to(src / 'bellum')}:{node.name}"
                sizes.append((node.end_lineno - node.lineno + 1, where))
    return sorted(sizes, reverse=True)[:n]


def main(root: Path) -> None:
    src = root / "src"
    found = cycles(import_graph(modules(src)))
    print(f"import cycles: {len(found)}")
    for c in found:
        print("   ", " <-> ".join(m.removeprefix("bellum.") for m in c))
    print("ten longest functions (lines):")
    for size, where in longest(src):
        print(f"    {size:4d}  {where}")
    lboard = sorted(
        str(p.relative_to(src / "bellum"))
        for p in (src / "bellum").rglob("*")
        if p.is_file() and p.suffix in (".py", ".html") and "lboard" in p.read_text()
    )
    print(f"files that name lboard: {len(lboard)}: {', '.join(lboard)}")
    hits = []
    for folder in READERS:
        for path in sorted((src / "bellum" / folder).rglob("*.py")):
            for i, line in enumerate(path.read_text().splitlines(), 1):
                code = line.split("#", 1)[0]
                if re.search(r"\bre\.(compile|search|match|fullmatch|sub|findall)\(", code) or any(
                    w in code for w in WORDING
                ):
                    hits.append(f"{path.relative_to(src / 'bellum')}:{i}: {line.strip()[:90]}")
    print(f"regular expressions and wording tests in the readers: {len(hits)}")
    for h in hits:
        print("   ", h)
    usage = []
    for path in sorted((src / "bellum").rglob("*.py")):
        rel = path.relative_to(src / "bellum")
        if rel.parts[0] in EDGES:
            continue
        count = path.read_text().count("raise UsageError")
        if count:
            usage.append(f"{rel} {count}")
    total = sum(int(u.rsplit(" ", 1)[1]) for u in usage)
    print(f"raise UsageError outside the edges: {total} in {len(usage)} modules")
    for u in usage:
        print("   ", u)


if __name__ == "__main__":
    main(Path(sys.argv[1]) if len(sys.argv) > 1 else Path(__file__).resolve().parents[1])
