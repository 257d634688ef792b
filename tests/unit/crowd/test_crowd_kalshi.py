"""Kalshi fallback: the ladder interpolation (hand-computed numbers), the adapter on recorded answers."""

from __future__ import annotations

from collections.abc import Sequence
from datetime import UTC, date, datetime

import httpx
import pytest
from crowd_standin import asset
from hypothesis import given
from hypothesis import strategies as st

from league.crowd.combined import CombinedCrowd
from league.crowd.interface import CrowdError, CrowdQuote
from league.crowd.kalshi import KalshiConfig, KalshiCrowd, above_previous_close

SESSION = date(2026, 11, 25)
NOW = datetime(2026, 11, 25, 13, 25, tzinfo=UTC)
LADDER = [(5850.0, 0.80), (5875.0, 0.60), (5900.0, 0.35)]


def test_interpolates_between_the_two_neighbouring_strikes() -> None:
    # 5880 is 5/25 of the way from 5875 to 5900: 0.60 + (0.35 - 0.60) * 0.2 = 0.55
    assert above_previous_close(LADDER, 5880.0) == pytest.approx(0.55)
    assert above_previous_close(list(reversed(LADDER)), 5880.0) == pytest.approx(0.55)


def test_on_a_strike_and_at_the_ends() -> None:
    assert above_previous_close(LADDER, 5875.0) == pytest.approx(0.60)
    assert above_previous_close(LADDER, 5850.0) == pytest.approx(0.80)
    assert above_previous_close(LADDER, 5900.0) == pytest.approx(0.35)


@pytest.mark.parametrize("level", [5849.99, 5900.5])
def test_outside_the_ladder_is_refused(level: float) -> None:
    with pytest.raises(CrowdError, match=r"outside the strike ladder \[5850.0, 5900.0\]"):
        above_previous_close(LADDER, level)


@pytest.mark.parametrize(
    ("ladder", "message"),
    [([(5850.0, 0.8)], "at least two strikes"), ([(1.0, 0.5), (1.0, 0.4)], "repeats a strike"),
     ([(1.0, 1.2), (2.0, 0.4)], r"in \[0, 1\]")],
)
def test_bad_ladders_are_refused(ladder: list[tuple[float, float]], message: str) -> None:
    with pytest.raises(CrowdError, match=message):
        above_previous_close(ladder, 1.5)


def _kalshi(events: dict[str, str], seen: list[str] | None = None, close: float = 5880.0) -> KalshiCrowd:
    def handler(request: httpx.Request) -> httpx.Response:
        ticker = request.url.params.get("event_ticker", "")
        (seen if seen is not None else []).append(ticker)
        name = events.get(ticker)
        return httpx.Response(200, json=asset(name) if name else {"cursor": "", "markets": []})

    config = KalshiConfig(base_url="https://kalshi.test/trade-api/v2", retry_wait_s=0)
    client = httpx.Client(transport=httpx.MockTransport(handler))
    return KalshiCrowd(lambda code, day: close, config, http=client)


def test_threshold_event_quote() -> None:
    [quote] = _kalshi({"KXINXU-26NOV25H1600": "kalshi_event_threshold.json"}).quotes(SESSION, ["SPX"], NOW)
    # 5875 rung: cents 58/62 -> 0.60; 5900 rung: no bid -> last 0.35; 5880 -> 0.55
    assert quote.price == pytest.approx(0.55)
    assert quote.contract_id == "KXINXU-26NOV25H1600" and quote.threshold == 5880.0
    assert quote.volume_usd == pytest.approx(2000 * 0.60 + 500 * 0.35) and quote.thin is False
    assert "5875" in quote.rules and "5900" in quote.rules and "5850 on" not in quote.rules


def test_range_buckets_become_cumulative_probabilities() -> None:
    series = KalshiConfig().series[0].model_copy(update={"event_ticker": "KXINX-{d:%y%b%d}H1600"})
    crowd = _kalshi({"KXINX-26NOV25H1600": "kalshi_event_buckets.json"})
    crowd._config = crowd._config.model_copy(update={"series": (series,)})
    [quote] = crowd.quotes(SESSION, ["SPX"], NOW)
    # P(above 5875) = 0.35 + 0.25 = 0.60, P(above 5900) = 0.25: 0.60 - 0.35 * 0.2 = 0.53
    assert quote.price == pytest.approx(0.53)


def test_no_event_means_no_quote_and_malformed_is_an_error() -> None:
    assert _kalshi({}).quotes(SESSION, ["SPX", "NDX", "GOLD"], NOW) == []
    with pytest.raises(CrowdError, match="lacks ticker"):
        _kalshi({"KXINXU-26NOV25H1600": "kalshi_event_malformed.json"}).quotes(SESSION, ["SPX"], NOW)


def test_close_outside_the_ladder_is_an_error() -> None:
    crowd = _kalshi({"KXINXU-26NOV25H1600": "kalshi_event_threshold.json"}, close=6000.0)
    with pytest.raises(CrowdError, match="outside the strike ladder"):
        crowd.quotes(SESSION, ["SPX"], NOW)


def _quote(threshold: float, venue: str = "kalshi") -> CrowdQuote:
    return CrowdQuote(session=SESSION, market="SPX", venue=venue, contract_id="KXINXU-26NOV25H1600",  # type: ignore[arg-type]
                      question="q", rules="r", side="above", price=0.5, bid=None, ask=None, volume_usd=10.0,
                      last_trade_at=None, read_at=NOW, threshold=threshold)


def test_resolution_by_settlement_value_or_results() -> None:
    open_, settled = _kalshi({"KXINXU-26NOV25H1600": "kalshi_event_threshold.json"}), \
        _kalshi({"KXINXU-26NOV25H1600": "kalshi_event_settled.json"})
    assert open_.resolution(_quote(5880.0)) is None
    assert settled.resolution(_quote(5880.0)) is True  # 5891.37 > 5880
    assert settled.resolution(_quote(5895.0)) is False
    by_results = _kalshi({"KXINXU-26NOV25H1600": "kalshi_event_settled_no_value.json"})
    assert by_results.resolution(_quote(5870.0)) is True  # the 5875 rung settled yes
    assert by_results.resolution(_quote(5900.0)) is False  # the 5900 rung settled no
    with pytest.raises(CrowdError, match="do not decide"):
        by_results.resolution(_quote(5880.0))


class _OnlySpx:
    venue = "polymarket"

    def __init__(self, fail: bool = False) -> None:
        self.fail = fail

    def quotes(self, session: date, markets: Sequence[str], now: datetime) -> list[CrowdQuote]:
        if self.fail:
            raise CrowdError("gamma down")
        return [_quote(0.0, "polymarket")] if "SPX" in markets else []

    def resolution(self, quote: CrowdQuote) -> bool | None:
        return True

    def price_at(self, quote: CrowdQuote, minute: datetime) -> float | None:
        return None


def test_combined_asks_the_fallback_only_for_uncovered_markets() -> None:
    seen: list[str] = []
    kalshi = _kalshi({"KXNASDAQ100U-26NOV25H1600": "kalshi_event_threshold.json"}, seen)
    quotes = CombinedCrowd(_OnlySpx(), kalshi).quotes(SESSION, ["SPX", "NDX"], NOW)
    assert [(q.market, q.venue) for q in quotes] == [("SPX", "polymarket"), ("NDX", "kalshi")]
    assert seen == ["KXNASDAQ100U-26NOV25H1600"]


def test_combined_falls_back_when_primary_fails_and_dispatches_resolution() -> None:
    seen: list[str] = []
    kalshi = _kalshi({"KXINXU-26NOV25H1600": "kalshi_event_settled.json"}, seen)
    combined = CombinedCrowd(_OnlySpx(fail=True), kalshi)
    assert [q.venue for q in combined.quotes(SESSION, ["SPX"], NOW)] == ["kalshi"]
    assert combined.resolution(_quote(5880.0, "polymarket")) is True
    assert combined.resolution(_quote(5895.0, "kalshi")) is False
    with pytest.raises(CrowdError, match="no provider"):
        combined.resolution(_quote(1.0, "recorded"))


@given(
    st.lists(st.tuples(st.integers(0, 10_000), st.floats(0, 1)), min_size=2, max_size=8, unique_by=lambda t: t[0]),
    st.floats(0, 1),
)
def test_interpolation_stays_between_the_neighbours(rungs: list[tuple[int, float]], where: float) -> None:
    ladder = [(float(s), p) for s, p in rungs]
    low, high = min(s for s, _ in ladder), max(s for s, _ in ladder)
    level = low + (high - low) * where
    value = above_previous_close(ladder, level)
    below = max((r for r in ladder if r[0] <= level), key=lambda r: r[0])
    above = min((r for r in ladder if r[0] >= level), key=lambda r: r[0])
    assert min(below[1], above[1]) - 1e-12 <= value <= max(below[1], above[1]) + 1e-12
