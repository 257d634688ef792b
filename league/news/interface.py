"""The news port: one record (:class:`Headline`), one source protocol, one base exception.

A headline is what a seat of the closed-book arm may read: who published it, its title, its link and when it
was published. It is sealed inside a packet under its own SHA-256, so it validates on construction: a naive
time, an empty or unprintable title or a link that is not http(s) is refused rather than sealed.
"""

from __future__ import annotations

import hashlib
import json
from dataclasses import dataclass
from datetime import UTC, datetime
from typing import Protocol, runtime_checkable
from urllib.parse import urlsplit

from league.errors import LeagueError
from league.isotime import iso_seconds

MAX_SOURCE = 80
MAX_TITLE = 300
MAX_LINK = 2000


class NewsError(LeagueError):
    """Headlines could not be fetched, parsed or sealed (base exception of the news port)."""


def aware_utc(value: datetime, what: str) -> datetime:
    """``value`` in UTC; a naive time is refused because a packet's window must be unambiguous."""
    if not isinstance(value, datetime) or value.tzinfo is None or value.utcoffset() is None:
        raise NewsError(f"{what} {value!r} is not a timezone-aware datetime", fix="pass timezone-aware datetimes")
    return value.astimezone(UTC)


def canonical_json(value: object) -> bytes:
    """The one JSON spelling every hash of this port is taken over: sorted keys, no spaces, UTF-8 unescaped."""
    return json.dumps(value, sort_keys=True, separators=(",", ":"), ensure_ascii=False).encode("utf-8")


def _check_source(source: object) -> str:
    if not isinstance(source, str) or not source.strip() or not source.isprintable() or len(source) > MAX_SOURCE:
        raise NewsError(f"headline: source must be printable text of 1-{MAX_SOURCE} characters, got {source!r}")
    return source


def _clean_title(title: object) -> str:
    """The title with its whitespace collapsed to single spaces: feeds wrap titles over lines and indent
    them, and the same headline must hash the same whichever way its feed laid it out."""
    if not isinstance(title, str):
        raise NewsError(f"headline: title must be text, got {title!r}")
    clean = " ".join(title.split())
    if not clean or len(clean) > MAX_TITLE or not clean.isprintable():
        raise NewsError(f"headline: title must be printable text of 1-{MAX_TITLE} characters, got {clean[:80]!r}")
    return clean


def _check_link(link: object) -> str:
    if not isinstance(link, str) or not link or len(link) > MAX_LINK or not link.isprintable() or " " in link:
        raise NewsError(f"headline: link must be a URL of at most {MAX_LINK} characters, got {str(link)[:80]!r}")
    try:
        parts = urlsplit(link)
    except ValueError as exc:
        raise NewsError(f"headline: link {link[:80]!r} is not a URL: {exc}") from exc
    if parts.scheme not in ("http", "https") or not parts.netloc:
        raise NewsError(f"headline: link must be an http(s) URL, got {link[:80]!r}")
    return link


@dataclass(frozen=True, slots=True)
class Headline:
    """One dated headline. ``published`` is kept in UTC to the second: the sealed form carries seconds, and a
    headline rebuilt from its sealed form must equal the one that was sealed."""

    source: str
    title: str
    link: str
    published: datetime

    def __post_init__(self) -> None:
        _check_source(self.source)
        object.__setattr__(self, "title", _clean_title(self.title))
        _check_link(self.link)
        published = aware_utc(self.published, "headline: published").replace(microsecond=0)
        object.__setattr__(self, "published", published)

    def as_json(self) -> dict[str, str]:
        """The object sealed in a packet (before its ``sha256``), the time as ISO-8601 UTC seconds with ``Z``."""
        return {
            "source": self.source,
            "title": self.title,
            "link": self.link,
            "published": iso_seconds(self.published),
        }

    @property
    def sha256(self) -> str:
        """SHA-256 (hex) of :meth:`as_json` in the canonical spelling: what a reader recomputes per item."""
        return hashlib.sha256(canonical_json(self.as_json())).hexdigest()


@runtime_checkable
class NewsSource(Protocol):
    """Where headlines come from (a fetched feed list, recorded feed files)."""

    name: str

    def headlines(self, cutoff: datetime) -> list[Headline]:
        """The headlines available at ``cutoff``. May include items published after it: the packet filters,
        so that every source is held to the same window by one pure function."""
        ...
