"""A requests transport adapter that answers yfinance's HTTPS calls from recorded chart-v8 payloads.

yfinance accepts a ``requests.Session``; mounting this adapter on it keeps yfinance's whole real
path (cookie/crumb dance, URL and parameters, JSON parsing, time-zone handling, NaN rows) and only
replaces the wire. It records every request so tests can count attempts.
"""

from __future__ import annotations

import json
from pathlib import Path
from urllib.parse import parse_qs, urlparse

import requests
from requests.adapters import BaseAdapter

ASSETS = Path(__file__).resolve().parents[2] / "assets" / "prices"


class RecordedYahoo(BaseAdapter):
    def __init__(self, *, status: int = 200, fail_first: int = 0) -> None:
        super().__init__()
        self.status = status
        self.fail_first = fail_first
        self.calls: list[str] = []

    def _payload(self, path: str, query: dict[str, list[str]]) -> bytes:
        interval = query.get("interval", ["1d"])[0]
        name = "chart_v8_GSPC_1m_2026-11-27.json" if interval == "1m" else "chart_v8_GSPC_1d.json"
        return (ASSETS / name).read_bytes()

    def send(self, request, **kwargs):  # type: ignore[no-untyped-def]
        url = urlparse(request.url)
        self.calls.append(url.path)
        resp = requests.Response()
        resp.url = request.url
        resp.request = request
        chart = url.path.startswith("/v8/finance/chart/")
        if chart and (self.fail_first > 0 or self.status != 200):
            self.fail_first -= 1
            resp.status_code = self.status if self.status != 200 else 429
            resp._content = b"Too Many Requests"
            return resp
        resp.status_code = 200
        if chart:
            resp._content = self._payload(url.path, parse_qs(url.query))
            resp.headers["Content-Type"] = "application/json"
        elif "getcrumb" in url.path:
            resp._content = b"recordedcrumb"
        else:
            resp._content = b"ok"
        return resp

    def close(self) -> None:
        pass


def session_with(adapter: RecordedYahoo) -> requests.Session:
    s = requests.Session()
    s.mount("https://", adapter)
    s.mount("http://", adapter)
    return s


def load(name: str) -> dict:
    return json.loads((ASSETS / name).read_text())
