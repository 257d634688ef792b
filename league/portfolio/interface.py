"""The portfolio engine's one port: where 1-minute bars come from, plus the area's base exception.

The engine never reads a price provider, a file or a clock itself. The integrator adapts the league's
price provider to :class:`BarSource`; tests and the benchmark use :mod:`league.portfolio.synthetic`.
Keeping prices behind this tiny protocol is what lets a whole season be replayed offline, bit for bit.
"""

from __future__ import annotations

import math
from collections.abc import Sequence
from dataclasses import dataclass
from datetime import UTC, date, datetime
from typing import Protocol, runtime_checkable

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


@runtime_checkable
class BarSource(Protocol):
    """The 1-minute bars of one symbol in one NYSE session, in time order (empty when none exist)."""

    def bars(self, symbol: str, session: date) -> Sequence[Bar]: ...
