"""The portfolio engine's one port: where 1-minute bars come from, plus the area's base exception.

The engine never reads a price provider, a file or a clock itself. The integrator adapts the league's
price provider to :class:`BarSource`; tests and the benchmark use :mod:`league.portfolio.synthetic`.
Keeping prices behind this tiny protocol is what lets a whole season be replayed offline, bit for bit.
"""

from __future__ import annotations

import math
import operator
from collections.abc import Sequence
from dataclasses import dataclass
from datetime import UTC, date, datetime
from typing import Protocol, overload, runtime_checkable

from league.errors import LeagueError


class PortfolioError(LeagueError):
    """Base of every deliberate error in the portfolio leagues (bad rules, bad input, bad bars)."""


@dataclass(frozen=True, slots=True)
class Bar:
    """One 1-minute bar; ``start`` is the minute's opening instant, timezone-aware (stored as UTC)."""

    start: datetime
    open: float
    high: float
    low: float
    close: float

    def __post_init__(self) -> None:
        if self.start.tzinfo is None or self.start.utcoffset() is None:
            raise PortfolioError(f"bar start {self.start!r} is naive; bars need timezone-aware times")
        if self.start.utcoffset() != UTC.utcoffset(None):
            object.__setattr__(self, "start", self.start.astimezone(UTC))
        prices = (self.open, self.high, self.low, self.close)
        if not all(math.isfinite(p) and p > 0 for p in prices):
            raise PortfolioError(f"bar at {self.start.isoformat()} has a non-positive or non-finite price")
        if self.low > min(self.open, self.close) or self.high < max(self.open, self.close):
            raise PortfolioError(f"bar at {self.start.isoformat()}: low/high do not bracket open/close")


class SessionBars(Sequence[Bar]):
    """A session's bars kept as five columns, a :class:`Bar` made (and checked) only when one is read.

    The engine reads a handful of a session's ~390 minutes (its opening quotes, a dip's first touch, the
    close): making a ``Bar`` of every minute of every fund in every session was most of the portfolio
    stage's time (docs/costs.md, "A day's bars as columns"). ``starts`` and ``lows`` are what
    :class:`PriceBook` searches; every bar it hands out is an ordinary, checked ``Bar``, so a minute with a bad
    price raises the same error when it is read as it would in a list. Construction checks the columns at once,
    column-wise (what ``Bar`` checks of each minute: aware UTC starts in time order, finite positive prices, low
    and high bracketing open and close), so no unread minute can be a bad one: a fifth of making the bars."""

    __slots__ = ("closes", "highs", "lows", "opens", "starts")

    def __init__(self, starts: Sequence[datetime], opens: Sequence[float], highs: Sequence[float],
                 lows: Sequence[float], closes: Sequence[float]) -> None:
        if not len(starts) == len(opens) == len(highs) == len(lows) == len(closes):
            raise PortfolioError("session bars: the five columns differ in length")
        _check_columns(starts, opens, highs, lows, closes)
        self.starts, self.opens, self.highs, self.lows, self.closes = starts, opens, highs, lows, closes

    def __len__(self) -> int:
        return len(self.starts)

    @overload
    def __getitem__(self, i: int) -> Bar: ...

    @overload
    def __getitem__(self, i: slice) -> list[Bar]: ...

    def __getitem__(self, i: int | slice) -> Bar | list[Bar]:
        if isinstance(i, slice):
            return [self._bar(j) for j in range(*i.indices(len(self)))]
        return self._bar(range(len(self))[i])  # a negative index counts from the end; out of range raises

    def __eq__(self, other: object) -> bool:
        """Equal to the same bars, as columns or as a list or tuple of ``Bar``."""
        if isinstance(other, SessionBars):
            return all(a == b for a, b in zip(self._columns(), other._columns(), strict=True))
        if isinstance(other, list | tuple):
            return list(self) == list(other)
        return NotImplemented

    __hash__ = None  # type: ignore[assignment]  # equal to a list, which has none

    def _columns(self) -> tuple[list[object], ...]:
        return tuple(list(c) for c in (self.starts, self.opens, self.highs, self.lows, self.closes))

    def _bar(self, j: int) -> Bar:
        return Bar(self.starts[j], self.opens[j], self.highs[j], self.lows[j], self.closes[j])


def _check_columns(starts: Sequence[datetime], opens: Sequence[float], highs: Sequence[float],
                   lows: Sequence[float], closes: Sequence[float]) -> None:
    """Raise :class:`PortfolioError` unless every row would make a valid :class:`Bar`, already in UTC
    (the engine compares starts across bars), starts strictly increasing."""
    if not all(s.tzinfo is UTC for s in starts) or not all(map(operator.lt, starts, starts[1:])):
        raise PortfolioError("session bars: starts must be UTC and strictly increasing")
    finite = all(all(map(math.isfinite, column)) for column in (opens, highs, lows, closes))
    if not finite or (lows and min(lows) <= 0):  # the bracket below puts every other price above the lowest
        raise PortfolioError("session bars: a price is non-positive or non-finite")
    if not (all(map(operator.le, lows, opens)) and all(map(operator.le, lows, closes))
            and all(map(operator.le, opens, highs)) and all(map(operator.le, closes, highs))):
        raise PortfolioError("session bars: a low/high does not bracket its open/close")


@runtime_checkable
class BarSource(Protocol):
    """The 1-minute bars of one symbol in one NYSE session, in time order (empty when none exist)."""

    def bars(self, symbol: str, session: date) -> Sequence[Bar]: ...
