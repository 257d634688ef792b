"""Shared helpers for the portfolio tests: a hand-written bar source and small decision builders."""

from __future__ import annotations

from collections.abc import Sequence
from datetime import UTC, date, datetime, time, timedelta
from decimal import ROUND_HALF_EVEN, Decimal
from zoneinfo import ZoneInfo

from league.portfolio.interface import Bar

ET = ZoneInfo("America/New_York")


def et(session: date, hh: int, mm: int, ss: int = 0) -> datetime:
    return datetime.combine(session, time(hh, mm, ss), tzinfo=ET).astimezone(UTC)


def flat_bars(session: date, price: float, minutes: Sequence[tuple[int, int]] = ((9, 30), (9, 31), (9, 32),
              (9, 33), (9, 34), (9, 35), (15, 59))) -> list[Bar]:
    """Bars with the same open/close; lets a test state prices by hand."""
    return [Bar(start=et(session, h, m), open=price, high=price, low=price, close=price) for h, m in minutes]


class HandBars:
    """A BarSource from a dict (symbol, session) -> bars; unknown keys have no bars."""

    def __init__(self) -> None:
        self.data: dict[tuple[str, date], list[Bar]] = {}

    def put(self, symbol: str, session: date, bars: list[Bar]) -> None:
        self.data[(symbol, session)] = bars

    def flat(self, symbol: str, session: date, price: float) -> None:
        self.put(symbol, session, flat_bars(session, price))

    def bars(self, symbol: str, session: date) -> list[Bar]:
        return self.data.get((symbol, session), [])


def px(value: float) -> Decimal:
    """A test's own rounding of a float price to the published 4 decimals."""
    return Decimal(repr(value)).quantize(Decimal("0.0001"), ROUND_HALF_EVEN)


def minutes_from(session: date, start: tuple[int, int], count: int) -> list[datetime]:
    first = et(session, *start)
    return [first + timedelta(minutes=i) for i in range(count)]
