"""The real fetcher against a loopback HTTP server: what a record holds, and what is refused unread."""

from __future__ import annotations

import hashlib
import threading
from collections.abc import Iterator
from datetime import UTC, datetime
from http.server import BaseHTTPRequestHandler, ThreadingHTTPServer

import pytest

from league.clock import SimulatedClock
from league.sources.http import HttpFetcher, declared_published

PAGE = (b'<!doctype html><html><head><meta property="article:published_time" content="2026-11-23T12:30:00-05:00">'
        b"<title>x</title></head><body>Rates hold.</body></html>")
LD = (b'<html><head><script type="application/ld+json">{"@type":"NewsArticle","datePublished":"2026-11-22T08:00:00Z"}'
      b"</script></head><body></body></html>")
PAGES = {"/page": (200, PAGE, "text/html"), "/ld": (200, LD, "text/html; charset=utf-8"),
         "/plain": (200, b"just text", "text/plain"), "/big": (200, b"x" * 5000, "text/plain")}


class _Handler(BaseHTTPRequestHandler):
    def log_message(self, *args: object) -> None:
        return None

    def do_GET(self) -> None:  # noqa: N802 - http.server's naming
        if self.path == "/moved":
            self.send_response(302)
            self.send_header("Location", "/page")
            self.end_headers()
            return
        if self.path == "/loop":
            self.send_response(302)
            self.send_header("Location", "/loop")
            self.end_headers()
            return
        status, body, kind = PAGES.get(self.path, (404, b"no", "text/plain"))
        self.send_response(status)
        self.send_header("Content-Type", kind)
        self.send_header("Content-Length", str(len(body)))
        self.end_headers()
        self.wfile.write(body)


@pytest.fixture(scope="module")
def base() -> Iterator[str]:
    server = ThreadingHTTPServer(("127.0.0.1", 0), _Handler)
    thread = threading.Thread(target=server.serve_forever, daemon=True)
    thread.start()
    yield f"http://127.0.0.1:{server.server_address[1]}"
    server.shutdown()


CLOCK = SimulatedClock(datetime(2026, 11, 24, 15, 0, tzinfo=UTC))


def _fetcher(**kw: object) -> HttpFetcher:
    return HttpFetcher(CLOCK, timeout_s=5, allow_private=True, **kw)  # type: ignore[arg-type]


def test_a_page_is_recorded_with_its_hash_and_declared_time(base: str) -> None:
    r = _fetcher().fetch(f"{base}/page")
    assert (r.status, r.host, r.size, r.error) == (200, "127.0.0.1", len(PAGE), "")
    assert r.sha256 == hashlib.sha256(PAGE).hexdigest()
    assert r.declared_published == "2026-11-23T17:30:00Z"  # 12:30 at UTC-5
    assert r.fetched_at == "2026-11-24T15:00:00Z"


def test_redirects_are_followed_and_json_ld_read(base: str) -> None:
    moved = _fetcher().fetch(f"{base}/moved")
    assert moved.url == f"{base}/moved" and moved.sha256 == hashlib.sha256(PAGE).hexdigest()
    assert _fetcher().fetch(f"{base}/ld").declared_published == "2026-11-22T08:00:00Z"
    assert _fetcher().fetch(f"{base}/plain").declared_published is None
    loop = _fetcher().fetch(f"{base}/loop")
    assert loop.status is None and "redirects" in loop.error


def test_a_missing_page_is_a_record_of_its_status(base: str) -> None:
    r = _fetcher().fetch(f"{base}/gone")
    assert r.status == 404 and r.sha256 == hashlib.sha256(b"no").hexdigest()


def test_a_body_above_the_cap_is_not_hashed(base: str) -> None:
    r = _fetcher(max_bytes=1024).fetch(f"{base}/big")
    assert r.status == 200 and r.sha256 is None and "larger than 1024 bytes" in r.error


def test_private_addresses_credentials_and_other_schemes_are_refused_unfetched(base: str) -> None:
    strict = HttpFetcher(CLOCK, timeout_s=5)
    r = strict.fetch(f"{base}/page")
    assert r.status is None and r.sha256 is None and "non-public address (127.0.0.1)" in r.error
    metadata = HttpFetcher(CLOCK, timeout_s=5, resolver=lambda host, port: ["169.254.169.254"])
    assert "non-public address" in metadata.fetch("http://cloud.example/latest/meta-data").error
    assert "credentials" in _fetcher().fetch(f"http://user:pw@127.0.0.1:{base.rsplit(':', 1)[1]}/page").error
    assert "not an http(s) URL" in _fetcher().fetch("file:///etc/passwd").error
    public = HttpFetcher(CLOCK, timeout_s=5, resolver=lambda host, port: ["93.184.216.34"])
    assert public._refused("https://example.com/a") == ""  # a public address may be fetched


def test_declared_times_only_from_the_pages_own_markup() -> None:
    assert declared_published(b'<html><time datetime="2026-01-02">x</time></html>', "text/html") == \
        "2026-01-02T00:00:00Z"
    assert declared_published(b'<html><meta name="date" content="not a date"></html>', "text/html") is None
