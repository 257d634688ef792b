"""Instants as text: the ISO-8601 form every book line uses, written and read back (pure).

Kept apart from :mod:`league.clock` (where time is READ) so that the pure domain — contracts, the
counting rule, scoring — can name instants without being able to ask what time it is.
"""

from __future__ import annotations

from datetime import UTC, datetime
from functools import lru_cache


def require_aware(value: datetime) -> datetime:
    """The same instant in UTC; a naive time (no offset) is refused, never guessed."""
    if value.tzinfo is None or value.utcoffset() is None:
        raise ValueError(f"naive datetime {value!r}: the league only uses timezone-aware times")
    return value.astimezone(UTC)


def iso_seconds(value: datetime) -> str:
    """UTC ISO-8601 with seconds and a ``Z`` suffix, the form every book line's ``at`` uses.

    Remembered per instant (a season formats the same few thousand minutes over and over: every cell's
    sealed time, every contract's check): aware datetimes are equal exactly when they are the same
    instant, which is all the text depends on. A naive time is never equal to an aware one, is refused
    by :func:`_iso_seconds` and so never remembered."""
    if type(value) is not datetime:  # a subclass (or not a datetime at all) takes the plain path
        return _iso_seconds.__wrapped__(value)
    return _iso_seconds(value)


@lru_cache(maxsize=8192)
def _iso_seconds(value: datetime) -> str:
    return require_aware(value).strftime("%Y-%m-%dT%H:%M:%SZ")


def parse_iso(text: str) -> datetime:
    """Parse an ISO-8601 time that carries an offset (``Z`` accepted); naive times are refused.

    Remembered per text (datetimes are immutable; the same sealed times are read back per cell); a
    refusal raises each time (an exception is never remembered)."""
    if type(text) is not str:  # not a plain string: the plain path (which fails as it always did)
        return _parse_iso.__wrapped__(text)
    return _parse_iso(text)


@lru_cache(maxsize=8192)
def _parse_iso(text: str) -> datetime:
    value = datetime.fromisoformat(text.replace("Z", "+00:00"))
    return require_aware(value)
