"""HTTP abuse (issue 11, item 11; docs/hostile-inputs.md): over-long paths are a clear 404, not a
500; a client that never finishes its headers is disconnected; the stream's catch-up reads the
book off the event loop."""

from __future__ import annotations

import asyncio
import socket
import time
from collections.abc import Iterator
from pathlib import Path

import httpx
import pytest
from api_server import Running, serve, stop
from season_fixture import write_season

from league.api.bookindex import BookIndex
from league.publish import publish


@pytest.fixture(scope="module")
def quick(tmp_path_factory: pytest.TempPathFactory) -> Iterator[Running]:
    """The published fixture season behind a server whose header deadline is half a second."""
    season = write_season(tmp_path_factory.mktemp("hostile-api") / "data")
    publish(season.data)
    base, server, thread = serve(season.data, header_timeout=0.5)
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
