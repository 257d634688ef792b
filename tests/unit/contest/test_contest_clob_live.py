"""The live order path: REAL py-clob-client-v2 signing and posting a FAK buy to a CLOB stand-in on loopback."""

from __future__ import annotations

import base64
import importlib.util
import json
import subprocess
import sys
import threading
from collections.abc import Iterator
from http.server import BaseHTTPRequestHandler, ThreadingHTTPServer
from typing import Any

import pytest
from contest_helpers import book, market

from league.contest.config import Venue
from league.contest.context import broker_for
from league.contest.markets.clob_live import LiveClobBroker, fill_from
from league.contest.markets.orders import OrderError, PaperBroker

if importlib.util.find_spec("py_clob_client_v2") is None:  # importorskip would import it (and py_ecc) as is
    pytest.skip("extra polymarket-live not installed", allow_module_level=True)

KEY = "0x" + "4c" * 32
MARKET = market(token_ids=("71001", "71002"))  # a throwaway test key; nothing leaves 127.0.0.1


class Clob(ThreadingHTTPServer):
    def __init__(self) -> None:
        super().__init__(("127.0.0.1", 0), Handler)
        self.seen: list[tuple[str, str, dict[str, str], Any]] = []
        self.answer: dict[str, Any] = {"success": True, "orderID": "0xabc", "status": "matched",
                                       "makingAmount": "99.5", "takingAmount": "216.3", "transactionsHashes": ["0x1"]}


class Handler(BaseHTTPRequestHandler):
    server: Clob

    def _send(self, body: Any, status: int = 200) -> None:
        data = json.dumps(body).encode()
        self.send_response(status)
        self.send_header("Content-Type", "application/json")
        self.send_header("Content-Length", str(len(data)))
        self.end_headers()
        self.wfile.write(data)

    def _route(self, method: str) -> None:
        length = int(self.headers.get("Content-Length") or 0)
        body = json.loads(self.rfile.read(length)) if length else None
        self.server.seen.append((method, self.path, dict(self.headers), body))
        path = self.path.split("?")[0]
        if path == "/auth/api-key":
            secret = base64.urlsafe_b64encode(b"s" * 32).decode()
            return self._send({"apiKey": "k-1", "secret": secret, "passphrase": "p"})
        if path.startswith("/markets-by-token/"):
            return self._send({"condition_id": "0x" + "0" * 63 + "1"})
        if path.startswith("/clob-markets/"):
            return self._send({"t": [{"t": "71001"}, {"t": "71002"}], "mts": 0.01, "nr": False, "fd": {}})
        if path == "/version":
            return self._send({"version": 2})
        if path == "/order":
            return self._send(self.server.answer)
        return self._send({"error": f"stand-in has no {path}"}, 404)

    def do_GET(self) -> None:  # noqa: N802
        self._route("GET")

    def do_POST(self) -> None:  # noqa: N802
        self._route("POST")

    def log_message(self, format: str, *args: Any) -> None:  # noqa: A002
        return


@pytest.fixture()
def clob() -> Iterator[Clob]:
    server = Clob()
    thread = threading.Thread(target=server.serve_forever, kwargs={"poll_interval": 0.02}, daemon=True)
    thread.start()
    yield server
    server.shutdown()
    server.server_close()


def venue(clob: Clob, live: bool = True) -> Venue:
    return Venue(clob_url=f"http://127.0.0.1:{clob.server_address[1]}", live_trading=live)


def test_live_trading_is_off_unless_the_operator_turns_it_on(clob: Clob) -> None:
    assert isinstance(broker_for(venue(clob, live=False)), PaperBroker)
    with pytest.raises(OrderError, match="live trading is off"):
        LiveClobBroker(venue(clob, live=False), key=KEY)
    with pytest.raises(OrderError, match="wallet key"):
        LiveClobBroker(Venue(live_trading=True, key_env="LEAGUE_TEST_NO_SUCH_KEY"))


def test_a_signed_fak_buy_is_posted_and_its_fill_read(clob: Clob) -> None:
    broker = LiveClobBroker(venue(clob), key=KEY)
    fill = broker.buy_ioc(MARKET, "Yes", book(), 0.46, 100.0, "r1-claude")
    assert (fill.shares, fill.spent, fill.order_id) == (216.3, 99.5, "0xabc")
    method, path, headers, body = next(s for s in clob.seen if s[1] == "/order")
    assert method == "POST" and body["orderType"] == "FAK" and body["order"]["side"] == "BUY"
    assert body["order"]["tokenId"] == "71001" and body["order"]["signature"].startswith("0x")
    assert headers.get("POLY_API_KEY") == "k-1"  # level-2 auth from the derived credentials


def test_a_refused_order_is_an_order_error(clob: Clob) -> None:
    clob.answer = {"success": False, "errorMsg": "not enough balance / allowance"}
    broker = LiveClobBroker(venue(clob), key=KEY)
    with pytest.raises(OrderError, match="not enough balance"):
        broker.buy_ioc(MARKET, "Yes", book(), 0.46, 100.0, "r1-claude")


KEEPS_LIMIT = """
import sys
from league.contest.config import Venue
from league.contest.markets.clob_live import LiveClobBroker
before = sys.getrecursionlimit()
LiveClobBroker(Venue(clob_url=sys.argv[1], live_trading=True), key=sys.argv[2])
print(before, sys.getrecursionlimit(), "py_ecc" in sys.modules)
"""


def test_building_the_live_broker_keeps_the_recursion_limit(clob: Clob) -> None:
    """In a fresh interpreter, where the broker imports the client (and py_ecc) for the first time."""
    done = subprocess.run([sys.executable, "-c", KEEPS_LIMIT, venue(clob).clob_url, KEY], capture_output=True,
                          text=True, timeout=120, check=True)
    before, after, py_ecc = done.stdout.split()
    assert py_ecc == "True"  # the client did import py_ecc, which raises the limit to 100,000 on import
    assert after == before  # ... and the league's limit is back (a raised one overflows the C stack instead)


def test_fill_answer_parsing() -> None:
    assert not fill_from({"success": True, "orderID": "x", "makingAmount": "0", "takingAmount": "0"}, 0.5).filled
    with pytest.raises(OrderError):
        fill_from("oops", 0.5)
