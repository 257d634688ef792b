"""One agent's side of a betting round: its bet window and what ``bench`` answers it.

The clock decides atomically. :meth:`BetWindow.place` reads the clock, checks the deadline and
records the bet under ONE lock; :meth:`BetWindow.close` (called when the agent's run ends) takes
the same lock. So a bet either lands before the close or the window is already shut: there is no
race between a late bet and the timeout. A bet received after ``opened_at + decision_s`` -- even
one second after -- forfeits the round for that agent.

Bet rules (bench.md): one bet of the stake; outcome matched case-insensitively; confidence in
[0, 1]; an IOC buy up to ``--max-price`` or ``min(0.99, best ask + 0.05)``, filled by walking the
asks; a refused bet (unknown outcome, nothing filled, bad number) changes nothing and the agent may
try again while its clock runs. Quotes: at most 120 characters (longer ones are cut), a quote with
a link or an @mention is dropped -- the bet still stands.
"""

from __future__ import annotations

import math
import re
import threading
from collections.abc import Callable
from dataclasses import dataclass, field
from datetime import datetime, timedelta
from typing import Literal, TypeVar

from league.clock import Clock
from league.contest import ledger as L
from league.contest.asks import utc
from league.contest.bench_server import BenchRefused
from league.contest.config import RoundRules
from league.contest.ledger import Ledger
from league.contest.markets.interface import Market, MarketSource, OrderBook
from league.contest.markets.orders import Broker, OrderError, limit_price
from league.jsonvalue import Json, JsonObject, as_float

T = TypeVar("T")
WindowState = Literal["open", "bet", "forfeit"]
LINK = re.compile(r"https?://|www\.|\b[\w-]+\.(com|org|net|io|ai|xyz|co|gg|dev|app|me|ly|tv|news)\b", re.I)
MENTION = re.compile(r"(^|[^\w])@\w")
HELP = ("bench market | bench book --outcome L | bench history --outcome L | "
        "bench bet --outcome L --confidence C --rationale R [--quote Q] [--max-price P]")


class BetWindow:
    """The atomic open -> bet | forfeit state of one agent in one round."""

    def __init__(self, clock: Clock, opened_at: datetime, decision_s: float) -> None:
        self.clock = clock
        self.opened_at = opened_at
        self.deadline = opened_at + timedelta(seconds=decision_s)
        self.state: WindowState = "open"
        self.late_attempt: datetime | None = None
        self._lock = threading.Lock()

    def seconds_left(self) -> int:
        """Whole seconds until the deadline, read with the league clock under the same lock as a bet,
        rounded down, and 0 once the window is closed or the bet placed: what ``bench market`` shows
        never promises time that :meth:`place` would not give."""
        with self._lock:
            if self.state != "open":
                return 0
            return max(0, math.floor((self.deadline - self.clock.now()).total_seconds()))

    def place(self, decide: Callable[[datetime], T]) -> T:
        """Run ``decide(now)`` only if the bet arrives in time and is the first; atomically."""
        with self._lock:
            now = self.clock.now()
            if self.state == "bet":
                raise BenchRefused("you already placed your bet this round")
            if self.state == "forfeit" or now > self.deadline:
                self.state = "forfeit"
                self.late_attempt = self.late_attempt or now
                raise BenchRefused(f"too late: the clock ran out at {utc(self.deadline)}; the round is forfeited")
            result = decide(now)
            self.state = "bet"
            return result

    def close(self) -> WindowState:
        with self._lock:
            if self.state == "open":
                self.state = "forfeit"
            return self.state


def clean_quote(quote: str | None, max_chars: int) -> tuple[str | None, str]:
    """The quote as it may appear on the card, and a note when it was changed or dropped."""
    if quote is None or not quote.strip():
        return None, ""
    if LINK.search(quote):
        return None, "quote dropped: it contains a link"
    if MENTION.search(quote):
        return None, "quote dropped: it contains an @mention"
    if len(quote) > max_chars:
        return quote[:max_chars], f"quote cut to {max_chars} characters"
    return quote, ""


def _confidence(value: Json | None) -> float:
    try:
        number = as_float(value)
    except (TypeError, ValueError):
        raise BenchRefused(f"--confidence must be a number from 0 to 1, got {value!r}") from None
    if not 0 <= number <= 1:
        raise BenchRefused(f"--confidence must be from 0 to 1, got {number}")
    return number


def _max_price(value: Json | None) -> float | None:
    if value is None:
        return None
    try:
        return as_float(value)
    except (TypeError, ValueError):
        raise BenchRefused(f"--max-price must be a number from 0 to 1, got {value!r}") from None


@dataclass
class Desk:
    """What ``bench`` talks to for one agent in one round."""

    round_id: int
    agent: str
    market: Market
    source: MarketSource
    broker: Broker
    ledger: Ledger
    rules: RoundRules
    stake: float
    window: BetWindow
    bet: JsonObject | None = field(default=None)

    def handle(self, request: JsonObject) -> Json:
        cmd = request.get("cmd")
        if cmd == "market":
            return self.market_view()
        if cmd == "book":
            label, token = self._outcome(request.get("outcome"))
            return {"outcome": label, **self.source.book(token).as_json()}
        if cmd == "history":
            label, token = self._outcome(request.get("outcome"))
            return {"outcome": label, "history": [{"t": t, "p": p} for t, p in self.source.history(token)]}
        if cmd == "bet":
            return self.window.place(lambda now: self._bet(request, now))
        if cmd == "help":
            return HELP
        raise BenchRefused(f"unknown command {cmd!r}; {HELP}")

    def _outcome(self, text: Json | None) -> tuple[str, str]:
        label = self.market.label(str(text or ""))
        if label is None:
            raise BenchRefused(f"unknown outcome {text!r}; choose one of {list(self.market.outcomes)}")
        return label, self.market.token_for(label)

    def market_view(self) -> JsonObject:
        books = [self.source.book(t) for t in self.market.token_ids]
        return {
            "market_id": self.market.id, "question": self.market.question, "description": self.market.description,
            "outcomes": [*self.market.outcomes],
            "prices": [round(b.mid if b.mid is not None else p, 4)
                       for b, p in zip(books, self.market.prices or [0.0] * len(books), strict=True)],
            "best_bid": [b.best_bid for b in books], "best_ask": [b.best_ask for b in books],
            "end_date": utc(self.market.end), "stake": self.stake,
            "seconds_left": self.window.seconds_left(),
        }

    def _bet(self, request: JsonObject, now: datetime) -> JsonObject:
        label, token = self._outcome(request.get("outcome"))
        confidence = _confidence(request.get("confidence"))
        rationale = str(request.get("rationale") or "").strip()
        if not rationale:
            raise BenchRefused("--rationale is required: one or two sentences")
        quote, note = clean_quote(_quote(request.get("quote")), self.rules.quote_max_chars)
        book = self.source.book(token)
        try:
            limit = limit_price(book.best_ask, _max_price(request.get("max_price")),
                                slippage=self.rules.slippage, cap=self.rules.price_cap)
            fill = self.broker.buy_ioc(self.market, label, book, limit, self.stake,
                                       f"r{self.round_id}-{self.agent}")
        except OrderError as exc:
            raise BenchRefused(exc.message) from exc
        if not fill.filled:
            raise BenchRefused(f"order did not fill: no asks at or below {limit:.2f}; nothing was spent")
        self.bet = {"round_id": self.round_id, "agent": self.agent, "outcome": label, "token_id": token,
                    "confidence": confidence, "rationale": rationale[:2000], "quote": quote, "quote_note": note,
                    "max_price": _max_price(request.get("max_price")), "limit": round(limit, 4),
                    "shares": fill.shares, "spent": fill.spent, "avg_price": fill.avg_price,
                    "order_id": fill.order_id, "book": _book_json(book),
                    "decided_s": round((now - self.window.opened_at).total_seconds(), 1)}
        self.ledger.append(L.BET, self.bet, at=now)
        return {"placed": True, "outcome": label, "avg_price": round(fill.avg_price or 0.0, 4),
                "shares": round(fill.shares, 4), "stake_filled": round(fill.spent, 2),
                "unspent": round(self.stake - fill.spent, 2), "quote": quote, "note": note}


def _quote(value: Json | None) -> str | None:
    """The request's card quote: text, or none."""
    if value is not None and not isinstance(value, str):
        raise BenchRefused(f"--quote must be text, got {value!r}")
    return value


def _book_json(book: OrderBook) -> JsonObject:
    return book.as_json(depth=50)
