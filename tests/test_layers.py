"""The import graph between the top-level parts of ereval has no cycle.

Every import counts: module-level, function-level and under ``TYPE_CHECKING``,
absolute or relative. A part is a top-level module or package of ``ereval``
(``ereval.metrics``, ``ereval._errors``...). Run as a script to print the edges
between parts with their counts, and the strongly connected components:

    python tests/test_layers.py
"""

from __future__ import annotations

import ast
import sys
from pathlib import Path

import ereval

ROOT = Path(ereval.__file__).parent

#: Links of a cycle still to be cut, each with the reason; the test fails when one is
#: gone (so that it is removed from here) as well as on any other cycle.
KNOWN: dict[tuple[str, str], str] = {}

#: What ``ereval.engines`` (backends only) may import.
ENGINES_MAY_IMPORT = frozenset(
    {"io", "contingency", "results", "_errors", "_validation", "_optional", "_algorithms"}
)


def _part(path: Path) -> tuple[str, list[str]]:
    """The top-level part of the module at ``path`` and its package (as a list of names)."""
    rel = path.relative_to(ROOT.parent).with_suffix("")
    names = list(rel.parts)
    package = names[:-1]
    if names[-1] == "__init__":
        names = names[:-1]
    return (names[1] if len(names) > 1 else ""), package


def _targets(node: ast.AST, package: list[str]) -> list[str]:
    """The modules ``node`` imports (dotted names)."""
    if isinstance(node, ast.Import):
        return [a.name for a in node.names]
    if not isinstance(node, ast.ImportFrom):
        return []
    if not node.level:
        return [node.module or ""]
    base = package[: len(package) - (node.level - 1)]
    if node.module is None:
        return [".".join([*base, a.name]) for a in node.names]
    return [".".join([*base, node.module])]


def import_edges() -> dict[tuple[str, str], list[str]]:
    """Every import from one top-level part to another: ``(from, to) -> [where]``."""
    edges: dict[tuple[str, str], list[str]] = {}
    for path in sorted(ROOT.rglob("*.py")):
        part, package = _part(path)
        if part in ("", "__main__"):
            continue  # the package's own __init__ and __main__ sit above every part
        tree = ast.parse(path.read_text(encoding="utf-8"))
        for node in ast.walk(tree):
            for target in _targets(node, package):
                names = target.split(".")
                if names[0] != "ereval" or len(names) < 2 or names[1] == part:
                    continue
                where = f"{path.relative_to(ROOT.parent)}:{getattr(node, 'lineno', 0)}"
                edges.setdefault((part, names[1]), []).append(where)
    return edges


def cycles(edges: set[tuple[str, str]]) -> list[list[str]]:
    """The strongly connected components of more than one part (Tarjan's algorithm)."""
    graph: dict[str, list[str]] = {}
    for a, b in sorted(edges):
        graph.setdefault(a, []).append(b)
        graph.setdefault(b, [])
    index: dict[str, int] = {}
    low: dict[str, int] = {}
    stack: list[str] = []
    on_stack: set[str] = set()
    found: list[list[str]] = []

    def visit(v: str) -> None:
        index[v] = low[v] = len(index)
        stack.append(v)
        on_stack.add(v)
        for w in graph[v]:
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


def test_no_import_cycle_between_parts() -> None:
    edges = import_edges()
    found = cycles(set(edges) - set(KNOWN))
    detail = [
        f"{a} -> {b}: {edges[(a, b)][:3]}"
        for component in found
        for a in component
        for b in component
        if (a, b) in edges
    ]
    assert not found, f"import cycles between parts: {found}\n" + "\n".join(detail)


def test_known_cycle_links_still_exist() -> None:
    edges = import_edges()
    gone = [link for link in KNOWN if link not in edges]
    assert not gone, f"cut, remove from KNOWN: {gone}"


def test_the_graph_finds_a_cycle() -> None:
    assert cycles({("a", "b"), ("b", "c"), ("c", "a"), ("c", "d")}) == [["a", "b", "c"]]
    assert cycles({("a", "b"), ("b", "c")}) == []


def test_engines_import_no_feature() -> None:
    edges = import_edges()
    wrong = {b: where for (a, b), where in edges.items() if a == "engines"}
    wrong = {b: where for b, where in wrong.items() if b not in ENGINES_MAY_IMPORT}
    assert not wrong, f"ereval.engines imports features: {wrong}"


def main() -> None:
    """Print the edges between parts and the cycles."""
    edges = import_edges()
    for (a, b), where in sorted(edges.items()):
        print(f"{a} -> {b}: {len(where)}")
    found = cycles(set(edges))
    print("cycles:", found or "none")
    sys.exit(1 if found else 0)


if __name__ == "__main__":
    main()
