"""Small bridges between the exchange calendar and event contracts."""

from __future__ import annotations

from datetime import date, datetime, time
from typing import Any
from zoneinfo import ZoneInfo

from league.config import MarketSpec
from league.contracts import EventContract

ET = ZoneInfo("America/New_York")


def et_time(day: date, at: time) -> datetime:
    """``at`` o'clock New York time on ``day`` as an aware datetime (DST handled by zoneinfo)."""
    return datetime.combine(day, at, tzinfo=ET)


def event_contract(calendar: Any, market: MarketSpec, session: date, horizon: str,
                   seal_time: datetime | None) -> EventContract:
    """The contract of one market × horizon event; bitcoin and late lines pass their seal time."""
    reference_at, end_at = calendar.event_times(market, session, horizon, seal_time)
    return EventContract.make(asset=market.code, horizon=horizon, reference_at=reference_at, end_at=end_at,
                              reference_rule=market.reference_rule, price_provider=market.provider,
                              price_symbol=market.symbol)
