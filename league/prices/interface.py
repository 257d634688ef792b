"""The price port: one record (:class:`Bar`), one provider protocol, one base exception.

Everything downstream (references, terminals, draw bands, snapshots) reads bars through
:class:`PriceProvider`, so the live Yahoo adapter, the cache and the offline replay are
interchangeable. A provider that cannot answer RAISES; it never returns a guessed or stale bar,
because a cell is better left unresolved than scored against a made-up price.
"""

from __future__ import annotations

import math
from collections.abc import Mapping
from dataclasses import dataclass
from datetime import UTC, date, datetime
from typing import Protocol, runtime_checkable

from league.errors import LeagueError
from league.jsonvalue import Json, JsonObject, as_float


class PriceError(LeagueError):
    """A price could not be obtained or a bar is invalid (base exception of the price port)."""


class ProviderOutage(PriceError):
    """The provider did not answer after bounded retries (network, rate limit, service down)."""


def _aware_utc(value: datetime) -> datetime:
    if value.tzinfo is None or value.utcoffset() is None:
        raise PriceError(f"bar start {value!r} is naive", fix="bars carry timezone-aware UTC starts")
    return value.astimezone(UTC)


@dataclass(frozen=True, slots=True)
class Bar:
    """One 1-minute bar; ``start`` is the bar's START (aware UTC), as Yahoo timestamps bars."""

    start: datetime
    open: float
    high: float
    low: float
    close: float
    volume: float = 0.0

    def __post_init__(self) -> None:
        if self.start.tzinfo is not UTC:
            object.__setattr__(self, "start", _aware_utc(self.start))
        # One chained comparison covers positivity, finiteness (NaN and inf fail it) and the
        # high/low bracket; the slow path below only runs to explain a failure.
        ok = 0.0 < self.low <= self.open <= self.high < math.inf and self.low <= self.close <= self.high
        if not (ok and 0.0 <= self.volume < math.inf):
            self._explain()

    def _explain(self) -> None:
        prices = (self.open, self.high, self.low, self.close)
        when = self.start.isoformat()
        if not all(math.isfinite(p) and p > 0 for p in prices):
            raise PriceError(f"bar {when}: prices must be finite and positive: {prices}")
        if not (math.isfinite(self.volume) and self.volume >= 0):
            raise PriceError(f"bar {when}: volume must be >= 0, got {self.volume}")
        raise PriceError(f"bar {when}: high/low do not bracket open/close: {prices}")

    def as_json(self) -> JsonObject:
        """The cache line of docs/data-folder.md: ``t`` is the START in UTC with seconds."""
        return {
            "t": self.start.strftime("%Y-%m-%dT%H:%M:%SZ"),
            "o": self.open,
            "h": self.high,
            "l": self.low,
            "c": self.close,
            "v": self.volume,
        }

    @classmethod
    def from_json(cls, obj: Mapping[str, Json]) -> Bar:
        try:
            start = datetime.fromisoformat(str(obj["t"]).replace("Z", "+00:00"))
            o, h, lo, c, v = (as_float(obj[k]) for k in ("o", "h", "l", "c", "v"))
            return cls(start, o, h, lo, c, v)
        except (KeyError, TypeError, ValueError) as exc:
            raise PriceError(f"not a bar record: {obj!r} ({exc})") from exc


@runtime_checkable
class PriceProvider(Protocol):
    """Source of 1-minute bars."""

    name: str

    def bars(self, symbol: str, start: datetime, end: datetime) -> list[Bar]:
        """Bars whose start lies in ``[start, end)``, oldest first; raises PriceError on failure."""
        ...


@runtime_checkable
class DailyCloses(Protocol):
    """Optional capability: daily closes without fetching a year of minutes (52-week ranges)."""

    def daily_closes(self, symbol: str, start: date, end: date) -> list[tuple[date, float]]:
        """(day, close) for each trading day with start <= day <= end, oldest first."""
        ...


@runtime_checkable
class PriceSource(PriceProvider, DailyCloses, Protocol):
    """What a league reads prices from: minute bars and daily closes (the composition root builds one)."""


def check_window(start: datetime, end: datetime) -> tuple[datetime, datetime]:
    """Validate a ``[start, end)`` request window and return it in UTC."""
    start, end = _aware_utc(start), _aware_utc(end)
    if end < start:
        raise PriceError(f"bad window: end {end.isoformat()} before start {start.isoformat()}")
    return start, end
