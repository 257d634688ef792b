"""Fixture: a published fixture season served by uvicorn on loopback for the whole module."""

from __future__ import annotations

import sys
from collections.abc import Iterator
from pathlib import Path

import pytest

sys.path.insert(0, str(Path(__file__).resolve().parent))
sys.path.insert(0, str(Path(__file__).resolve().parents[2] / "unit" / "publish"))

from api_server import Running, serve, stop  # noqa: E402
from season_fixture import write_season  # noqa: E402

from league.publish import publish  # noqa: E402


@pytest.fixture(scope="module")
def running(tmp_path_factory: pytest.TempPathFactory) -> Iterator[Running]:
    season = write_season(tmp_path_factory.mktemp("api") / "data")
    publish(season.data)
    base, server, thread = serve(season.data)
    try:
        yield Running(base, season, server, thread)
    finally:
        stop(server, thread)
