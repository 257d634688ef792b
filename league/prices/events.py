"""Fetch-and-resolve helpers: the I/O side of :mod:`league.prices.reference`.

Each helper asks a provider for exactly the bars one rule needs, applies the pure rule, and turns
a provider failure into ``None`` plus a reported error string. The day job calls these: a failure
leaves the cell unresolved and lands in the score line's errors, never an invented price.
"""

from __future__ import annotations

from collections.abc import Sequence
from dataclasses import dataclass, field
from datetime import date, datetime, timedelta
from typing import Generic, TypeVar

import structlog

from league.calendar import Calendar, et_date
from league.config import MarketSpec
from league.prices.interface import Bar, PriceError, PriceProvider
from league.prices.reference import (
    DrawBand,
    PricePoint,
    Resolution,
    daily_reference,
    draw_band,
    resolve,
    seal_reference,
    terminal_price,
    within,
)

log = structlog.get_logger(__name__)
LOOKBACK_24X7 = timedelta(hours=1)
T = TypeVar("T")


@dataclass(frozen=True)
class Fetched(Generic[T]):
    """A value or None, with the errors met on the way (empty when all went well)."""

    value: T | None
    errors: tuple[str, ...] = ()


@dataclass(frozen=True)
class EventPrices:
    """Everything a score line needs about one market's event."""

    market: str
    reference_at: datetime
    end_at: datetime
    reference: PricePoint | None
    terminal: PricePoint | None
    band: DrawBand | None
    resolution: Resolution
    errors: tuple[str, ...] = field(default=())


def _bars(provider: PriceProvider, symbol: str, start: datetime, end: datetime) -> tuple[list[Bar], list[str]]:
    try:
        return provider.bars(symbol, start, end), []
    except PriceError as exc:
        log.warning("prices.fetch_failed", symbol=symbol, provider=provider.name, error=exc.message)
        return [], [f"{provider.name} {symbol} {start.isoformat()}..{end.isoformat()}: {exc.message}"]


def fetch_reference(
    provider: PriceProvider, calendar: Calendar, market: MarketSpec, reference_at: datetime
) -> Fetched[PricePoint]:
    """Daily markets: open of the first bar at/after 09:30 ET within that session.
    Bitcoin: close of the first bar at/after the seal second, within the next hour."""
    if market.daily:
        session = et_date(reference_at)
        close = calendar.session_close(session)
        bars, errors = _bars(provider, market.symbol, reference_at, close)
        point = daily_reference(bars, reference_at, until=close)
    else:
        until = reference_at + LOOKBACK_24X7
        bars, errors = _bars(provider, market.symbol, reference_at, until)
        point = seal_reference(bars, reference_at, until=until)
    if point is None and not errors:
        errors = [f"{market.code}: no bar at/after {reference_at.isoformat()}"]
    return Fetched(point, tuple(errors))


def fetch_terminal(
    provider: PriceProvider, calendar: Calendar, market: MarketSpec, end_at: datetime
) -> Fetched[PricePoint]:
    """Close of the last bar at/before ``end_at``, taken from the end day only (no stale close)."""
    day = et_date(end_at)
    since = calendar.session_open(day) if market.daily else end_at - LOOKBACK_24X7
    bars, errors = _bars(provider, market.symbol, since, end_at + timedelta(minutes=1))
    point = terminal_price(bars, end_at, since=since)
    if point is None and not errors:
        errors = [f"{market.code}: no bar at/before {end_at.isoformat()} on {day}"]
    return Fetched(point, tuple(errors))


def fetch_draw_band(
    provider: PriceProvider,
    calendar: Calendar,
    market: MarketSpec,
    session: date,
    *,
    k: float = 0.1,
    rolls: Sequence[datetime] = (),
) -> Fetched[DrawBand]:
    """The band from the regular-session bars of the four sessions before ``session``."""
    per_session = []
    errors: list[str] = []
    for day in calendar.sessions_before(session, 4):
        lo, hi = calendar.session_open(day), calendar.session_close(day)
        bars, errs = _bars(provider, market.symbol, lo, hi)
        per_session.append(within(bars, lo, hi))
        errors.extend(errs)
    band = draw_band(per_session, k, rolls=rolls)
    if band is None and not errors:
        errors = [f"{market.code}: too few bars in the four sessions before {session} for a draw band"]
    return Fetched(band, tuple(errors))


def event_prices(
    provider: PriceProvider,
    calendar: Calendar,
    market: MarketSpec,
    session: date,
    horizon: str,
    *,
    seal_time: datetime | None = None,
    k: float = 0.1,
    rolls: Sequence[datetime] = (),
) -> EventPrices:
    """Reference, terminal, band and outcome of one event; unresolved parts carry their errors."""
    reference_at, end_at = calendar.event_times(market, session, horizon, seal_time)
    ref = fetch_reference(provider, calendar, market, reference_at)
    term = fetch_terminal(provider, calendar, market, end_at)
    band = fetch_draw_band(provider, calendar, market, session, k=k, rolls=rolls)
    return EventPrices(
        market.code, reference_at, end_at, ref.value, term.value, band.value,
        resolve(ref.value, term.value, band.value), ref.errors + term.errors + band.errors,
    )
