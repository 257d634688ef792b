"""Kalshi adapter (fallback venue) and the strike-ladder conversion of scoring.md §8.

Kalshi lists a day's index question as a ladder of strikes ("above 5,850", "above 5,875", …) or of
ranges. The league's question is "above the previous close", so the ladder is turned into
P(above strike) per strike and interpolated linearly between the two strikes around the previous
close. Outside the ladder there is nothing to interpolate and the conversion refuses.
"""

from __future__ import annotations

from collections.abc import Callable, Sequence
from dataclasses import dataclass
from datetime import date, datetime
from functools import partial

import httpx
import structlog
from pydantic import BaseModel, ConfigDict, Field

from league.calendar import Calendar
from league.config import Config, Markets
from league.crowd._http import Params, get_json, with_retries
from league.crowd.interface import CrowdError, CrowdProvider, CrowdQuote, aware_utc
from league.jsonvalue import Json, JsonObject, as_float
from league.prices.interface import PriceSource

log = structlog.get_logger(__name__)
SETTLED = frozenset({"settled", "finalized", "determined"})


def _ladder(strikes: Sequence[tuple[float, float]]) -> list[tuple[float, float]]:
    """Sorted, checked ladder: at least two distinct strikes, probabilities in [0, 1]."""
    ladder = sorted((float(s), float(p)) for s, p in strikes)
    if len(ladder) < 2:
        raise CrowdError(f"a strike ladder needs at least two strikes, got {ladder}")
    if any(not 0.0 <= p <= 1.0 for _, p in ladder):
        raise CrowdError(f"ladder probabilities must lie in [0, 1]: {ladder}")
    if len({s for s, _ in ladder}) != len(ladder):
        raise CrowdError(f"ladder repeats a strike: {ladder}")
    return ladder


def neighbours(strikes: Sequence[tuple[float, float]], level: float) -> tuple[tuple[float, float], tuple[float, float]]:
    """The two ladder rungs around ``level`` (lower <= level <= upper); refuses a level outside the ladder."""
    ladder = _ladder(strikes)
    low, high = ladder[0][0], ladder[-1][0]
    if not low <= level <= high:
        raise CrowdError(
            f"previous close {level} lies outside the strike ladder [{low}, {high}]",
            fix="no crowd quote for this market today; interpolation beyond the ladder would be invented",
        )
    for lower, upper in zip(ladder, ladder[1:], strict=False):
        if lower[0] <= level <= upper[0]:
            return lower, upper
    raise AssertionError("unreachable: level within the ladder")  # pragma: no cover


def above_previous_close(strikes: list[tuple[float, float]], previous_close: float) -> float:
    """P(above previous_close), linear between the two neighbouring strikes' P(above strike)."""
    (s0, p0), (s1, p1) = neighbours(strikes, previous_close)
    return p0 + (p1 - p0) * (previous_close - s0) / (s1 - s0)


class KalshiSeries(BaseModel):
    """One league market's daily Kalshi event: ``event_ticker`` is formatted with ``d`` = the session."""

    model_config = ConfigDict(frozen=True, extra="forbid")

    code: str
    event_ticker: str

    def ticker_for(self, session: date) -> str:
        return self.event_ticker.format(d=session).upper()


DEFAULT_SERIES: tuple[KalshiSeries, ...] = (
    KalshiSeries(code="SPX", event_ticker="KXINXU-{d:%y%b%d}H1600"),
    KalshiSeries(code="NDX", event_ticker="KXNASDAQ100U-{d:%y%b%d}H1600"),
)


class KalshiConfig(BaseModel):
    """Endpoint, event tickers and retry bounds; the default host is Kalshi's public market data API."""

    model_config = ConfigDict(frozen=True, extra="forbid")

    base_url: str = "https://api.elections.kalshi.com/trade-api/v2"
    series: tuple[KalshiSeries, ...] = DEFAULT_SERIES
    attempts: int = Field(default=3, ge=1, le=10)
    retry_wait_s: float = Field(default=1.0, ge=0)
    timeout_s: float = Field(default=10.0, gt=0)

    def series_for(self, code: str) -> KalshiSeries | None:
        return next((s for s in self.series if s.code == code), None)


@dataclass(frozen=True, slots=True)
class KalshiMarket:
    """One rung of a Kalshi event, prices in dollars (0..1)."""

    ticker: str
    title: str
    rules: str
    strike_type: str
    floor: float | None
    cap: float | None
    yes: float
    volume: float
    status: str
    result: str
    expiration_value: float | None


def _dollars(item: JsonObject, name: str) -> float | None:
    """Kalshi ships ``<name>_dollars`` strings and older integer cents; dollars win when both exist."""
    raw, cents = item.get(f"{name}_dollars"), item.get(name)
    try:
        if raw not in (None, ""):
            return as_float(raw)
        return None if cents in (None, "") else as_float(cents) / 100.0
    except (TypeError, ValueError) as exc:
        raise CrowdError(f"Kalshi {item.get('ticker')!r}: {name} is not a price: {raw!r} / {cents!r}") from exc


def _yes_price(item: JsonObject) -> float:
    """Mid of a two-sided yes quote, else the last price; a rung with neither cannot be used."""
    bid, ask, last = _dollars(item, "yes_bid"), _dollars(item, "yes_ask"), _dollars(item, "last_price")
    if bid is not None and ask is not None and 0 < bid <= ask:
        return (bid + ask) / 2
    if last is not None:
        return last
    raise CrowdError(f"Kalshi {item.get('ticker')!r}: no yes quote and no last price")


def _opt(value: Json | None, what: str) -> float | None:
    try:
        return None if value in (None, "") else as_float(value)
    except (TypeError, ValueError) as exc:
        raise CrowdError(f"Kalshi {what} {value!r} is not a number") from exc


def parse_kalshi_market(item: Json) -> KalshiMarket:
    """Decode one ``markets`` item; a missing ticker or strike type is a CrowdError naming it."""
    if not isinstance(item, dict) or not item.get("ticker") or not item.get("strike_type"):
        raise CrowdError(f"Kalshi market item lacks ticker/strike_type: {str(item)[:200]}")
    rules = " ".join(str(item.get(k) or "") for k in ("rules_primary", "rules_secondary")).strip()
    return KalshiMarket(
        ticker=str(item["ticker"]), title=str(item.get("title") or item["ticker"]), rules=rules,
        strike_type=str(item["strike_type"]), floor=_opt(item.get("floor_strike"), "floor_strike"),
        cap=_opt(item.get("cap_strike"), "cap_strike"), yes=_yes_price(item),
        volume=as_float(item.get("volume") or 0), status=str(item.get("status") or ""),
        result=str(item.get("result") or ""),
        expiration_value=_opt(item.get("expiration_value"), "expiration_value"),
    )


def ladder_of(markets: Sequence[KalshiMarket]) -> list[tuple[float, float]]:
    """(strike, P(above strike)) from threshold rungs, or from range buckets by cumulative sums."""
    if any(m.strike_type == "between" for m in markets):
        return _bucket_ladder(markets)
    ladder: list[tuple[float, float]] = []
    for m in markets:
        if m.strike_type.startswith("greater") and m.floor is not None:
            ladder.append((m.floor, m.yes))
        elif m.strike_type.startswith("less") and m.cap is not None:
            ladder.append((m.cap, 1.0 - m.yes))
        else:
            raise CrowdError(f"Kalshi {m.ticker}: cannot place strike type {m.strike_type!r} on a ladder")
    return ladder


def _bucket_ladder(markets: Sequence[KalshiMarket]) -> list[tuple[float, float]]:
    """Range buckets: P(above a bucket's floor) = mass of it and all higher buckets, normalised to 1."""
    lows = sorted(((m.floor if m.floor is not None else float("-inf")), m.yes) for m in markets)
    total = sum(p for _, p in lows)
    if total <= 0:
        raise CrowdError("Kalshi range ladder has no probability mass")
    tails = [sum(p for _, p in lows[i:]) / total for i in range(len(lows))]
    return [(low, tail) for (low, _), tail in zip(lows, tails, strict=True) if low != float("-inf")]


class KalshiCrowd:
    """Kalshi provider; ``previous_close(code, session)`` supplies the level the ladder is read at."""

    venue = "kalshi"

    def __init__(
        self,
        previous_close: Callable[[str, date], float],
        config: KalshiConfig | None = None,
        *,
        http: httpx.Client | None = None,
    ) -> None:
        self._config = config or KalshiConfig()
        self._previous_close = previous_close
        self._client = http or httpx.Client(timeout=self._config.timeout_s)

    def event(self, event_ticker: str) -> list[KalshiMarket]:
        """The markets (rungs) of one event; an unknown event is an empty list."""
        url = self._config.base_url.rstrip("/") + "/markets"
        params: Params = {"event_ticker": event_ticker, "limit": 1000}

        def call() -> Json:
            return get_json(self._client, url, params, f"Kalshi /markets?event_ticker={event_ticker}")

        body = with_retries(call, attempts=self._config.attempts, wait_s=self._config.retry_wait_s)
        markets = body.get("markets") if isinstance(body, dict) else None
        if not isinstance(markets, list):
            raise CrowdError(f"Kalshi /markets answer has no 'markets' list: {str(body)[:200]}")
        return [parse_kalshi_market(item) for item in markets]

    def quotes(self, session: date, markets: Sequence[str], now: datetime) -> list[CrowdQuote]:
        now = aware_utc(now, "now")
        found = []
        for code in markets:
            series = self._config.series_for(code)
            if series is not None and (quote := self._quote(session, series, now)) is not None:
                found.append(quote)
        return found

    def _quote(self, session: date, series: KalshiSeries, now: datetime) -> CrowdQuote | None:
        ticker = series.ticker_for(session)
        rungs = self.event(ticker)
        if not rungs:
            return None
        level = float(self._previous_close(series.code, session))
        ladder = ladder_of(rungs)
        (s0, _), (s1, _) = neighbours(ladder, level)
        used = [m for m in rungs if {m.floor, m.cap} & {s0, s1}]
        return CrowdQuote(
            session=session, market=series.code, venue="kalshi", contract_id=ticker,
            question=f"{rungs[0].title}: above the previous close {level:g}? (between strikes {s0:g} and {s1:g})",
            rules=_rules_text(used, level), side=f"above {level:g}", price=above_previous_close(ladder, level),
            bid=None, ask=None, volume_usd=sum(m.volume * m.yes for m in used), last_trade_at=None,
            read_at=now, threshold=level,
        )

    def price_at(self, quote: CrowdQuote, minute: datetime) -> float | None:
        """Not read: a Kalshi price is interpolated between two rungs' books at ask time, and the rungs'
        minute histories are not fetched, so the answer-minute price stays empty (stated in crowd.md)."""
        return None

    def resolution(self, quote: CrowdQuote) -> bool | None:
        """Above the sealed threshold by the settlement value (or, lacking it, by the rungs' results)."""
        if quote.venue != "kalshi" or quote.threshold is None:
            raise CrowdError(f"quote {quote.contract_id} is not a Kalshi ladder quote")
        rungs = self.event(quote.contract_id)
        if not rungs or not all(m.status in SETTLED for m in rungs):
            return None
        value = next((m.expiration_value for m in rungs if m.expiration_value is not None), None)
        if value is not None:
            return value > quote.threshold
        return _from_results(rungs, quote.threshold)


def _rules_text(used: Sequence[KalshiMarket], level: float) -> str:
    own = " | ".join(f"{m.ticker}: {m.rules}" for m in used if m.rules)
    return (f"League reading: probability that the settlement value ends above {level:g}, interpolated "
            f"linearly between the neighbouring strikes. Kalshi rules: {own or 'not given'}")


def _from_results(rungs: Sequence[KalshiMarket], threshold: float) -> bool:
    """Without a settlement value: a YES rung at/above the threshold means above; a NO at/below, not."""
    above = [m.floor for m in rungs if m.strike_type.startswith("greater") and m.result == "yes" and m.floor]
    below = [m.floor for m in rungs if m.strike_type.startswith("greater") and m.result == "no" and m.floor]
    if any(f >= threshold for f in above):
        return True
    if any(f <= threshold for f in below):
        return False
    raise CrowdError(f"Kalshi results do not decide whether the settlement is above {threshold:g}")


def previous_close(markets: Markets, prices: PriceSource, calendar: Calendar, code: str, day: date) -> float:
    """The market's close on the session before ``day`` (Kalshi's buckets are priced against it)."""
    spec = markets.by_code()[code]
    prev = calendar.previous_session(day)
    closes = prices.daily_closes(spec.symbol, prev, prev)
    if not closes:
        raise CrowdError(f"no previous close of {code} for {day}")
    return float(closes[-1][1])


def from_config(config: Config, prices: PriceSource, calendar: Calendar) -> CrowdProvider:
    """The ``kalshi`` crowd provider (entry point ``forecast_league.crowd``): its strike ladders read at each
    market's previous close. The usual fallback of ``polymarket`` (``[crowd] fallback``)."""
    return KalshiCrowd(previous_close=partial(previous_close, config.markets, prices, calendar))
