"""Helpers for the crowd tests: recorded Gamma answers through httpx.MockTransport, a local CLOB stand-in."""

from __future__ import annotations

import json
import threading
from collections.abc import Callable, Iterator
from contextlib import contextmanager
from http.server import BaseHTTPRequestHandler, ThreadingHTTPServer
from pathlib import Path
from typing import Any
from urllib.parse import parse_qs, urlsplit

import httpx

ASSETS = Path(__file__).resolve().parents[2] / "assets" / "crowd"


def asset(name: str) -> Any:
    return json.loads((ASSETS / name).read_text())


class ClobStandIn(ThreadingHTTPServer):
    """Answers /midpoint and /book from clob_responses.json like the CLOB (404 for unknown tokens)."""

    def __init__(self) -> None:
        super().__init__(("127.0.0.1", 0), _ClobHandler)
        self.responses: dict[str, dict[str, Any]] = asset("clob_responses.json")
        self.requests: list[str] = []

    @property
    def url(self) -> str:
        return f"http://127.0.0.1:{self.server_address[1]}"


class _ClobHandler(BaseHTTPRequestHandler):
    server: ClobStandIn

    def do_GET(self) -> None:  # noqa: N802 (http.server's name)
        parts = urlsplit(self.path)
        self.server.requests.append(self.path)
        token = parse_qs(parts.query).get("token_id", [""])[0]
        body = self.server.responses.get(parts.path, {}).get(token)
        status = 200 if body is not None else 404
        if body is None:
            body = {"error": "No orderbook exists for the requested token id"}
        data = json.dumps(body).encode()
        self.send_response(status)
        self.send_header("Content-Type", "application/json")
        self.send_header("Content-Length", str(len(data)))
        self.end_headers()
        self.wfile.write(data)

    def log_message(self, format: str, *args: Any) -> None:  # noqa: A002
        return


@contextmanager
def running_clob() -> Iterator[ClobStandIn]:
    server = ClobStandIn()
    thread = threading.Thread(target=server.serve_forever, kwargs={"poll_interval": 0.02}, daemon=True)
    thread.start()
    try:
        yield server
    finally:
        server.shutdown()
        server.server_close()


Route = Callable[[httpx.Request], httpx.Response]


def gamma_client(routes: dict[str, Any], seen: list[httpx.Request]) -> httpx.Client:
    """An httpx client whose transport answers Gamma paths from ``routes`` (value: JSON body or callable)."""

    def handler(request: httpx.Request) -> httpx.Response:
        seen.append(request)
        answer = routes.get(request.url.path)
        if answer is None:
            return httpx.Response(404, json={"error": "not found"})
        if callable(answer):
            result: httpx.Response = answer(request)
            return result
        return httpx.Response(200, json=answer)

    return httpx.Client(transport=httpx.MockTransport(handler), base_url="https://gamma.test")
