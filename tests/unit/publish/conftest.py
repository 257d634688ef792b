"""Fixtures for the publishing tests: one small season written once per module."""

from __future__ import annotations

import shutil
import sys
from pathlib import Path

import pytest

sys.path.insert(0, str(Path(__file__).parent))

from season_fixture import Season, write_season  # noqa: E402


@pytest.fixture(scope="module")
def season(tmp_path_factory: pytest.TempPathFactory) -> Season:
    return write_season(tmp_path_factory.mktemp("season") / "data")


@pytest.fixture(scope="session")
def synth_written(tmp_path_factory: pytest.TempPathFactory) -> Path:
    """A synthetic league (benchmarks/synth_league.py: 5 sessions x 2 seats, seed 3), written once per pytest
    process (each xdist worker). No test uses it as it is: :func:`synth` hands each module a copy."""
    benchmarks = str(Path(__file__).resolve().parents[3] / "benchmarks")
    sys.path.insert(0, benchmarks)
    try:
        import synth_league
    finally:
        sys.path.remove(benchmarks)
    out = tmp_path_factory.mktemp("synth-written") / "league"
    synth_league.write_league(out, synth_league.Size.of(sessions=5, seats=2, seed=3))
    return out


@pytest.fixture(scope="module")
def synth(synth_written: Path, tmp_path_factory: pytest.TempPathFactory) -> Path:
    """The synthetic league, a copy of its own per module: a module that publishes into it or appends to its
    books changes no other module's. The folder names no absolute path, so the copy is the same league."""
    out = tmp_path_factory.mktemp("synth") / "league"
    shutil.copytree(synth_written, out, symlinks=True)
    return out
