"""The one place time is read.

Every component that needs "now" receives a :class:`Clock`. Production uses :class:`SystemClock`;
tests and the demo season use :class:`SimulatedClock`, which lets a whole season run at full speed
and makes every timestamp reproducible.
"""

from __future__ import annotations

import threading
import time
from datetime import UTC, datetime, timedelta
from typing import Protocol, runtime_checkable

from league.isotime import iso_seconds as iso_seconds
from league.isotime import parse_iso as parse_iso
from league.isotime import require_aware


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
        delay = (require_aware(when) - self.now()).total_seconds()
        if delay > 0:
            time.sleep(delay)


class SimulatedClock:
    """A clock that only moves when told to; thread-safe so concurrent seats can read it."""

    def __init__(self, start: datetime) -> None:
        self._now = require_aware(start)
        self._lock = threading.Lock()

    def now(self) -> datetime:
        with self._lock:
            return self._now

    def set(self, when: datetime) -> None:
        """Move to ``when``; moving backwards is refused because sealed times only grow."""
        when = require_aware(when)
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
        when = require_aware(when)
        with self._lock:
            if when > self._now:
                self._now = when
