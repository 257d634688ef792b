"""RSS 2.0 and Atom documents to headlines, through feedparser's public API (``feedparser.parse``).

One function for both providers, so that a recorded feed file and the same file fetched live give the same
headlines, hence the same packet hash. An entry that cannot be a headline (no link, no title, no time, a
title too long) is skipped and the reason reported, never guessed at: a packet holds only what the feed
said.
"""

from __future__ import annotations

import io
from datetime import UTC, datetime
from time import struct_time

import feedparser

from league.news.interface import Headline, NewsError

#: The largest feed document read, in bytes: real feeds are well under 1 MB; more is a wrong URL or an attack.
MAX_FEED_BYTES = 5 * 1024 * 1024


def _entry_time(entry: feedparser.FeedParserDict) -> datetime | None:
    """The entry's publication time: ``published``, else ``updated`` (feedparser gives both as UTC)."""
    for key in ("published_parsed", "updated_parsed"):
        value = entry.get(key)
        if isinstance(value, struct_time):
            try:
                return datetime(*value[:6], tzinfo=UTC)
            except (ValueError, OverflowError) as exc:
                raise NewsError(f"{key[:-7]} time {tuple(value[:6])} is not a date: {exc}") from exc
    return None


def _text(value: object) -> str:
    return value.strip() if isinstance(value, str) else ""


def parse_feed(source_name: str, data: bytes) -> tuple[list[Headline], list[str]]:
    """The headlines of one feed document, in the document's order, and one short reason per skipped entry.

    A document feedparser cannot read at all (malformed with no entry) is a NewsError naming the source; a
    well-formed feed with no entries is simply empty."""
    if len(data) > MAX_FEED_BYTES:
        raise NewsError(f"news feed {source_name!r}: {len(data)} bytes, more than the {MAX_FEED_BYTES} read",
                        fix="check the feed's URL; a feed document is far smaller")
    try:
        # A stream, never the bytes themselves: feedparser would try bytes as a file name first.
        parsed = feedparser.parse(io.BytesIO(data))
    except Exception as exc:  # feedparser's parsers may raise anything on hostile input
        raise NewsError(f"news feed {source_name!r}: cannot be parsed: {exc!r}") from exc
    entries = list(parsed.get("entries", []))
    if parsed.get("bozo") and not entries:
        reason = parsed.get("bozo_exception")
        raise NewsError(f"news feed {source_name!r}: not a readable RSS or Atom document ({reason})",
                        fix="check the feed's URL or the recorded file")
    headlines: list[Headline] = []
    skipped: list[str] = []
    for number, entry in enumerate(entries, start=1):
        title, link = _text(entry.get("title")), _text(entry.get("link"))
        try:
            published = _entry_time(entry)
        except NewsError as exc:
            skipped.append(f"{source_name} entry {number}: {exc.message}")
            continue
        if not link:
            skipped.append(f"{source_name} entry {number}: no link")
        elif not title:
            skipped.append(f"{source_name} entry {number}: no title")
        elif published is None:
            skipped.append(f"{source_name} entry {number}: no published or updated time")
        else:
            try:
                headlines.append(Headline(source=source_name, title=title, link=link, published=published))
            except NewsError as exc:
                skipped.append(f"{source_name} entry {number}: {exc.message}")
    return headlines, skipped
