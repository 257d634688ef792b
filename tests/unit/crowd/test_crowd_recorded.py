"""The quote record, the recorded replay (golden and broken files) and the seeded synthetic crowd."""

from __future__ import annotations

from datetime import UTC, date, datetime, timedelta

import pytest
from crowd_standin import ASSETS

from league.crowd.interface import CrowdError, CrowdProvider, CrowdQuote
from league.crowd.recorded import RecordedCrowd, SyntheticCrowd

NOW = datetime(2026, 11, 25, 13, 25, tzinfo=UTC)
SESSION = date(2026, 11, 25)
RECORDED = ASSETS / "recorded"
TWELVE = ["SPX", "NDX", "DJI", "SOX", "TNX", "DXY", "VIX", "GOLD", "WTI", "BRENT", "COPPER", "BTC"]


def _q(**changes: object) -> CrowdQuote:
    base: dict[str, object] = dict(session=SESSION, market="SPX", venue="polymarket", contract_id="501",
                                   question="q?", rules="rules", side="Up", price=0.5, bid=0.49, ask=0.51,
                                   volume_usd=1000.0, last_trade_at=None, read_at=NOW)
    base.update(changes)
    return CrowdQuote(**base)  # type: ignore[arg-type]


def test_thin_is_below_one_thousand_dollars() -> None:
    assert _q(volume_usd=1000.0).thin is False
    assert _q(volume_usd=999.99).thin is True


@pytest.mark.parametrize(
    ("changes", "message"),
    [({"price": 1.01}, "price must be a probability"), ({"price": float("nan")}, "price must be"),
     ({"bid": 0.6, "ask": 0.5}, "bid 0.6 above ask 0.5"), ({"volume_usd": -1.0}, "volume_usd must be >= 0"),
     ({"read_at": datetime(2026, 11, 25, 13, 25)}, "naive"),  # noqa: DTZ001 (the point of the test)
     ({"venue": "betfair"}, "venue must be one of"), ({"rules": " "}, "rules must be a non-empty string")],
)
def test_invalid_quotes_are_refused(changes: dict[str, object], message: str) -> None:
    with pytest.raises(CrowdError, match=message):
        _q(**changes)


def test_json_round_trip_and_ask_view_hides_price() -> None:
    quote = _q(last_trade_at=NOW - timedelta(minutes=3), token_id="71001")
    assert CrowdQuote.from_json(quote.as_json()) == quote
    assert quote.as_json()["read_at"] == "2026-11-25T13:25:00Z"
    shown = quote.for_ask()
    assert shown["rules"] == "rules" and not {"price", "bid", "ask", "volume_usd", "thin"} & set(shown)


def test_recorded_replays_the_golden_file() -> None:
    crowd = RecordedCrowd(RECORDED)
    assert isinstance(crowd, CrowdProvider)
    spx, btc = crowd.quotes(SESSION, TWELVE, NOW)
    assert (spx.market, spx.price, spx.thin) == ("SPX", 0.545, False)
    assert (btc.market, btc.thin, btc.last_trade_at) == ("BTC", True, datetime(2026, 11, 25, 12, 58, 10, tzinfo=UTC))
    assert [q.market for q in crowd.quotes(SESSION, ["BTC"], NOW)] == ["BTC"]
    assert crowd.resolution(spx) is True and crowd.resolution(btc) is None


def test_recorded_missing_day_is_empty() -> None:
    assert RecordedCrowd(RECORDED).quotes(date(2026, 11, 20), TWELVE, NOW) == []


def test_recorded_broken_files_are_clear_errors() -> None:
    crowd = RecordedCrowd(RECORDED)
    with pytest.raises(CrowdError, match=r"2026-11-24.json item 1: .*price must be a probability"):
        crowd.quotes(date(2026, 11, 24), TWELVE, NOW)
    with pytest.raises(CrowdError, match="2026-11-23.json is not JSON"):
        crowd.quotes(date(2026, 11, 23), TWELVE, NOW)
    with pytest.raises(CrowdError, match="must map to true, false or null"):
        crowd.resolution(_q(session=date(2026, 11, 24)))


def _resolver(market: str, day: date) -> bool | None:
    return None if market == "BTC" else market < "M"


def test_synthetic_is_seeded_and_covers_at_most_eight() -> None:
    a = SyntheticCrowd(7, _resolver).quotes(SESSION, TWELVE, NOW)
    b = SyntheticCrowd(7, _resolver).quotes(SESSION, TWELVE, NOW)
    other = SyntheticCrowd(8, _resolver).quotes(SESSION, TWELVE, NOW)
    assert a == b and a != other
    assert 0 < len(a) <= 8 and {q.market for q in a} <= set(TWELVE)
    assert SyntheticCrowd(7, _resolver).quotes(SESSION, ["GOLD"], NOW)[0] == next(q for q in a if q.market == "GOLD")


def test_synthetic_quotes_are_plausible_over_a_season() -> None:
    crowd = SyntheticCrowd(3, _resolver)
    quotes = [q for i in range(60) for q in crowd.quotes(SESSION + timedelta(days=i), TWELVE, NOW)]
    assert all(0.05 <= q.price <= 0.95 and q.bid is not None and q.ask is not None for q in quotes)
    assert all(q.bid <= q.price <= q.ask for q in quotes if q.bid is not None and q.ask is not None)
    assert 0.4 < sum(q.price for q in quotes) / len(quotes) < 0.6
    thin = sum(q.thin for q in quotes) / len(quotes)
    assert 0.05 < thin < 0.6  # some thin, most not
    assert all(q.last_trade_at is not None and q.last_trade_at < NOW for q in quotes)


def test_synthetic_resolution_comes_from_the_resolver() -> None:
    crowd = SyntheticCrowd(7, _resolver)
    by_market = {q.market: q for q in crowd.quotes(SESSION, TWELVE, NOW)}
    assert crowd.resolution(by_market["GOLD"]) is True
    assert crowd.resolution(by_market["WTI"]) is False
    assert crowd.resolution(by_market["BTC"]) is None
    with pytest.raises(CrowdError, match="at most 8"):
        SyntheticCrowd(1, _resolver, TWELVE)
