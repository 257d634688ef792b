"""Polymarket adapter: the Gamma listing finds each market's daily up/down question, the CLOB prices it.

Gamma (``GET /markets``) is public JSON; the CLOB is read through py-clob-client's read-only client
(``ClobClient(host)``, level 0, no key). py-clob-client is an optional extra, imported lazily so the
league runs without it when the crowd is recorded. Every library or HTTP failure becomes a
:class:`CrowdError`; only transport failures are retried, a bounded number of times.
"""

from __future__ import annotations

from collections.abc import Callable, Iterable, Sequence
from dataclasses import dataclass
from datetime import UTC, date, datetime, time, timedelta
from typing import Protocol
from zoneinfo import ZoneInfo

import httpx
import structlog
from pydantic import BaseModel, ConfigDict, Field

from league.calendar import Calendar
from league.config import Config
from league.crowd._http import Params, Transient, get_json, json_list, with_retries
from league.crowd.interface import CrowdError, CrowdProvider, CrowdQuote, aware_utc
from league.extras import extra, keeping_recursion_limit
from league.jsonvalue import Json, JsonObject, as_float
from league.prices.interface import PriceSource

log = structlog.get_logger(__name__)
NEW_YORK = ZoneInfo("America/New_York")


class PolymarketRule(BaseModel):
    """How to recognise one league market's daily question in the listing (all conditions must hold)."""

    model_config = ConfigDict(frozen=True, extra="forbid")

    code: str
    terms: tuple[str, ...] = Field(min_length=1)
    slug_prefix: str | None = None
    up_outcome: str = "Up"

    def matches(self, market: GammaMarket, session: date) -> bool:
        """True when ``market`` is this code's open question ending on ``session`` (New York date)."""
        question = market.question.lower()
        return (
            not market.closed
            and market.end_date.astimezone(NEW_YORK).date() == session
            and all(term.lower() in question for term in self.terms)
            and (self.slug_prefix is None or market.slug.startswith(self.slug_prefix))
            and self.up_outcome in market.outcomes
        )


DEFAULT_RULES: tuple[PolymarketRule, ...] = (
    PolymarketRule(code="SPX", terms=("(spx)", "up or down"), slug_prefix="spx-up-or-down-on-"),
    PolymarketRule(code="NDX", terms=("(ndx)", "up or down"), slug_prefix="ndx-up-or-down-on-"),
    PolymarketRule(code="DJI", terms=("(dji)", "up or down"), slug_prefix="dji-up-or-down-on-"),
    PolymarketRule(code="BTC", terms=("bitcoin", "up or down on"), slug_prefix="bitcoin-up-or-down-on-"),
    PolymarketRule(code="GOLD", terms=("gold", "up or down"), slug_prefix="gc-up-or-down-on-"),
    PolymarketRule(code="WTI", terms=("crude oil", "up or down"), slug_prefix="cl-up-or-down-on-"),
)


class PolymarketConfig(BaseModel):
    """Endpoints, matching rules and retry bounds; the defaults are the public production hosts."""

    model_config = ConfigDict(frozen=True, extra="forbid")

    gamma_url: str = "https://gamma-api.polymarket.com"
    data_url: str | None = "https://data-api.polymarket.com"
    clob_url: str = "https://clob.polymarket.com"
    rules: tuple[PolymarketRule, ...] = DEFAULT_RULES
    tag_id: int | None = None
    page_size: int = Field(default=500, ge=1, le=1000)
    max_pages: int = Field(default=10, ge=1)
    attempts: int = Field(default=3, ge=1, le=10)
    retry_wait_s: float = Field(default=1.0, ge=0)
    timeout_s: float = Field(default=10.0, gt=0)

    def rule_for(self, code: str) -> PolymarketRule | None:
        return next((rule for rule in self.rules if rule.code == code), None)


@dataclass(frozen=True, slots=True)
class GammaMarket:
    """The fields of one Gamma listing item the league uses, decoded and checked."""

    id: str
    question: str
    description: str
    slug: str
    condition_id: str
    end_date: datetime
    volume_usd: float
    closed: bool
    outcomes: tuple[str, ...]
    outcome_prices: tuple[float, ...]
    token_ids: tuple[str, ...]

    def token_for(self, outcome: str) -> str:
        return self.token_ids[self.outcomes.index(outcome)]

    def price_for(self, outcome: str) -> float | None:
        index = self.outcomes.index(outcome)
        return self.outcome_prices[index] if index < len(self.outcome_prices) else None


def _field(item: JsonObject, key: str, what: str) -> Json:
    if key not in item or item[key] is None:
        raise CrowdError(f"{what}: field {key!r} is missing", fix="the Gamma listing shape changed; see vendors.md")
    return item[key]


def _parse_end(value: Json, what: str) -> datetime:
    try:
        return aware_utc(datetime.fromisoformat(str(value).replace("Z", "+00:00")), f"{what} endDate")
    except ValueError as exc:
        raise CrowdError(f"{what}: endDate {value!r} is not an ISO time") from exc


def _floats(values: list[Json], what: str) -> tuple[float, ...]:
    try:
        return tuple(as_float(v) for v in values)
    except (TypeError, ValueError) as exc:
        raise CrowdError(f"{what} holds a non-number: {values!r}") from exc


def _volume(item: JsonObject, what: str) -> float:
    """``volumeNum`` (a number) is preferred; older answers only carry ``volume`` as a string."""
    raw = item.get("volumeNum", item.get("volume"))
    try:
        return 0.0 if raw in (None, "") else as_float(raw)
    except (TypeError, ValueError) as exc:
        raise CrowdError(f"{what}: volume {raw!r} is not a number") from exc


def parse_gamma_market(item: Json, where: str) -> GammaMarket:
    """Decode one listing item; the three JSON-string fields are decoded and must agree in length."""
    if not isinstance(item, dict):
        raise CrowdError(f"Gamma {where} is not an object: {item!r}")
    what = f"Gamma {where} (id {item.get('id')!r})"
    outcomes = tuple(str(o) for o in json_list(_field(item, "outcomes", what), f"{what} outcomes"))
    tokens = tuple(str(t) for t in json_list(_field(item, "clobTokenIds", what), f"{what} clobTokenIds"))
    prices = _floats(json_list(item.get("outcomePrices") or "[]", f"{what} outcomePrices"), f"{what} outcomePrices")
    if len(tokens) != len(outcomes) or len(prices) not in (0, len(outcomes)):
        raise CrowdError(f"{what}: outcomes {outcomes} do not line up with clobTokenIds {tokens} / prices {prices}")
    return GammaMarket(
        id=str(_field(item, "id", what)),
        question=str(_field(item, "question", what)),
        description=str(item.get("description") or ""),
        slug=str(item.get("slug") or ""),
        condition_id=str(item.get("conditionId") or ""),
        end_date=_parse_end(_field(item, "endDate", what), what),
        volume_usd=_volume(item, what),
        closed=bool(item.get("closed", False)),
        outcomes=outcomes,
        outcome_prices=prices,
        token_ids=tokens,
    )


def _session_window(session: date) -> tuple[str, str]:
    start = datetime.combine(session, time(0), NEW_YORK)
    end = datetime.combine(session + timedelta(days=1), time(0), NEW_YORK)
    return _z(start), _z(end)


def _z(value: datetime) -> str:
    return aware_utc(value, "time").strftime("%Y-%m-%dT%H:%M:%SZ")


class GammaListing:
    """Reads the public Gamma market listing through an httpx client (injectable for tests)."""

    def __init__(self, config: PolymarketConfig, client: httpx.Client | None = None) -> None:
        self._config = config
        self._client = client or httpx.Client(timeout=config.timeout_s)

    def _get(self, path: str, params: Params | None, what: str) -> Json:
        return self.get_url(self._config.gamma_url.rstrip("/") + path, params, what)

    def get_url(self, url: str, params: Params | None, what: str) -> Json:
        """GET with the configured bounded retries (transport errors only)."""

        def call() -> Json:
            return get_json(self._client, url, params, what)

        return with_retries(call, attempts=self._config.attempts, wait_s=self._config.retry_wait_s)

    def _params(self, session: date, offset: int) -> dict[str, str | int]:
        start, end = _session_window(session)
        params: dict[str, str | int] = {"active": "true", "closed": "false", "end_date_min": start, "end_date_max": end}
        params.update(limit=self._config.page_size, offset=offset)
        if self._config.tag_id is not None:
            params["tag_id"] = self._config.tag_id
        return params

    def open_markets(self, session: date) -> list[GammaMarket]:
        """Every open market ending on ``session``, page by page up to ``max_pages``."""
        found: list[GammaMarket] = []
        for page in range(self._config.max_pages):
            body = self._get("/markets", self._params(session, page * self._config.page_size), "Gamma /markets")
            if not isinstance(body, list):
                raise CrowdError(f"Gamma /markets returned {type(body).__name__}, expected a list: {str(body)[:200]}")
            found += [parse_gamma_market(item, f"/markets item {page * self._config.page_size + i}")
                      for i, item in enumerate(body)]
            if len(body) < self._config.page_size:
                return found
        log.warning("gamma listing truncated", pages=self._config.max_pages, markets=len(found))
        return found

    def market(self, market_id: str) -> GammaMarket:
        """One market by its Gamma id, open or closed (used to read a resolution)."""
        return parse_gamma_market(self._get(f"/markets/{market_id}", None, f"Gamma /markets/{market_id}"), market_id)


@dataclass(frozen=True, slots=True)
class BookTop:
    """The CLOB's view of one outcome token: midpoint, best bid/ask, last trade price."""

    mid: float | None
    bid: float | None
    ask: float | None
    last: float | None


class ClobReader(Protocol):
    def top(self, token_id: str) -> BookTop: ...


def _opt_price(value: object) -> float | None:
    try:
        return None if value in (None, "") else as_float(value)
    except (TypeError, ValueError) as exc:
        raise CrowdError(f"CLOB price {value!r} is not a number") from exc


def _best(levels: Iterable[object] | None, pick: Callable[[list[float]], float]) -> float | None:
    """Best level price; the CLOB's ordering is not relied upon (vendors.md), so min()/max() is taken."""
    prices = [_opt_price(getattr(level, "price", None)) for level in (levels or [])]
    usable = [p for p in prices if p is not None]
    return pick(usable) if usable else None


class PyClobReader:
    """Read-only py-clob-client access; library exceptions become CrowdError (transport ones retried)."""

    def __init__(self, config: PolymarketConfig) -> None:
        with extra("polymarket"), keeping_recursion_limit():
            from py_clob_client.client import ClobClient
        self._client = ClobClient(config.clob_url)
        self._config = config

    def _call(self, name: str, token_id: str) -> object:
        """What py-clob-client's ``name(token_id)`` answers (a dict, or its order book object)."""
        with extra("polymarket"), keeping_recursion_limit():
            from py_clob_client.exceptions import PolyApiException, PolyException
        def once() -> object:
            try:
                return getattr(self._client, name)(token_id)
            except PolyApiException as exc:
                if exc.status_code is None:
                    raise Transient(f"CLOB {name}({token_id}): {exc.error_msg}") from exc
                raise CrowdError(f"CLOB {name}({token_id}): HTTP {exc.status_code}: {exc.error_msg}") from exc
            except (PolyException, KeyError, TypeError, ValueError) as exc:
                raise CrowdError(f"CLOB {name}({token_id}): unexpected answer: {exc!r}") from exc

        return with_retries(once, attempts=self._config.attempts, wait_s=self._config.retry_wait_s)

    def _midpoint(self, token_id: str) -> float | None:
        """The CLOB answers 404 when a token has no live book; then the last trade price stands in."""
        try:
            mid = self._call("get_midpoint", token_id)
        except CrowdError as exc:
            if "HTTP 404" in exc.message:
                return None
            raise
        return _opt_price(mid.get("mid")) if isinstance(mid, dict) else None

    def top(self, token_id: str) -> BookTop:
        mid_value = self._midpoint(token_id)
        book = self._call("get_order_book", token_id)
        bid, ask = _best(getattr(book, "bids", None), max), _best(getattr(book, "asks", None), min)
        return BookTop(mid=mid_value, bid=bid, ask=ask, last=_opt_price(getattr(book, "last_trade_price", None)))


def newest_trade_time(body: Json) -> datetime | None:
    """The newest ``timestamp`` (epoch seconds, or ms when that large) in a trades answer; None if no trade."""
    rows = body.get("data") if isinstance(body, dict) else body
    if not isinstance(rows, list):
        raise CrowdError(f"data-api /trades answer is not a list: {str(body)[:200]}")
    try:
        stamps = [as_float(row["timestamp"]) for row in rows if isinstance(row, dict) and "timestamp" in row]
    except (TypeError, ValueError) as exc:
        raise CrowdError(f"data-api /trades: a timestamp is not a number: {str(rows)[:200]}") from exc
    if not stamps:
        return None
    newest = max(stamps)
    return datetime.fromtimestamp(newest / 1000 if newest > 1e11 else newest, UTC)


def price_before(body: Json, end: int) -> float | None:
    """The price of the newest ``{"t": unix seconds, "p": price}`` point at or before ``end``."""
    history = body.get("history") if isinstance(body, dict) else None
    if not isinstance(history, list):
        raise CrowdError(f"CLOB /prices-history returned no history list: {str(body)[:200]}")
    points = [(int(t), float(p)) for h in history
              if isinstance(h, dict) and isinstance(t := h.get("t"), int | float)
              and isinstance(p := h.get("p"), int | float) and t <= end]
    if not points:
        return None
    price = max(points)[1]
    return price if 0.0 <= price <= 1.0 else None


class PolymarketCrowd:
    """The Polymarket crowd provider (see module docstring)."""

    venue = "polymarket"

    def __init__(
        self,
        config: PolymarketConfig | None = None,
        *,
        http: httpx.Client | None = None,
        clob: ClobReader | None = None,
    ) -> None:
        self._config = config or PolymarketConfig()
        self._listing = GammaListing(self._config, http)
        self._clob = clob

    def _reader(self) -> ClobReader:
        if self._clob is None:
            self._clob = PyClobReader(self._config)
        return self._clob

    def quotes(self, session: date, markets: Sequence[str], now: datetime) -> list[CrowdQuote]:
        """Quotes for the requested markets that have a matching daily question; others are left out."""
        now = aware_utc(now, "now")
        rules = [r for code in markets if (r := self._config.rule_for(code)) is not None]
        if not rules:
            return []
        listing = self._listing.open_markets(session)
        chosen = [(rule, match) for rule in rules if (match := self._choose(rule, listing, session)) is not None]
        return [self._quote(session, rule, market, now) for rule, market in chosen]

    def _choose(self, rule: PolymarketRule, listing: list[GammaMarket], session: date) -> GammaMarket | None:
        """The matching market with the most volume; several matches are logged, none is not an error."""
        matches = [m for m in listing if rule.matches(m, session)]
        if len(matches) > 1:
            log.info("several polymarket questions match", code=rule.code, ids=[m.id for m in matches])
        return max(matches, key=lambda m: m.volume_usd, default=None)

    def _quote(self, session: date, rule: PolymarketRule, market: GammaMarket, now: datetime) -> CrowdQuote:
        token = market.token_for(rule.up_outcome)
        top = self._reader().top(token)
        price = top.mid if top.mid is not None else top.last
        if price is None:
            raise CrowdError(f"polymarket {market.id} ({rule.code}): no midpoint and no last trade for token {token}")
        return CrowdQuote(
            session=session, market=rule.code, venue="polymarket", contract_id=market.id,
            question=market.question, rules=market.description or market.question, side=rule.up_outcome,
            price=price, bid=top.bid, ask=top.ask, volume_usd=market.volume_usd,
            last_trade_at=self._last_trade_at(market), read_at=now, token_id=token,
        )

    def _last_trade_at(self, market: GammaMarket) -> datetime | None:
        """Newest trade time from the public data API; auxiliary, so a failure is logged, not raised."""
        if self._config.data_url is None or not market.condition_id:
            return None
        url = self._config.data_url.rstrip("/") + "/trades"
        params: Params = {"market": market.condition_id, "limit": 1, "takerOnly": "false"}
        try:
            return newest_trade_time(self._listing.get_url(url, params, "data-api /trades"))
        except CrowdError as exc:
            log.warning("polymarket last trade time unavailable", id=market.id, error=exc.message)
            return None

    def price_at(self, quote: CrowdQuote, minute: datetime) -> float | None:
        """The CLOB's price history of the quote's token (``/prices-history``, 1-minute fidelity): the
        last point at or before the end of ``minute``; none in the hour before it gives None."""
        if quote.venue != "polymarket" or not quote.token_id:
            return None
        end = int(aware_utc(minute, "minute").timestamp()) + 59
        params: Params = {"market": quote.token_id, "startTs": end - 3600, "endTs": end, "fidelity": 1}
        url = self._config.clob_url.rstrip("/") + "/prices-history"
        return price_before(self._listing.get_url(url, params, "CLOB /prices-history"), end)

    def resolution(self, quote: CrowdQuote) -> bool | None:
        """Read the closed market's settled outcome prices: 1 on ``side`` is True, 0 is False."""
        if quote.venue != "polymarket":
            raise CrowdError(f"quote {quote.contract_id} is from {quote.venue}, not polymarket")
        market = self._listing.market(quote.contract_id)
        if not market.closed or quote.side not in market.outcomes:
            return None
        settled = market.price_for(quote.side)
        if settled is None or 0.01 < settled < 0.99:
            log.warning("polymarket market closed but not settled", id=market.id, price=settled)
            return None
        return settled >= 0.99


def from_config(config: Config, prices: PriceSource, calendar: Calendar) -> CrowdProvider:
    """The ``polymarket`` crowd provider (entry point ``forecast_league.crowd``). The venue asked for the
    markets Polymarket lacks (``[crowd] fallback``, Kalshi by default) is composed in the composition root."""
    return PolymarketCrowd()
