"""The snapshot job (docs/protocol.md §5, step 1): the morning prices of the twelve markets and its SHA-256.

The snapshot is what every seat is shown, so it must be reproducible and honest:
- only bars that had COMPLETED at ``now`` are read (a replay provider knows the future; a bar that
  starts at 08:24:30 is not yet a price at 08:25);
- before the open, index, yield and volatility rows hold the previous session's close
  (``previous_session``); futures, the dollar index and bitcoin trade overnight and are ``live``
  (``last_trade`` when their newest bar is more than 15 minutes old, e.g. on a weekend);
- a market whose provider fails becomes an ``unavailable`` row carrying the error, never a guess.

Changes are counted in the market's own daily closes (sessions; UTC days for bitcoin): a live
price is "today", so its 1-day change is against the last close and its 5-day change against the
close five sessions back. The 52-week range is over daily closes (plus the shown price); providers
without a ``daily_closes`` method give a range over the last 22 sessions only (``range_days`` says
how far it reaches). The pre-market change (futures and bitcoin, before the open) is the live price
against the last bar at or before the previous session's close.

The job takes it once per session (DATA/snapshots/<session>.json), with the crowd's quotes beside it;
its SHA-256 is sealed in the run line before any seat sees it.
"""

from __future__ import annotations

import hashlib
import json
from collections.abc import Sequence
from dataclasses import asdict, dataclass
from datetime import date, datetime, timedelta
from pathlib import Path
from typing import Any, Literal

import structlog

from league.calendar import Calendar, et_date, to_utc
from league.clock import iso_seconds
from league.config import MarketSpec
from league.jobs.context import League
from league.jsonvalue import Json
from league.prices.interface import Bar, DailyCloses, PriceError, PriceProvider
from league.prices.reference import last_bar_at_or_before

log = structlog.get_logger(__name__)

Status = Literal["live", "last_trade", "previous_session", "unavailable"]
HOLD_BEFORE_OPEN = {"index", "yield", "volatility"}
PREMARKET_KINDS = {"future", "crypto"}
STALE_AFTER = timedelta(minutes=15)
ONE_MINUTE = timedelta(minutes=1)
YEAR = timedelta(days=365)
FALLBACK_SESSIONS = 22


def _pct(new: float, old: float | None) -> float | None:
    return None if old is None or old <= 0 else round((new / old - 1.0) * 100.0, 4)


@dataclass(frozen=True)
class SnapshotRow:
    """One market's line in the snapshot (all prices in the provider's units)."""

    code: str
    symbol: str
    status: Status
    price: float | None = None
    price_at: str | None = None
    previous_close: float | None = None
    change_1d_pct: float | None = None
    change_5d_pct: float | None = None
    change_21d_pct: float | None = None
    low_52w: float | None = None
    high_52w: float | None = None
    range_days: int | None = None
    premarket_change_pct: float | None = None
    error: str | None = None

    def __post_init__(self) -> None:
        if self.status == "unavailable" and self.price is not None:
            raise ValueError("an unavailable row carries no price")
        if self.status != "unavailable" and self.price is None:
            raise ValueError(f"{self.code}: a {self.status} row needs a price")

    def as_json(self) -> dict[str, Json]:
        return asdict(self)


@dataclass(frozen=True)
class Snapshot:
    """All rows plus when and for which session the snapshot was taken."""

    taken_at: datetime
    session: date
    provider: str
    rows: tuple[SnapshotRow, ...]

    def as_json(self) -> dict[str, Json]:
        return {
            "taken_at": iso_seconds(self.taken_at),
            "session": self.session.isoformat(),
            "provider": self.provider,
            "markets": [r.as_json() for r in self.rows],
        }

    def canonical_json(self) -> str:
        return json.dumps(self.as_json(), sort_keys=True, separators=(",", ":"), ensure_ascii=False)

    @property
    def sha256(self) -> str:
        """SHA-256 of the canonical JSON; goes into the run line as ``snapshot_sha256``."""
        return hashlib.sha256(self.canonical_json().encode("utf-8")).hexdigest()

    def row(self, code: str) -> SnapshotRow:
        return next(r for r in self.rows if r.code == code)


# ----------------------------------------------------------------------------- closes
def _closes_from_bars(
    provider: PriceProvider, calendar: Calendar, market: MarketSpec, last: date
) -> list[tuple[date, float]]:
    """Fallback when the provider has no daily closes: the last bar of each of the last sessions."""
    out: list[tuple[date, float]] = []
    for day in [*calendar.sessions_before(last, FALLBACK_SESSIONS - 1), last]:
        lo, hi = calendar.session_open(day), calendar.session_close(day)
        bars = provider.bars(market.symbol, lo, hi)
        if bars:
            out.append((day, bars[-1].close))
    return out


def daily_closes(
    provider: PriceProvider, calendar: Calendar, market: MarketSpec, last: date
) -> list[tuple[date, float]]:
    """Closes of the year up to and including ``last`` (a session, or a UTC day for bitcoin)."""
    if isinstance(provider, DailyCloses):
        closes = provider.daily_closes(market.symbol, last - YEAR, last)
        return [(d, c) for d, c in closes if d <= last]
    if not market.daily:
        raise PriceError(f"{provider.name} offers no daily closes for {market.symbol}")
    return _closes_from_bars(provider, calendar, market, last)


def _range(closes: Sequence[tuple[date, float]], price: float, price_day: date) -> tuple[float, float, int]:
    year = [c for d, c in closes if d > price_day - YEAR] + [price]
    first = min((d for d, _ in closes if d > price_day - YEAR), default=price_day)
    return min(year), max(year), (price_day - first).days


def _back(closes: Sequence[tuple[date, float]], k: int) -> float | None:
    return closes[-k][1] if len(closes) >= k else None


# ----------------------------------------------------------------------------- rows
def _previous_row(market: MarketSpec, calendar: Calendar, closes: list[tuple[date, float]], last: date) -> SnapshotRow:
    if not closes or closes[-1][0] != last:
        raise PriceError(f"{market.symbol}: no close for {last}")
    price = closes[-1][1]
    low, high, days = _range(closes, price, last)
    return SnapshotRow(
        market.code, market.symbol, "previous_session", price, iso_seconds(calendar.session_close(last)),
        _back(closes, 2), _pct(price, _back(closes, 2)), _pct(price, _back(closes, 6)),
        _pct(price, _back(closes, 22)), low, high, days,
    )


def _completed_bars(provider: PriceProvider, symbol: str, start: datetime, now: datetime) -> list[Bar]:
    return [b for b in provider.bars(symbol, start, now) if b.start + ONE_MINUTE <= now]


def _live_row(
    market: MarketSpec, provider: PriceProvider, calendar: Calendar, now: datetime, last: date,
    closes: list[tuple[date, float]],
) -> SnapshotRow:
    bars = _completed_bars(provider, market.symbol, calendar.session_open(last), now)
    if not bars:
        raise PriceError(f"{market.symbol}: no completed bar between {last} and {iso_seconds(now)}")
    bar = bars[-1]
    price, price_at = bar.close, bar.start + ONE_MINUTE
    status: Status = "live" if now - price_at <= STALE_AFTER else "last_trade"
    low, high, days = _range(closes, price, et_date(price_at))
    return SnapshotRow(
        market.code, market.symbol, status, price, iso_seconds(price_at), _back(closes, 1),
        _pct(price, _back(closes, 1)), _pct(price, _back(closes, 5)), _pct(price, _back(closes, 21)),
        low, high, days, _premarket(market, calendar, bars, price, now, last),
    )


def _premarket(
    market: MarketSpec, calendar: Calendar, bars: list[Bar], price: float, now: datetime, last: date
) -> float | None:
    """Futures and bitcoin before the open: the move since the previous session's close."""
    today = et_date(now)
    if market.kind not in PREMARKET_KINDS:
        return None
    if calendar.is_session(today) and calendar.session_open(today) <= now:
        return None
    anchor = last_bar_at_or_before(bars, calendar.session_close(last) - ONE_MINUTE)
    return _pct(price, anchor.close if anchor else None)


def _row(market: MarketSpec, provider: PriceProvider, calendar: Calendar, now: datetime) -> SnapshotRow:
    last = calendar.last_closed_session(now)
    in_session = calendar.is_open_at(now)
    closes_to = last if market.daily else now.date() - timedelta(days=1)
    closes = daily_closes(provider, calendar, market, closes_to)
    if market.kind in HOLD_BEFORE_OPEN and not in_session:
        return _previous_row(market, calendar, closes, last)
    return _live_row(market, provider, calendar, now, last, closes)


def take_snapshot(
    markets: Sequence[MarketSpec], provider: PriceProvider, calendar: Calendar, now: datetime
) -> Snapshot:
    """One row per market; a failing market is an ``unavailable`` row, the others still taken."""
    now = to_utc(now).replace(microsecond=0)
    rows = []
    for market in markets:
        try:
            rows.append(_row(market, provider, calendar, now))
        except PriceError as exc:
            log.warning("snapshot.unavailable", market=market.code, error=exc.message)
            rows.append(SnapshotRow(market.code, market.symbol, "unavailable", error=exc.message))
    today = et_date(now)
    session = calendar.session_on_or_after(today)
    return Snapshot(now, session, provider.name, tuple(rows))


# ------------------------------------------------------------------------------ the job
def snapshot_path(lg: League, session: str) -> Path:
    return lg.data_dir / "snapshots" / f"{session}.json"


def job_snapshot(lg: League, session: str) -> dict[str, Any]:
    """Take (once) and keep the morning snapshot; its SHA-256 goes into the run line."""
    path = snapshot_path(lg, session)
    if path.exists():
        loaded: dict[str, Any] = json.loads(path.read_text(encoding="utf-8"))
        return loaded
    snap = take_snapshot(lg.config.markets.markets, lg.market.prices, lg.market.calendar, lg.clock.now())
    body = snap.as_json()
    record = {"session": session, "sha256": snap.sha256, "snapshot": body, **crowd_quotes(lg, session)}
    path.parent.mkdir(parents=True, exist_ok=True)
    tmp = path.with_suffix(".tmp")
    tmp.write_text(json.dumps(record, sort_keys=True, ensure_ascii=False), encoding="utf-8")
    tmp.replace(path)
    return record


def crowd_quotes(lg: League, session: str) -> dict[str, Any]:
    """Prediction-market prices and volumes recorded with the snapshot (sealed later in the run line).

    A failing venue leaves the list empty with the error named; the day goes on without a crowd.
    """
    provider = lg.market.crowd
    if provider is None:
        return {"crowd": []}
    try:
        quotes = provider.quotes(date.fromisoformat(session), lg.config.markets.codes, lg.clock.now())
    except Exception as exc:  # noqa: BLE001 - the crowd is a comparison, never a reason to skip a day
        log.warning("crowd.unavailable", session=session, error=str(exc))
        return {"crowd": [], "crowd_error": str(exc)[:500]}
    return {"crowd": [q.as_json() for q in quotes]}
