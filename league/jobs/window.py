"""The memory window of a league's book index: which sessions the open horizons still need.

The one place the rule lives (docs/book.md, "Startup checkpoint and memory window"). A session stays
in memory while one of its events can still be open or read back by a job, i.e. for

    the longest configured horizon, in calendar days
  + the look-back the jobs read from the book before a session (the previous session's score line for
    the momentum baseline, and the draw band's sessions), in calendar days

counted back from today (New York). Everything older is read through the database index (or the
book) when a job asks; the sticky kinds (``league.book.index.STICKY_KINDS``) stay whatever their age.
"""

from __future__ import annotations

import math
from datetime import date, timedelta

from league.config import HORIZON_DAYS_24X7, HORIZON_SESSIONS, Config

#: Sessions before the reference whose minutes make its draw band (scoring.md §1; league.jobs.score).
DRAW_BAND_SESSIONS = 4
#: The momentum baseline reads the previous session's score line (league.jobs.ask.previous_day_changes).
PREVIOUS_SESSIONS = 1
#: NYSE holidays in a year: a span of n sessions covers at most n/5 weeks plus every one of them.
NYSE_HOLIDAYS_PER_YEAR = 10


def session_span_days(sessions: int) -> int:
    """Calendar days that ``sessions`` NYSE sessions can span at most (weekends and a year's holidays)."""
    return math.ceil(sessions * 7 / 5) + NYSE_HOLIDAYS_PER_YEAR


def horizon_days(horizon: str) -> int:
    """A horizon's reach in calendar days: its 24x7 length or its session count's longest span."""
    return max(HORIZON_DAYS_24X7[horizon], session_span_days(HORIZON_SESSIONS[horizon]))


def window_days(config: Config) -> int:
    """How many calendar days back from today the league keeps sessions in memory."""
    horizons = {h for m in config.markets.markets for h in m.horizons} or {"1d"}
    longest = max(horizon_days(h) for h in horizons)
    return longest + session_span_days(DRAW_BAND_SESSIONS + PREVIOUS_SESSIONS)


def cutoff(config: Config, today: date) -> str:
    """The first session (ISO date) kept in memory on ``today``."""
    return (today - timedelta(days=window_days(config))).isoformat()
