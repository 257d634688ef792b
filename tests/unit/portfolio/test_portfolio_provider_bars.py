"""The portfolio stage's bar source: the replay's minute arrays made straight into
engine bars must be the bars the ordinary path gives (the provider's day memo, then the engine's checked
``Bar``), and the stage keeps one session's bars, not the season's."""

from __future__ import annotations

import math
from dataclasses import replace
from datetime import date
from typing import Any

import numpy as np
import pytest

from league.calendar import Calendar
from league.config import load_markets, shipped_config_dir
from league.jobs.context import MarketData
from league.jobs.portfolio import ProviderBars, bars_from_arrays, engine_bar
from league.portfolio.interface import Bar
from league.prices.memo import MemoProvider
from league.prices.replay import SyntheticMarket

SYMBOLS = ("SPY", "IEF", "GLD", "UUP", "IBIT", "SOXX", "^GSPC", "^VIX", "CL=F", "BTC-USD")
SESSIONS = (date(2026, 11, 2), date(2026, 11, 25), date(2026, 11, 27), date(2026, 3, 9), date(2026, 6, 5))


@pytest.fixture(scope="module")
def cal() -> Calendar:
    return Calendar()


@pytest.fixture(scope="module")
def replay(cal: Calendar) -> SyntheticMarket:
    markets = load_markets(shipped_config_dir() / "markets.toml").markets
    return SyntheticMarket(7, markets, cal, anchor=date(2026, 11, 2), before=280, after=150)


def _checked(prices: Any, symbol: str, cal: Calendar, session: date) -> list[Bar]:
    """The path the arrays replace: the memo's provider bars, each through the engine Bar's own check."""
    raw = prices.bars(symbol, cal.session_open(session), cal.session_close(session))
    return [Bar(b.start, b.open, b.high, b.low, b.close) for b in raw]


@pytest.mark.parametrize("symbol", SYMBOLS)
def test_arrays_give_the_bars_of_the_memo_and_the_checked_bar(replay: SyntheticMarket, cal: Calendar,
                                                              symbol: str) -> None:
    memo = MemoProvider(replay)
    for session in SESSIONS:  # plain days, the day before Thanksgiving, its early close, a DST week
        fast = bars_from_arrays(memo, symbol, cal.session_open(session), cal.session_close(session))
        assert fast is not None
        slow = _checked(memo, symbol, cal, session)
        assert fast == slow and [b.start for b in fast] == [b.start for b in slow]
        assert all(type(b) is Bar and b.start.tzinfo is not None and b.start.utcoffset() == slow[0].start.utcoffset()
                   for b in fast)


def test_engine_bar_equals_the_checked_bar(replay: SyntheticMarket, cal: Calendar) -> None:
    raw = replay.bars("GLD", cal.session_open(date(2026, 11, 2)), cal.session_close(date(2026, 11, 2)))
    assert [engine_bar(b.start, b.open, b.high, b.low, b.close) for b in raw] == \
        [Bar(b.start, b.open, b.high, b.low, b.close) for b in raw]


class _Arrays:
    """A provider with minute arrays, one of which breaks the provider Bar's check."""

    def __init__(self, replay: SyntheticMarket, field: str, value: float, index: int) -> None:
        self.replay, self.field, self.value, self.index = replay, field, value, index

    def minute_arrays(self, symbol: str, start: Any, end: Any) -> list[Any]:
        out = []
        for m in self.replay.minute_arrays(symbol, start, end):
            column = getattr(m, self.field).copy()
            column[self.index] = self.value
            out.append(replace(m, **{self.field: column}))
        return out


@pytest.mark.parametrize(("field", "value", "index"), [
    ("o", math.nan, 100), ("low", -1.0, 5), ("h", math.inf, 200), ("c", 1e9, 7), ("v", -1.0, 50),
    ("o", math.nan, 0),  # a pre-market minute of the UTC day: the memo's day fetch fails on it too
])
def test_a_minute_the_provider_would_refuse_takes_the_ordinary_path(replay: SyntheticMarket, cal: Calendar,
                                                                    field: str, value: float, index: int) -> None:
    session = date(2026, 11, 25)
    prices = _Arrays(replay, field, value, index)
    assert bars_from_arrays(prices, "GLD", cal.session_open(session), cal.session_close(session)) is None


def test_a_provider_without_arrays_takes_the_ordinary_path(cal: Calendar) -> None:
    assert bars_from_arrays(object(), "SPY", cal.session_open(date(2026, 11, 2)),
                            cal.session_close(date(2026, 11, 2))) is None


class _League:
    """What ProviderBars reads of a League: its calendar and prices (weakly referenced, like a League)."""

    def __init__(self, cal: Calendar, prices: Any) -> None:
        self.market = MarketData(cal, prices)


def test_the_source_keeps_the_session_being_marked_only(replay: SyntheticMarket, cal: Calendar) -> None:
    lg = _League(cal, MemoProvider(replay))
    bars = ProviderBars(lg.market)
    first, second = date(2026, 11, 24), date(2026, 11, 25)
    spy = bars.bars("SPY", first)
    assert bars.bars("SPY", first) is spy  # both leagues of a session share one fetch
    bars.bars("GLD", first)
    assert set(bars.cache) == {("SPY", first), ("GLD", first)}
    again = bars.bars("SPY", second)
    assert set(bars.cache) == {("SPY", second)}
    assert bars.bars("SPY", first) == spy and again != spy  # an earlier session asked again is refetched
    assert np.all([b.start.date() == first for b in spy])
