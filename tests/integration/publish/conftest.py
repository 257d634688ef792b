"""The publishing tests that start processes of their own: the unit tests' small season
(tests/unit/publish/season_fixture.py), written once per module."""

from __future__ import annotations

import sys
from pathlib import Path

import pytest

sys.path.insert(0, str(Path(__file__).resolve().parents[2] / "unit" / "publish"))

from season_fixture import Season, write_season  # noqa: E402


@pytest.fixture(scope="module")
def season(tmp_path_factory: pytest.TempPathFactory) -> Season:
    return write_season(tmp_path_factory.mktemp("season") / "data")
