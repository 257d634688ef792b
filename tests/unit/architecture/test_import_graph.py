"""No circle among the modules, counting every import (top level, inside functions, under TYPE_CHECKING).

The graph is read from the source with ``ast``: a module imports another when it names it (or a
name defined in it) in an import statement. A circle of any length fails, with its members named.
"""

from __future__ import annotations

import ast
from collections.abc import Iterator
from pathlib import Path

ROOT = Path(__file__).resolve().parents[3]
PACKAGES = {"league": "league", "league_agents": "agents", "sandbox": "sandbox"}  # import name -> folder


def modules() -> dict[str, Path]:
    found: dict[str, Path] = {}
    for name, folder in PACKAGES.items():
        for path in (ROOT / folder).rglob("*.py"):
            parts = [name, *path.relative_to(ROOT / folder).with_suffix("").parts]
            found[".".join(parts[:-1] if parts[-1] == "__init__" else parts)] = path
    return found


def _owner(name: str, known: dict[str, Path]) -> str | None:
    while name and name not in known:
        name = name.rpartition(".")[0]
    return name or None


def imports_of(module: str, path: Path, known: dict[str, Path]) -> set[str]:
    package = module if path.name == "__init__.py" else module.rpartition(".")[0]
    out: set[str] = set()
    for node in ast.walk(ast.parse(path.read_text(encoding="utf-8"))):
        if isinstance(node, ast.Import):
            out |= {o for a in node.names if (o := _owner(a.name, known))}
        elif isinstance(node, ast.ImportFrom):
            base = node.module or ""
            if node.level:
                parts = package.split(".")[: len(package.split(".")) - node.level + 1]
                base = ".".join([*parts, base] if base else parts)
            for alias in node.names:
                full = f"{base}.{alias.name}"
                owner = full if full in known else _owner(base, known)
                if owner:
                    out.add(owner)
    out.discard(module)
    return out


def circles(graph: dict[str, set[str]]) -> Iterator[list[str]]:
    """Strongly connected components of more than one module (Tarjan, iterative)."""
    index: dict[str, int] = {}
    low: dict[str, int] = {}
    stack: list[str] = []
    on_stack: set[str] = set()
    counter = 0
    for root in sorted(graph):
        if root in index:
            continue
        work = [(root, iter(sorted(graph[root])))]
        index[root] = low[root] = counter
        counter += 1
        stack.append(root)
        on_stack.add(root)
        while work:
            node, edges = work[-1]
            for nxt in edges:
                if nxt not in index:
                    index[nxt] = low[nxt] = counter
                    counter += 1
                    stack.append(nxt)
                    on_stack.add(nxt)
                    work.append((nxt, iter(sorted(graph.get(nxt, ())))))
                    break
                if nxt in on_stack:
                    low[node] = min(low[node], index[nxt])
            else:
                work.pop()
                if work:
                    low[work[-1][0]] = min(low[work[-1][0]], low[node])
                if low[node] == index[node]:
                    component = []
                    while True:
                        member = stack.pop()
                        on_stack.discard(member)
                        component.append(member)
                        if member == node:
                            break
                    if len(component) > 1:
                        yield sorted(component)


def graph() -> dict[str, set[str]]:
    known = modules()
    return {m: imports_of(m, p, known) for m, p in known.items()}


def test_no_circle_among_modules() -> None:
    assert list(circles(graph())) == []


def package_of(module: str) -> str:
    """A module's package as the contracts see it: ``league.X`` (a package or a top module), or the top name."""
    parts = module.split(".")
    return ".".join(parts[:2]) if parts[0] == "league" and len(parts) > 1 else parts[0]


def packages(modules_graph: dict[str, set[str]]) -> dict[str, set[str]]:
    out: dict[str, set[str]] = {}
    for module, targets in modules_graph.items():
        out.setdefault(package_of(module), set()).update(package_of(t) for t in targets)
    return {name: targets - {name} for name, targets in out.items()}


def test_no_circle_among_packages() -> None:
    """No package imports another that imports it back, however long the way (book -> verify -> stamps -> book
    and jobs -> publish -> evals -> jobs were such loops), counting imports inside functions too."""
    assert list(circles(packages(graph()))) == []


def test_the_package_check_finds_a_loop_through_modules_that_form_no_circle() -> None:
    planted = {"league.book.chain": {"league.verify.chain"}, "league.verify.reader": {"league.stamps.ots"},
               "league.stamps.stamper": {"league.book"}, "league.book": set(), "league.verify.chain": set(),
               "league.stamps.ots": set()}
    assert list(circles(planted)) == []  # no module imports itself back
    assert list(circles(packages(planted))) == [["league.book", "league.stamps", "league.verify"]]


def test_the_check_finds_a_circle() -> None:
    """The same check on a graph with a planted circle (a -> b -> c -> a) names all three."""
    planted = {"a": {"b"}, "b": {"c"}, "c": {"a", "d"}, "d": set()}
    assert list(circles(planted)) == [["a", "b", "c"]]


def test_the_graph_sees_imports_inside_functions() -> None:
    """The demo is imported by its verb inside a function: the graph must still have that arrow."""
    assert "league.demo" in graph()["league.cli.demo"]
