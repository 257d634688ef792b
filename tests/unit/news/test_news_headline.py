"""A headline validates on construction and hashes to the SHA-256 of its canonical JSON."""

from __future__ import annotations

import hashlib
from datetime import UTC, datetime, timedelta, timezone

import pytest

from league.news.interface import Headline, NewsError

AT = datetime(2026, 6, 1, 12, 30, tzinfo=UTC)


def test_the_sha256_is_that_of_the_canonical_json_hand_written() -> None:
    item = Headline(source="wire", title="Rates hold", link="https://example.com/a", published=AT)
    literal = '{"link":"https://example.com/a","published":"2026-06-01T12:30:00Z","source":"wire","title":"Rates hold"}'
    assert item.sha256 == hashlib.sha256(literal.encode("utf-8")).hexdigest()


def test_non_ascii_is_hashed_as_utf8_not_escaped() -> None:
    item = Headline(source="desk", title="Café — up 5%", link="https://example.org/cafe", published=AT)
    literal = ('{"link":"https://example.org/cafe","published":"2026-06-01T12:30:00Z","source":"desk",'
               '"title":"Café — up 5%"}')
    assert item.sha256 == hashlib.sha256(literal.encode("utf-8")).hexdigest()
    assert item.as_json()["title"] == "Café — up 5%"


def test_time_is_stored_in_utc_to_the_second_and_the_title_collapsed() -> None:
    paris = timezone(timedelta(hours=2))
    item = Headline(source="wire", title="  Oil &\n  gas\trally ", link="http://example.com/oil",
                    published=datetime(2026, 6, 1, 14, 30, 0, 999_999, tzinfo=paris))
    assert item.published == AT and item.published.tzinfo == UTC
    assert item.title == "Oil & gas rally"
    assert item.as_json() == {"source": "wire", "title": "Oil & gas rally", "link": "http://example.com/oil",
                              "published": "2026-06-01T12:30:00Z"}


@pytest.mark.parametrize(("source", "title", "link", "published"), [
    ("wire", "Rates hold", "https://example.com/a", datetime(2026, 6, 1, 12, 30)),  # noqa: DTZ001 - naive on purpose
    ("wire", "   ", "https://example.com/a", AT),
    ("wire", "x" * 301, "https://example.com/a", AT),
    ("wire", "bell\x07", "https://example.com/a", AT),
    ("wire", "Rates hold", "ftp://example.com/a", AT),
    ("wire", "Rates hold", "https://", AT),
    ("wire", "Rates hold", "https://example.com/" + "a" * 2000, AT),
    ("wire", "Rates hold", "https://example.com/a b", AT),
    ("", "Rates hold", "https://example.com/a", AT),
    ("s" * 81, "Rates hold", "https://example.com/a", AT),
])
def test_a_bad_headline_is_refused(source: str, title: str, link: str, published: datetime) -> None:
    with pytest.raises(NewsError):
        Headline(source=source, title=title, link=link, published=published)


def test_the_bounds_themselves_are_accepted() -> None:
    item = Headline(source="s" * 80, title="x" * 300, link="https://example.com/" + "a" * 1980, published=AT)
    assert len(item.title) == 300 and len(item.link) == 2000
