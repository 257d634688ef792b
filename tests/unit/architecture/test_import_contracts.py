"""The layers hold (``lint-imports``, as `make test` runs it), and a planted violation breaks them.

Each planted case copies the three packages and pyproject.toml into a temporary folder, adds ONE
import that crosses a line, and runs the linter there: the contract that guards that line must
report BROKEN, naming the planted import.
"""

from __future__ import annotations

import os
import shutil
import subprocess
import sys
from pathlib import Path

import pytest

ROOT = Path(__file__).resolve().parents[3]
LINT = Path(sys.executable).with_name("lint-imports")


def lint(tree: Path) -> subprocess.CompletedProcess[str]:
    env = {**os.environ, "PYTHONPATH": str(tree)}  # the copy, ahead of the editable install
    return subprocess.run([str(LINT), "--no-cache"], cwd=tree, env=env, capture_output=True, text=True,
                          timeout=300, check=False)


def copy_tree(target: Path) -> Path:
    for name in ("league", "agents", "sandbox"):
        shutil.copytree(ROOT / name, target / name, ignore=shutil.ignore_patterns("__pycache__"))
    (target / "league_agents").symlink_to("agents")
    shutil.copy(ROOT / "pyproject.toml", target / "pyproject.toml")
    return target


def test_the_contracts_hold() -> None:
    done = lint(ROOT)
    assert done.returncode == 0, done.stdout[-3000:]
    assert "0 broken" in done.stdout


PLANTS = [
    ("league/scoring/brier.py", "from league.clock import SystemClock\n", "imports no I/O module and no clock"),
    ("league/portfolio/money.py", "import league.store.sql\n", "imports no I/O module and no clock"),
    ("league/contest/stats.py", "from league.clock import SystemClock\n", "pure rules (statistics, parsing"),
    ("league/evals/mase.py", "import league.evals.ledger\n", "pure rules (statistics, parsing"),
    ("league/api/views.py", "from league.jobs.context import League\n", "API is independent of the day's jobs"),
    ("league/jobs/score.py", "from league.demo import run_demo\n", "Nothing imports the demo"),
    ("league/verify/chain.py", "from league.book.chain import Book\n", "Verification shares no code with the writer"),
    ("sandbox/profiles.py", "import league_agents.base\n", "sandbox <- agents <- league"),
    ("league/publish/files.py", "from league.compose import build_league\n", "built in one place"),
    ("league/verify/reader.py", "from league.contest.verify import verify_folder\n",
     "Verification shares no code with the writer"),
    ("league/verify/reader.py", "from league.stamping.stamper import Stamper\n",
     "Verification shares no code with the writer"),
    ("league/evals/run.py", "from league.jobs.scheduler import DAY\n", "The day's jobs run above the publisher"),
    ("league/publish/files.py", "from league.jobs.context import League\n", "The day's jobs run above the publisher"),
    ("league/workers/tasks.py", "from league.publish.files import publish\n", "The day's jobs run above the publisher"),
    ("league/contest/ledger.py", "from league.evals.ledger import Ledger\n", "The day's jobs run above the publisher"),
    ("league/evals/points.py", "from league.publish.files import publish\n", "The day's jobs run above the publisher"),
    ("league/stamps/ots.py", "from league.book import Head\n", "The stamp backends, which a reader runs too"),
]


@pytest.mark.parametrize(("path", "line", "contract"), PLANTS, ids=[p[2][:24] for p in PLANTS])
def test_a_planted_violation_breaks_its_contract(tmp_path: Path, path: str, line: str, contract: str) -> None:
    tree = copy_tree(tmp_path)
    source = tree / path
    source.write_text(source.read_text(encoding="utf-8") + "\n" + line, encoding="utf-8")
    done = lint(tree)
    assert done.returncode != 0, done.stdout[-3000:]
    assert " 0 broken" not in done.stdout
    report = " ".join(done.stdout.split("Broken contracts", 1)[-1].split())  # long names wrap
    assert contract in report, done.stdout[-3000:]
    planted = path.removesuffix(".py").replace("/", ".")
    assert planted in report, done.stdout[-3000:]  # the report names the planted import
