"""Column types that behave the same on SQLite and PostgreSQL.

SQLite has no time-zone-aware timestamp type and PostgreSQL's ``timestamptz`` returns values in the
session's zone, so the two back ends would hand different objects back. Storing naive UTC in a plain
``TIMESTAMP`` and re-attaching UTC on the way out gives identical, timezone-aware values on both.
"""

from __future__ import annotations

from datetime import UTC, datetime

from sqlalchemy import DateTime
from sqlalchemy.engine import Dialect
from sqlalchemy.types import TypeDecorator


class UtcDateTime(TypeDecorator[datetime]):
    """Aware datetimes in, aware UTC datetimes out; naive datetimes are refused."""

    impl = DateTime(timezone=False)
    cache_ok = True

    def process_bind_param(self, value: datetime | None, dialect: Dialect) -> datetime | None:
        if value is None:
            return None
        if value.tzinfo is None or value.utcoffset() is None:
            raise ValueError(f"naive datetime {value!r}: the store only accepts timezone-aware times")
        return value.astimezone(UTC).replace(tzinfo=None)

    def process_result_value(self, value: datetime | str | None, dialect: Dialect) -> datetime | None:
        if value is None:
            return None
        if isinstance(value, str):  # defensive: a hand-edited SQLite file
            value = datetime.fromisoformat(value)
        result: datetime = value.replace(tzinfo=UTC) if value.tzinfo is None else value.astimezone(UTC)
        return result
