"""The price cache: ``DATA/prices/<SYMBOL>/<YYYY-MM-DD>.jsonl`` (docs/data-folder.md).

Yahoo keeps 1-minute bars for about 30 days, so bars are written down the day they are fetched and
the books can be re-scored from the cache forever. Day files are keyed by the UTC date of the bar
start (a NYSE session, 09:30-16:00 ET, always falls inside one UTC date).

Completeness is recorded, never assumed: a day file is only served from the cache when a sidecar
``<YYYY-MM-DD>.complete`` marker says the fetch happened after the day was over (plus a settling
delay for late corrections). A day fetched while still running is written without the marker and
fetched again next time, so a partial day is never presented as the whole day. When the provider
fails the error propagates (the caller leaves the cell unresolved and reports it): cached bars are
never handed out in place of bars that could not be fetched.
"""

from __future__ import annotations

import json
import os
import tempfile
from collections.abc import Iterable, Sequence
from datetime import UTC, date, datetime, time, timedelta
from pathlib import Path
from typing import Protocol, runtime_checkable

import structlog

from league.clock import Clock, SystemClock, iso_seconds
from league.prices.interface import Bar, PriceError, PriceProvider, check_window

log = structlog.get_logger(__name__)
DAY = timedelta(days=1)


@runtime_checkable
class BarCache(Protocol):
    """Where fetched day files go: the folder below, and the database index (store engineer)."""

    def put_bars(self, symbol: str, day: date, bars: Sequence[Bar], *, complete: bool) -> None: ...

    def get_bars(self, symbol: str, day: date) -> list[Bar] | None:
        """The day's bars when cached COMPLETE; ``None`` otherwise."""
        ...


def symbol_dir(folder: Path, symbol: str) -> Path:
    """Folder of one symbol; a symbol that could escape the folder is refused."""
    if not symbol or "/" in symbol or "\\" in symbol or symbol.startswith(".") or "\x00" in symbol:
        raise PriceError(f"symbol {symbol!r} cannot name a cache folder", fix="use a plain ticker such as ^GSPC")
    return Path(folder) / symbol


def day_path(folder: Path, symbol: str, day: date) -> Path:
    return symbol_dir(folder, symbol) / f"{day.isoformat()}.jsonl"


def utc_days(start: datetime, end: datetime) -> list[date]:
    """UTC dates touched by ``[start, end)``."""
    if end <= start:
        return []
    last = (end - timedelta(microseconds=1)).date()
    return [start.date() + timedelta(days=k) for k in range((last - start.date()).days + 1)]


def day_start(day: date) -> datetime:
    return datetime.combine(day, time(0), tzinfo=UTC)


def _write_atomic(path: Path, text: str) -> None:
    path.parent.mkdir(parents=True, exist_ok=True)
    fd, tmp = tempfile.mkstemp(dir=path.parent, prefix=f".{path.name}.", suffix=".tmp")
    try:
        with os.fdopen(fd, "w", encoding="utf-8", newline="\n") as fh:
            fh.write(text)
            fh.flush()
            os.fsync(fh.fileno())
        os.replace(tmp, path)
    except BaseException:
        Path(tmp).unlink(missing_ok=True)
        raise


def read_day_file(path: Path) -> list[Bar]:
    """Parse one day file; a broken line is an error naming the file and line (nothing skipped)."""
    bars: list[Bar] = []
    with open(path, encoding="utf-8") as fh:
        for n, line in enumerate(fh, 1):
            if not line.strip():
                continue
            try:
                bars.append(Bar.from_json(json.loads(line)))
            except (json.JSONDecodeError, PriceError) as exc:
                raise PriceError(f"{path}:{n}: bad bar line ({exc})", fix="delete the day file to refetch it") from exc
    return bars


class FolderBarCache:
    """The on-disk :class:`BarCache`: one JSONL file per (symbol, UTC day) plus a completeness marker."""

    def __init__(self, folder: Path) -> None:
        self.folder = Path(folder)

    def marker(self, symbol: str, day: date) -> Path:
        return symbol_dir(self.folder, symbol) / f"{day.isoformat()}.complete"

    def put_bars(
        self, symbol: str, day: date, bars: Sequence[Bar], *, complete: bool, meta: dict[str, str] | None = None
    ) -> None:
        text = "".join(json.dumps(b.as_json(), separators=(",", ":")) + "\n" for b in bars)
        path = day_path(self.folder, symbol, day)
        self.marker(symbol, day).unlink(missing_ok=True)
        _write_atomic(path, text)
        if complete:
            info = {"bars": len(bars), **(meta or {})}
            _write_atomic(self.marker(symbol, day), json.dumps(info, sort_keys=True) + "\n")

    def get_bars(self, symbol: str, day: date) -> list[Bar] | None:
        if not self.marker(symbol, day).exists():
            return None
        return read_day_file(day_path(self.folder, symbol, day))

    def is_complete(self, symbol: str, day: date) -> bool:
        return self.marker(symbol, day).exists()


def _group_runs(days: Iterable[date]) -> list[list[date]]:
    """Consecutive days grouped, so one provider call covers each run of missing days."""
    runs: list[list[date]] = []
    for d in days:
        if runs and runs[-1][-1] + DAY == d:
            runs[-1].append(d)
        else:
            runs.append([d])
    return runs


class CachedProvider:
    """A :class:`PriceProvider` that reads complete days from the cache and fetches the rest."""

    def __init__(
        self,
        inner: PriceProvider,
        folder: Path,
        *,
        clock: Clock | None = None,
        settle: timedelta = timedelta(minutes=30),
        mirrors: Sequence[BarCache] = (),
    ) -> None:
        self.inner = inner
        self.name = inner.name
        self.cache = FolderBarCache(folder)
        self.clock: Clock = clock or SystemClock()
        self.settle = settle
        self.mirrors = tuple(mirrors)

    def bars(self, symbol: str, start: datetime, end: datetime) -> list[Bar]:
        start, end = check_window(start, end)
        days = utc_days(start, end)
        found: dict[date, list[Bar]] = {}
        for d in days:
            cached = self.cache.get_bars(symbol, d)
            if cached is not None:
                found[d] = cached
        for run in _group_runs(d for d in days if d not in found):
            found.update(self._fetch_run(symbol, run))
        out = [b for d in days for b in found[d]]
        return [b for b in out if start <= b.start < end]

    def _fetch_run(self, symbol: str, run: list[date]) -> dict[date, list[Bar]]:
        """Fetch whole UTC days (up to now) and file each day, marking only finished ones complete."""
        now = self.clock.now()
        lo, hi = day_start(run[0]), min(day_start(run[-1]) + DAY, now)
        if hi <= lo:
            return {d: [] for d in run}
        fetched = self.inner.bars(symbol, lo, hi)
        by_day: dict[date, list[Bar]] = {d: [] for d in run}
        for bar in fetched:
            by_day.setdefault(bar.start.date(), []).append(bar)
        for d in run:
            self._file(symbol, d, by_day[d], now)
        return by_day

    def _file(self, symbol: str, day: date, bars: list[Bar], now: datetime) -> None:
        complete = now >= day_start(day) + DAY + self.settle
        meta = {"fetched_at": iso_seconds(now), "provider": self.inner.name}
        self.cache.put_bars(symbol, day, bars, complete=complete, meta=meta)
        for mirror in self.mirrors:
            mirror.put_bars(symbol, day, bars, complete=complete)
        log.debug("prices.cached", symbol=symbol, day=day.isoformat(), bars=len(bars), complete=complete)

    def daily_closes(self, symbol: str, start: date, end: date) -> list[tuple[date, float]]:
        """Delegated to the inner provider when it offers daily closes (not cached: cheap and small)."""
        fn = getattr(self.inner, "daily_closes", None)
        if fn is None:
            raise PriceError(f"{self.inner.name} offers no daily closes")
        result: list[tuple[date, float]] = fn(symbol, start, end)
        return result
