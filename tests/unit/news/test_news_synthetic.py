"""The demo's synthetic feeds: deterministic, clearly invented, and read back by the same parser."""

from __future__ import annotations

import re
from datetime import UTC, date, datetime, timedelta
from pathlib import Path

from league.news.parse import parse_feed
from league.news.synthetic import MARKETS, demo_headlines, write_demo_feeds

START, END = date(2026, 6, 1), date(2026, 6, 5)
LINK = re.compile(r"^https://news\.example/(wire-desk|markets-daily)/(\d{4})/(\d{2})/(\d{2})/[a-z0-9-]+$")


def test_the_same_arguments_give_the_same_bytes_and_another_seed_others(tmp_path: Path) -> None:
    first = write_demo_feeds(tmp_path / "a", START, END, seed=7)
    second = write_demo_feeds(tmp_path / "b", START, END, seed=7)
    other = write_demo_feeds(tmp_path / "c", START, END, seed=8)
    assert [p.name for p in first] == ["wire-desk.xml", "markets-daily.xml"]
    assert [p.read_bytes() for p in first] == [p.read_bytes() for p in second]
    assert [p.read_bytes() for p in first] != [p.read_bytes() for p in other]


def test_both_files_parse_back_to_the_same_headlines(tmp_path: Path) -> None:
    expected = demo_headlines(START, END, seed=7)
    for path in write_demo_feeds(tmp_path, START, END, seed=7):
        items, skipped = parse_feed(path.stem, path.read_bytes())
        assert skipped == []
        assert items == expected[path.stem] and len(items) > 10
    assert b"<rss version=\"2.0\">" in (tmp_path / "wire-desk.xml").read_bytes()
    assert b"http://www.w3.org/2005/Atom" in (tmp_path / "markets-daily.xml").read_bytes()


def test_items_are_synthetic_spaced_three_to_nine_hours_and_cover_the_season() -> None:
    first = datetime(2026, 5, 30, tzinfo=UTC)
    stop = datetime(2026, 6, 7, tzinfo=UTC)  # the end of the day after END
    for source, items in demo_headlines(START, END, seed=7).items():
        assert items[0].published < first + timedelta(hours=1) and items[-1].published < stop
        assert items[-1].published > stop - timedelta(hours=9)
        gaps = [b.published - a.published for a, b in zip(items, items[1:], strict=False)]
        assert all(timedelta(hours=3) <= gap <= timedelta(hours=9) for gap in gaps)
        for item in items:
            assert item.source == source and item.title.startswith("SYNTHETIC: ")
            assert any(market in item.title for market in MARKETS)
            match = LINK.match(item.link)
            assert match is not None and match.group(1) == source
            assert tuple(map(int, match.groups()[1:])) == (item.published.year, item.published.month,
                                                           item.published.day)
        assert len({item.link for item in items}) == len(items)
