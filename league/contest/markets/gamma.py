"""The live market source: Polymarket's public Gamma listing plus CLOB order books (read-only).

Gamma ``GET /markets`` (filters ``active, closed, end_date_min/max, limit, offset``; ``include_tag``
adds the tags) gives question, outcomes, ``outcomePrices``, ``clobTokenIds`` (three JSON strings to
decode), ``endDate``, ``volume24hr``, ``commentCount``; a market's own tags or comment count may
instead sit on its first event, which is read as a fallback. Books come through py-clob-client's
read-only client (optional extra ``polymarket``, imported lazily); price history through the CLOB's
public ``/prices-history``. Every failure becomes a :class:`MarketSourceError`; only transport
failures are retried, through the league's one retry policy.
"""

from __future__ import annotations

import json
from collections.abc import Callable, Mapping
from datetime import datetime, timedelta
from typing import Protocol, TypeVar

import httpx
import structlog

from league.contest.config import Venue
from league.contest.markets.interface import (
    Market,
    MarketSourceError,
    OrderBook,
    aware,
    levels,
    parse_time,
)
from league.extras import extra, keeping_recursion_limit
from league.jsonvalue import Json, JsonObject, as_float, as_int
from league.retry import bounded

log = structlog.get_logger(__name__)
T = TypeVar("T")


class Transient(MarketSourceError):
    """A transport failure worth retrying; never an HTTP error status."""


def with_retries(call: Callable[[], T], venue: Venue) -> T:
    return bounded(attempts=venue.attempts, wait_s=venue.retry_wait_s,
                   retry_on=lambda exc: isinstance(exc, Transient))(call)


#: A query's parameters as the contest's readers send them (texts and whole numbers).
Params = Mapping[str, str | int]


def http_json(client: httpx.Client, url: str, params: Params | None, what: str) -> Json:
    try:
        response = client.get(url, params=params)
    except httpx.TransportError as exc:
        raise Transient(f"{what}: transport error {exc!r}", fix="check the network; retried") from exc
    except httpx.HTTPError as exc:
        raise MarketSourceError(f"{what}: {exc!r}") from exc
    if response.status_code != 200:
        raise MarketSourceError(f"{what}: HTTP {response.status_code}: {response.text[:200]!r}")
    try:
        body: Json = response.json()
    except ValueError as exc:
        raise MarketSourceError(f"{what}: answer is not JSON: {response.text[:200]!r}") from exc
    return body


def _json_list(value: Json | None, what: str) -> list[Json]:
    """Gamma ships outcomes, prices and token ids as JSON strings holding lists."""
    if isinstance(value, list):
        return value
    try:
        decoded: Json = json.loads(value) if isinstance(value, str) else None
    except ValueError as exc:
        raise MarketSourceError(f"{what} is not valid JSON: {value!r}") from exc
    if not isinstance(decoded, list):
        raise MarketSourceError(f"{what} is not a JSON list: {value!r}")
    return decoded


def _number(value: object, what: str, default: float = 0.0) -> float:
    if value in (None, ""):
        return default
    try:
        return as_float(value)
    except (TypeError, ValueError) as exc:
        raise MarketSourceError(f"{what} {value!r} is not a number") from exc


def _first_event(item: JsonObject) -> JsonObject:
    events = item.get("events")
    first = events[0] if isinstance(events, list) and events else None
    return first if isinstance(first, dict) else {}


def _tags(item: JsonObject) -> tuple[str, ...]:
    raw = item.get("tags") or _first_event(item).get("tags") or []
    out = []
    for tag in raw if isinstance(raw, list) else []:
        name = tag.get("slug") or tag.get("label") if isinstance(tag, dict) else tag
        if name:
            out.append(str(name).strip().lower())
    return tuple(dict.fromkeys(out))


def parse_market(item: Json, where: str) -> Market:
    """Decode one Gamma listing item (live answer or recorded file alike)."""
    if not isinstance(item, dict):
        raise MarketSourceError(f"Gamma {where} is not an object: {item!r}")
    what = f"Gamma {where} (id {item.get('id')!r})"
    for key in ("id", "question", "outcomes", "clobTokenIds", "endDate"):
        if item.get(key) in (None, ""):
            raise MarketSourceError(f"{what}: field {key!r} is missing", fix="the Gamma listing shape changed")
    event = _first_event(item)
    return Market(
        id=str(item["id"]),
        question=str(item["question"]),
        outcomes=tuple(str(o) for o in _json_list(item["outcomes"], f"{what} outcomes")),
        token_ids=tuple(str(t) for t in _json_list(item["clobTokenIds"], f"{what} clobTokenIds")),
        prices=tuple(_number(p, f"{what} outcomePrices") for p in _json_list(item.get("outcomePrices") or "[]",
                                                                                f"{what} outcomePrices")),
        end=parse_time(item["endDate"], f"{what} endDate"),
        description=str(item.get("description") or ""),
        slug=str(item.get("slug") or ""),
        condition_id=str(item.get("conditionId") or ""),
        active=bool(item.get("active", True)),
        closed=bool(item.get("closed", False)),
        accepting_orders=bool(item.get("acceptingOrders", True)),
        volume_24h=_number(item.get("volume24hr"), f"{what} volume24hr"),
        comment_count=int(_number(item.get("commentCount", event.get("commentCount")), f"{what} commentCount")),
        tags=_tags(item),
        category=str(item.get("category") or event.get("category") or "").strip().lower(),
    )


def winner_of(market: Market) -> str | None:
    """A closed market's winner: the one outcome settled at 1 (others at 0); else unsettled."""
    if not market.closed or len(market.prices) != len(market.outcomes):
        return None
    won = [o for o, p in zip(market.outcomes, market.prices, strict=True) if p >= 0.99]
    lost = [p for p in market.prices if p <= 0.01]
    return won[0] if len(won) == 1 and len(lost) == len(market.outcomes) - 1 else None


def _point(row: Json) -> tuple[int, float]:
    """One ``{t, p}`` history point; any other shape fails as indexing it would."""
    if not isinstance(row, dict):
        raise TypeError(f"{type(row).__name__!r} object is not subscriptable by 't'")
    return as_int(row["t"]), as_float(row["p"])


def parse_history(body: Json, what: str) -> list[tuple[int, float]]:
    rows = body.get("history") if isinstance(body, dict) else None
    if not isinstance(rows, list):
        raise MarketSourceError(f"{what}: expected {{\"history\": [...]}}, got {str(body)[:200]}")
    try:
        return [_point(r) for r in rows]
    except (KeyError, TypeError, ValueError) as exc:
        raise MarketSourceError(f"{what}: a history point is not {{t, p}}: {str(rows)[:200]}") from exc


def _book_field(body: object, key: str) -> object:
    """A field of a CLOB ``/book`` answer: a dict's key, or an attribute of py-clob-client's summary."""
    return body.get(key) if isinstance(body, dict) else getattr(body, key, None)


def book_from(body: object, token_id: str, what: str) -> OrderBook:
    """An OrderBook from a CLOB ``/book`` answer (dict) or py-clob-client's OrderBookSummary."""
    last = _book_field(body, "last_trade_price")
    return OrderBook(token_id=token_id, bids=levels(_book_field(body, "bids") or [], f"{what} bids"),
                     asks=levels(_book_field(body, "asks") or [], f"{what} asks"),
                     tick_size=_number(_book_field(body, "tick_size"), f"{what} tick_size", 0.01),
                     last_trade=None if last in (None, "") else _number(last, f"{what} last_trade_price"))


class BookReader(Protocol):
    def order_book(self, token_id: str) -> OrderBook: ...


class PyClobBooks:
    """Order books through py-clob-client's read-only client (level 0: no key)."""

    def __init__(self, venue: Venue) -> None:
        with extra("polymarket"), keeping_recursion_limit():
            from py_clob_client.client import ClobClient
        self._client = ClobClient(venue.clob_url)
        self._venue = venue

    def order_book(self, token_id: str) -> OrderBook:
        with extra("polymarket"), keeping_recursion_limit():
            from py_clob_client.exceptions import PolyApiException, PolyException
        what = f"CLOB book({token_id})"

        def once() -> OrderBook:
            try:
                return book_from(self._client.get_order_book(token_id), token_id, what)
            except PolyApiException as exc:
                if exc.status_code is None:
                    raise Transient(f"{what}: {exc.error_msg}") from exc
                if exc.status_code == 404:  # no live book: an empty book, which eligibility refuses
                    return OrderBook(token_id=token_id)
                raise MarketSourceError(f"{what}: HTTP {exc.status_code}: {exc.error_msg}") from exc
            except (PolyException, KeyError, TypeError, ValueError) as exc:
                raise MarketSourceError(f"{what}: unexpected answer: {exc!r}") from exc

        return with_retries(once, self._venue)


class GammaSource:
    """The live :class:`MarketSource` (see the module docstring)."""

    def __init__(self, venue: Venue, *, http: httpx.Client | None = None, books: BookReader | None = None) -> None:
        self._venue = venue
        self._http = http or httpx.Client(timeout=venue.timeout_s)
        self._books = books

    def _get(self, base: str, path: str, params: Params | None, what: str) -> Json:
        url = base.rstrip("/") + path
        return with_retries(lambda: http_json(self._http, url, params, what), self._venue)

    def _page(self, now: datetime, within_days: float, offset: int) -> list[Json]:
        params: Params = {
            "active": "true", "closed": "false", "include_tag": "true",
            "end_date_min": now.strftime("%Y-%m-%dT%H:%M:%SZ"),
            "end_date_max": (now + timedelta(days=within_days)).strftime("%Y-%m-%dT%H:%M:%SZ"),
            "limit": self._venue.page_size, "offset": offset,
        }
        body = self._get(self._venue.gamma_url, "/markets", params, "Gamma /markets")
        if not isinstance(body, list):
            raise MarketSourceError(f"Gamma /markets returned {type(body).__name__}, expected a list")
        return body

    def open_markets(self, now: datetime, within_days: float) -> list[Market]:
        """Every open market ending within the window; an unreadable item is logged and left out."""
        now = aware(now, "now")
        found: list[Market] = []
        for page in range(self._venue.max_pages):
            body = self._page(now, within_days, page * self._venue.page_size)
            for i, item in enumerate(body):
                try:
                    found.append(parse_market(item, f"/markets item {page * self._venue.page_size + i}"))
                except MarketSourceError as exc:
                    log.warning("contest.market_unreadable", error=exc.message)
            if len(body) < self._venue.page_size:
                return found
        log.warning("contest.listing_truncated", pages=self._venue.max_pages, markets=len(found))
        return found

    def market(self, market_id: str) -> Market:
        body = self._get(self._venue.gamma_url, f"/markets/{market_id}", None, f"Gamma /markets/{market_id}")
        return parse_market(body, market_id)

    def book(self, token_id: str) -> OrderBook:
        if self._books is None:
            self._books = PyClobBooks(self._venue)
        return self._books.order_book(token_id)

    def history(self, token_id: str) -> list[tuple[int, float]]:
        params: Params = {"market": token_id, "interval": "1w", "fidelity": 60}
        what = f"CLOB /prices-history({token_id})"
        return parse_history(self._get(self._venue.clob_url, "/prices-history", params, what), what)

    def resolution(self, market_id: str) -> str | None:
        return winner_of(self.market(market_id))
