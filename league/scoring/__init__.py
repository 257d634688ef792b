"""Scoring and council statistics (``scoring.md``), pure and vectorised.

Computed only from forecast rows (``council-forecasts.csv``) and the sealed climatology table, so
that any reader can recompute every published number. Entry points:

- :func:`load_forecasts` parse the forecasts CSV (or rows) into a typed table;
- :func:`build_all` / :func:`write_stats` the published statistics files;
- :func:`league_table` the rich league table for the CLI;
- :mod:`league.scoring.climatology` build, seal and re-check the fixed climatology table.
"""

from __future__ import annotations

from league.scoring.climatology import build_climatology, check_climatology, default_table, sha256_ok
from league.scoring.errors import ClimatologyHashError, ForecastsInputError, ScoringError
from league.scoring.frame import load_forecasts
from league.scoring.publish import build_all, write_stats
from league.scoring.render import league_table

__all__ = [
    "ClimatologyHashError", "ForecastsInputError", "ScoringError", "build_all", "build_climatology",
    "check_climatology", "default_table", "league_table", "load_forecasts", "sha256_ok", "write_stats",
]
