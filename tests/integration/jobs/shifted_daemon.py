"""Run the real ``league daemon`` entry point with its wall clock moved to a chosen instant.

``python shifted_daemon.py 2026-11-25T13:31:00+00:00 --config DIR``: everything after the instant
is the daemon's own argv. The daemon, its scheduler and its seats run unchanged; only the two
readers of the wall clock on the daemon's path answer from the chosen instant on: the league's
``SystemClock`` and APScheduler's scheduler loop (the clock then runs at real speed;
``time.monotonic`` is untouched). libfaketime would be the usual tool, but under it Python 3.11's
``time.sleep`` fails with EINVAL (libfaketime 0.9.10 and ``clock_nanosleep``), and replacing
``datetime.datetime`` for the whole process crashes C extensions that check its size.
"""

from __future__ import annotations

import sys
from datetime import UTC, datetime
from typing import Any

_OFFSET = datetime.fromisoformat(sys.argv[1]) - datetime.now(UTC)


class ShiftedDateTime(datetime):
    @classmethod
    def now(cls, tz: Any = None) -> Any:
        t = datetime.now(tz) + _OFFSET
        return cls(t.year, t.month, t.day, t.hour, t.minute, t.second, t.microsecond, t.tzinfo, fold=t.fold)


def shift() -> None:
    import apscheduler.schedulers.base as scheduler_base

    from league.clock import SystemClock

    scheduler_base.datetime = ShiftedDateTime  # type: ignore[misc]
    SystemClock.now = lambda self: datetime.now(UTC) + _OFFSET  # type: ignore[method-assign]


if __name__ == "__main__":
    shift()
    sys.argv = ["league", "daemon", *sys.argv[2:]]
    from league.cli import main

    main()
