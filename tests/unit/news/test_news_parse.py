"""RSS 2.0 and Atom feed documents to headlines; what cannot be a headline is skipped and reported."""

from __future__ import annotations

from datetime import UTC, datetime
from pathlib import Path

import pytest

from league.news.interface import Headline, NewsError
from league.news.parse import MAX_FEED_BYTES, parse_feed

ASSETS = Path(__file__).resolve().parents[2] / "assets" / "news"


def test_rss_items_are_read_and_the_unusable_ones_reported() -> None:
    items, skipped = parse_feed("wire", (ASSETS / "good" / "wire.xml").read_bytes())
    assert items == [
        Headline(source="wire", title="Central bank holds rates steady", link="https://example.com/2026/06/01/rates",
                 published=datetime(2026, 6, 1, 12, 30, tzinfo=UTC)),
        # +0200 in the feed; its entity decoded and its line breaks collapsed
        Headline(source="wire", title="Oil & gas rally continues", link="https://example.com/2026/06/01/oil",
                 published=datetime(2026, 6, 1, 6, 0, tzinfo=UTC)),
    ]
    assert skipped == ["wire entry 3: no link", "wire entry 4: no published or updated time",
                       "wire entry 5: no title"]


def test_atom_entries_take_published_else_updated() -> None:
    items, skipped = parse_feed("desk", (ASSETS / "good" / "desk.xml").read_bytes())
    assert [(h.title, h.link, h.published) for h in items] == [
        ("Chip stocks climb", "https://example.org/chips", datetime(2026, 6, 1, 12, 30, tzinfo=UTC)),
        ("Café prices — up 5%", "https://example.org/cafe", datetime(2026, 5, 31, 22, 15, tzinfo=UTC)),
    ]
    assert skipped == []


@pytest.mark.parametrize("name", ["garbage", "truncated"])
def test_a_document_that_is_no_feed_is_an_error_naming_the_source(name: str) -> None:
    with pytest.raises(NewsError, match=f"news feed '{name}'"):
        parse_feed(name, (ASSETS / "broken" / f"{name}.xml").read_bytes())


def test_a_well_formed_feed_without_items_is_empty() -> None:
    data = b'<?xml version="1.0"?><rss version="2.0"><channel><title>t</title></channel></rss>'
    assert parse_feed("quiet", data) == ([], [])


def test_a_document_above_the_size_cap_is_refused_unread() -> None:
    with pytest.raises(NewsError, match="more than"):
        parse_feed("huge", b" " * (MAX_FEED_BYTES + 1))


def test_an_entry_that_fails_validation_is_skipped_with_the_reason() -> None:
    long_title = "x" * 301
    data = (f'<?xml version="1.0"?><rss version="2.0"><channel><title>t</title>'
            f"<item><title>{long_title}</title><link>https://example.com/long</link>"
            f"<pubDate>Mon, 01 Jun 2026 12:30:00 GMT</pubDate></item>"
            f"<item><title>Fine</title><link>mailto:desk@example.com</link>"
            f"<pubDate>Mon, 01 Jun 2026 12:30:00 GMT</pubDate></item>"
            f"</channel></rss>").encode()
    items, skipped = parse_feed("wire", data)
    assert items == []
    assert len(skipped) == 2
    assert skipped[0].startswith("wire entry 1: headline: title")
    assert skipped[1].startswith("wire entry 2: headline: link")
