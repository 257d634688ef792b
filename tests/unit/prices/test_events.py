"""Fetching references/terminals/bands through a provider: failures leave cells unresolved and reported."""

from __future__ import annotations

from datetime import UTC, date, datetime

from league.calendar import Calendar
from league.config import MarketSpec
from league.prices.events import event_prices, fetch_reference
from league.prices.interface import Bar, ProviderOutage
from league.prices.replay import SyntheticMarket


def Z(*args: int) -> datetime:
    return datetime(*args, tzinfo=UTC)  # type: ignore[misc]


class Raising:
    name = "raising"

    def bars(self, symbol: str, start: datetime, end: datetime) -> list[Bar]:
        raise ProviderOutage("yahoo down (test)")


class Empty:
    name = "empty"

    def bars(self, symbol: str, start: datetime, end: datetime) -> list[Bar]:
        return []


def test_provider_raising_leaves_event_unresolved_and_reported(cal: Calendar, by_code: dict[str, MarketSpec]) -> None:
    ev = event_prices(Raising(), cal, by_code["SPX"], date(2026, 11, 25), "1d")
    assert ev.reference is None and ev.terminal is None and ev.band is None
    assert ev.resolution.up is None and ev.resolution.change_pct is None
    assert any("yahoo down (test)" in e for e in ev.errors)


def test_empty_bar_set_is_unresolved(cal: Calendar, by_code: dict[str, MarketSpec]) -> None:
    ev = event_prices(Empty(), cal, by_code["SPX"], date(2026, 11, 25), "1d")
    assert not ev.resolution.resolved
    assert any("no bar" in e for e in ev.errors)


def test_replay_event_resolves_on_the_days_open_and_close(
    cal: Calendar, by_code: dict[str, MarketSpec], replay: SyntheticMarket
) -> None:
    ev = event_prices(replay, cal, by_code["SPX"], date(2026, 11, 27), "1d")
    o, _, _, c = replay.daily_ohlc("^GSPC", date(2026, 11, 27))  # type: ignore[misc]
    assert ev.reference is not None and ev.reference.price == o and ev.reference.bar_start == Z(2026, 11, 27, 14, 30)
    assert ev.terminal is not None and ev.terminal.price == c and ev.terminal.bar_start == Z(2026, 11, 27, 17, 59)
    assert ev.band is not None and ev.band.n_sessions == 4 and ev.errors == ()
    assert ev.resolution.up is (c > o)


def test_bitcoin_reference_bar_starts_after_seal(
    cal: Calendar, by_code: dict[str, MarketSpec], replay: SyntheticMarket
) -> None:
    seal = Z(2026, 11, 25, 13, 41, 17)
    got = fetch_reference(replay, cal, by_code["BTC"], seal)
    assert got.value is not None and got.value.bar_start == Z(2026, 11, 25, 13, 42) and got.value.field == "close"


def test_missing_end_session_does_not_fall_back_to_yesterday(
    cal: Calendar, by_code: dict[str, MarketSpec], replay: SyntheticMarket
) -> None:
    class Gap:
        name = "gap"

        def bars(self, symbol: str, start: datetime, end: datetime) -> list[Bar]:
            return [b for b in replay.bars(symbol, start, end) if b.start.date() != date(2026, 11, 25)]

    ev = event_prices(Gap(), cal, by_code["TNX"], date(2026, 11, 19), "1w")  # ends 2026-11-25 15:00 ET
    assert ev.end_at == Z(2026, 11, 25, 20, 0)
    assert ev.reference is not None and ev.terminal is None and not ev.resolution.resolved
    assert any("no bar at/before" in e for e in ev.errors)
