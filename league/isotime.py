"""Instants as text: the ISO-8601 form every book line uses, written and read back (pure).

Kept apart from :mod:`league.clock` (where time is READ) so that the pure domain — contracts, the
counting rule, scoring — can name instants without being able to ask what time it is.
"""

from __future__ import annotations

from datetime import UTC, datetime


def require_aware(value: datetime) -> datetime:
    """The same instant in UTC; a naive time (no offset) is refused, never guessed."""
    if value.tzinfo is None or value.utcoffset() is None:
        raise ValueError(f"naive datetime {value!r}: the league only uses timezone-aware times")
    return value.astimezone(UTC)


def iso_seconds(value: datetime) -> str:
    """UTC ISO-8601 with seconds and a ``Z`` suffix, the form every book line's ``at`` uses."""
    return require_aware(value).strftime("%Y-%m-%dT%H:%M:%SZ")


def parse_iso(text: str) -> datetime:
    """Parse an ISO-8601 time that carries an offset (``Z`` accepted); naive times are refused."""
    value = datetime.fromisoformat(text.replace("Z", "+00:00"))
    return require_aware(value)
