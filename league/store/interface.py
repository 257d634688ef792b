"""The storage port: what the rest of the league may ask of the database.

The database is an index of the books plus operational bookkeeping; the books stay the source of
truth. Code outside ``league.store`` depends on :class:`Store` and :class:`StoreError` only, so the
SQL implementation (SQLite or PostgreSQL through SQLModel) can be swapped or faked in tests.
"""

from __future__ import annotations

import math
from collections.abc import Iterable, Sequence
from dataclasses import dataclass
from datetime import date, datetime, timedelta
from typing import Protocol, TypedDict, runtime_checkable

from league.book import BookLine
from league.errors import LeagueError
from league.prices.interface import Bar

JOB_STATUSES = ("started", "done", "failed")
TRUST_LEVELS = ("0", "1", "2", "2+")


class StoreError(LeagueError):
    """The database cannot be reached, migrated, read or written; the message says which and how to fix it."""


def _aware(value: datetime | None, name: str) -> None:
    if value is not None and (value.tzinfo is None or value.utcoffset() is None):
        raise ValueError(f"{name} must be timezone-aware, got {value!r}")


@runtime_checkable
class BarLike(Protocol):
    """What a cached 1-minute bar must offer (``league.prices.interface.Bar`` fits)."""

    @property
    def start(self) -> datetime: ...
    @property
    def open(self) -> float: ...
    @property
    def high(self) -> float: ...
    @property
    def low(self) -> float: ...
    @property
    def close(self) -> float: ...
    @property
    def volume(self) -> float: ...


@dataclass(frozen=True)
class CachedBar:
    """A bar read back from the cache when the prices package's own ``Bar`` is not importable."""

    start: datetime
    open: float
    high: float
    low: float
    close: float
    volume: float

    def __post_init__(self) -> None:
        _aware(self.start, "bar start")
        prices = (self.open, self.high, self.low, self.close)
        if not all(math.isfinite(p) and p > 0 for p in prices):
            raise ValueError(f"bar {self.start}: prices must be finite and positive: {prices}")
        if self.high < max(self.open, self.close) or self.low > min(self.open, self.close):
            raise ValueError(f"bar {self.start}: high/low do not bracket open/close: {prices}")
        if not (math.isfinite(self.volume) and self.volume >= 0):
            raise ValueError(f"bar {self.start}: volume must be >= 0, got {self.volume}")


class BarRow(TypedDict):
    """One cached bar as its ``price_bars`` columns, but the symbol (which the store puts first when it writes)."""

    start: datetime
    open: float
    high: float
    low: float
    close: float
    volume: float


@dataclass(frozen=True)
class CachedDay:
    """One cached (symbol, UTC day): validated bar rows and whether the fetch was complete."""

    symbol: str
    day: date
    rows: list[BarRow]
    complete: bool


@dataclass(frozen=True)
class JobRun:
    """One (session, job) record of the scheduler's bookkeeping."""

    session: date
    job: str
    status: str
    started_at: datetime
    finished_at: datetime | None
    detail: str
    owner: str
    attempts: int

    def __post_init__(self) -> None:
        if self.status not in JOB_STATUSES:
            raise ValueError(f"job status {self.status!r} is not one of {JOB_STATUSES}")
        _aware(self.started_at, "started_at")
        _aware(self.finished_at, "finished_at")


@dataclass(frozen=True)
class RunSummary:
    """The last ``run`` line of a session, for ``league status``."""

    session: date | None
    run_id: str
    role: str | None
    ask_sha256: str | None
    snapshot_sha256: str | None
    book: str
    line: int
    at: datetime | None


@dataclass(frozen=True)
class AnswerSummary:
    """A seat's most recent ``answer`` line, for ``league status``."""

    seat: str
    run_id: str | None
    session: date | None
    book: str
    line: int
    at: datetime | None
    booked_at: str | None
    model: str | None
    version: str | None
    status: str | None
    attempt: int | None
    cells: int


@dataclass(frozen=True)
class Stamp:
    """One stamp of a stamped list by one backend."""

    taken_at: datetime
    list_sha256: str
    backend: str
    status: str
    trust_level: str
    detail: str = ""

    def __post_init__(self) -> None:
        _aware(self.taken_at, "taken_at")
        if len(self.list_sha256) != 64 or any(c not in "0123456789abcdef" for c in self.list_sha256):
            raise ValueError(f"list_sha256 {self.list_sha256!r} is not 64 lowercase hex digits")
        if self.trust_level not in TRUST_LEVELS:
            raise ValueError(f"trust level {self.trust_level!r} is not one of {TRUST_LEVELS}")
        if not self.backend or not self.status:
            raise ValueError("a stamp needs a backend and a status")


@runtime_checkable
class Store(Protocol):
    """The storage port. Every method raises :class:`StoreError` (never a driver exception)."""

    url: str

    # the book index
    def last_indexed(self, book: str) -> tuple[int, str]: ...
    def index_lines(self, book: str, lines: Iterable[BookLine]) -> int: ...
    def wipe_derived(self) -> None: ...
    def counts(self) -> dict[str, int]: ...

    # price cache (BarCache-like)
    def put_bars(self, symbol: str, bars: Iterable[BarLike]) -> int: ...
    def get_bars(self, symbol: str, start: datetime, end: datetime) -> list[Bar]: ...
    def put_day(self, symbol: str, day: date, bars: Iterable[BarLike], *, complete: bool) -> int: ...
    def day_complete(self, symbol: str, day: date) -> bool: ...

    # scheduler bookkeeping
    def claim_job(self, session: date, job: str, now: datetime, *, stale_after: timedelta = ...) -> bool: ...
    def finish_job(self, session: date, job: str, status: str, detail: str, now: datetime) -> None: ...
    def job_history(self, *, session: date | None = None, limit: int = 50) -> list[JobRun]: ...

    # stamps, accounts, trades
    def record_stamp(self, stamp: Stamp) -> None: ...
    def stamps(self, *, list_sha256: str | None = None) -> list[Stamp]: ...

    # queries for `league status`
    def last_runs(self, *, limit: int = 10) -> list[RunSummary]: ...
    def last_answers(self) -> list[AnswerSummary]: ...

    def close(self) -> None: ...


__all__: Sequence[str] = (
    "AnswerSummary", "BarLike", "CachedBar", "CachedDay", "JobRun", "RunSummary", "Stamp", "Store", "StoreError",
)
