"""The feeds provider against a loopback HTTP server serving the recorded test feeds: the same headlines as
the recorded provider reads from the same files; a failing feed is skipped, all failing is an error; both
providers are found in the registry by name."""

from __future__ import annotations

import functools
import re
import shutil
import threading
from collections.abc import Iterator
from datetime import UTC, datetime
from http.server import SimpleHTTPRequestHandler, ThreadingHTTPServer
from pathlib import Path

import httpx
import pytest

from league.config import Config, load_config, shipped_config_dir
from league.news.feeds import USER_AGENT, FeedsSource
from league.news.interface import NewsError, NewsSource
from league.news.recorded import RecordedSource
from league.registry import NEWS

ASSETS = Path(__file__).resolve().parents[2] / "assets" / "news"
CUTOFF = datetime(2026, 6, 1, 13, 0, tzinfo=UTC)


class Handler(SimpleHTTPRequestHandler):
    """Serves the news assets; ``/moved`` redirects to the wire feed; remembers each request's User-Agent."""

    agents: list[str] = []

    def do_GET(self) -> None:  # noqa: N802 - the stdlib's name
        self.agents.append(self.headers.get("User-Agent", ""))
        if self.path == "/moved":
            self.send_response(301)
            self.send_header("Location", "/good/wire.xml")
            self.send_header("Content-Length", "0")
            self.end_headers()
            return
        super().do_GET()

    def log_message(self, format: str, *args: object) -> None:  # noqa: A002 - the stdlib's signature
        """Quiet: the test reads the outcome, not the access log."""


@pytest.fixture()
def base() -> Iterator[str]:
    """The loopback server's base URL (an ephemeral port), stopped after the test."""
    Handler.agents = []
    server = ThreadingHTTPServer(("127.0.0.1", 0), functools.partial(Handler, directory=str(ASSETS)))
    thread = threading.Thread(target=server.serve_forever, daemon=True)
    thread.start()
    try:
        yield f"http://127.0.0.1:{server.server_address[1]}"
    finally:
        server.shutdown()
        server.server_close()
        thread.join()


def test_fetched_feeds_give_the_same_headlines_as_the_recorded_files(base: str) -> None:
    source = FeedsSource([("desk", f"{base}/good/desk.xml"), ("wire", f"{base}/moved")], timeout_s=5)
    assert isinstance(source, NewsSource)
    fetched = source.headlines(CUTOFF)
    assert fetched == RecordedSource(ASSETS / "good").headlines(CUTOFF)
    assert len(fetched) == 4
    assert Handler.agents and all(agent == USER_AGENT for agent in Handler.agents)


def test_a_missing_feed_is_skipped(base: str) -> None:
    source = FeedsSource([("gone", f"{base}/good/absent.xml"), ("desk", f"{base}/good/desk.xml")], timeout_s=5)
    assert [h.source for h in source.headlines(CUTOFF)] == ["desk", "desk"]


def test_every_feed_failing_is_an_error(base: str) -> None:
    source = FeedsSource([("gone", f"{base}/good/absent.xml"), ("garbage", f"{base}/broken/garbage.xml"),
                          ("closed", "http://127.0.0.1:9/feed.xml")], timeout_s=5)
    with pytest.raises(NewsError, match="every news feed failed") as caught:
        source.headlines(CUTOFF)
    assert "HTTP 404" in caught.value.message and "garbage" in caught.value.message


def test_a_body_above_the_cap_is_refused(base: str, monkeypatch: pytest.MonkeyPatch) -> None:
    monkeypatch.setattr("league.news.feeds.MAX_FEED_BYTES", 100)
    source = FeedsSource([("desk", f"{base}/good/desk.xml")], timeout_s=5, client=httpx.Client(timeout=5))
    with pytest.raises(NewsError, match="more than 100 bytes"):
        source.headlines(CUTOFF)


def test_no_feed_at_all_is_refused() -> None:
    with pytest.raises(NewsError):
        FeedsSource([], timeout_s=5)


def league_with(tmp_path: Path, news: str) -> Config:
    folder = tmp_path / "config"
    shutil.copytree(shipped_config_dir(), folder)
    toml = folder / "league.toml"  # the shipped [news] table replaced by this test's
    text = re.sub(r"(?ms)^\[news\].*?(?=^\[)", "", toml.read_text(encoding="utf-8"))
    toml.write_text(text + "\n" + news, encoding="utf-8")
    return load_config(folder)


def test_the_registry_loads_both_providers_by_name(base: str, tmp_path: Path) -> None:
    recorded_config = league_with(tmp_path / "r", '[news]\nprovider = "recorded"\nrecorded_dir = "news"\n')
    shutil.copytree(ASSETS / "good", recorded_config.data_dir / "news")
    make_recorded = NEWS.load("recorded")
    assert callable(make_recorded)
    recorded = make_recorded(recorded_config)
    assert isinstance(recorded, RecordedSource)
    feeds_config = league_with(tmp_path / "f", f'[news]\nprovider = "feeds"\ntimeout_s = 5\n'
                                               f'[[news.feeds]]\nname = "desk"\nurl = "{base}/good/desk.xml"\n'
                                               f'[[news.feeds]]\nname = "wire"\nurl = "{base}/good/wire.xml"\n')
    make_feeds = NEWS.load("feeds")
    assert callable(make_feeds)
    feeds = make_feeds(feeds_config)
    assert isinstance(feeds, FeedsSource)
    assert feeds.headlines(CUTOFF) == recorded.headlines(CUTOFF)
