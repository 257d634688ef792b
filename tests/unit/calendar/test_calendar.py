"""NYSE calendar: DST days, early closes, horizon ends against independently listed session dates."""

from __future__ import annotations

from datetime import UTC, date, datetime, timedelta
from pathlib import Path

import numpy as np
import pytest

from league.calendar import Calendar, ceil_second, et_date, et_to_utc, to_et
from league.config import load_markets
from league.errors import CalendarError

ROOT = Path(__file__).resolve().parents[3]
MARKETS = load_markets(ROOT / "config" / "markets.toml").by_code()


def Z(*args: int) -> datetime:
    return datetime(*args, tzinfo=UTC)  # type: ignore[misc]


@pytest.fixture(scope="module")
def cal() -> Calendar:
    return Calendar()


# NYSE holidays as published for 2026-2027 (listed by hand, not taken from exchange-calendars).
HOLIDAYS = [
    "2026-11-26", "2026-12-25", "2027-01-01", "2027-01-18", "2027-02-15", "2027-03-26", "2027-05-31",
]


def test_spring_forward_2026_03_08(cal: Calendar) -> None:
    assert not cal.is_session(date(2026, 3, 8))
    assert cal.session_open(date(2026, 3, 6)) == Z(2026, 3, 6, 14, 30)
    assert cal.session_open(date(2026, 3, 9)) == Z(2026, 3, 9, 13, 30)
    assert cal.session_close(date(2026, 3, 9)) == Z(2026, 3, 9, 20, 0)
    assert et_to_utc(date(2026, 3, 7), "09:30") == Z(2026, 3, 7, 14, 30)
    assert et_to_utc(date(2026, 3, 8), "09:30") == Z(2026, 3, 8, 13, 30)
    assert cal.next_session(date(2026, 3, 6)) == date(2026, 3, 9)


def test_fall_back_2026_11_01(cal: Calendar) -> None:
    assert not cal.is_session(date(2026, 11, 1))
    assert cal.session_open(date(2026, 10, 30)) == Z(2026, 10, 30, 13, 30)
    assert cal.session_open(date(2026, 11, 2)) == Z(2026, 11, 2, 14, 30)
    ref, end = cal.event_times(MARKETS["SPX"], date(2026, 10, 27), "1w")
    assert ref == Z(2026, 10, 27, 13, 30)  # 09:30 EDT
    assert end == Z(2026, 11, 2, 21, 0)  # 16:00 EST, fifth session counting 10-27 as the first


def test_bitcoin_calendar_days_across_dst(cal: Calendar) -> None:
    seal = Z(2026, 10, 29, 12, 30, 0) + timedelta(milliseconds=400)
    ref, end = cal.event_times(MARKETS["BTC"], date(2026, 10, 29), "1d", seal)
    assert ref == Z(2026, 10, 29, 12, 30, 1)  # seal rounded UP to the second
    assert end == Z(2026, 10, 29, 20, 0)  # 16:00 EDT the same day
    _, end_w = cal.event_times(MARKETS["BTC"], date(2026, 10, 29), "1w", seal)
    assert end_w == Z(2026, 11, 4, 21, 0)  # day 7 counting 10-29 as day 1, 16:00 EST
    _, end_6m = cal.event_times(MARKETS["BTC"], date(2026, 10, 29), "6m", seal)
    assert end_6m.date() == date(2027, 4, 28)  # 182 days counting 10-29 as day 1
    with pytest.raises(CalendarError):
        cal.event_times(MARKETS["BTC"], date(2026, 10, 29), "1d")


def test_early_close_2026_11_27(cal: Calendar) -> None:
    day = date(2026, 11, 27)
    assert cal.session_close(day) == Z(2026, 11, 27, 18, 0)
    assert cal.is_early_close(day) and not cal.is_early_close(date(2026, 11, 25))
    assert cal.session_minutes(day) == 210
    assert cal.event_times(MARKETS["SPX"], day, "1d") == (Z(2026, 11, 27, 14, 30), Z(2026, 11, 27, 18, 0))
    assert cal.event_times(MARKETS["TNX"], day, "1d")[1] == Z(2026, 11, 27, 18, 0)  # min(15:00, 13:00 close)
    assert cal.event_times(MARKETS["TNX"], date(2026, 11, 25), "1d")[1] == Z(2026, 11, 25, 20, 0)  # 15:00 EST
    assert cal.event_times(MARKETS["SPX"], date(2026, 11, 20), "1w")[1] == Z(2026, 11, 27, 18, 0)
    assert cal.session_close(date(2026, 12, 24)) == Z(2026, 12, 24, 18, 0)


def test_holidays_and_neighbours(cal: Calendar) -> None:
    assert not cal.is_session(date(2026, 11, 26))
    assert cal.next_session(date(2026, 11, 25)) == date(2026, 11, 27)
    assert cal.previous_session(date(2026, 11, 27)) == date(2026, 11, 25)
    assert cal.next_session(date(2026, 11, 28)) == date(2026, 11, 30)
    assert cal.sessions_in_range(date(2026, 12, 23), date(2026, 12, 29)) == [
        date(2026, 12, 23), date(2026, 12, 24), date(2026, 12, 28), date(2026, 12, 29)]


@pytest.mark.parametrize(
    ("session", "horizon", "expected"),
    [
        (date(2026, 11, 23), "1d", date(2026, 11, 23)),
        (date(2026, 11, 23), "1w", date(2026, 11, 30)),  # 23 24 25 27 30
        (date(2026, 12, 21), "1w", date(2026, 12, 28)),  # 21 22 23 24 28
        (date(2026, 11, 23), "1m", date(2026, 12, 22)),
        (date(2026, 11, 2), "6m", date(2027, 5, 4)),
    ],
)
def test_horizon_end_sessions(cal: Calendar, session: date, horizon: str, expected: date) -> None:
    assert cal.horizon_end_session(session, horizon) == expected


def test_horizon_ends_agree_with_numpy_business_days(cal: Calendar) -> None:
    """Cross-check with numpy's business-day arithmetic over the hand-listed holidays."""
    counts = {"1d": 1, "1w": 5, "1m": 21, "6m": 126}
    for start in cal.sessions_in_range(date(2026, 11, 2), date(2026, 11, 13)):
        for horizon, n in counts.items():
            want = np.busday_offset(start.isoformat(), n - 1, holidays=HOLIDAYS)
            assert cal.horizon_end_session(start, horizon).isoformat() == str(want)


def test_late_2027_six_month_horizon_fits(cal: Calendar) -> None:
    end = cal.horizon_end_session(date(2027, 12, 1), "6m")
    assert end.year == 2028


def test_out_of_range_is_a_calendar_error() -> None:
    small = Calendar(start=date(2026, 1, 1), end=date(2027, 1, 31))
    with pytest.raises(CalendarError):
        small.is_session(date(2035, 1, 2))
    with pytest.raises(CalendarError):
        small.horizon_end_session(date(2026, 12, 1), "6m")
    with pytest.raises(CalendarError):
        small.session_open(date(2026, 11, 26))  # a holiday is not a session
    with pytest.raises(CalendarError):
        small.horizon_end_session(date(2026, 12, 1), "2y")


def test_the_default_calendar_grows_past_any_fixed_end() -> None:
    """A league in 2029 and later: sessions, holidays and early closes come as the days are asked."""
    grown = Calendar()
    first_end = grown.end
    # 2028-12-29 is a Friday; 2029-01-01 (Monday) is New Year's Day, so the next session is 2 January.
    assert grown.next_session(date(2028, 12, 29)) == date(2029, 1, 2)
    assert grown.end > first_end
    # 2031: Independence Day on a Friday, Thanksgiving on 27 November with the early close the day after.
    assert not grown.is_session(date(2031, 7, 4))
    assert not grown.is_session(date(2031, 11, 27))
    assert grown.session_close(date(2031, 11, 28)) == Z(2031, 11, 28, 18, 0)  # 13:00 EST
    # A six-month horizon asked late in 2028 ends in 2029 (126 sessions counting the first).
    assert grown.horizon_end_session(date(2028, 12, 1), "6m").year == 2029
    # Far ahead: 2040-01-01 is a Sunday, so New Year's Day is observed on Monday 2 January.
    assert not grown.is_session(date(2040, 1, 2))
    assert grown.next_session(date(2040, 1, 1)) == date(2040, 1, 3)


def test_a_fixed_end_stays_fixed() -> None:
    fixed = Calendar(start=date(2026, 1, 1), end=date(2027, 1, 31))
    assert not fixed.growing
    with pytest.raises(CalendarError):
        fixed.next_session(date(2027, 1, 31))
    assert fixed.end == date(2027, 1, 31)


def test_et_helpers_refuse_naive_times() -> None:
    with pytest.raises(CalendarError):
        to_et(datetime(2026, 11, 27, 14, 30))  # noqa: DTZ001
    assert et_date(Z(2026, 11, 28, 3, 0)) == date(2026, 11, 27)  # 22:00 ET the day before
    assert ceil_second(Z(2026, 1, 5, 14, 0, 0)) == Z(2026, 1, 5, 14, 0, 0)


def test_last_closed_session(cal: Calendar) -> None:
    assert cal.last_closed_session(Z(2026, 11, 27, 13, 25)) == date(2026, 11, 25)
    assert cal.last_closed_session(Z(2026, 11, 27, 18, 0)) == date(2026, 11, 27)
    assert cal.is_open_at(Z(2026, 11, 27, 17, 59)) and not cal.is_open_at(Z(2026, 11, 27, 18, 0))
