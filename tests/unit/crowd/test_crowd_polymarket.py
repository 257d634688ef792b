"""Polymarket adapter against recorded Gamma answers (httpx.MockTransport) and a local CLOB stand-in.

The CLOB side runs the REAL py-clob-client ``ClobClient`` pointed at an http.server on 127.0.0.1.
"""

from __future__ import annotations

from datetime import UTC, date, datetime

import httpx
import pytest
from crowd_standin import ClobStandIn, asset, gamma_client

from league.crowd.interface import CrowdError, CrowdQuote
from league.crowd.polymarket import PolymarketConfig, PolymarketCrowd, PolymarketRule, newest_trade_time

SESSION = date(2026, 11, 25)
NOW = datetime(2026, 11, 25, 13, 25, tzinfo=UTC)


def _crowd(clob: ClobStandIn, routes: dict[str, object], seen: list[httpx.Request]) -> PolymarketCrowd:
    config = PolymarketConfig(gamma_url="https://gamma.test", clob_url=clob.url, attempts=2, retry_wait_s=0)
    return PolymarketCrowd(config, http=gamma_client(routes, seen))


def _listed(clob: ClobStandIn, markets: list[str]) -> tuple[list[CrowdQuote], list[httpx.Request]]:
    seen: list[httpx.Request] = []
    crowd = _crowd(clob, {"/markets": asset("gamma_markets_2026-11-25.json")}, seen)
    return crowd.quotes(SESSION, markets, NOW), seen


def test_matching_picks_the_daily_question_with_most_volume(clob: ClobStandIn) -> None:
    quotes, _ = _listed(clob, ["SPX", "BTC", "NDX", "VIX"])
    assert [(q.market, q.contract_id) for q in quotes] == [("SPX", "501"), ("BTC", "601")]
    assert quotes[1].question == "Bitcoin Up or Down on November 25?"  # not the 9AM hourly question


def test_listing_query_uses_the_documented_filters(clob: ClobStandIn) -> None:
    _, seen = _listed(clob, ["SPX"])
    params = dict(seen[0].url.params)
    assert params["active"] == "true" and params["closed"] == "false"
    assert params["end_date_min"] == "2026-11-25T05:00:00Z"  # midnight New York (EST) in UTC
    assert params["end_date_max"] == "2026-11-26T05:00:00Z"
    assert params["limit"] == "500" and params["offset"] == "0"


def test_price_from_midpoint_and_book_extremes_regardless_of_order(clob: ClobStandIn) -> None:
    spx = _listed(clob, ["SPX"])[0][0]
    assert (spx.price, spx.bid, spx.ask) == (0.545, 0.54, 0.55)
    assert spx.side == "Up" and spx.token_id == "71001" and spx.venue == "polymarket"
    assert spx.volume_usd == 25000.0 and spx.thin is False
    assert "resolve to \"Up\"" in spx.rules
    assert any(r.startswith("/midpoint?token_id=71001") for r in clob.requests)


def test_thin_volume_and_last_trade_when_no_midpoint(clob: ClobStandIn) -> None:
    btc = _listed(clob, ["BTC"])[0][0]
    assert btc.thin is True and btc.volume_usd == 640.0
    assert (btc.price, btc.bid, btc.ask) == (0.61, None, None)


def test_malformed_token_list_is_a_clear_error(clob: ClobStandIn) -> None:
    crowd = _crowd(clob, {"/markets": asset("gamma_markets_malformed_tokens.json")}, [])
    with pytest.raises(CrowdError, match=r"id '601'.*clobTokenIds is not valid JSON"):
        crowd.quotes(SESSION, ["SPX"], NOW)


def test_listing_that_is_not_a_list_is_a_clear_error(clob: ClobStandIn) -> None:
    crowd = _crowd(clob, {"/markets": asset("gamma_markets_not_a_list.json")}, [])
    with pytest.raises(CrowdError, match="returned dict, expected a list"):
        crowd.quotes(SESSION, ["SPX"], NOW)


def test_missing_field_names_the_field(clob: ClobStandIn) -> None:
    broken = asset("gamma_markets_2026-11-25.json")
    del broken[0]["endDate"]
    crowd = _crowd(clob, {"/markets": broken}, [])
    with pytest.raises(CrowdError, match="field 'endDate' is missing"):
        crowd.quotes(SESSION, ["SPX"], NOW)


def test_closed_market_resolves_on_its_side(clob: ClobStandIn) -> None:
    routes = {"/markets": asset("gamma_markets_2026-11-25.json"),
              "/markets/501": asset("gamma_market_501_closed.json"),
              "/markets/601": asset("gamma_market_601_open.json")}
    crowd = _crowd(clob, routes, [])
    spx, btc = crowd.quotes(SESSION, ["SPX", "BTC"], NOW)
    assert crowd.resolution(spx) is True
    assert crowd.resolution(btc) is None  # still open


def test_down_side_of_a_closed_market_is_false(clob: ClobStandIn) -> None:
    rule = PolymarketRule(code="SPX", terms=("(spx)",), slug_prefix="spx-up-or-down-on-", up_outcome="Down")
    config = PolymarketConfig(gamma_url="https://gamma.test", clob_url=clob.url, rules=(rule,), retry_wait_s=0)
    routes = {"/markets/501": asset("gamma_market_501_closed.json")}
    quote = CrowdQuote(session=SESSION, market="SPX", venue="polymarket", contract_id="501", question="q",
                       rules="r", side="Down", price=0.4, bid=None, ask=None, volume_usd=5.0,
                       last_trade_at=None, read_at=NOW)
    assert PolymarketCrowd(config, http=gamma_client(routes, [])).resolution(quote) is False


def test_transport_errors_are_retried_then_succeed(clob: ClobStandIn) -> None:
    calls: list[int] = []

    def flaky(request: httpx.Request) -> httpx.Response:
        calls.append(1)
        if len(calls) == 1:
            raise httpx.ConnectError("connection refused", request=request)
        return httpx.Response(200, json=asset("gamma_markets_2026-11-25.json"))

    quotes = _crowd(clob, {"/markets": flaky}, []).quotes(SESSION, ["SPX"], NOW)
    assert len(calls) == 2 and quotes[0].contract_id == "501"


def test_http_error_status_is_not_retried(clob: ClobStandIn) -> None:
    seen: list[httpx.Request] = []
    crowd = _crowd(clob, {"/markets": lambda r: httpx.Response(500, text="boom")}, seen)
    with pytest.raises(CrowdError, match="HTTP 500"):
        crowd.quotes(SESSION, ["SPX"], NOW)
    assert len(seen) == 1


def test_unreachable_clob_becomes_crowd_error_after_bounded_retries(clob: ClobStandIn) -> None:
    clob.shutdown()
    clob.server_close()  # nothing listens on the port any more
    with pytest.raises(CrowdError, match="CLOB get_midpoint"):
        _listed(clob, ["SPX"])


def test_no_rule_for_market_asks_nothing(clob: ClobStandIn) -> None:
    quotes, seen = _listed(clob, ["VIX", "COPPER"])
    assert quotes == [] and seen == []


def test_last_trade_time_from_the_data_api(clob: ClobStandIn) -> None:
    spx_condition = "0x" + "501".rjust(64, "0")

    def trades(request: httpx.Request) -> httpx.Response:
        mine = request.url.params.get("market") == spx_condition
        return httpx.Response(200, json=asset("data_trades_501.json") if mine else [])

    routes = {"/markets": asset("gamma_markets_2026-11-25.json"), "/trades": trades}
    spx, btc = _crowd(clob, routes, []).quotes(SESSION, ["SPX", "BTC"], NOW)
    assert spx.last_trade_at == datetime(2026, 11, 25, 12, 58, 1, tzinfo=UTC)  # epoch 1795611481
    assert btc.last_trade_at is None  # no trade in the answer


def test_trade_time_shapes() -> None:
    assert newest_trade_time({"data": [{"timestamp": 1795611481000}, {"timestamp": 1795611400000}]}) == \
        datetime(2026, 11, 25, 12, 58, 1, tzinfo=UTC)  # milliseconds in an envelope
    with pytest.raises(CrowdError, match="not a list"):
        newest_trade_time({"error": "x"})
    with pytest.raises(CrowdError, match="not a number"):
        newest_trade_time([{"timestamp": "soon"}])


def test_volume_string_is_read_when_volume_num_is_absent(clob: ClobStandIn) -> None:
    listing = asset("gamma_markets_2026-11-25.json")
    del listing[0]["volumeNum"]
    listing[0]["volume"] = "25000.5"
    quote = _crowd(clob, {"/markets": listing}, []).quotes(SESSION, ["SPX"], NOW)[0]
    assert quote.volume_usd == 25000.5
