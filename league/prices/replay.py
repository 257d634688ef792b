"""Offline price providers: recorded day files, and a reproducible synthetic market.

:class:`SyntheticMarket` lets a whole season run with no network and still look like markets:

1. **Daily path.** Markets with shipped history (``arch.data``: sp500, nasdaq, vix, wti, crude) take
   consecutive daily rows of that real series — the window start is drawn from the seed — laid in
   order onto the simulated sessions and rescaled so the anchor session sits at a realistic current
   level (a span longer than the series appends it run backwards in time; by default the span
   runs from 300 sessions before the anchor to the calendar's end). Close-only series (vix, wti)
   get their open/high/low drawn around the real closes; the monthly ``crude`` series is filled
   to daily closes with a seeded log bridge between its months.
   Markets with ``history = "none"`` get a seeded AR(1)-in-log path with a realistic daily
   volatility per kind (index 1%, yield 1.5%, fx 0.4%, futures 1.2-2%, volatility 6%, crypto 3%).
2. **Minutes.** Each session's 1-minute bars (390; fewer on early closes; 1440 per UTC day for
   bitcoin) are a seeded Brownian bridge pinned at the day's open, high, low and close, so the bars
   reproduce the daily row EXACTLY (first open, max high, min low, last close). Futures and the
   dollar index also get 04:00-09:30 ET pre-market bars bridging the previous close to the open, so
   a pre-market snapshot sees a live price.
3. **Derived symbols.** Funds (``fund`` in markets.toml) are proportional to their market; a fund
   with ``fund_inverse`` (IEF on the 10-year yield) moves as a 7.5-duration bond:
   ``F0 * exp(-7.5 * (y - y0) / 100)``. ``^IRX`` (13-week bill rate) is a slow level near 3.85.
   Any other symbol gets its own independent equity-like path at level 100.

Every random draw comes from a generator seeded by ``(seed, market, day, purpose)``, so each
(symbol, day) is computed lazily and independently of call order, and the same seed gives
byte-identical bars.
"""

from __future__ import annotations

import csv
import gzip
import importlib.util
import math
import threading
import zlib
from collections import OrderedDict
from collections.abc import Iterable, Sequence
from dataclasses import dataclass
from datetime import UTC, date, datetime, time, timedelta
from functools import lru_cache
from pathlib import Path

import numpy as np
import numpy.typing as npt

from league.calendar import DEFAULT_END, GROW_BY, Calendar, et_date, et_to_utc
from league.config import REFERENCE_RULE, Config, MarketSpec
from league.prices.cache import BarCache, FolderBarCache, day_path, read_day_file, utc_days
from league.prices.columns import (
    SET_CLOSE,
    SET_HIGH,
    SET_LOW,
    SET_OPEN,
    SET_START,
    SET_VOLUME,
    BarColumns,
    bar_checks,
    minute_starts,
)
from league.prices.interface import Bar, PriceError, PriceSource, check_window
from league.prices.memo import MemoProvider

Arr = npt.NDArray[np.float64]

PROVIDER_NAME = "replay_synthetic_v1"
RECORDED_NAME = "replay_recorded_v1"
DEFAULT_ANCHOR = date(2026, 1, 2)
PREMARKET_ET = time(4, 0)
BOND_DURATION = 7.5

# Realistic late-2026 levels, keyed by market code or fund/other symbol.
LEVELS: dict[str, float] = {
    "SPX": 6800.0, "NDX": 25000.0, "DJI": 47500.0, "SOX": 7000.0, "TNX": 4.10, "DXY": 99.5,
    "VIX": 17.0, "GOLD": 4100.0, "WTI": 60.0, "BRENT": 64.0, "COPPER": 5.10, "BTC": 92000.0,
    "IRX": 3.85,
    "SPY": 680.0, "QQQ": 610.0, "DIA": 475.0, "SOXX": 290.0, "IEF": 96.5, "UUP": 27.2,
    "GLD": 378.0, "USO": 72.0, "BNO": 28.0, "CPER": 33.0, "IBIT": 52.0,
}  # fmt: skip
KIND_VOL = {"index": 0.010, "yield": 0.015, "fx": 0.004, "future": 0.017, "volatility": 0.06, "crypto": 0.03}
CODE_VOL = {"GOLD": 0.012, "COPPER": 0.015, "WTI": 0.020, "BRENT": 0.019, "SOX": 0.018, "IRX": 0.002}
KIND_PERSISTENCE = {"volatility": 0.97, "yield": 0.995}  # AR(1) in log level; 1.0 = random walk
PREMARKET_KINDS = {"future", "fx"}


def _crc(text: str) -> int:
    return zlib.crc32(text.encode("utf-8"))


def _decimals(level: float) -> int:
    return 2 if level >= 50 else 4


# ----------------------------------------------------------------------------- real history
@dataclass(frozen=True)
class _Series:
    """A shipped daily series as log prices; ``ohlc`` False when only closes exist."""

    o: Arr
    h: Arr
    low: Arr
    c: Arr
    ohlc: bool
    monthly: bool


def _history_file(name: str) -> Path:
    """The CSV that ``arch.data.<name>.load()`` reads, found without importing ``arch`` (its import
    pulls in the whole modelling stack and costs seconds)."""
    spec = importlib.util.find_spec("arch")
    if spec is None or not spec.submodule_search_locations:
        raise PriceError("the arch package (it ships the replay's price history) is not installed",
                         fix="pip install 'forecast-league[stats]'")
    path = Path(next(iter(spec.submodule_search_locations))) / "data" / name / f"{name}.csv.gz"
    if not name.isidentifier() or not path.exists():
        raise PriceError(f"unknown history series {name!r}", fix="use sp500, nasdaq, vix, wti, crude or none")
    return path


def _read_columns(path: Path) -> tuple[list[str], dict[str, list[float]]]:
    """Dates and numeric columns of a shipped CSV; unparsable cells become NaN (as arch's loader does)."""
    with gzip.open(path, "rt", encoding="utf-8", newline="") as fh:
        rows = list(csv.reader(fh))
    header, body = rows[0], rows[1:]
    cols: dict[str, list[float]] = {h: [] for h in header[1:]}
    for row in body:
        for h, cell in zip(header[1:], row[1:], strict=False):
            try:
                cols[h].append(float(cell))
            except ValueError:
                cols[h].append(math.nan)
    return [r[0] for r in body], cols


def _parse_day(text: str) -> date:
    """ISO dates, or the US ``m/d/Y`` form some shipped CSVs use."""
    if "/" in text:
        month, day, year = (int(x) for x in text.split()[0].split("/"))
        return date(year, month, day)
    return date.fromisoformat(text[:10])


@lru_cache(maxsize=8)
def _load_history(name: str) -> _Series:
    """Load a series shipped inside ``arch`` (cached; no network)."""
    dates, cols = _read_columns(_history_file(name))
    if {"Open", "High", "Low", "Close"} <= set(cols):
        table = np.array([cols[k] for k in ("Open", "High", "Low", "Close")], dtype=float)
        ok = np.isfinite(table).all(axis=0) & (table > 0).all(axis=0)
        o, h, low, c = np.log(table[:, ok])
        return _Series(o, h, low, c, True, False)
    column = "Brent" if "Brent" in cols else next(iter(cols))
    values = np.array(cols[column], dtype=float)
    ok = np.isfinite(values) & (values > 0)
    kept = [d for d, keep in zip(dates, ok, strict=True) if keep]
    monthly = len(kept) > 2 and (_parse_day(kept[1]) - _parse_day(kept[0])).days > 20
    c = np.log(values[ok])
    return _Series(c, c, c, c, False, monthly)


def _bridge_path(rng: np.random.Generator, a: float, b: float, steps: int, sigma: float) -> Arr:
    """A Brownian bridge from ``a`` to ``b`` in ``steps`` steps (``steps + 1`` points, ends exact)."""
    walk = np.concatenate(([0.0], np.cumsum(rng.normal(0.0, sigma, steps))))
    frac = np.arange(steps + 1) / steps
    path: Arr = np.asarray(a + (b - a) * frac + walk - frac * walk[-1], dtype=np.float64)
    path[0], path[-1] = a, b
    return path


def _monthly_to_daily(series: _Series, n: int, rng: np.random.Generator, vol: float) -> Arr:
    """Daily log closes from a monthly series: a seeded bridge of 21 sessions between months."""
    months = n // 21 + 2
    if len(series.c) <= months:
        raise PriceError(f"monthly series too short for {n} sessions")
    first = int(rng.integers(0, len(series.c) - months))
    pieces = [_bridge_path(rng, series.c[first + k], series.c[first + k + 1], 21, vol)[:-1] for k in range(months - 1)]
    return np.concatenate(pieces)[:n]


def _ohlc_around_closes(c: Arr, rng: np.random.Generator, vol: float) -> tuple[Arr, Arr, Arr, Arr]:
    """Opens near the previous close, highs/lows beyond the body, for a close-only series."""
    prev = np.concatenate(([c[0]], c[:-1]))
    o = prev + rng.normal(0.0, 0.25 * vol, len(c))
    h = np.maximum(o, c) + np.abs(rng.normal(0.0, 0.5 * vol, len(c)))
    low = np.minimum(o, c) - np.abs(rng.normal(0.0, 0.5 * vol, len(c)))
    return o, h, low, c


def _history_ohlc(name: str, n: int, rng: np.random.Generator, vol: float) -> tuple[Arr, Arr, Arr, Arr]:
    series = _load_history(name)
    if series.monthly:
        return _ohlc_around_closes(_monthly_to_daily(series, n, rng, vol), rng, vol)
    o, h, low, c = _mirrored(series, n)
    first = int(rng.integers(0, len(c) - n + 1))
    window = slice(first, first + n)
    if series.ohlc:
        return o[window], h[window], low[window], c[window]
    return _ohlc_around_closes(c[window], rng, vol)


def _mirrored(series: _Series, n: int) -> tuple[Arr, Arr, Arr, Arr]:
    """The series, extended when shorter than the span by appending it run backwards in time
    (a reversed day swaps open and close), shifted to start where the path ends: continuous and
    real-looking, never a made-up volatility."""
    o, h, low, c = series.o, series.h, series.low, series.c
    back = slice(None, None, -1)
    while len(c) < n:
        shift = c[-1] - series.c[-1]
        pairs = ((o, series.c[back]), (h, series.h[back]), (low, series.low[back]), (c, series.o[back]))
        o, h, low, c = [np.concatenate((cur, add + shift)) for cur, add in pairs]
    return o, h, low, c


def _random_ohlc(n: int, rng: np.random.Generator, vol: float, persistence: float) -> tuple[Arr, Arr, Arr, Arr]:
    """A seeded AR(1)-in-log daily path (a random walk when ``persistence`` is 1)."""
    shocks = rng.normal(0.0, vol, n).tolist()
    level, path = 0.0, []
    for shock in shocks:  # a plain loop: ~1500 steps, cheaper than importing scipy.signal
        level = persistence * level + shock
        path.append(level)
    return _ohlc_around_closes(np.array(path, dtype=np.float64), rng, vol)


# ----------------------------------------------------------------------------- minutes
def bridge_points(
    rng: np.random.Generator, o: float, h: float, low: float, c: float, n: int, decimals: int
) -> tuple[Arr, int, int]:
    """``n + 1`` minute-boundary prices: start at ``o``, end at ``c``, touch ``h`` and ``low`` once each
    at seeded interior minutes, never leave ``[low, h]``. Returns (points, i_high, i_low)."""
    if n < 3:
        raise PriceError(f"a bridged day needs at least 3 minutes, got {n}")
    i_h, i_l = (int(x) for x in rng.choice(np.arange(1, n), size=2, replace=False))
    anchors = sorted([(0, math.log(o)), (i_h, math.log(h)), (i_l, math.log(low)), (n, math.log(c))])
    sigma = max(math.log(h) - math.log(low), 1e-6) / (2.0 * math.sqrt(n))
    pieces = [
        _bridge_path(rng, v0, v1, i1 - i0, sigma)[:-1] for (i0, v0), (i1, v1) in zip(anchors, anchors[1:], strict=False)
    ]
    points = np.clip(np.round(np.exp(np.concatenate([*pieces, [math.log(c)]])), decimals), low, h)
    points[0], points[n], points[i_h], points[i_l] = o, c, h, low
    return points, i_h, i_l


def bars_from_points(
    rng: np.random.Generator, points: Arr, cap_high: float, cap_low: float, decimals: int
) -> tuple[Arr, Arr, Arr, Arr]:
    """Bar j opens at point j and closes at point j+1, with small wicks kept inside the day's range."""
    o, c = points[:-1], points[1:]
    body_hi, body_lo = np.maximum(o, c), np.minimum(o, c)
    wick = np.abs(rng.normal(0.0, 0.0002, len(o)))
    hi = np.maximum(np.minimum(np.round(body_hi * (1 + wick), decimals), cap_high), body_hi)
    lo = np.minimum(np.maximum(np.round(body_lo * (1 - wick), decimals), cap_low), body_lo)
    return o.copy(), hi, lo, c.copy()


def _volumes(rng: np.random.Generator, n: int, base: float) -> Arr:
    """U-shaped intraday volume with seeded noise (whole shares)."""
    x = np.linspace(-1.0, 1.0, n)
    return np.round(base * (1.0 + 2.0 * x * x) * rng.lognormal(0.0, 0.3, n))


@dataclass(frozen=True)
class _Minutes:
    """One (market, day) of 1-minute bars as arrays; ``t`` is the start in epoch seconds."""

    t: npt.NDArray[np.int64]
    o: Arr
    h: Arr
    low: Arr
    c: Arr
    v: Arr


@dataclass(frozen=True)
class _Daily:
    days: list[date]
    index: dict[date, int]
    o: Arr
    h: Arr
    low: Arr
    c: Arr


@dataclass(frozen=True)
class _Target:
    """How a symbol derives from a market path: ``scale * x`` or, inverse, ``scale * exp(-D (x - x0) / 100)``."""

    code: str
    scale: float
    inverse: bool
    x0: float
    decimals: int


def _pseudo_market(code: str, symbol: str, kind: str = "index") -> MarketSpec:
    """A path for a symbol no configured market has (a fund, the bill rate): internal to the replay, never in a
    contract, so it is not validated as a configured market is (any symbol asked for gets one)."""
    return MarketSpec.model_construct(
        code=code, name=symbol, symbol=symbol, kind=kind, group=code.lower(), provider=PROVIDER_NAME,
        reference_rule=REFERENCE_RULE, horizons=("1d",), end_time="16:00", trading="session", fund="",
        fund_inverse=False, history="none",
    )


class SyntheticMarket:
    """A seeded offline :class:`~league.prices.interface.PriceProvider` for every market and fund."""

    name = PROVIDER_NAME

    def __init__(
        self,
        seed: int,
        markets: Sequence[MarketSpec],
        calendar: Calendar,
        *,
        anchor: date = DEFAULT_ANCHOR,
        before: int = 300,
        after: int | None = None,
        cache_days: int = 4096,
    ) -> None:
        self.seed = int(seed)
        self.calendar = calendar
        self.anchor = calendar.session_on_or_after(anchor)
        first = max(calendar.first_session, _safe_offset(calendar, self.anchor, -before))
        last = _default_last(calendar, self.anchor) if after is None else min(
            calendar.last_session, _safe_offset(calendar, self.anchor, after))
        self.sessions = calendar.sessions_in_range(first, last)
        self.markets: dict[str, MarketSpec] = {m.code: m for m in markets}
        self.markets.setdefault("IRX", _pseudo_market("IRX", "^IRX", "yield"))
        self._targets: dict[str, _Target] = {}
        self._daily: dict[str, _Daily] = {}
        self._minutes: OrderedDict[tuple[str, date], _Minutes] = OrderedDict()
        self._cache_days = cache_days
        self._lock = threading.RLock()  # the daemon may read prices from scheduler threads

    # ------------------------------------------------------------------ seeding
    def _rng(self, code: str, purpose: str, day: date | None = None) -> np.random.Generator:
        parts = [self.seed, _crc(code), _crc(purpose), day.toordinal() if day else 0]
        return np.random.default_rng(np.random.SeedSequence(parts))

    # ------------------------------------------------------------------ daily path
    def _days_for(self, market: MarketSpec) -> list[date]:
        if market.daily:
            return self.sessions
        return list(self.calendar.days(self.sessions[0], self.sessions[-1]))

    def daily_path(self, code: str) -> _Daily:
        """The market's daily OHLC over the replay span (computed once per market)."""
        with self._lock:
            if code not in self._daily:
                self._daily[code] = self._build_daily(code)
            return self._daily[code]

    def _build_daily(self, code: str) -> _Daily:
        market = self.markets[code]
        days = self._days_for(market)
        vol = CODE_VOL.get(code, KIND_VOL[market.kind])
        rng = self._rng(code, "daily")
        if market.history != "none":
            o, h, low, c = _history_ohlc(market.history, len(days), rng, vol)
        else:
            o, h, low, c = _random_ohlc(len(days), rng, vol, KIND_PERSISTENCE.get(market.kind, 0.999))
        shift = math.log(LEVELS.get(code, 100.0)) - c[days.index(self.anchor)]
        dec = _decimals(LEVELS.get(code, 100.0))
        arrays = [np.round(np.exp(x + shift), dec) for x in (o, h, low, c)]
        arrays[1] = np.maximum(arrays[1], np.maximum(arrays[0], arrays[3]))
        arrays[2] = np.minimum(arrays[2], np.minimum(arrays[0], arrays[3]))
        return _Daily(days, {d: i for i, d in enumerate(days)}, *arrays)

    # ------------------------------------------------------------------ symbols
    def target(self, symbol: str) -> _Target:
        """Map a price symbol to its market path (market symbol, fund, ^IRX, or a new pseudo-market)."""
        with self._lock:
            if symbol not in self._targets:
                self._targets[symbol] = self._find_target(symbol)
            return self._targets[symbol]

    def _find_target(self, symbol: str) -> _Target:
        for m in self.markets.values():
            if m.symbol == symbol:
                return _Target(m.code, 1.0, False, 0.0, _decimals(LEVELS.get(m.code, 100.0)))
        for m in self.markets.values():
            if m.fund and m.fund == symbol:
                return self._fund_target(m)
        code = f"S{_crc(symbol):08X}"
        self.markets[code] = _pseudo_market(code, symbol)
        return _Target(code, 1.0, False, 0.0, 2)

    def _fund_target(self, market: MarketSpec) -> _Target:
        level = LEVELS.get(market.fund, 50.0)
        anchor_value = float(self.daily_path(market.code).c[self.daily_path(market.code).index[self.anchor]])
        if market.fund_inverse:
            return _Target(market.code, level, True, anchor_value, 2)
        return _Target(market.code, level / anchor_value, False, 0.0, 2)

    def _apply(self, tg: _Target, x: Arr) -> Arr:
        if tg.inverse:
            return np.round(tg.scale * np.exp(-BOND_DURATION * (x - tg.x0) / 100.0), tg.decimals)
        if tg.scale == 1.0:
            return x
        return np.round(tg.scale * x, tg.decimals)

    def _transform(self, tg: _Target, mins: _Minutes) -> _Minutes:
        if tg.scale == 1.0 and not tg.inverse:
            return mins
        o, c = self._apply(tg, mins.o), self._apply(tg, mins.c)
        hi, lo = (mins.low, mins.h) if tg.inverse else (mins.h, mins.low)
        h = np.maximum(self._apply(tg, hi), np.maximum(o, c))
        low = np.minimum(self._apply(tg, lo), np.minimum(o, c))
        return _Minutes(mins.t, o, h, low, c, mins.v)

    # ------------------------------------------------------------------ minutes
    def _session_window(self, market: MarketSpec, day: date) -> tuple[datetime, int]:
        if not market.daily:
            return datetime.combine(day, time(0), tzinfo=UTC), 1440
        return self.calendar.session_open(day), self.calendar.session_minutes(day)

    def minutes(self, code: str, day: date) -> _Minutes | None:
        """The market's 1-minute bars of ``day`` (pre-market + session), or None off-span/off-session."""
        key = (code, day)
        with self._lock:
            if key in self._minutes:
                self._minutes.move_to_end(key)
                return self._minutes[key]
            built = self._build_minutes(code, day)
            if built is not None:
                self._minutes[key] = built
                if len(self._minutes) > self._cache_days:
                    self._minutes.popitem(last=False)
            return built

    def _build_minutes(self, code: str, day: date) -> _Minutes | None:
        daily = self.daily_path(code)
        i = daily.index.get(day)
        if i is None:
            return None
        market = self.markets[code]
        rng = self._rng(code, "minutes", day)
        dec = _decimals(LEVELS.get(code, 100.0))
        o, h, low, c = (float(a[i]) for a in (daily.o, daily.h, daily.low, daily.c))
        open_at, n = self._session_window(market, day)
        points, _, _ = bridge_points(rng, o, h, low, c, n, dec)
        bo, bh, bl, bc = bars_from_points(rng, points, h, low, dec)
        t = int(open_at.timestamp()) + 60 * np.arange(n, dtype=np.int64)
        session = _Minutes(t, bo, bh, bl, bc, _volumes(rng, n, 1000.0))
        if market.daily and market.kind in PREMARKET_KINDS and i > 0:
            return _concat(self._premarket(rng, day, float(daily.c[i - 1]), o, open_at, dec, h, low), session)
        return session

    def _premarket(
        self, rng: np.random.Generator, day: date, prev_close: float, open_price: float,
        open_at: datetime, dec: int, h: float, low: float,
    ) -> _Minutes:
        """04:00 ET to the open: a bridge from the previous close to today's open (the overnight gap)."""
        start = et_to_utc(day, PREMARKET_ET)
        n = int((open_at - start).total_seconds() // 60)
        sigma = max(abs(math.log(h / low)), 1e-6) / (4.0 * math.sqrt(390))
        path = _bridge_path(rng, math.log(prev_close), math.log(open_price), n, sigma)
        points: Arr = np.asarray(np.round(np.exp(path), dec), dtype=np.float64)
        points[0], points[-1] = prev_close, open_price
        bo, bh, bl, bc = bars_from_points(rng, points, float(points.max()), float(points.min()), dec)
        t = int(start.timestamp()) + 60 * np.arange(n, dtype=np.int64)
        return _Minutes(t, bo, bh, bl, bc, _volumes(rng, n, 200.0))

    # ------------------------------------------------------------------ provider API
    def _days_touching(self, market: MarketSpec, start: datetime, end: datetime) -> list[date]:
        if not market.daily:
            return utc_days(start, end)
        first, last = et_date(start), et_date(end)
        return [first + timedelta(days=k) for k in range((last - first).days + 1)]

    def minute_arrays(self, symbol: str, start: datetime, end: datetime) -> list[_Minutes]:
        """The symbol's minute arrays (already transformed) for every day touching ``[start, end)``."""
        start, end = check_window(start, end)
        tg = self.target(symbol)
        market = self.markets[tg.code]
        out = []
        for day in self._days_touching(market, start, end):
            mins = self.minutes(tg.code, day)
            if mins is not None:
                out.append(self._transform(tg, mins))
        return out

    def bars(self, symbol: str, start: datetime, end: datetime) -> list[Bar]:
        """Bars with start in ``[start, end)``; days outside the replay span have no bars."""
        lo, hi = int(check_window(start, end)[0].timestamp()), int(end.timestamp())
        out: list[Bar] = []
        for m in self.minute_arrays(symbol, start, end):
            keep = np.nonzero((m.t >= lo) & (m.t < hi))[0]
            out.extend(_bars(m, keep))
        return out

    def bar_columns(self, symbol: str, start: datetime, end: datetime) -> BarColumns | None:
        """What :meth:`bars` gives for ``[start, end)``, as columns (league.prices.columns); ``None`` when its
        minutes could not be (one fails ``Bar``'s check, or they are out of order): read them with ``bars``."""
        lo, hi = int(check_window(start, end)[0].timestamp()), int(end.timestamp())
        parts = [(m, np.nonzero((m.t >= lo) & (m.t < hi))[0]) for m in self.minute_arrays(symbol, start, end)]
        t, o, h, low, c, v = (np.concatenate([getattr(m, f)[keep] for m, keep in parts] or [np.zeros(0)])
                              for f in ("t", "o", "h", "low", "c", "v"))
        try:
            return BarColumns(t.astype(np.int64), o, h, low, c, v)
        except PriceError:
            return None

    def daily_ohlc(self, symbol: str, day: date) -> tuple[float, float, float, float] | None:
        """The (transformed) daily row the minutes of ``day`` are pinned to."""
        tg = self.target(symbol)
        daily = self.daily_path(tg.code)
        i = daily.index.get(day)
        if i is None:
            return None
        one = slice(i, i + 1)
        zero = np.zeros(1, dtype=np.int64)
        row = _Minutes(zero, daily.o[one], daily.h[one], daily.low[one], daily.c[one], np.zeros(1))
        t = self._transform(tg, row)
        return float(t.o[0]), float(t.h[0]), float(t.low[0]), float(t.c[0])

    def daily_closes(self, symbol: str, start: date, end: date) -> list[tuple[date, float]]:
        """(day, close) for each day of the symbol's market with start <= day <= end; cheap (no minutes)."""
        tg = self.target(symbol)
        daily = self.daily_path(tg.code)
        idx = [i for i, d in enumerate(daily.days) if start <= d <= end]
        closes = self._apply(tg, daily.c[idx]) if idx else np.zeros(0)
        return [(daily.days[i], float(x)) for i, x in zip(idx, closes, strict=True)]


def _default_last(calendar: Calendar, anchor: date) -> date:
    """The default span's last session. A calendar built with an end keeps it: its last session. A growing
    one moves its end whenever anything in the process asks about a later day (one test asked about 2099),
    and the replay of a seed must not depend on what else the process did (its paths would change length,
    hence values): its span ends on a fixed day, the calendar's default end or two years past a later anchor."""
    if not calendar.growing:
        return calendar.last_session
    return calendar.session_on_or_before(max(DEFAULT_END, anchor + GROW_BY))


def _safe_offset(calendar: Calendar, session: date, n: int) -> date:
    try:
        return calendar.offset(session, n)
    except Exception:
        return calendar.first_session if n < 0 else calendar.last_session


def _concat(a: _Minutes, b: _Minutes) -> _Minutes:
    return _Minutes(*(np.concatenate((x, y)) for x, y in zip(
        (a.t, a.o, a.h, a.low, a.c, a.v), (b.t, b.o, b.h, b.low, b.c, b.v), strict=True)))


def _bars(m: _Minutes, keep: npt.NDArray[np.intp]) -> list[Bar]:
    """The provider bars of the kept minutes. When every one of them passes :class:`Bar`'s check (checked
    here on the arrays at once) they are made without running it once per bar (a third of the cost);
    otherwise through ``Bar(...)``, which raises its own error for the first one that fails."""
    o, h, low, c, v = (x[keep] for x in (m.o, m.h, m.low, m.c, m.v))
    rows = zip(minute_starts(m.t[keep].tolist()), o.tolist(), h.tolist(), low.tolist(), c.tolist(), v.tolist(),
               strict=True)
    if not bar_checks(o, h, low, c, v):
        return [Bar(*row) for row in rows]
    return _checked_bars(rows)


_NEW = object.__new__


def _checked_bars(rows: Iterable[tuple[datetime, float, float, float, float, float]]) -> list[Bar]:
    """Bars of rows already known to pass the check, with UTC starts (:func:`minute_starts`): the six slots
    set directly, as the frozen dataclass's own ``__init__`` sets them."""
    out: list[Bar] = []
    for start, o, h, low, c, v in rows:
        bar = _NEW(Bar)
        SET_START(bar, start)
        SET_OPEN(bar, o)
        SET_HIGH(bar, h)
        SET_LOW(bar, low)
        SET_CLOSE(bar, c)
        SET_VOLUME(bar, v)
        out.append(bar)
    return out


class RecordedProvider:
    """Replays day files recorded under ``DATA/prices`` (the cache layout); offline and read-only.

    Only days marked complete are served unless ``include_partial`` is set; a day with no file
    has no bars (so the caller leaves the cell unresolved rather than guessing).
    """

    name = RECORDED_NAME

    def __init__(self, folder: Path, *, include_partial: bool = False) -> None:
        self.folder = Path(folder)
        self._cache = FolderBarCache(self.folder)
        self.include_partial = include_partial

    def _day(self, symbol: str, day: date) -> list[Bar]:
        got = self._cache.get_bars(symbol, day)
        if got is not None:
            return got
        path = day_path(self.folder, symbol, day)
        return read_day_file(path) if self.include_partial and path.exists() else []

    def bars(self, symbol: str, start: datetime, end: datetime) -> list[Bar]:
        start, end = check_window(start, end)
        out = [b for day in utc_days(start, end) for b in self._day(symbol, day)]
        return [b for b in out if start <= b.start < end]


def from_config(config: Config, calendar: Calendar, mirrors: Sequence[BarCache] = (),
                anchor: date | None = None) -> PriceSource:
    """The ``replay`` price provider (entry point ``forecast_league.prices``): the synthetic market of
    ``[prices] seed``, anchored at realistic levels on ``anchor`` (the demo's first session), behind a
    day memo (replay prices never change once synthesized)."""
    market = (SyntheticMarket(config.settings.prices.seed, config.markets.markets, calendar, anchor=anchor)
              if anchor is not None else SyntheticMarket(config.settings.prices.seed, config.markets.markets, calendar))
    return MemoProvider(market)
