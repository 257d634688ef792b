"""Adapters are plugged in one way: registered by entry point, resolved by name. Counted, so it cannot creep back.

The registered adapters are every entry point of pyproject.toml's ``forecast_league.*`` groups (seats, sandboxes,
seat runners, price and crowd providers, contest market sources and brokers, stamp backends, stores). A
*registration site* is a place in the packages (league/, agents/, sandbox/) that plugs an adapter in some
other way:

* a module that imports a registered adapter by name (anywhere but the module defining it): it could only be
  there to construct, call or test for that adapter instead of asking the registry;
* a branch on a roster entry's adapter name (``spec.adapter == "..."``, ``!=``, ``in``): behaviour chosen by
  the name instead of by what the adapter class declares (``tracks``, ``hinted``, ``sandboxed``, ...).

The tests, the benchmarks and the published stand-alone tools are not counted: a test builds the adapter it
tests. Before one way to plug in, this count found 27 sites in the same packages: the stand-ins' ``adapter ==
STANDIN`` branches, ten direct ``BwrapSandbox``, ``GammaSource``, ``RecordedSource``, ``ThreadRunner``,
``RoutedRunner``, ``RemoteSeatRunner``, the SQL store opened by name, the CLI and history adapters known by
name (besides Kalshi built inside Polymarket's factory and the contest's default ``PaperBroker``, which were not
registered at all). Now it finds none.
"""

from __future__ import annotations

import ast
import tomllib
from pathlib import Path

ROOT = Path(__file__).resolve().parents[3]
PACKAGES = {"league": "league", "league_agents": "agents", "sandbox": "sandbox"}  # import name -> folder
#: Not package code: the stand-alone scripts published for readers. And the registries themselves, which look
#: adapter names up (``spec.adapter not in SEATS``).
EXCLUDED = ("league/verify/tools/", "league/evals/tools/", "agents/registry.py", "league/registry.py")
#: Sites that stay, each with its reason. Empty: every adapter is plugged in through a registry.
ALLOWED: dict[str, str] = {}
COMPARISONS = (ast.Eq, ast.NotEq, ast.In, ast.NotIn)


def registered() -> dict[str, set[str]]:
    """Module -> the names registered from it, from every ``forecast_league.*`` entry-point group."""
    project = tomllib.loads((ROOT / "pyproject.toml").read_text(encoding="utf-8"))["project"]
    out: dict[str, set[str]] = {}
    for group, points in project["entry-points"].items():
        if not group.startswith("forecast_league."):
            continue
        for value in points.values():
            module, _, attr = value.split("[")[0].strip().partition(":")
            out.setdefault(module, set()).add(attr)
    return out


def module_of(path: Path) -> str:
    folder = path.relative_to(ROOT).parts[0]
    name = next(k for k, v in PACKAGES.items() if v == folder)
    parts = [name, *path.relative_to(ROOT / folder).with_suffix("").parts]
    return ".".join(parts[:-1] if parts[-1] == "__init__" else parts)


def _adapter_name(node: ast.expr) -> bool:
    return (isinstance(node, ast.Attribute) and node.attr == "adapter") or (isinstance(node, ast.Name)
                                                                             and node.id == "adapter")


def sites_in(source: str, module: str, adapters: dict[str, set[str]]) -> list[str]:
    """The registration sites of one module's source, as ``line: what``."""
    found = []
    aliases: dict[str, str] = {}
    for node in ast.walk(ast.parse(source)):
        if isinstance(node, ast.ImportFrom) and node.module in adapters and node.module != module:
            found += [f"{node.lineno}: imports {node.module}.{a.name}" for a in node.names
                      if a.name in adapters[node.module]]
        elif isinstance(node, ast.Import):
            aliases |= {(a.asname or a.name): a.name for a in node.names if a.name in adapters and a.name != module}
        elif isinstance(node, ast.Compare) and any(isinstance(op, COMPARISONS) for op in node.ops):
            if any(_adapter_name(side) for side in (node.left, *node.comparators)):
                found.append(f"{node.lineno}: branches on an adapter's name")
    for node in ast.walk(ast.parse(source)):
        if isinstance(node, ast.Attribute) and isinstance(node.value, ast.Name) and node.value.id in aliases:
            if node.attr in adapters[aliases[node.value.id]]:
                found.append(f"{node.lineno}: uses {aliases[node.value.id]}.{node.attr}")
    return found


def registration_sites() -> list[str]:
    adapters = registered()
    sites = []
    for folder in PACKAGES.values():
        for path in sorted((ROOT / folder).rglob("*.py")):
            rel = path.relative_to(ROOT).as_posix()
            if rel.startswith(EXCLUDED):
                continue
            sites += [f"{rel}:{s}" for s in sites_in(path.read_text(encoding="utf-8"), module_of(path), adapters)]
    return sites


def test_every_adapter_is_plugged_in_through_a_registry() -> None:
    sites = [s for s in registration_sites() if s.split(":")[0] not in ALLOWED]
    assert sites == [], "adapters constructed or chosen outside the registries:\n" + "\n".join(sites)


def test_the_registered_adapters_cover_every_port() -> None:
    """The groups the composition root resolves by name: one per port."""
    project = tomllib.loads((ROOT / "pyproject.toml").read_text(encoding="utf-8"))["project"]
    groups = {g.removeprefix("forecast_league.") for g in project["entry-points"] if g.startswith("forecast_league.")}
    assert groups == {"seats", "sandboxes", "runners", "prices", "crowd", "news", "stamps", "stores",
                      "contest_markets", "contest_brokers"}


def test_a_planted_site_is_counted() -> None:
    """The counter sees each way around the registry: an imported adapter, a module alias, a name branch."""
    adapters = {"sandbox.bwrap": {"BwrapSandbox"}, "league.contest.markets.gamma": {"GammaSource"}}
    planted = (
        "from sandbox.bwrap import BwrapSandbox\n"
        "import league.contest.markets.gamma as g\n"
        "box = BwrapSandbox()\n"
        "source = g.GammaSource(venue)\n"
        "if spec.adapter == 'eval-standin':\n"
        "    pass\n"
        "standin = adapter in ('contest-standin',)\n"
    )
    assert sites_in(planted, "league.somewhere", adapters) == [
        "1: imports sandbox.bwrap.BwrapSandbox", "5: branches on an adapter's name",
        "7: branches on an adapter's name", "4: uses league.contest.markets.gamma.GammaSource"]
    assert sites_in("class BwrapSandbox: ...\nBwrapSandbox()\n", "sandbox.bwrap", adapters) == []
