"""HTTP abuse (docs/hostile-inputs.md): over-long paths are a clear 404, not a
500; a client that never finishes its headers is disconnected; the stream's catch-up reads the
book off the event loop; no error body of any route echoes more than 300 characters of what was sent."""

from __future__ import annotations

import asyncio
import re
import socket
import time
from collections.abc import Iterator
from pathlib import Path
from typing import Any

import httpx
import pytest
from api_server import Running, serve, stop
from fastapi import FastAPI
from fastapi.routing import APIRoute
from season_fixture import write_season
from uvicorn.protocols.http.h11_impl import H11Protocol
from uvicorn.protocols.http.httptools_impl import HttpToolsProtocol

from league.api.bookindex import BookIndex
from league.publish import publish


@pytest.fixture(scope="module", params=[H11Protocol, HttpToolsProtocol], ids=["h11", "httptools"])
def quick(tmp_path_factory: pytest.TempPathFactory, request: pytest.FixtureRequest) -> Iterator[Running]:
    """The published fixture season behind a server whose header deadline is half a second, with either of
    uvicorn's HTTP implementations (`league serve` runs httptools)."""
    season = write_season(tmp_path_factory.mktemp("hostile-api") / "data")
    publish(season.data)
    base, server, thread = serve(season.data, header_timeout=0.5, protocol=request.param)
    try:
        yield Running(base, season, server, thread)
    finally:
        stop(server, thread)


@pytest.mark.parametrize("path", ["/" + "a" * 300, "/x/" * 5000 + "y", "/asks/" + "é" * 200 + ".txt"])
def test_overlong_paths_are_a_404_with_a_short_error(quick: Running, path: str) -> None:
    resp = httpx.get(quick.base + path, timeout=20)
    assert resp.status_code == 404
    body = resp.json()
    assert "no published name is that long" in body["error"] and len(body["error"]) < 300


def _half_sent(base: str) -> socket.socket:
    host, port = base.removeprefix("http://").split(":")
    sock = socket.create_connection((host, int(port)), timeout=10)
    sock.sendall(b"GET /api/league HTTP/1.1\r\nHost: x\r\nX-Slow: ")  # the headers never end
    return sock


def test_half_sent_requests_are_disconnected(quick: Running) -> None:
    socks = [_half_sent(quick.base) for _ in range(50)]
    try:
        closed = 0
        for sock in socks:
            sock.settimeout(10)
            try:
                closed += sock.recv(1024) == b""  # the server closed it
            except (ConnectionResetError, TimeoutError):
                closed += 0
        assert closed == len(socks)
        assert httpx.get(quick.base + "/api/league", timeout=20).status_code == 200  # others are served
    finally:
        for sock in socks:
            sock.close()


def test_a_long_stream_is_not_cut_by_the_header_deadline(quick: Running) -> None:
    with httpx.Client(timeout=httpx.Timeout(20, read=30)) as c, c.stream(
            "GET", f"{quick.base}/api/stream", params={"from": 1, "follow": "true"}) as resp:
        assert resp.status_code == 200
        lines = resp.iter_lines()
        next(lines)
        time.sleep(1.5)  # three header deadlines later the response is still being read
        assert next(lines)


def test_stream_catch_up_reads_the_book_off_the_event_loop(quick: Running,
                                                           monkeypatch: pytest.MonkeyPatch) -> None:
    on_loop: list[str] = []
    real = BookIndex.raw_lines

    def watched(self: BookIndex, first: int, last: int) -> list[bytes]:
        try:
            asyncio.get_running_loop()
            on_loop.append(f"{first}-{last}")  # a blocking read in the thread that serves every request
        except RuntimeError:
            pass
        return real(self, first, last)

    monkeypatch.setattr(BookIndex, "raw_lines", watched)
    resp = httpx.get(f"{quick.base}/api/stream", params={"from": 1, "follow": "false"}, timeout=20)
    assert resp.status_code == 200 and resp.text.count("\n") >= 10
    assert on_loop == []


def test_the_shipped_app_keeps_the_path_out_of_the_log(quick: Running, capsys: pytest.CaptureFixture[str],
                                                       tmp_path: Path) -> None:
    resp = httpx.get(quick.base + "/" + "b" * 4000, timeout=20)
    assert resp.status_code == 404
    assert "b" * 300 not in capsys.readouterr().err


LONG = "x" * 5000
#: An error body's text fields, and the whole body: what docs/open-data.md promises.
MAX_FIELD, MAX_BODY = 300, 1024


def _hostile_requests(app: FastAPI) -> list[tuple[str, str, Any]]:
    """Every route of the app (found from the app itself, so a route added later is covered too): each path
    parameter and each query parameter given 5,000 characters, each number 4,000 digits, a hundred long
    kinds at once, and a method the route does not have."""
    out: list[tuple[str, str, Any]] = []
    for route in app.routes:
        if not isinstance(route, APIRoute):
            continue
        path = re.sub(r"\{[^}]+\}", LONG, route.path)
        digits = re.sub(r"\{[^}]+\}", "9" * 4000, route.path)
        out += [("GET", path, None), ("GET", digits, None), ("DELETE", path, None)]
        for param in route.dependant.query_params:
            out += [("GET", path, {param.alias: LONG}), ("GET", path, {param.alias: "9" * 4000})]
            if param.alias == "kind":
                out.append(("GET", path, [("kind", f"{i:03d}" + "k" * 100) for i in range(100)]))
    return out


def test_no_error_body_echoes_more_than_300_characters(quick: Running) -> None:
    """Before: /api/seats/<5,000 x> answered a 5 KB body quoting the whole name; so did runs, sessions,
    kinds (a hundred of them: 10 KB), page files and a 4,000-digit line number."""
    app = quick.server.config.app
    checked = []
    with httpx.Client(timeout=20) as client:
        for method, path, params in _hostile_requests(app):
            resp = client.request(method, quick.base + path, params=params)
            if resp.status_code < 400:
                continue
            where = f"{method} {path[:60]} {str(params)[:60]} -> {resp.status_code}"
            assert len(resp.content) <= MAX_BODY, f"{where}: {len(resp.content)} bytes"
            body = resp.json()
            assert set(body) == {"error", "fix"}, where
            assert len(body["error"]) <= MAX_FIELD and len(body["fix"] or "") <= MAX_FIELD, where
            checked.append(where)
    assert len(checked) >= 30, checked
    assert any(w.startswith("GET /api/seats/") for w in checked)
    assert any(w.startswith("DELETE") and w.endswith("405") for w in checked)
