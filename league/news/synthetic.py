"""The offline demo's news: two SYNTHETIC feed files, written from a seed, so the closed-book arm runs
without a network.

Every headline is invented and says so (each title starts with ``SYNTHETIC:``); the sources are made-up
desks ("wire-desk", an RSS 2.0 file, and "markets-daily", an Atom file), never a real publisher, and every
link points under ``https://news.example/``, a domain reserved for examples. The same arguments give the same
bytes, so the demo's packets, and their hashes, are the same at every run.
"""

from __future__ import annotations

import random
import re
from datetime import UTC, date, datetime, time, timedelta
from email.utils import format_datetime
from pathlib import Path
from xml.sax.saxutils import escape

from league.isotime import iso_seconds
from league.news.interface import Headline, NewsError

#: The twelve markets, as a headline names them.
MARKETS: tuple[str, ...] = ("S&P 500", "Nasdaq 100", "Dow Jones", "semiconductors", "10-year yield",
                            "dollar index", "VIX", "gold", "WTI crude", "Brent crude", "copper", "bitcoin")
_TEMPLATES: tuple[str, ...] = (
    "{market} edges {way} as traders weigh {topic}",
    "{market} {moves} ahead of {topic}",
    "Analysts split on {market} after {topic}",
    "{market} {moves} in thin trading; {topic} in focus",
    "Desk note: {market} positioning shifts before {topic}",
)
_WAYS = ("higher", "lower")
_MOVES = ("climbs", "slips", "holds steady", "swings", "extends its run", "pares gains")
_TOPICS = ("central bank remarks", "jobs data", "inflation figures", "earnings guidance", "supply reports",
           "a Treasury auction", "manufacturing surveys", "shipping delays", "options expiry", "trade talks")
#: The two synthetic sources and the format of their file.
SOURCES: tuple[tuple[str, str], ...] = (("wire-desk", "rss"), ("markets-daily", "atom"))
#: Hours between two items of one source, drawn uniformly (in minutes) in this range.
GAP_HOURS = (3, 9)


def _slug(title: str, number: int) -> str:
    words = re.sub(r"[^a-z0-9]+", "-", title.removeprefix("SYNTHETIC: ").lower()).strip("-")
    return f"{words[:60].rstrip('-')}-{number}"


def demo_headlines(start: date, end: date, seed: int) -> dict[str, list[Headline]]:
    """Each source's headlines, oldest first: one every 3-9 hours from midnight UTC two days before ``start``
    to the end of the day after ``end`` (so a packet's window before the first session is filled too)."""
    if end < start:
        raise NewsError(f"synthetic news: end {end} is before start {start}")
    rng = random.Random(seed)
    first = datetime.combine(start - timedelta(days=2), time(), tzinfo=UTC)
    stop = datetime.combine(end + timedelta(days=2), time(), tzinfo=UTC)
    out: dict[str, list[Headline]] = {}
    for source, _kind in SOURCES:
        items: list[Headline] = []
        at = first + timedelta(minutes=rng.randint(0, 59))
        while at < stop:
            template = rng.choice(_TEMPLATES)
            title = "SYNTHETIC: " + template.format(market=rng.choice(MARKETS), way=rng.choice(_WAYS),
                                                    moves=rng.choice(_MOVES), topic=rng.choice(_TOPICS))
            link = f"https://news.example/{source}/{at:%Y/%m/%d}/{_slug(title, len(items) + 1)}"
            items.append(Headline(source=source, title=title, link=link, published=at))
            at += timedelta(minutes=rng.randint(GAP_HOURS[0] * 60, GAP_HOURS[1] * 60))
        out[source] = items
    return out


def _rss(source: str, items: list[Headline]) -> str:
    entries = "".join(
        f"    <item>\n      <title>{escape(h.title)}</title>\n      <link>{escape(h.link)}</link>\n"
        f"      <guid isPermaLink=\"true\">{escape(h.link)}</guid>\n"
        f"      <pubDate>{format_datetime(h.published, usegmt=True)}</pubDate>\n    </item>\n"
        for h in items)
    return ('<?xml version="1.0" encoding="utf-8"?>\n<rss version="2.0">\n  <channel>\n'
            f"    <title>{source} (SYNTHETIC demo feed)</title>\n"
            f"    <link>https://news.example/{source}/</link>\n"
            "    <description>Invented headlines for the offline demo; no real publisher.</description>\n"
            f"{entries}  </channel>\n</rss>\n")


def _atom(source: str, items: list[Headline]) -> str:
    updated = iso_seconds(items[-1].published) if items else "1970-01-01T00:00:00Z"
    entries = "".join(
        f"  <entry>\n    <title>{escape(h.title)}</title>\n"
        f"    <link rel=\"alternate\" href=\"{escape(h.link, {chr(34): '&quot;'})}\"/>\n"
        f"    <id>{escape(h.link)}</id>\n    <updated>{iso_seconds(h.published)}</updated>\n"
        f"    <published>{iso_seconds(h.published)}</published>\n  </entry>\n"
        for h in items)
    return ('<?xml version="1.0" encoding="utf-8"?>\n<feed xmlns="http://www.w3.org/2005/Atom">\n'
            f"  <title>{source} (SYNTHETIC demo feed)</title>\n  <id>https://news.example/{source}/</id>\n"
            f"  <updated>{updated}</updated>\n  <author><name>{source}</name></author>\n"
            f"{entries}</feed>\n")


def write_demo_feeds(folder: Path, start: date, end: date, seed: int) -> list[Path]:
    """Write ``<source>.xml`` for each synthetic source into ``folder`` (created) and return their paths;
    the files are what the ``recorded`` provider reads in the demo."""
    folder = Path(folder)
    folder.mkdir(parents=True, exist_ok=True)
    paths: list[Path] = []
    headlines = demo_headlines(start, end, seed)
    for source, kind in SOURCES:
        text = _rss(source, headlines[source]) if kind == "rss" else _atom(source, headlines[source])
        path = folder / f"{source}.xml"
        path.write_bytes(text.encode("utf-8"))
        paths.append(path)
    return paths
