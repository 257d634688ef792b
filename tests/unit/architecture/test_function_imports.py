"""Imports go at the top of a module; inside a function only the import of what needs an optional extra.

docs/architecture.md, "Where imports go": an import inside a function is allowed only in the body of
``with league.extras.extra("NAME"):``, and only when what it imports really needs that extra: a library of the
extra itself (league.extras.EXTRA_OF), or a module of this project whose module-level imports reach one. Any
other import inside a function fails here, naming the file, the line and why, so the count cannot creep back.

The files below that other work owns (the composition root, the seat builders) keep their
present count as a ceiling; ``agents/scripted_child.py`` is a stand-alone stdlib script run inside the
sandbox, whose start-up is its whole cost (its docstring says why it imports next to nothing), and is left out.
"""

from __future__ import annotations

import ast
import functools
from collections import Counter
from collections.abc import Iterator
from dataclasses import dataclass

from test_import_graph import ROOT, modules

from league.extras import EXTRA_OF, INCLUDES

#: Files not yet brought to the rule, with the most function-level imports each may hold (a ceiling).
CEILING = {
    "league/compose.py": 21,
    "league/contest/seats.py": 2,
    "league/evals/seats.py": 2,
    "agents/registry.py": 2,
}
#: Stand-alone scripts: run as files in a process of their own, not imported by the league.
STANDALONE = ("agents/scripted_child.py", "league/verify/tools/", "league/evals/tools/")
_FUNCTIONS = (ast.FunctionDef, ast.AsyncFunctionDef, ast.Lambda)


@dataclass(frozen=True)
class Found:
    """One import inside a function: where, what it names, and the extra its ``with extra(...)`` names."""

    path: str
    line: int
    targets: tuple[str, ...]
    extra: str | None

    def where(self) -> str:
        return f"{self.path}:{self.line} ({', '.join(self.targets)})"


def _extra_named(node: ast.With) -> str | None:
    for item in node.items:
        call = item.context_expr
        if isinstance(call, ast.Call) and getattr(call.func, "id", getattr(call.func, "attr", "")) == "extra":
            arg = call.args[0] if call.args else None
            return arg.value if isinstance(arg, ast.Constant) and isinstance(arg.value, str) else "?"
    return None


def _targets(node: ast.Import | ast.ImportFrom, package: str) -> tuple[str, ...]:
    """The absolute names an import statement imports (``from a.b import c`` -> ``a.b.c``)."""
    if isinstance(node, ast.Import):
        return tuple(a.name for a in node.names)
    base = node.module or ""
    if node.level:
        parts = package.split(".")[: len(package.split(".")) - node.level + 1]
        base = ".".join([*parts, base] if base else parts)
    return tuple(f"{base}.{a.name}" for a in node.names)


def function_imports(source: str, path: str, package: str) -> Iterator[Found]:
    """Every import inside a function of ``source``, with the extra of the innermost ``with extra(...)``
    whose body holds it (None when there is none)."""

    def walk(node: ast.AST, in_function: bool, extra: str | None) -> Iterator[Found]:
        for child in ast.iter_child_nodes(node):
            if isinstance(child, ast.Import | ast.ImportFrom) and in_function:
                yield Found(path, child.lineno, _targets(child, package), extra)
            named = _extra_named(child) if isinstance(child, ast.With) else None
            yield from walk(child, in_function or isinstance(child, _FUNCTIONS), named or extra)

    yield from walk(ast.parse(source), False, None)


def _top_level(tree: ast.Module) -> Iterator[ast.Import | ast.ImportFrom]:
    """The imports a module runs when it is imported: not under ``if TYPE_CHECKING``, not in a function, not
    in a ``try`` that catches ImportError (an optional import the module does without)."""

    def optional(node: ast.Try) -> bool:
        names = {ast.unparse(h.type) for h in node.handlers if h.type is not None}
        return any("ImportError" in n or "ModuleNotFoundError" in n for n in names)

    def walk(node: ast.AST) -> Iterator[ast.Import | ast.ImportFrom]:
        for child in ast.iter_child_nodes(node):
            if isinstance(child, _FUNCTIONS):
                continue
            if isinstance(child, ast.If) and "TYPE_CHECKING" in ast.unparse(child.test):
                continue
            if isinstance(child, ast.Try) and optional(child):
                continue
            if isinstance(child, ast.Import | ast.ImportFrom):
                yield child
            yield from walk(child)

    yield from walk(tree)


class Graph:
    """The project's modules and, for each, what importing it imports (its module-level imports)."""

    def __init__(self) -> None:
        self.paths = modules()
        self._imports: dict[str, set[str]] = {}
        self._named: dict[str, set[str]] = {}

    def owner(self, name: str) -> str | None:
        while name and name not in self.paths:
            name = name.rpartition(".")[0]
        return name or None

    def package_of(self, module: str) -> str:
        return module if self.paths[module].name == "__init__.py" else module.rpartition(".")[0]

    def _with_parents(self, module: str) -> set[str]:
        parts = module.split(".")
        return {".".join(parts[:i]) for i in range(1, len(parts) + 1) if ".".join(parts[:i]) in self.paths}

    def imports(self, module: str) -> set[str]:
        """Project modules (with their packages) and third-party top-level names that importing ``module`` runs."""
        if module not in self._imports:
            tree = ast.parse(self.paths[module].read_text(encoding="utf-8"))
            out: set[str] = set()
            for node in _top_level(tree):
                for name in _targets(node, self.package_of(module)):
                    own = self.owner(name)
                    out |= self._with_parents(own) if own else {name.split(".")[0]}
            self._imports[module] = out - {module}
        return self._imports[module]

    def closure(self, name: str) -> set[str]:
        """The project modules and third-party top-level names importing ``name`` loads (itself included)."""
        own = self.owner(name)
        if own is None:
            return {name.split(".")[0]}
        seen: set[str] = set()
        stack = sorted(self._with_parents(own))
        while stack:
            module = stack.pop()
            if module not in seen:
                seen.add(module)
                stack += [t for t in self.imports(module) if t in self.paths]
                seen |= {t for t in self.imports(module) if t not in self.paths}
        return seen

    def extras_named(self, module: str) -> set[str]:
        """The extras a module's own ``with extra(...)`` blocks name: what it needs when those functions run."""
        if module not in self._named:
            found = function_imports(self.paths[module].read_text(encoding="utf-8"), module, self.package_of(module))
            self._named[module] = {f.extra for f in found if f.extra}
        return self._named[module]

    def extras(self, name: str) -> set[str]:
        """The extras importing ``name`` and running it may need: the libraries of extras its imports load, and
        the extras named by the ``with extra(...)`` blocks of the modules they load."""
        loaded = self.closure(name)
        return ({EXTRA_OF[lib] for lib in loaded if lib in EXTRA_OF}
                | {e for m in loaded if m in self.paths for e in self.extras_named(m)})


def problems(found: list[Found], graph: Graph) -> list[str]:
    """Why each import inside a function breaks the rule (nothing for one that keeps it)."""
    out = []
    for f in found:
        if f.extra is None:
            out.append(f"{f.where()}: an import inside a function; move it to the top of the module, or, when "
                       "it needs an optional extra, write it in the body of `with extra(NAME):`")
        elif f.extra not in INCLUDES:
            out.append(f"{f.where()}: `with extra({f.extra!r})` names no extra of league.extras.INCLUDES")
        else:
            brought = {e for t in f.targets for e in graph.extras(t)}
            if not brought & set(INCLUDES[f.extra]):
                out.append(f"{f.where()}: needs no library of the `{f.extra}` extra (it needs "
                           f"{sorted(brought) or 'none'}); import it at the top of the module")
    return out


@functools.cache
def scan() -> tuple[dict[str, list[Found]], Graph]:
    """Every module's imports inside functions, once per process (two tests read them; neither changes them)."""
    graph = Graph()
    by_file: dict[str, list[Found]] = {}
    for module, path in graph.paths.items():
        rel = path.relative_to(ROOT).as_posix()
        if rel.startswith(STANDALONE):
            continue
        found = list(function_imports(path.read_text(encoding="utf-8"), rel, graph.package_of(module)))
        if found:
            by_file[rel] = found
    return by_file, graph


def test_every_import_inside_a_function_is_an_optional_extra_s() -> None:
    by_file, graph = scan()
    found = [f for rel, fs in by_file.items() if rel not in CEILING for f in fs]
    per_package = Counter(f.path.split("/")[0] for f in found if f.extra is None)
    assert per_package == Counter(), problems(found, graph)  # imports inside functions outside the pattern
    assert problems(found, graph) == []


def test_the_files_not_yet_brought_to_the_rule_hold_no_more_than_today() -> None:
    by_file, _ = scan()
    over = {rel: len(by_file.get(rel, [])) for rel in CEILING if len(by_file.get(rel, [])) > CEILING[rel]}
    assert over == {}


# the check itself, on planted sources ----------------------------------------------------------------------
PLANTED = '''
import json

def plain():
    import csv

def guarded():
    with extra("stats"):
        import pandas

def guarded_wrongly():
    with extra("stats"):
        from league.errors import LeagueError

def unknown():
    with extra("nothing"):
        import pandas

def adapter():
    with extra("yahoo"), keeping_recursion_limit():
        import yfinance
'''


def test_the_check_finds_each_kind_of_planted_import() -> None:
    found = list(function_imports(PLANTED, "planted.py", "league"))
    assert [(f.line, f.extra) for f in found] == [(5, None), (9, "stats"), (13, "stats"), (17, "nothing"),
                                                  (21, "yahoo")]
    said = problems(found, Graph())
    assert len(said) == 3
    assert said[0].startswith("planted.py:5 (csv): an import inside a function")
    assert said[1].startswith("planted.py:13 (league.errors.LeagueError): needs no library of the `stats` extra")
    assert said[2].startswith("planted.py:17 (pandas): `with extra('nothing')` names no extra")


def test_a_module_that_reaches_an_extra_through_its_imports_needs_it() -> None:
    """league.scoring.publish imports statsmodels at its top; league.publish.producers imports it in a function,
    under `with extra("stats")`; league.errors needs nothing of an extra."""
    graph = Graph()
    assert {"statsmodels", "pandas"} <= graph.closure("league.scoring.publish.write_stats")
    assert graph.extras("league.scoring.publish.write_stats") == {"stats"}
    assert "statsmodels" not in graph.closure("league.publish.producers")
    assert "stats" in graph.extras("league.publish.producers.stats")
    assert graph.extras("league.errors.LeagueError") == set()
