"""Yahoo Finance 1-minute bars through ``yfinance`` (provider name ``yahoo_finance_chart_v8_1m``).

yfinance is an optional extra (``pip install 'forecast-league[yahoo]'``): this module is the adapter the
entry point names with that extra, so it imports yfinance at its top, and whoever imports it otherwise does
so under ``league.extras.extra("yahoo")`` (the offline demo never does). Yahoo rate-limits and has
outages, so every call goes through bounded ``tenacity`` retries on rate limits and network errors; what
still fails becomes a :class:`ProviderOutage` (or :class:`PriceError` for a refusal such as a range older than 30 days),
never an empty answer that would look like "no trading".

yfinance hides exceptions by default (it logs and returns an empty frame); the adapter switches that
off (``yf.config.debug.hide_exceptions = False``) so a failure is seen as a failure.
"""

from __future__ import annotations

import math
from collections.abc import Callable, Iterable, Sequence
from datetime import UTC, date, datetime, timedelta
from types import ModuleType
from typing import Protocol, TypeVar

import requests
import structlog
import yfinance
from curl_cffi.requests.exceptions import RequestException as CurlError
from tenacity import RetryError
from yfinance import exceptions as yfe

from league.calendar import Calendar
from league.config import Config
from league.prices.cache import BarCache, CachedProvider
from league.prices.interface import Bar, PriceError, PriceSource, ProviderOutage, check_window
from league.retry import bounded

log = structlog.get_logger(__name__)
PROVIDER_NAME = "yahoo_finance_chart_v8_1m"
MAX_1M_SPAN = timedelta(days=7)  # Yahoo serves at most ~8 days of 1-minute bars per request
T = TypeVar("T")


class _Stamp(Protocol):
    """A row's time in yfinance's frame (a pandas Timestamp)."""

    def to_pydatetime(self) -> datetime: ...

    def date(self) -> date: ...


class _Row(Protocol):
    """One row of the OHLCV frame, as ``itertuples`` gives it."""

    @property
    def Open(self) -> float: ...  # noqa: N802 - yfinance's column names

    @property
    def High(self) -> float: ...  # noqa: N802

    @property
    def Low(self) -> float: ...  # noqa: N802

    @property
    def Close(self) -> float: ...  # noqa: N802

    @property
    def Volume(self) -> float: ...  # noqa: N802


class _Column(Protocol):
    def tolist(self) -> list[float]: ...


class _Frame(Protocol):
    """What the provider reads of yfinance's OHLCV frame (a pandas DataFrame)."""

    @property
    def index(self) -> Iterable[_Stamp]: ...

    def __len__(self) -> int: ...

    def __getitem__(self, column: str) -> _Column: ...

    def itertuples(self, index: bool = ...) -> Iterable[_Row]: ...


class _Ticker(Protocol):
    """What the provider calls of ``yfinance.Ticker``."""

    def history(self, *, interval: str, start: datetime | str, end: datetime | str, auto_adjust: bool,
                actions: bool, timeout: float, prepost: bool = ...) -> _Frame: ...


def chunks(start: datetime, end: datetime, span: timedelta) -> list[tuple[datetime, datetime]]:
    """``[start, end)`` cut into consecutive pieces no longer than ``span``."""
    out = []
    lo = start
    while lo < end:
        hi = min(lo + span, end)
        out.append((lo, hi))
        lo = hi
    return out


def _yf() -> ModuleType:
    """yfinance, with its exceptions shown (see the module docstring)."""
    yfinance.config.debug.hide_exceptions = False
    module: ModuleType = yfinance
    return module


def is_transient(exc: BaseException) -> bool:
    """Rate limits, network failures and "Yahoo is down" pages are worth a bounded retry."""
    if isinstance(exc, yfe.YFRateLimitError | ConnectionError | TimeoutError):
        return True
    if isinstance(exc, yfe.YFDataException) and "DOWN" in str(exc).upper():
        return True
    return _is_http_transport_error(exc)


def _is_http_transport_error(exc: BaseException) -> bool:
    if isinstance(exc, requests.exceptions.HTTPError):
        status = getattr(exc.response, "status_code", 0) or 0
        return status >= 500 or status == 429
    if isinstance(exc, requests.exceptions.RequestException):
        return True
    return isinstance(exc, CurlError)


def _frame_to_bars(frame: _Frame | None, symbol: str) -> list[Bar]:
    """Turn yfinance's OHLCV frame into bars; NaN rows (Yahoo's empty minutes) and broken rows are
    dropped and logged, never repaired."""
    bars: list[Bar] = []
    if frame is None or len(frame) == 0:
        return bars
    for stamp, row in zip(frame.index, frame.itertuples(index=False), strict=True):
        values = (float(row.Open), float(row.High), float(row.Low), float(row.Close))
        if not all(math.isfinite(v) for v in values):
            continue
        volume = float(row.Volume) if math.isfinite(float(row.Volume)) else 0.0
        try:
            bars.append(Bar(stamp.to_pydatetime().astimezone(UTC), *values, volume))
        except PriceError as exc:
            log.warning("prices.yahoo.bad_bar", symbol=symbol, error=exc.message)
    return bars


class YahooProvider:
    """Live 1-minute bars from Yahoo's chart v8 endpoint via ``yfinance``."""

    name = PROVIDER_NAME

    def __init__(
        self, *, retries: int = 4, wait_seconds: float = 2.0, timeout: float = 20.0, session: object = None
    ) -> None:
        self.retries = retries
        self.wait_seconds = wait_seconds
        self.timeout = timeout
        self.session = session

    def _ticker(self, symbol: str) -> _Ticker:
        yf = _yf()
        ticker: _Ticker = yf.Ticker(symbol, session=self.session) if self.session is not None else yf.Ticker(symbol)
        return ticker

    def _call(self, what: str, symbol: str, fetch: Callable[[], T]) -> T:
        """Run ``fetch`` with bounded retries; translate the library's errors into the port's."""
        retrying = bounded(attempts=self.retries + 1, wait_s=self.wait_seconds, retry_on=is_transient, reraise=False)
        try:
            return retrying(fetch)
        except RetryError as exc:
            last = exc.last_attempt.exception()
            raise ProviderOutage(
                f"{self.name}: {what} {symbol} failed after {self.retries + 1} attempts: {last!r}",
                fix="the cell stays unresolved; the job retries later",
            ) from last
        except PriceError:
            raise
        except Exception as exc:
            raise self._translate(exc, what, symbol) from exc

    def _translate(self, exc: Exception, what: str, symbol: str) -> PriceError:
        if isinstance(exc, yfe.YFPricesMissingError):
            return PriceError(f"{self.name}: no prices for {symbol} ({what}): {exc}")
        if isinstance(exc, yfe.YFTzMissingError):
            return PriceError(f"{self.name}: unknown symbol {symbol}: {exc}", fix="check the symbol in markets.toml")
        return PriceError(f"{self.name}: {what} {symbol} failed: {exc!r}")

    def bars(self, symbol: str, start: datetime, end: datetime) -> list[Bar]:
        """1-minute regular-hours bars with start in ``[start, end)`` (Yahoo serves ~30 days back)."""
        start, end = check_window(start, end)
        bars: list[Bar] = []
        for lo, hi in chunks(start, end, MAX_1M_SPAN):
            bars.extend(self._bars_once(symbol, lo, hi))
        log.info("prices.yahoo.bars", symbol=symbol, start=start.isoformat(), end=end.isoformat(), bars=len(bars))
        return bars

    def _bars_once(self, symbol: str, start: datetime, end: datetime) -> list[Bar]:
        def fetch() -> _Frame:
            return self._ticker(symbol).history(
                interval="1m", start=start, end=end, prepost=False, auto_adjust=False, actions=False,
                timeout=self.timeout,
            )

        frame = self._call("1m bars", symbol, fetch)
        return [b for b in _frame_to_bars(frame, symbol) if start <= b.start < end]

    def daily_closes(self, symbol: str, start: date, end: date) -> list[tuple[date, float]]:
        """Daily closes (unadjusted) for 52-week ranges and multi-day changes."""

        def fetch() -> _Frame:
            return self._ticker(symbol).history(
                interval="1d", start=start.isoformat(), end=(end + timedelta(days=1)).isoformat(),
                auto_adjust=False, actions=False, timeout=self.timeout,
            )

        frame = self._call("daily closes", symbol, fetch)
        out: list[tuple[date, float]] = []
        for stamp, close in zip(frame.index, frame["Close"].tolist(), strict=True):
            if math.isfinite(float(close)) and float(close) > 0:
                out.append((stamp.date(), float(close)))
        return out


def daily_history(provider: YahooProvider, symbol: str, start: date, end: date) -> list[dict[str, str]]:
    """Daily bars (unadjusted open and close) of ``start..end`` as the recorded history's rows
    (``symbol, day, open, close``): what ``league init`` seals its climatology from."""

    def fetch() -> _Frame:
        return provider._ticker(symbol).history(
            interval="1d", start=start.isoformat(), end=(end + timedelta(days=1)).isoformat(),
            auto_adjust=False, actions=False, timeout=provider.timeout,
        )

    frame = provider._call("daily bars", symbol, fetch)
    rows = []
    for stamp, o, c in zip(frame.index, frame["Open"].tolist(), frame["Close"].tolist(), strict=True):
        if all(math.isfinite(float(x)) and float(x) > 0 for x in (o, c)) and start <= stamp.date() <= end:
            rows.append({"symbol": symbol, "day": stamp.date().isoformat(), "open": repr(float(o)),
                         "close": repr(float(c))})
    return rows


def from_config(config: Config, calendar: Calendar, mirrors: Sequence[BarCache] = (),
                anchor: date | None = None) -> PriceSource:
    """The ``yahoo`` price provider (entry point ``forecast_league.prices``, extra ``yahoo``): live bars
    behind the price cache (DATA/prices, mirrored into ``mirrors``: the database, when there is one)."""
    return CachedProvider(YahooProvider(retries=config.settings.prices.retries), config.data_dir / "prices",
                          mirrors=list(mirrors))
