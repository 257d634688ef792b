"""The market-source port of the contest: what a prediction-market venue must answer.

Four questions: which markets are open (with the listing facts eligibility needs: outcomes,
prices, end date, 24-hour volume, comment count, tags), what one outcome's order book is, what its
price history is, and how a market resolved. Records validate on construction so that nothing
malformed reaches a sealed file. Implementations: :mod:`.gamma` (live, Gamma + CLOB) and
:mod:`.recorded` (JSON files, for tests and the offline demo day).
"""

from __future__ import annotations

import math
from collections.abc import Iterable, Mapping
from dataclasses import dataclass, field
from datetime import UTC, datetime
from typing import Protocol, runtime_checkable

from league.contest.errors import ContestError
from league.jsonvalue import Json, JsonObject, as_float


class MarketSourceError(ContestError):
    """A venue answer could not be had or read (base exception of the market-source port)."""


def aware(value: datetime, what: str) -> datetime:
    if value.tzinfo is None or value.utcoffset() is None:
        raise MarketSourceError(f"{what} {value!r} is naive", fix="pass timezone-aware datetimes")
    return value.astimezone(UTC)


def parse_time(value: object, what: str) -> datetime:
    try:
        return aware(datetime.fromisoformat(str(value).replace("Z", "+00:00")), what)
    except ValueError as exc:
        raise MarketSourceError(f"{what} {value!r} is not an ISO time") from exc


@dataclass(frozen=True, slots=True)
class Level:
    """One price level of a book: a price in (0, 1) and a positive size in shares."""

    price: float
    size: float

    def __post_init__(self) -> None:
        if not (math.isfinite(self.price) and 0 < self.price < 1 and math.isfinite(self.size) and self.size > 0):
            raise MarketSourceError(f"book level price {self.price!r} size {self.size!r} is not usable")


@dataclass(frozen=True, slots=True)
class OrderBook:
    """One outcome token's book. Level order from the venue is not trusted: best = min ask / max bid."""

    token_id: str
    bids: tuple[Level, ...] = ()
    asks: tuple[Level, ...] = ()
    tick_size: float = 0.01
    last_trade: float | None = None

    @property
    def best_bid(self) -> float | None:
        return max((lv.price for lv in self.bids), default=None)

    @property
    def best_ask(self) -> float | None:
        return min((lv.price for lv in self.asks), default=None)

    @property
    def mid(self) -> float | None:
        bid, ask = self.best_bid, self.best_ask
        return None if bid is None or ask is None else (bid + ask) / 2

    def asks_ascending(self) -> list[Level]:
        return sorted(self.asks, key=lambda lv: lv.price)

    def as_json(self, depth: int = 15) -> JsonObject:
        """What ``bench book`` shows: best levels first."""
        return {
            "bids": [{"price": lv.price, "size": lv.size} for lv in sorted(self.bids, key=lambda x: -x.price)[:depth]],
            "asks": [{"price": lv.price, "size": lv.size} for lv in self.asks_ascending()[:depth]],
            "tick_size": self.tick_size,
            "last_trade_price": self.last_trade,
        }


@dataclass(frozen=True, slots=True)
class Market:
    """One listed market with the facts the contest reads. ``prices`` are the listing's prices."""

    id: str
    question: str
    outcomes: tuple[str, ...]
    token_ids: tuple[str, ...]
    prices: tuple[float, ...]
    end: datetime
    description: str = ""
    slug: str = ""
    condition_id: str = ""
    active: bool = True
    closed: bool = False
    accepting_orders: bool = True
    volume_24h: float = 0.0
    comment_count: int = 0
    tags: tuple[str, ...] = ()
    category: str = ""
    extra: Mapping[str, Json] = field(default_factory=dict)

    def __post_init__(self) -> None:
        if len(self.outcomes) < 2:
            raise MarketSourceError(f"market {self.id}: fewer than two outcomes {self.outcomes}")
        if len(set(o.lower() for o in self.outcomes)) != len(self.outcomes):
            raise MarketSourceError(f"market {self.id}: outcome labels repeat (case-insensitively) {self.outcomes}")
        if len(self.token_ids) != len(self.outcomes) or len(self.prices) not in (0, len(self.outcomes)):
            raise MarketSourceError(f"market {self.id}: outcomes {self.outcomes} do not line up with tokens "
                                    f"{self.token_ids} / prices {self.prices}")
        aware(self.end, f"market {self.id} end")

    def token_for(self, outcome: str) -> str:
        return self.token_ids[self.outcomes.index(outcome)]

    def label(self, text: str) -> str | None:
        """The outcome label matching ``text`` case-insensitively (surrounding spaces ignored)."""
        wanted = text.strip().lower()
        return next((o for o in self.outcomes if o.lower() == wanted), None)


@runtime_checkable
class MarketSource(Protocol):
    """A prediction-market venue, read-only."""

    def open_markets(self, now: datetime, within_days: float) -> list[Market]: ...

    def market(self, market_id: str) -> Market: ...

    def book(self, token_id: str) -> OrderBook: ...

    def history(self, token_id: str) -> list[tuple[int, float]]: ...

    def resolution(self, market_id: str) -> str | None:
        """The winning outcome label once the market has settled; None while open or unsettled."""
        ...


def books_for(source: MarketSource, market: Market) -> dict[str, OrderBook]:
    """Every outcome's book, keyed by outcome label."""
    return {o: source.book(t) for o, t in zip(market.outcomes, market.token_ids, strict=True)}


def levels(raw: object, what: str) -> tuple[Level, ...]:
    """Levels from ``[{"price": "0.55", "size": "20"}, ...]`` (strings or numbers, any order), or from
    py-clob-client's level objects."""
    items = raw or ()
    if not isinstance(items, Iterable):
        raise TypeError(f"{type(items).__name__!r} object is not iterable")
    out = []
    for item in items:
        price = item.get("price") if isinstance(item, Mapping) else getattr(item, "price", None)
        size = item.get("size") if isinstance(item, Mapping) else getattr(item, "size", None)
        try:
            out.append(Level(as_float(price), as_float(size)))
        except (TypeError, ValueError) as exc:
            raise MarketSourceError(f"{what}: level {item!r} is not a price and a size") from exc
    return tuple(out)
