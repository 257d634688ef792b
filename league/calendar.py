"""The NYSE calendar, event windows and their contracts, and ET<->UTC helpers.

Which days count, when a horizon ends and when an early close cuts a day short are facts of the
exchange, not of our code: they come from ``exchange-calendars`` (``XNYS``), whose holiday rules run
indefinitely. The calendar is built once from 2016 to an initial end and, unless a fixed ``end`` is
passed, **grows** by itself: any question about a day past its end (a six-month horizon asked in late
2028, every session from 2029 on) rebuilds it up to that day plus two years. A league therefore never
meets a fixed end date; no clock is read, the questions asked decide how far it reaches.

Horizon counting (docs/protocol.md §1, §5): the reference session is the FIRST session of every horizon.
A one-day event is referenced at 09:30 ET of session S and ends at the close of the same session S
(it is scored "after 16:00 ET" that day); a 1w event ends at the close of the 5th session counting S
as the 1st, 1m the 21st, 6m the 126th. Bitcoin counts calendar days the same way: 1d ends at 16:00 ET
of S itself, 7d at 16:00 ET of S + 6 days, and so on.
"""

from __future__ import annotations

import bisect
import threading
from collections.abc import Iterable
from datetime import UTC, date, datetime, time, timedelta
from zoneinfo import ZoneInfo

from league.config import HORIZON_DAYS_24X7, HORIZON_SESSIONS, MarketSpec, as_time
from league.contracts import EventContract
from league.errors import CalendarError
from league.extras import extra

ET = ZoneInfo("America/New_York")
OPEN_ET = time(9, 30)
DEFAULT_START = date(2016, 1, 1)
DEFAULT_END = date(2028, 12, 29)
#: How far past a requested day a growing calendar rebuilds (one rebuild covers two years of questions).
GROW_BY = timedelta(days=731)


def to_utc(moment: datetime) -> datetime:
    """Aware datetime -> UTC; naive datetimes are refused (they hide a time zone bug)."""
    if moment.tzinfo is None or moment.utcoffset() is None:
        raise CalendarError(f"naive datetime {moment!r}", fix="pass a timezone-aware datetime")
    return moment.astimezone(UTC)


def to_et(moment: datetime) -> datetime:
    """Aware datetime -> America/New_York wall time."""
    return to_utc(moment).astimezone(ET)


def et_to_utc(day: date, at: time | str) -> datetime:
    """The UTC instant of wall time ``at`` (ET) on ``day``; DST is handled by zoneinfo."""
    wall = as_time(at) if isinstance(at, str) else at
    return datetime.combine(day, wall, tzinfo=ET).astimezone(UTC)


def ceil_second(moment: datetime) -> datetime:
    """Round up to the whole second: a reference "at or after the seal second" never precedes the seal."""
    whole = moment.replace(microsecond=0)
    return whole if whole == moment else whole + timedelta(seconds=1)


def et_time(day: date, at: time) -> datetime:
    """``at`` o'clock New York time on ``day`` as an aware datetime (DST handled by zoneinfo)."""
    return datetime.combine(day, at, tzinfo=ET)


def et_date(moment: datetime) -> date:
    """The New York calendar date of an instant (what 'today' means for the league)."""
    return to_et(moment).date()


def _check_horizon(horizon: str, table: dict[str, int]) -> int:
    if horizon not in table:
        raise CalendarError(f"unknown horizon {horizon!r}", fix=f"use one of {sorted(table)}")
    return table[horizon]


class Calendar:
    """Sessions, opens and closes of one exchange, precomputed into plain Python lists for speed."""

    def __init__(self, start: date = DEFAULT_START, end: date | None = None, code: str = "XNYS") -> None:
        self.code = code
        self.start = start
        self.growing = end is None
        self._lock = threading.Lock()
        self._build(DEFAULT_END if end is None else end)

    def _build(self, end: date) -> None:
        """Load sessions, opens and closes for start..end; the lists are swapped in whole."""
        with extra("stats"):  # the NYSE calendar sits on pandas
            import exchange_calendars as xcals
        try:
            cal = xcals.get_calendar(self.code, start=self.start.isoformat(), end=end.isoformat())
        except Exception as exc:  # the library raises a zoo of its own errors for bad ranges
            raise CalendarError(f"cannot build calendar {self.code} for {self.start}..{end}: {exc}") from exc
        sessions = [ts.date() for ts in cal.sessions]
        self._opens: list[datetime] = [ts.to_pydatetime().astimezone(UTC) for ts in cal.opens]
        self._closes: list[datetime] = [ts.to_pydatetime().astimezone(UTC) for ts in cal.closes]
        self._index = {d: i for i, d in enumerate(sessions)}
        self._sessions: list[date] = sessions
        self.end = end

    def _grow_to(self, day: date) -> bool:
        """Extend a growing calendar to cover ``day`` (and two years more); False when it cannot grow."""
        if not self.growing:
            return False
        with self._lock:
            if day > self.end:
                self._build(day + GROW_BY)
        return True

    # ------------------------------------------------------------------ sessions
    @property
    def first_session(self) -> date:
        return self._sessions[0]

    @property
    def last_session(self) -> date:
        return self._sessions[-1]

    def _in_range(self, day: date) -> None:
        if day > self.end and self._grow_to(day):
            return
        if not self.start <= day <= self.end:
            raise CalendarError(
                f"{day} is outside the {self.code} calendar range {self.start}..{self.end}",
                fix="build Calendar(start=..., end=...) with a wider range",
            )

    def _pos(self, session: date) -> int:
        self._in_range(session)
        if session not in self._index:
            raise CalendarError(f"{session} is not a {self.code} session", fix="pass a trading day")
        return self._index[session]

    def is_session(self, day: date) -> bool:
        self._in_range(day)
        return day in self._index

    def sessions_in_range(self, start: date, end: date) -> list[date]:
        """Sessions with start <= session <= end (both inclusive)."""
        self._in_range(start)
        self._in_range(end)
        lo = bisect.bisect_left(self._sessions, start)
        hi = bisect.bisect_right(self._sessions, end)
        return self._sessions[lo:hi]

    def next_session(self, day: date) -> date:
        """The first session strictly after ``day`` (``day`` need not be a session)."""
        self._in_range(day)
        i = bisect.bisect_right(self._sessions, day)
        if i >= len(self._sessions) and self._grow_to(self.end + timedelta(days=1)):
            return self.next_session(day)
        if i >= len(self._sessions):
            raise CalendarError(f"no session after {day} within the calendar", fix="widen the calendar end")
        return self._sessions[i]

    def previous_session(self, day: date) -> date:
        """The last session strictly before ``day``."""
        self._in_range(day)
        i = bisect.bisect_left(self._sessions, day) - 1
        if i < 0:
            raise CalendarError(f"no session before {day} within the calendar", fix="widen the calendar start")
        return self._sessions[i]

    def session_on_or_after(self, day: date) -> date:
        return day if self.is_session(day) else self.next_session(day)

    def session_on_or_before(self, day: date) -> date:
        return day if self.is_session(day) else self.previous_session(day)

    def offset(self, session: date, n: int) -> date:
        """The session ``n`` sessions after (n > 0) or before (n < 0) ``session``."""
        i = self._pos(session) + n
        if i >= len(self._sessions) and self._grow_to(self.end + timedelta(days=2 * n)):
            return self.offset(session, n)
        if not 0 <= i < len(self._sessions):
            raise CalendarError(f"{session} {n:+d} sessions leaves the calendar", fix="widen the calendar range")
        return self._sessions[i]

    def sessions_before(self, session: date, count: int) -> list[date]:
        """The ``count`` sessions immediately before ``session``, oldest first."""
        return [self.offset(session, -k) for k in range(count, 0, -1)]

    # ------------------------------------------------------------------ hours
    def session_open(self, session: date) -> datetime:
        """Regular open (aware UTC): 14:30Z in winter, 13:30Z in summer."""
        return self._opens[self._pos(session)]

    def session_close(self, session: date) -> datetime:
        """Regular close (aware UTC); early closes such as 2026-11-27 end at 18:00Z."""
        return self._closes[self._pos(session)]

    def is_early_close(self, session: date) -> bool:
        close = self.session_close(session)
        return close < et_to_utc(session, time(16, 0))

    def session_minutes(self, session: date) -> int:
        """Number of 1-minute bars in the regular session (390, or 210 on an early close)."""
        return int((self.session_close(session) - self.session_open(session)).total_seconds() // 60)

    def is_open_at(self, moment: datetime) -> bool:
        day = et_date(moment)
        if not self.is_session(day):
            return False
        return self.session_open(day) <= to_utc(moment) < self.session_close(day)

    def last_closed_session(self, moment: datetime) -> date:
        """The latest session whose close is at or before ``moment``."""
        day = et_date(moment)
        if self.is_session(day) and self.session_close(day) <= to_utc(moment):
            return day
        return self.previous_session(day)

    # ------------------------------------------------------------------ horizons
    def horizon_end_session(self, session: date, horizon: str) -> date:
        """The session whose close ends ``horizon``; the reference session counts as the first."""
        n = _check_horizon(horizon, HORIZON_SESSIONS)
        return self.offset(session, n - 1)

    def horizon_end_day(self, day: date, horizon: str) -> date:
        """Bitcoin: the calendar day ending ``horizon`` (1/7/30/182 days, ``day`` counting as the first)."""
        n = _check_horizon(horizon, HORIZON_DAYS_24X7)
        end = day + timedelta(days=n - 1)
        self._in_range(end)
        return end

    def capped_end(self, day: date, end_time: str) -> datetime:
        """``end_time`` ET on ``day``, never after that day's (early) close when ``day`` is a session."""
        wanted = et_to_utc(day, end_time)
        if self.is_session(day):
            return min(wanted, self.session_close(day))
        return wanted

    def event_times(
        self, market: MarketSpec, session: date, horizon: str, seal_time: datetime | None = None
    ) -> tuple[datetime, datetime]:
        """``(reference_at, end_at)`` of the event contract for ``market`` asked on ``session``.

        Daily markets: 09:30 ET of the session, and the market's end time on the horizon's end
        session (capped at an early close). Bitcoin: the seal second of the answer line, and 16:00 ET
        on the horizon's end day (capped at an early close when that day is a session).
        """
        self._pos(session)
        if market.daily:
            reference_at = et_to_utc(session, OPEN_ET)
            return reference_at, self.capped_end(self.horizon_end_session(session, horizon), market.end_time)
        if seal_time is None:
            raise CalendarError(
                f"{market.code} trades 24x7: its reference is the answer's seal second",
                fix="pass seal_time (the answer line's seal time)",
            )
        reference_at = ceil_second(to_utc(seal_time))
        end_at = self.capped_end(self.horizon_end_day(session, horizon), market.end_time)
        if end_at <= reference_at:
            raise CalendarError(f"{market.code}: seal {reference_at} is after the event end {end_at}")
        return reference_at, end_at

    def days(self, start: date, end: date) -> Iterable[date]:
        """Every calendar day start..end inclusive (24x7 markets)."""
        self._in_range(start)
        self._in_range(end)
        return (start + timedelta(days=k) for k in range((end - start).days + 1))


_DEFAULT: Calendar | None = None


def default_calendar() -> Calendar:
    """One shared NYSE calendar (building it takes ~0.3 s, so it is built once per process)."""
    global _DEFAULT
    if _DEFAULT is None:
        _DEFAULT = Calendar()
    return _DEFAULT


def event_contract(calendar: Calendar, market: MarketSpec, session: date, horizon: str,
                   seal_time: datetime | None) -> EventContract:
    """The contract of one market × horizon event; bitcoin and late lines pass their seal time."""
    reference_at, end_at = calendar.event_times(market, session, horizon, seal_time)
    return EventContract.make(asset=market.code, horizon=horizon, reference_at=reference_at, end_at=end_at,
                              reference_rule=market.reference_rule, price_provider=market.provider,
                              price_symbol=market.symbol)
