"""The one place time is read.

Every component that needs "now" receives a :class:`Clock`. Production uses :class:`SystemClock`;
tests and the demo season use :class:`SimulatedClock`, which lets a whole season run at full speed
and makes every timestamp reproducible.
"""

from __future__ import annotations

import threading
from datetime import UTC, datetime, timedelta
from typing import Protocol, runtime_checkable


def _require_aware(value: datetime) -> datetime:
    if value.tzinfo is None or value.utcoffset() is None:
        raise ValueError(f"naive datetime {value!r}: the league only uses timezone-aware times")
    return value.astimezone(UTC)


@runtime_checkable
class Clock(Protocol):
    """Source of the current time (always timezone-aware UTC)."""

    def now(self) -> datetime: ...

    def sleep_until(self, when: datetime) -> None: ...


class SystemClock:
    """The wall clock."""

    def now(self) -> datetime:
        return datetime.now(UTC)

    def sleep_until(self, when: datetime) -> None:
        import time

        delay = (_require_aware(when) - self.now()).total_seconds()
        if delay > 0:
            time.sleep(delay)


class SimulatedClock:
    """A clock that only moves when told to; thread-safe so concurrent seats can read it."""

    def __init__(self, start: datetime) -> None:
        self._now = _require_aware(start)
        self._lock = threading.Lock()

    def now(self) -> datetime:
        with self._lock:
            return self._now

    def set(self, when: datetime) -> None:
        """Move to ``when``; moving backwards is refused because sealed times only grow."""
        when = _require_aware(when)
        with self._lock:
            if when < self._now:
                raise ValueError(f"simulated clock cannot go back from {self._now} to {when}")
            self._now = when

    def advance(self, delta: timedelta) -> datetime:
        with self._lock:
            if delta < timedelta(0):
                raise ValueError("simulated clock cannot go back")
            self._now += delta
            return self._now

    def sleep_until(self, when: datetime) -> None:
        when = _require_aware(when)
        with self._lock:
            if when > self._now:
                self._now = when


def iso_seconds(value: datetime) -> str:
    """UTC ISO-8601 with seconds and a ``Z`` suffix, the form every book line's ``at`` uses."""
    return _require_aware(value).strftime("%Y-%m-%dT%H:%M:%SZ")


def parse_iso(text: str) -> datetime:
    """Parse an ISO-8601 time that carries an offset (``Z`` accepted); naive times are refused."""
    value = datetime.fromisoformat(text.replace("Z", "+00:00"))
    return _require_aware(value)
