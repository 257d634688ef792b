"""The 13-week Treasury bill rate series that cash earns (configured, replayed offline).

The engine never fetches a rate: the operator configures a series (a constant, or dated points such
as the Treasury's published auction results recorded into a file) and the same series replays a season
exactly. A rate applies from its date until the next point.
"""

from __future__ import annotations

import bisect
import json
from collections.abc import Mapping
from dataclasses import dataclass
from datetime import date
from decimal import Decimal, InvalidOperation

from league.jsonvalue import Json
from league.portfolio.interface import PortfolioError


@dataclass(frozen=True)
class BillRates:
    """Annual percentage rates keyed by the date from which each applies (sorted, non-empty)."""

    dates: tuple[date, ...]
    rates: tuple[Decimal, ...]
    source: str = "configured"

    def __post_init__(self) -> None:
        if not self.dates or len(self.dates) != len(self.rates):
            raise PortfolioError("a bill-rate series needs at least one (date, rate) point")
        if list(self.dates) != sorted(set(self.dates)):
            raise PortfolioError("bill-rate dates must be strictly increasing")
        if any(not (Decimal(-5) <= r <= Decimal(30)) for r in self.rates):
            raise PortfolioError("a bill rate outside -5%..30% is surely a unit error (give percent, e.g. 4.25)")

    @classmethod
    def constant(cls, rate_pct: str | Decimal) -> BillRates:
        return cls(dates=(date(1900, 1, 1),), rates=(Decimal(str(rate_pct)),), source=f"constant {rate_pct}%")

    @classmethod
    def from_points(cls, points: Mapping[date, str | Decimal], source: str = "recorded") -> BillRates:
        items = sorted(points.items())
        return cls(dates=tuple(d for d, _ in items), rates=tuple(Decimal(str(r)) for _, r in items), source=source)

    @classmethod
    def from_json(cls, text: str, source: str = "recorded") -> BillRates:
        """``{"2026-01-02": "3.60", ...}`` — the recorded-series file format."""
        try:
            raw: Json = json.loads(text)
            if not isinstance(raw, dict):
                raise TypeError(f"expected an object, got {type(raw).__name__}")
            points = {date.fromisoformat(k): Decimal(str(v)) for k, v in raw.items()}
        except (ValueError, TypeError, InvalidOperation) as exc:
            raise PortfolioError(f"bill-rate series is not a JSON object of date -> percent: {exc}") from exc
        return cls.from_points(points, source=source)

    def rate_on(self, day: date) -> Decimal:
        """The rate in force on ``day`` (the last point at or before it; the first point before that)."""
        i = bisect.bisect_right(self.dates, day) - 1
        return self.rates[max(i, 0)]
