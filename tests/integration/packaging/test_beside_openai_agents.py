"""A league installed beside the openai-agents package (which owns the import name ``agents``).

A fresh virtual environment gets openai-agents from PyPI and this project built as a wheel (not
editable, no checkout on the path); the league's other dependencies come from the project's own
environment through a path entry, so nothing is installed twice. Both packages must import, each
its own, and the league must still work: ``league verify`` on a golden book, and a seat built by
the registry answering an ask.
"""

from __future__ import annotations

import sysconfig
import venv
from collections.abc import Iterator
from pathlib import Path

import pytest
from source_tree import run, source_copy

pytestmark = pytest.mark.slow
ROOT = Path(__file__).resolve().parents[3]
PROBE = """
import agents, league_agents, league, sys
from datetime import UTC, datetime
from league_agents.base import Ask, SeatSpec
from league_agents.registry import build_seat
seat = build_seat(SeatSpec(name="_coin", adapter="coin"))
reply = seat.ask(Ask(text="SPX 1d", sha256="0" * 64, session="2026-11-25",
                     context={"markets": {"SPX": {"horizons": ["1d"]}}}), lambda: datetime.now(UTC))
print(agents.__file__)
print(league_agents.__file__)
print(league.__file__)
print(hasattr(agents, "Agent") and hasattr(agents, "Runner"))
print(bool(reply.raw.strip()))
"""


@pytest.fixture(scope="module")
def env(tmp_path_factory: pytest.TempPathFactory) -> Iterator[Path]:
    root = tmp_path_factory.mktemp("beside")
    home = root / "venv"
    venv.EnvBuilder(with_pip=True).create(home)
    python = home / "bin" / "python"
    purelib = Path(run([str(python), "-c", "import sysconfig; print(sysconfig.get_paths()['purelib'])"], root)
                   .stdout.strip())
    (purelib / "league-deps.pth").write_text(sysconfig.get_paths()["purelib"] + "\n")  # this env's packages
    run([str(python), "-m", "pip", "install", "-q", "openai-agents"], root)
    src = source_copy(root / "src")
    run([str(python), "-m", "pip", "install", "-q", "--no-deps", "--ignore-installed", str(src)], root)
    yield home


def test_both_packages_import_each_its_own(env: Path, tmp_path: Path) -> None:
    out = run([str(env / "bin" / "python"), "-c", PROBE], tmp_path).stdout.splitlines()
    site = str(env / "lib")
    agents_file, ours, league_file, is_openai, answered = out
    assert agents_file.startswith(site) and agents_file.endswith("agents/__init__.py")
    assert ours.startswith(site) and ours.endswith("league_agents/__init__.py")
    assert league_file.startswith(site) and str(ROOT) not in league_file  # the wheel, not the checkout
    assert is_openai == "True"  # `agents` is openai-agents' package
    assert answered == "True"  # a seat built by the league's registry still answers


def test_league_verify_runs_beside_openai_agents(env: Path, tmp_path: Path) -> None:
    done = run([str(env / "bin" / "league"), "verify", str(ROOT / "tests" / "assets" / "book" / "good.jsonl")],
                tmp_path)
    assert done.stdout.startswith("ok ") and "12 lines" in done.stdout


def test_the_checkout_imports_no_top_level_agents() -> None:
    """No module of the project imports the name ``agents`` (it would be openai-agents' package)."""
    import ast

    offenders = []
    for folder in ("league", "agents", "sandbox", "tests", "benchmarks"):
        for path in (ROOT / folder).rglob("*.py"):
            for node in ast.walk(ast.parse(path.read_text(encoding="utf-8"))):
                names = ([a.name for a in node.names] if isinstance(node, ast.Import)
                         else [node.module or ""] if isinstance(node, ast.ImportFrom) and not node.level else [])
                offenders += [f"{path.relative_to(ROOT)}: {n}" for n in names if n.split(".")[0] == "agents"]
    assert offenders == []
