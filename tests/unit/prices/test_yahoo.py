"""The Yahoo adapter on recorded chart-v8 payloads, through yfinance's real request and parsing path."""

from __future__ import annotations

from datetime import UTC, date, datetime, timedelta

import pytest

pytest.importorskip("yfinance")

from yahoo_standin import RecordedYahoo, load, session_with  # noqa: E402

from league.prices.interface import PriceError, ProviderOutage  # noqa: E402
from league.prices.yahoo import YahooProvider  # noqa: E402


def Z(*args: int) -> datetime:
    return datetime(*args, tzinfo=UTC)  # type: ignore[misc]


def provider(adapter: RecordedYahoo, retries: int = 2) -> YahooProvider:
    return YahooProvider(session=session_with(adapter), wait_seconds=0.0, retries=retries)


def test_recorded_minutes_parse_into_bars() -> None:
    adapter = RecordedYahoo()
    bars = provider(adapter).bars("^GSPC", Z(2026, 11, 27, 14, 30), Z(2026, 11, 27, 18, 0))
    assert len(bars) == 209  # 210 minutes, one all-null minute dropped
    assert bars[0].start == Z(2026, 11, 27, 14, 30)
    assert bars[0].open == 6812.6100000001 and bars[0].close == 6812.61 and bars[0].volume == 0
    assert Z(2026, 11, 27, 15, 12) not in {b.start for b in bars}
    assert bars[-1].start == Z(2026, 11, 27, 17, 59) and bars[-1].close == 6829.03
    assert all(b.start.tzinfo is UTC for b in bars)
    assert any(c.startswith("/v8/finance/chart/") for c in adapter.calls)


def test_window_is_half_open() -> None:
    bars = provider(RecordedYahoo()).bars("^GSPC", Z(2026, 11, 27, 15, 0), Z(2026, 11, 27, 15, 3))
    assert [b.start for b in bars] == [Z(2026, 11, 27, 15, 0), Z(2026, 11, 27, 15, 1), Z(2026, 11, 27, 15, 2)]


def test_payload_is_a_chart_v8_shape() -> None:
    payload = load("chart_v8_GSPC_1m_2026-11-27.json")["chart"]["result"][0]
    assert payload["meta"]["exchangeTimezoneName"] == "America/New_York"
    assert len(payload["timestamp"]) == 210


def test_rate_limit_is_retried_then_reported_as_outage() -> None:
    adapter = RecordedYahoo(status=429)
    with pytest.raises(ProviderOutage, match="3 attempts"):
        provider(adapter, retries=2).bars("^DJI", Z(2026, 11, 24, 14, 30), Z(2026, 11, 24, 15, 0))
    chart_calls = [c for c in adapter.calls if c.startswith("/v8/finance/chart/")]
    assert len(chart_calls) == 6  # 3 attempts; yfinance itself retries once with its other cookie strategy


def test_transient_failure_then_success() -> None:
    adapter = RecordedYahoo(fail_first=2)  # one attempt's two requests fail, the next attempt succeeds
    bars = provider(adapter, retries=2).bars("^NDX", Z(2026, 11, 27, 14, 30), Z(2026, 11, 27, 14, 35))
    assert len(bars) == 5


def test_server_refusal_is_a_price_error_not_an_outage() -> None:
    class NotFound(RecordedYahoo):
        def _payload(self, path, query):  # type: ignore[no-untyped-def]
            return (b'{"chart":{"result":null,"error":{"code":"Not Found",'
                    b'"description":"No data found, symbol may be delisted"}}}')

    with pytest.raises(PriceError) as info:
        provider(NotFound()).bars("^NOPE", Z(2026, 11, 27, 14, 30), Z(2026, 11, 27, 15, 0))
    assert not isinstance(info.value, ProviderOutage)


def test_daily_closes_from_recorded_payload() -> None:
    closes = provider(RecordedYahoo()).daily_closes("^GSPC", date(2026, 11, 20), date(2026, 11, 27))
    assert closes == [(date(2026, 11, 20), 6734.11), (date(2026, 11, 23), 6705.12), (date(2026, 11, 24), 6766.48),
                      (date(2026, 11, 25), 6812.61), (date(2026, 11, 27), 6849.09)]


def test_long_windows_are_cut_into_week_requests() -> None:
    from league.prices.yahoo import chunks

    pieces = chunks(Z(2026, 11, 1), Z(2026, 11, 20), timedelta(days=7))
    assert pieces == [(Z(2026, 11, 1), Z(2026, 11, 8)), (Z(2026, 11, 8), Z(2026, 11, 15)),
                      (Z(2026, 11, 15), Z(2026, 11, 20))]
    assert chunks(Z(2026, 11, 1), Z(2026, 11, 1), timedelta(days=7)) == []
    adapter = RecordedYahoo()
    bars = provider(adapter).bars("^RUT", Z(2026, 11, 13), Z(2026, 11, 28))  # 15 days -> 3 requests
    assert len(bars) == 209  # the recorded day falls in the last piece only
    assert len([c for c in adapter.calls if c.startswith("/v8/finance/chart/")]) >= 3
