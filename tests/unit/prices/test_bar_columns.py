"""A day of bars kept as columns: the replay's columns are the bars its ``bars`` gives,
a bad minute is refused when they are made, and the score job's reads (windows, references, terminals, draw
bands) give the same answers from columns as from the provider's list of bars."""

from __future__ import annotations

import math
from datetime import UTC, date, datetime, timedelta
from types import SimpleNamespace
from typing import Any, cast

import numpy as np
import pytest

from league.calendar import ET, Calendar
from league.jobs.context import League
from league.jobs.score import Bars
from league.prices.columns import BarColumns
from league.prices.interface import Bar, PriceError
from league.prices.memo import MemoProvider
from league.prices.reference import daily_reference, draw_band, seal_reference, terminal_price, within
from league.prices.replay import SyntheticMarket

SYMBOLS = ("SPY", "IEF", "^GSPC", "^VIX", "CL=F", "BTC-USD", "GLD")
DAYS = (date(2026, 11, 2), date(2026, 11, 26), date(2026, 11, 27), date(2026, 3, 9), date(2026, 3, 8))


def _utc_day(day: date) -> tuple[datetime, datetime]:
    start = datetime(day.year, day.month, day.day, tzinfo=UTC)
    return start, start + timedelta(days=1)


@pytest.mark.parametrize("symbol", SYMBOLS)
def test_the_columns_are_the_bars_the_replay_gives(replay: SyntheticMarket, symbol: str) -> None:
    for day in DAYS:  # weekdays, Thanksgiving and its early close, a DST Monday, a Sunday
        start, end = _utc_day(day)
        cols = replay.bar_columns(symbol, start, end)
        listed = replay.bars(symbol, start, end)
        assert cols is not None and list(cols) == listed and cols.starts == [b.start for b in listed]
        assert cols.closes == [b.close for b in listed]
        assert all(type(b) is Bar and b.start.tzinfo is UTC for b in cols)


def test_a_window_of_the_columns_is_a_view_of_the_same_bars(replay: SyntheticMarket) -> None:
    start, end = _utc_day(date(2026, 11, 2))
    cols = replay.bar_columns("SPY", start, end)
    listed = replay.bars("SPY", start, end)
    assert cols is not None and len(listed) > 350
    view = cols[100:300]
    assert isinstance(view, BarColumns) and view == listed[100:300]
    assert view.starts == [b.start for b in listed[100:300]]
    assert view[10:20] == listed[110:120] and view[-1] == listed[299] and view[0] == listed[100]
    assert cols[-3:] == listed[-3:] and len(cols[300:10_000]) == len(listed) - 300 and len(cols[300:100]) == 0
    with pytest.raises(IndexError):
        view[200]
    with pytest.raises(ValueError, match="step"):
        cols[::2]


def _arrays(n: int = 30) -> dict[str, Any]:
    t = 1_760_000_000 + 60 * np.arange(n, dtype=np.int64)
    c = 100.0 + np.cumsum(np.full(n, 0.01))
    return {"t": t, "o": c - 0.005, "h": c + 0.02, "low": c - 0.02, "c": c, "v": np.full(n, 10.0)}


@pytest.mark.parametrize(("field", "index", "value"), [
    ("o", 3, math.nan), ("h", 0, math.inf), ("low", 29, -1.0), ("low", 5, 0.0), ("c", 7, 1e6),
    ("o", 9, 1.0), ("v", 2, -1.0), ("v", 4, math.inf), ("t", 5, 1_760_000_000),
])
def test_a_minute_a_bar_would_refuse_is_refused_with_the_columns(field: str, index: int, value: float) -> None:
    arrays = _arrays()
    arrays[field] = arrays[field].copy()
    arrays[field][index] = value
    with pytest.raises(PriceError):
        BarColumns(arrays["t"], arrays["o"], arrays["h"], arrays["low"], arrays["c"], arrays["v"])
    if field != "t":  # the one-by-one path refuses the same minute
        with pytest.raises(PriceError):
            Bar(datetime.fromtimestamp(int(arrays["t"][index]), UTC), *(float(arrays[f][index])
                                                                        for f in ("o", "h", "low", "c", "v")))


def test_columns_of_different_lengths_are_refused() -> None:
    a = _arrays()
    with pytest.raises(PriceError, match="length"):
        BarColumns(a["t"], a["o"], a["h"], a["low"], a["c"][:-1], a["v"])


class _ListOnly:
    """The same replay, seen through ``bars`` alone (what a provider without columns gives)."""

    def __init__(self, inner: SyntheticMarket) -> None:
        self.inner = inner

    def bars(self, symbol: str, start: datetime, end: datetime) -> list[Bar]:
        return self.inner.bars(symbol, start, end)


def _bars(prices: Any) -> Bars:
    return Bars(cast(League, SimpleNamespace(prices=prices)))


@pytest.mark.parametrize("symbol", SYMBOLS)
def test_the_score_job_reads_the_same_prices_from_columns_as_from_lists(replay: SyntheticMarket, cal: Calendar,
                                                                         symbol: str) -> None:
    columns, lists = _bars(MemoProvider(replay)), _bars(MemoProvider(_ListOnly(replay)))  # type: ignore[arg-type]
    for day in (date(2026, 11, 2), date(2026, 11, 27), date(2026, 3, 9), date(2026, 6, 5)):
        ref_at = datetime.combine(day, datetime.min.time().replace(hour=9, minute=30), tzinfo=ET).astimezone(UTC)
        end_at = cal.session_close(day)
        for lo, hi in ((ref_at, ref_at + timedelta(hours=8)), (end_at - timedelta(hours=8), end_at),
                       (ref_at - timedelta(hours=20), ref_at + timedelta(hours=30))):  # the last spans days
            a, b = columns.get(symbol, lo, hi), lists.get(symbol, lo, hi)
            assert a is not None and b is not None and list(a) == list(b)
            assert daily_reference(a, ref_at) == daily_reference(b, ref_at)
            sealed = ref_at + timedelta(seconds=0.4)
            assert seal_reference(a, sealed) == seal_reference(b, sealed)
            assert terminal_price(a, end_at - timedelta(minutes=1), since=lo) == \
                terminal_price(b, end_at - timedelta(minutes=1), since=lo)
            assert within(a, ref_at, end_at) == within(b, ref_at, end_at)
        sessions = [cal.offset(day, -k) for k in range(1, 5)]
        band_a = [columns.get(symbol, cal.session_open(s), cal.session_close(s)) or [] for s in sessions]
        band_b = [lists.get(symbol, cal.session_open(s), cal.session_close(s)) or [] for s in sessions]
        rolls = [cal.session_open(sessions[1]) + timedelta(minutes=m) for m in (3, 200)]
        assert draw_band(band_a, 0.1) == draw_band(band_b, 0.1) is not None
        assert draw_band(band_a, 0.1, rolls=rolls) == draw_band(band_b, 0.1, rolls=rolls)
        assert draw_band(band_a, 0.1, rolls=rolls).excluded_rolls > 0  # type: ignore[union-attr]
    assert any(isinstance(d, BarColumns) for d in columns.days.values())
    assert not any(isinstance(d, BarColumns) for d in lists.days.values())
