"""Reproducible synthetic 1-minute bars for tests, the benchmark and the offline portfolio demo.

Not market data: a seeded random walk per symbol (daily levels) with a seeded intraday path per
session, 390 minutes from 09:30 ET. The same seed always yields the same bars, so a season built on
them can be replayed and published like a real one.
"""

from __future__ import annotations

import math
import random
from collections.abc import Sequence
from datetime import date, datetime, time, timedelta

from league.portfolio.engine import ET
from league.portfolio.interface import Bar

BASE_PRICES: dict[str, float] = {
    "SPY": 600.0, "QQQ": 520.0, "DIA": 440.0, "SOXX": 230.0, "IEF": 95.0, "UUP": 27.0, "GLD": 250.0,
    "USO": 75.0, "BNO": 29.0, "CPER": 28.0, "IBIT": 55.0, "^VIX": 16.0, "^GSPC": 6000.0, "^NDX": 21000.0,
    "^DJI": 44000.0, "^SOX": 5000.0, "^TNX": 4.3, "DX-Y.NYB": 104.0, "GC=F": 2700.0, "CL=F": 70.0,
    "BZ=F": 74.0, "HG=F": 4.5, "BTC-USD": 95000.0,
}


class SyntheticBars:
    """A :class:`~league.portfolio.interface.BarSource` over a fixed list of sessions."""

    def __init__(self, sessions: Sequence[date], seed: int = 7, minutes: int = 390, daily_vol: float = 0.012) -> None:
        self.sessions = list(sessions)
        self.seed = seed
        self.minutes = minutes
        self.daily_vol = daily_vol
        self._levels: dict[str, dict[date, float]] = {}

    def _level(self, symbol: str, session: date) -> float:
        if symbol not in self._levels:
            rng = random.Random(f"{self.seed}:level:{symbol}")
            level = BASE_PRICES.get(symbol, 100.0)
            levels: dict[date, float] = {}
            for day in self.sessions:
                levels[day] = level
                level *= math.exp(rng.gauss(0.0003, self.daily_vol))
            self._levels[symbol] = levels
        return self._levels[symbol][session]

    def bars(self, symbol: str, session: date) -> list[Bar]:
        if session not in set(self.sessions):
            return []
        rng = random.Random(f"{self.seed}:bars:{symbol}:{session.isoformat()}")
        step = self.daily_vol / math.sqrt(self.minutes)
        price = self._level(symbol, session)
        start = datetime.combine(session, time(9, 30), tzinfo=ET)
        out: list[Bar] = []
        for i in range(self.minutes):
            close = price * math.exp(rng.gauss(0.0, step))
            wiggle = abs(rng.gauss(0.0, step / 2))
            out.append(Bar(start=start + timedelta(minutes=i), open=price, close=close,
                           high=max(price, close) * (1 + wiggle), low=min(price, close) * (1 - wiggle)))
            price = close
        return out


def weekday_sessions(first: date, count: int) -> list[date]:
    """Monday-Friday dates (the tests' stand-in for the NYSE calendar; holidays do not matter here)."""
    out: list[date] = []
    day = first
    while len(out) < count:
        if day.weekday() < 5:
            out.append(day)
        day += timedelta(days=1)
    return out
