"""A session's bars as columns: ``SessionBars`` refuses what ``Bar`` refuses, at
construction, and the engine's price book gives the same bars from it as from a list of the same bars."""

from __future__ import annotations

import math
import random
from datetime import UTC, date, datetime, timedelta, timezone

import pytest

from league.portfolio.engine import PriceBook
from league.portfolio.interface import Bar, PortfolioError, SessionBars

SESSION = date(2026, 11, 2)
OPEN = datetime(2026, 11, 2, 14, 30, tzinfo=UTC)


def _columns(n: int, seed: int) -> list[list[object]]:
    rng = random.Random(seed)
    starts, opens, highs, lows, closes = [], [], [], [], []
    price = 100.0
    for i in range(n):
        o = price
        c = max(0.5, o * (1 + rng.gauss(0, 0.002)))
        lo, hi = min(o, c) * (1 - rng.random() * 0.002), max(o, c) * (1 + rng.random() * 0.002)
        starts.append(OPEN + timedelta(minutes=i))
        for column, value in zip((opens, highs, lows, closes), (o, hi, lo, c), strict=True):
            column.append(value)
        price = c
    return [starts, opens, highs, lows, closes]


class _Source:
    def __init__(self, bars: object) -> None:
        self.made = bars

    def bars(self, symbol: str, session: date) -> object:
        return self.made


@pytest.mark.parametrize("seed", range(8))
def test_the_book_reads_the_same_bars_from_columns_as_from_a_list(seed: int) -> None:
    cols = _columns(390, seed)
    listed = [Bar(*row) for row in zip(*cols, strict=True)]
    lazy, plain = PriceBook(_Source(SessionBars(*cols))), PriceBook(_Source(listed))  # type: ignore[arg-type]
    rng = random.Random(seed)
    for _ in range(60):
        t0 = OPEN + timedelta(seconds=rng.randrange(-3600, 7 * 3600))
        until = t0 + timedelta(minutes=rng.randrange(0, 30))
        level = listed[0].open * (1 - rng.random() * 0.02)
        assert lazy.first_at_or_after("SPY", SESSION, t0, until) == plain.first_at_or_after("SPY", SESSION, t0, until)
        assert lazy.at_or_before("SPY", SESSION, t0) == plain.at_or_before("SPY", SESSION, t0)
        assert lazy.first_touch("SPY", SESSION, t0, level) == plain.first_touch("SPY", SESSION, t0, level)
    assert lazy.close("SPY", SESSION) == plain.close("SPY", SESSION) is not None


def test_columns_read_as_the_list_of_their_bars() -> None:
    cols = _columns(50, 1)
    bars = SessionBars(*cols)
    listed = [Bar(*row) for row in zip(*cols, strict=True)]
    assert len(bars) == 50 and list(bars) == listed and bars == listed and bars[-1] == listed[-1]
    assert bars[10:13] == listed[10:13] and bars[::7] == listed[::7] and bars[40:200] == listed[40:]
    assert all(type(b) is Bar for b in bars)
    with pytest.raises(IndexError):
        bars[50]


def _broken(column: int, index: int, value: object) -> list[list[object]]:
    cols = _columns(20, 3)
    cols[column][index] = value
    return cols


@pytest.mark.parametrize(("column", "index", "value", "says"), [
    (1, 4, math.nan, "non-finite"), (2, 0, math.inf, "non-finite"), (3, 19, -1.0, "non-positive"),
    (3, 7, 0.0, "non-positive"), (4, 5, 1e6, "bracket"), (3, 9, 1e6, "bracket"), (2, 2, 1e-3, "bracket"),
    (0, 3, OPEN, "increasing"), (0, 0, datetime(2026, 11, 2, 9, 30, tzinfo=timezone(timedelta(hours=-5))), "UTC"),
])
def test_a_bad_minute_is_refused_when_the_columns_are_made(column: int, index: int, value: object,
                                                           says: str) -> None:
    """What ``Bar`` would refuse for that one minute (or what the engine's ordered search needs), refused
    before any bar is read: no unread minute can be a bad one."""
    with pytest.raises(PortfolioError, match=says):
        SessionBars(*_broken(column, index, value))  # type: ignore[arg-type]


def test_columns_of_different_lengths_are_refused() -> None:
    cols = _columns(10, 2)
    cols[4] = cols[4][:-1]
    with pytest.raises(PortfolioError, match="length"):
        SessionBars(*cols)  # type: ignore[arg-type]
