"""A day-granular memo in front of a deterministic offline provider (replay).

Replay prices never change once synthesized, so the demo's snapshot, oracle hints, scoring and
portfolio stages can share one fetch of each (symbol, UTC day). Never put this in front of a live
provider: a day fetched while it is still trading would be reused as if it were complete — the
live path has :class:`league.prices.cache.CachedProvider`, which records completeness.
"""

from __future__ import annotations

import bisect
from collections import OrderedDict
from collections.abc import Sequence
from datetime import UTC, date, datetime, timedelta
from typing import Any

from league.prices.interface import Bar, PriceSource, check_window

#: Days (symbol × UTC day) kept. A day of one symbol is up to 1,440 minutes, ~0.35 MB as ``Bar`` objects and
#: about as much as the columns of a replay (six lists of floats and the shared starts); all twelve demo symbols
#: ~4.2 MB a day. One session's jobs touch ~150 of them (today, the
#: four sessions of each draw band, the oracle's week ahead, the crowd's day before), and consecutive
#: sessions share most: 384 entries (~135 MB) hold that working set. The former 1,024 kept ~360 MB of
#: bars alive by the end of a 126-session season; 128 was measured to thrash (bars rebuilt every
#: session). An evicted day is fetched again from ``inner`` (the replay keeps compact per-day arrays).
MAX_DAYS = 384


class MemoProvider:
    """Serve ``bars`` from whole-day fetches of ``inner``, keeping the last ``max_days`` days.

    A day is kept as the inner provider's columns (``bar_columns``, league.prices.columns) where it has
    them: its bars are made only when read, and :meth:`day_bars` hands the day to a reader that searches
    it without making them (the score job); otherwise as the list of bars ``inner.bars`` gives."""

    def __init__(self, inner: PriceSource, max_days: int = MAX_DAYS) -> None:
        self.inner = inner
        self.name = getattr(inner, "name", "memo")
        self.max_days = max_days
        self._days: OrderedDict[tuple[str, date], tuple[list[datetime], Sequence[Bar]]] = OrderedDict()

    def _day(self, symbol: str, day: date) -> tuple[list[datetime], Sequence[Bar]]:
        key = (symbol, day)
        hit = self._days.get(key)
        if hit is not None:
            self._days.move_to_end(key)
            return hit
        start = datetime(day.year, day.month, day.day, tzinfo=UTC)
        entry = self._fetch(symbol, start, start + timedelta(days=1))
        self._days[key] = entry
        if len(self._days) > self.max_days:
            self._days.popitem(last=False)
        return entry

    def _fetch(self, symbol: str, start: datetime, end: datetime) -> tuple[list[datetime], Sequence[Bar]]:
        columns = getattr(self.inner, "bar_columns", None)
        got = columns(symbol, start, end) if columns is not None else None
        if got is not None:
            return got.starts_all, got
        bars = self.inner.bars(symbol, start, end)  # raises what the provider raises for a bad minute
        return [b.start for b in bars], bars

    def day_bars(self, symbol: str, day: date) -> Sequence[Bar]:
        """The bars of one UTC day as kept (columns or a list, in time order where the provider's are): read
        them, never change them."""
        return self._day(symbol, day)[1]

    def bars(self, symbol: str, start: datetime, end: datetime) -> list[Bar]:
        start, end = check_window(start, end)
        out: list[Bar] = []
        day = start.date()
        while datetime(day.year, day.month, day.day, tzinfo=UTC) < end:
            starts, bars = self._day(symbol, day)
            out.extend(bars[bisect.bisect_left(starts, start):bisect.bisect_left(starts, end)])
            day += timedelta(days=1)
        return out

    def daily_closes(self, symbol: str, start: date, end: date) -> list[tuple[date, float]]:
        """Daily closes are the inner provider's (a replay's are cheap and never change)."""
        return self.inner.daily_closes(symbol, start, end)

    def __getattr__(self, name: str) -> Any:
        """Everything else (``daily_closes``, ``daily_ohlc`` …) is the inner provider's."""
        return getattr(self.inner, name)
