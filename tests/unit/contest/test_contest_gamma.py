"""The live market source against recorded Gamma answers and a local CLOB stand-in on loopback.

Books go through the REAL py-clob-client ``ClobClient`` pointed at an http.server on 127.0.0.1.
"""

from __future__ import annotations

import json
import threading
from collections.abc import Iterator
from datetime import UTC, datetime
from http.server import BaseHTTPRequestHandler, ThreadingHTTPServer
from pathlib import Path
from typing import Any
from urllib.parse import parse_qs, urlsplit

import httpx
import pytest

from league.contest.config import Venue
from league.contest.markets.gamma import GammaSource, parse_market, winner_of
from league.contest.markets.interface import MarketSourceError

ASSETS = Path(__file__).resolve().parents[2] / "assets" / "contest"
NOW = datetime(2026, 12, 7, 6, 0, tzinfo=UTC)


def asset(name: str) -> Any:
    return json.loads((ASSETS / name).read_text())


class _Clob(BaseHTTPRequestHandler):
    server: Any

    def do_GET(self) -> None:  # noqa: N802
        parts = urlsplit(self.path)
        token = parse_qs(parts.query).get("token_id", [""])[0]
        body = asset("clob_books.json").get(parts.path, {}).get(token)
        data = json.dumps(body if body is not None else {"error": "No orderbook exists"}).encode()
        self.send_response(200 if body is not None else 404)
        self.send_header("Content-Type", "application/json")
        self.send_header("Content-Length", str(len(data)))
        self.end_headers()
        self.wfile.write(data)

    def log_message(self, format: str, *args: Any) -> None:  # noqa: A002
        return


@pytest.fixture()
def clob_url() -> Iterator[str]:
    server = ThreadingHTTPServer(("127.0.0.1", 0), _Clob)
    thread = threading.Thread(target=server.serve_forever, kwargs={"poll_interval": 0.02}, daemon=True)
    thread.start()
    yield f"http://127.0.0.1:{server.server_address[1]}"
    server.shutdown()
    server.server_close()


def source(routes: dict[str, Any], seen: list[httpx.Request], clob: str = "http://127.0.0.1:9") -> GammaSource:
    def handler(request: httpx.Request) -> httpx.Response:
        seen.append(request)
        answer = routes.get(request.url.path)
        return httpx.Response(404, json={}) if answer is None else httpx.Response(200, json=answer)

    venue = Venue(gamma_url="https://gamma.test", clob_url=clob, attempts=2, retry_wait_s=0, page_size=10)
    return GammaSource(venue, http=httpx.Client(transport=httpx.MockTransport(handler)))


def test_listing_reads_outcomes_prices_volume_comments_tags_and_end() -> None:
    seen: list[httpx.Request] = []
    markets = source({"/markets": asset("gamma_markets.json")}, seen).open_markets(NOW, 7)
    assert [m.id for m in markets] == ["7001", "7002", "7003"]  # the broken item is left out, not fatal
    okc, btc, film = markets
    assert okc.outcomes == ("Thunder", "Hawks") and okc.prices == (0.655, 0.345)
    assert okc.token_ids == ("8001", "8002") and okc.volume_24h == 15230.5 and okc.comment_count == 42
    assert okc.tags == ("sports", "nba") and okc.end == datetime(2026, 12, 8, 23, tzinfo=UTC)
    assert btc.comment_count == 7 and btc.tags == ("crypto",) and btc.category == "crypto"  # from its event
    assert btc.volume_24h == 820.0 and len(film.outcomes) == 3


def test_listing_query_uses_the_documented_filters() -> None:
    seen: list[httpx.Request] = []
    source({"/markets": []}, seen).open_markets(NOW, 7)
    params = dict(seen[0].url.params)
    assert params["active"] == "true" and params["closed"] == "false" and params["include_tag"] == "true"
    assert params["end_date_min"] == "2026-12-07T06:00:00Z" and params["end_date_max"] == "2026-12-14T06:00:00Z"
    assert params["limit"] == "10" and params["offset"] == "0"


def test_books_through_py_clob_client_on_loopback(clob_url: str) -> None:
    src = source({}, [], clob_url)
    okc = src.book("8001")
    assert okc.best_bid == 0.65 and okc.best_ask == 0.66 and okc.mid == pytest.approx(0.655)  # order not trusted
    assert okc.last_trade == 0.65 and okc.tick_size == 0.01 and len(okc.asks) == 2
    missing = src.book("9999")  # 404: no live book -> empty, which eligibility refuses
    assert missing.bids == () and missing.asks == ()


def test_resolution_from_the_settled_listing() -> None:
    src = source({"/markets/7001": asset("gamma_market_7001_closed.json"),
                  "/markets/7002": asset("gamma_market_7002_closed_unsettled.json")}, [])
    assert src.resolution("7001") == "Thunder"
    assert src.resolution("7002") is None  # closed at 0.5/0.5: not settled, asked again later
    assert winner_of(parse_market(asset("gamma_markets.json")[0], "x")) is None  # still open


def test_history_from_the_clob() -> None:
    seen: list[httpx.Request] = []
    src = source({"/prices-history": asset("prices_history_8001.json")}, seen)
    assert src.history("8001") == [(1796600000, 0.61), (1796603600, 0.63)]
    assert dict(seen[0].url.params)["market"] == "8001"


def test_http_errors_become_market_source_errors() -> None:
    with pytest.raises(MarketSourceError, match="HTTP 404"):
        source({}, []).market("1")
    with pytest.raises(MarketSourceError, match="expected a list"):
        source({"/markets": {"error": "x"}}, []).open_markets(NOW, 7)


def test_transport_errors_are_retried_a_bounded_number_of_times() -> None:
    calls = []

    def handler(request: httpx.Request) -> httpx.Response:
        calls.append(request)
        raise httpx.ConnectError("refused", request=request)

    venue = Venue(gamma_url="https://gamma.test", attempts=3, retry_wait_s=0)
    src = GammaSource(venue, http=httpx.Client(transport=httpx.MockTransport(handler)))
    with pytest.raises(MarketSourceError, match="transport error"):
        src.market("1")
    assert len(calls) == 3


def test_malformed_items_are_refused_with_the_field() -> None:
    with pytest.raises(MarketSourceError, match="clobTokenIds"):
        parse_market({"id": "1", "question": "q", "outcomes": "[\"a\",\"b\"]", "endDate": "2026-12-08T00:00:00Z"}, "x")
    with pytest.raises(MarketSourceError, match="do not line up"):
        parse_market(asset("gamma_markets.json")[3], "x")
