"""A closed League is freed although the portfolio stage cached its seasons (keyed weakly by the League):
nothing the stage keeps for a league (its bar source, its seasons) may refer back to the League itself, or a
demo season's whole index and price memo would stay in memory through the publish step."""

from __future__ import annotations

import gc
import weakref
from datetime import date, time
from pathlib import Path

from day_helpers import BASELINES, league_dir

from league.calendar import default_calendar, et_time
from league.compose import build_league
from league.config import load_config
from league.jobs import portfolio
from league.jobs.context import BARE


def test_a_closed_league_with_cached_seasons_is_freed(tmp_path: Path) -> None:
    day = default_calendar().session_on_or_after(date(2026, 6, 1))
    config_dir, _, clock = league_dir(tmp_path, BASELINES, et_time(day, time(16, 5)))
    lg = build_league(load_config(config_dir), clock, stages=BARE)
    seasons = portfolio._seasons(lg, day.isoformat())
    assert seasons and lg in portfolio._SEASONS and lg in portfolio._BARS
    alive = weakref.ref(lg)
    lg.close()
    del lg, seasons
    gc.collect()
    assert alive() is None
