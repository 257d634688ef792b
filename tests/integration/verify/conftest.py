"""One small demo folder (2 sessions) built once for the package, and its rebuild from the books.

Every tamper test works on a ``cp -a`` copy of the published folder; the folder itself stays clean.
"""

from __future__ import annotations

import shutil
from collections.abc import Iterator
from pathlib import Path

import pytest

from league.errors import LeagueError


@pytest.fixture(scope="package")
def demo_public(tmp_path_factory: pytest.TempPathFactory) -> Path:
    from league.config import load_roster, shipped_config_dir
    from league.demo import run_demo
    from league.jobs.preflight import require

    try:
        require(load_roster(shipped_config_dir() / "roster.demo.toml").seat, local_tsa=True, simulated=True,
                what="the demo")
    except LeagueError as exc:
        pytest.skip(f"the demo's prerequisites are missing: {exc.message}")
    return run_demo(tmp_path_factory.mktemp("verify-demo") / "league", sessions=2).public_dir


@pytest.fixture(scope="package")
def rebuilt(demo_public: Path, tmp_path_factory: pytest.TempPathFactory) -> Path:
    """Every derived file recomputed from the published books (the tampers touch no book)."""
    from league.publish.rebuild import rebuild_into

    return rebuild_into(demo_public, tmp_path_factory.mktemp("rebuilt"))


@pytest.fixture
def copy(demo_public: Path, tmp_path: Path) -> Iterator[Path]:
    """A ``cp -a`` copy of the published folder to tamper with."""
    target = tmp_path / "public"
    shutil.copytree(demo_public, target, symlinks=True)
    yield target
