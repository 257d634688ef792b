"""The morning snapshot: previous-session rows before the open, live rows, no future bars, failures."""

from __future__ import annotations

import hashlib
import json
from datetime import UTC, date, datetime

import pytest

from league.calendar import Calendar
from league.config import MarketSpec
from league.jobs.snapshot import SnapshotRow, take_snapshot
from league.prices.interface import Bar, ProviderOutage
from league.prices.replay import SyntheticMarket


def Z(*args: int) -> datetime:
    return datetime(*args, tzinfo=UTC)  # type: ignore[misc]


PREMARKET = Z(2026, 11, 27, 13, 25)  # 08:25 ET on the early-close Friday after Thanksgiving


def test_before_the_open(markets: tuple[MarketSpec, ...], replay: SyntheticMarket, cal: Calendar) -> None:
    snap = take_snapshot(markets, replay, cal, PREMARKET)
    assert snap.session == date(2026, 11, 27) and len(snap.rows) == 12
    spx = snap.row("SPX")
    assert spx.status == "previous_session"
    assert spx.price == replay.daily_ohlc("^GSPC", date(2026, 11, 25))[3]  # type: ignore[index]
    assert spx.previous_close == replay.daily_ohlc("^GSPC", date(2026, 11, 24))[3]  # type: ignore[index]
    assert spx.price_at == "2026-11-25T21:00:00Z" and spx.premarket_change_pct is None
    assert snap.row("TNX").status == "previous_session" and snap.row("VIX").status == "previous_session"
    oil = snap.row("WTI")
    assert oil.status == "live" and oil.price_at == "2026-11-27T13:25:00Z"
    wti_close = replay.daily_ohlc("CL=F", date(2026, 11, 25))[3]  # type: ignore[index]
    assert oil.premarket_change_pct == pytest.approx(round((oil.price / wti_close - 1) * 100, 4))  # type: ignore[operator]
    assert snap.row("BTC").status == "live" and snap.row("BTC").premarket_change_pct is not None
    assert snap.row("DXY").status == "live" and snap.row("DXY").premarket_change_pct is None
    assert spx.low_52w is not None and spx.high_52w is not None and spx.low_52w <= spx.price <= spx.high_52w


def test_only_completed_bars_are_read(markets: tuple[MarketSpec, ...], replay: SyntheticMarket, cal: Calendar) -> None:
    now = Z(2026, 11, 25, 15, 25, 30)
    spx = take_snapshot(markets[:1], replay, cal, now).row("SPX")
    bars = replay.bars("^GSPC", Z(2026, 11, 25, 15, 24), Z(2026, 11, 25, 15, 26))
    assert spx.status == "live" and spx.price == bars[0].close  # the 15:24 bar; 15:25 is still forming
    assert spx.price_at == "2026-11-25T15:25:00Z"


def test_hash_is_sha256_of_canonical_json(
    markets: tuple[MarketSpec, ...], replay: SyntheticMarket, cal: Calendar
) -> None:
    a = take_snapshot(markets, replay, cal, PREMARKET)
    b = take_snapshot(markets, replay, cal, PREMARKET)
    assert a.sha256 == b.sha256
    text = json.dumps(a.as_json(), sort_keys=True, separators=(",", ":"), ensure_ascii=False)
    assert a.sha256 == hashlib.sha256(text.encode()).hexdigest()
    assert a.canonical_json() == text and " " not in text.replace("S&P", "")


def test_failing_market_is_unavailable_never_guessed(
    markets: tuple[MarketSpec, ...], replay: SyntheticMarket, cal: Calendar
) -> None:
    class HalfDown:
        name = "half_down"

        def bars(self, symbol: str, start: datetime, end: datetime) -> list[Bar]:
            if symbol == "CL=F":
                raise ProviderOutage("rate limited (test)")
            return replay.bars(symbol, start, end)

        def daily_closes(self, symbol: str, start: date, end: date) -> list[tuple[date, float]]:
            if symbol == "^GSPC":
                raise ProviderOutage("daily endpoint down (test)")
            return replay.daily_closes(symbol, start, end)

    snap = take_snapshot(markets, HalfDown(), cal, PREMARKET)
    for code, text in (("WTI", "rate limited"), ("SPX", "daily endpoint down")):
        row = snap.row(code)
        assert row.status == "unavailable" and row.price is None and text in (row.error or "")
    assert snap.row("NDX").status == "previous_session"
    with pytest.raises(ValueError):
        SnapshotRow("X", "X", "unavailable", price=1.0)


def test_provider_without_daily_closes(markets: tuple[MarketSpec, ...], replay: SyntheticMarket, cal: Calendar) -> None:
    class BarsOnly:
        name = "bars_only"

        def bars(self, symbol: str, start: datetime, end: datetime) -> list[Bar]:
            return replay.bars(symbol, start, end)

    row = take_snapshot(markets[:1], BarsOnly(), cal, PREMARKET).row("SPX")
    assert row.status == "previous_session"
    assert row.price == replay.daily_ohlc("^GSPC", date(2026, 11, 25))[3]  # type: ignore[index]
    assert row.range_days is not None and row.range_days < 40  # only the sessions it could read
