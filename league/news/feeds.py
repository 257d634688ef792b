"""The ``feeds`` news provider: the operator's RSS and Atom feeds, fetched over HTTP at packet time.

A feed that fails (unreachable, an error status, too large, unreadable) is logged and left out, so that one
publisher's outage does not cost the arm its packet; when every feed fails there is nothing to show and the
source says so. What was fetched is sealed in the packet itself, so a later rebuild reads the packet, not
the feeds.
"""

from __future__ import annotations

from collections.abc import Sequence
from datetime import datetime

import httpx
import structlog

from league.config import Config
from league.news.interface import Headline, NewsError, aware_utc
from league.news.parse import MAX_FEED_BYTES, parse_feed

log = structlog.get_logger(__name__)
#: Names the project to the publisher, whose logs then show who reads its feed and why.
USER_AGENT = "forecast-league (news packets for the closed-book arm)"


class FeedsSource:
    """Fetches each ``(name, url)`` feed with one HTTP client; headlines are named after the feed."""

    name = "feeds"

    def __init__(self, feeds: Sequence[tuple[str, str]], timeout_s: float, client: httpx.Client | None = None) -> None:
        if not feeds:
            raise NewsError("news provider feeds: no feed to read", fix="list at least one [[news.feeds]] name and url")
        self._feeds = tuple(feeds)
        self._client = client or httpx.Client(timeout=timeout_s)

    def _fetch(self, name: str, url: str) -> bytes:
        """The feed's body, read no further than the size cap (a feed that never ends is refused, not read)."""
        try:
            with self._client.stream("GET", url, follow_redirects=True, headers={"User-Agent": USER_AGENT}) as resp:
                if resp.status_code != 200:
                    raise NewsError(f"news feed {name!r}: HTTP {resp.status_code} from {url}")
                body = bytearray()
                for chunk in resp.iter_bytes():
                    body.extend(chunk)
                    if len(body) > MAX_FEED_BYTES:
                        raise NewsError(f"news feed {name!r}: more than {MAX_FEED_BYTES} bytes from {url}")
                return bytes(body)
        except httpx.HTTPError as exc:
            raise NewsError(f"news feed {name!r}: {exc!r} from {url}", fix="check the network and the url") from exc

    def headlines(self, cutoff: datetime) -> list[Headline]:
        """Every feed's headlines, feed by feed in the configured order; ``cutoff`` is left to the packet."""
        aware_utc(cutoff, "cutoff")
        found: list[Headline] = []
        failed: list[str] = []
        for name, url in self._feeds:
            try:
                items, skipped = parse_feed(name, self._fetch(name, url))
            except NewsError as exc:
                log.warning("news feed skipped", feed=name, url=url, error=exc.message)
                failed.append(exc.message)
                continue
            for reason in skipped:
                log.info("news entry skipped", feed=name, reason=reason)
            found.extend(items)
        if len(failed) == len(self._feeds):
            raise NewsError(f"every news feed failed: {'; '.join(failed)}",
                            fix="check the network and the [[news.feeds]] urls")
        return found


def from_config(config: Config) -> FeedsSource:
    """The ``feeds`` news provider (entry point ``forecast_league.news``): ``[[news.feeds]]`` and ``timeout_s``."""
    news = config.settings.news
    return FeedsSource([(feed.name, feed.url) for feed in news.feeds], news.timeout_s)
