"""The day's plan across both 2026 DST changes and the 2026-11-27 early close.

Expected sessions and ET wall times are listed by hand from the NYSE calendar (not derived from
the code under test): every job fires once per session, at its ET time, never on other days.
"""

from __future__ import annotations

from collections import Counter
from datetime import UTC, date, datetime
from zoneinfo import ZoneInfo

import pytest

from league.calendar import default_calendar
from league.config import Schedule
from league.jobs.scheduler import DAY_JOBS, planned

ET = ZoneInfo("America/New_York")
WALL = {"snapshot": "08:25", "ask": "08:30", "arms": "08:40", "second_wave": "09:00", "ingest_close": "09:30",
        "score": "16:05", "talk": "16:30", "talk_replies": "18:00", "publish": "20:00", "stamp_upgrade": "21:00"}


@pytest.mark.parametrize(
    ("start", "end", "sessions"),
    [
        # spring forward: Sunday 2026-03-08
        (date(2026, 3, 5), date(2026, 3, 11), ["2026-03-05", "2026-03-06", "2026-03-09", "2026-03-10"]),
        # fall back: Sunday 2026-11-01
        (date(2026, 10, 29), date(2026, 11, 4), ["2026-10-29", "2026-10-30", "2026-11-02", "2026-11-03"]),
        # Thanksgiving 2026-11-26 closed, 2026-11-27 early close
        (date(2026, 11, 24), date(2026, 12, 1), ["2026-11-24", "2026-11-25", "2026-11-27", "2026-11-30"]),
    ],
)
def test_every_job_once_per_session_at_its_et_time(start: date, end: date, sessions: list[str]) -> None:
    fires = planned(Schedule(), default_calendar(), datetime.combine(start, datetime.min.time(), tzinfo=ET),
                    datetime.combine(end, datetime.min.time(), tzinfo=ET))
    counts = Counter((f.session, f.job) for f in fires)
    assert set(counts) == {(s, j) for s in sessions for j in DAY_JOBS}
    assert all(v == 1 for v in counts.values())
    for f in fires:
        local = f.at.astimezone(ET)
        assert local.date().isoformat() == f.session
        assert local.strftime("%H:%M") == WALL[f.job]
        assert f.at.tzinfo is not None


def test_utc_times_shift_with_dst() -> None:
    fires = planned(Schedule(), default_calendar(), datetime(2026, 3, 6, tzinfo=UTC), datetime(2026, 3, 10, tzinfo=UTC),
                    jobs=("ask",))
    by_session = {f.session: f.at.astimezone(UTC).strftime("%H:%M") for f in fires}
    assert by_session == {"2026-03-06": "13:30", "2026-03-09": "12:30"}


def test_early_close_session_is_scored_after_its_close() -> None:
    cal = default_calendar()
    fires = planned(Schedule(), cal, datetime(2026, 11, 27, tzinfo=ET), datetime(2026, 11, 28, tzinfo=ET),
                    jobs=("score",))
    assert len(fires) == 1
    assert fires[0].at > cal.session_close(date(2026, 11, 27))
    assert cal.session_close(date(2026, 11, 27)) == datetime(2026, 11, 27, 18, 0, tzinfo=UTC)


def test_plan_is_in_time_order() -> None:
    fires = planned(Schedule(), default_calendar(), datetime(2026, 11, 2, tzinfo=ET), datetime(2026, 11, 5, tzinfo=ET))
    assert [f.at for f in fires] == sorted(f.at for f in fires)
