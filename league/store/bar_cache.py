"""The database as a :class:`league.prices.cache.BarCache`: day files' twin in SQL.

The prices package caches fetched bars per (symbol, UTC day) with a completeness marker; this adapter
gives the same contract on top of the store, so a daemon can read cached minutes with one query
instead of opening files. Only a day fetched complete is served; otherwise ``None`` tells the caller
to fetch again (a partial day is never presented as the whole day).
"""

from __future__ import annotations

from collections.abc import Sequence
from datetime import UTC, date, datetime, time, timedelta

from league.jsonvalue import Json
from league.prices.interface import Bar
from league.store.interface import BarLike, Store


class DbBarCache:
    """``put_bars(symbol, day, bars, complete=…)`` / ``get_bars(symbol, day)`` over a :class:`Store`."""

    def __init__(self, store: Store) -> None:
        self.store = store

    def put_bars(self, symbol: str, day: date, bars: Sequence[BarLike], *, complete: bool,
                 meta: dict[str, Json] | None = None) -> None:
        self.store.put_day(symbol, day, bars, complete=complete)

    def get_bars(self, symbol: str, day: date) -> list[Bar] | None:
        if not self.store.day_complete(symbol, day):
            return None
        start = datetime.combine(day, time(0), tzinfo=UTC)
        return self.store.get_bars(symbol, start, start + timedelta(days=1))

    def is_complete(self, symbol: str, day: date) -> bool:
        return self.store.day_complete(symbol, day)
