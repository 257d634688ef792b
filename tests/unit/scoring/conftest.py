"""Shared fixtures: a small synthetic season and the offline climatology table (built once)."""

from __future__ import annotations

from datetime import date
from typing import Any

import pandas as pd
import pytest

from league.scoring.climatology import clim_probabilities, default_table
from league.scoring.synthetic import synthetic_season


@pytest.fixture(scope="session")
def clim_table() -> dict[str, Any]:
    return default_table(date(2026, 1, 5))


@pytest.fixture(scope="session")
def season_csv(tmp_path_factory: pytest.TempPathFactory, clim_table: dict[str, Any]) -> Any:
    """A 25-session season written as council-forecasts.csv (all text), as the publisher would."""
    frame: pd.DataFrame = synthetic_season(25, seed=11, clim=clim_probabilities(clim_table))
    path = tmp_path_factory.mktemp("season") / "public" / "council-forecasts.csv"
    path.parent.mkdir(parents=True)
    frame.to_csv(path, index=False)
    return path
