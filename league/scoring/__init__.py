"""Scoring and council statistics (``scoring.md``), pure and vectorised.

Computed only from forecast rows (``council-forecasts.csv``) and the sealed climatology table, so
that any reader can recompute every published number. Entry points:

- :func:`load_forecasts` parse the forecasts CSV (or rows) into a typed table;
- :func:`build_all` / :func:`write_stats` the published statistics files;
- :func:`league_table` the rich league table for the CLI;
- :mod:`league.scoring.climatology` build, seal and re-check the fixed climatology table.
"""

from __future__ import annotations

from importlib import import_module
from typing import TYPE_CHECKING, Any

if TYPE_CHECKING:
    from league.scoring.climatology import build_climatology, check_climatology, default_table, sha256_ok
    from league.scoring.errors import ClimatologyHashError, ForecastsInputError, ScoringError
    from league.scoring.frame import load_forecasts
    from league.scoring.publish import build_all, write_stats
    from league.scoring.render import league_table

#: Where each name of the package lives. Loaded on first use (PEP 562), not with the package: the statistics'
#: modules pull in scipy.stats, statsmodels and arch (~1 s), and a process that needs only the climatology table
#: or the score functions (a league's day: the demo's season, the daemon's jobs) never pays for them.
_WHERE = {
    "build_climatology": "climatology", "check_climatology": "climatology", "default_table": "climatology",
    "sha256_ok": "climatology", "ClimatologyHashError": "errors", "ForecastsInputError": "errors",
    "ScoringError": "errors", "load_forecasts": "frame", "build_all": "publish", "write_stats": "publish",
    "league_table": "render",
}

__all__ = [
    "ClimatologyHashError", "ForecastsInputError", "ScoringError", "build_all", "build_climatology",
    "check_climatology", "default_table", "league_table", "load_forecasts", "sha256_ok", "write_stats",
]


def __getattr__(name: str) -> Any:
    module = _WHERE.get(name)
    if module is None:
        raise AttributeError(f"module {__name__!r} has no attribute {name!r}")
    value = getattr(import_module(f"{__name__}.{module}"), name)
    globals()[name] = value
    return value


def __dir__() -> list[str]:
    return sorted([*globals(), *__all__])
