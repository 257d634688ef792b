"""Orders: the IOC price rule, the paper-fill engine (pure) and the broker port.

bench.md: "an immediate-or-cancel buy at up to best ask + 5¢, or at the agent's own max price".
The limit is ``--max-price`` when the agent gives one, else ``min(0.99, best ask + 0.05)``. The
order walks the asks from the cheapest up to the limit, spending at most the stake; what does not
fill is cancelled (never rests on the book). P&L = payout − tokens spent, payout = shares × 1 when
the outcome wins.

Paper mode (the default) fills against the book read at the moment the bet is accepted. A live
order goes through :mod:`.clob_live` only when the operator enables live trading.
"""

from __future__ import annotations

from dataclasses import dataclass
from typing import Protocol

from league.contest.markets.interface import Market, MarketSourceError, OrderBook

EPS = 1e-9


class OrderError(MarketSourceError):
    """An order could not be priced, placed or filled; the agent is told why and may bet again."""


def limit_price(best_ask: float | None, max_price: float | None, *, slippage: float, cap: float) -> float:
    """The IOC limit: the agent's own max, else ``min(cap, best ask + slippage)``."""
    if max_price is not None:
        if not 0 < max_price < 1:
            raise OrderError(f"--max-price must be between 0 and 1, got {max_price}")
        return max_price
    if best_ask is None:
        raise OrderError("no sellers on this outcome right now; pick another outcome or set --max-price")
    return min(cap, best_ask + slippage)


@dataclass(frozen=True)
class Fill:
    """What an IOC buy got: shares, tokens spent, average price (None when nothing filled)."""

    shares: float
    spent: float
    limit: float
    order_id: str = ""

    @property
    def avg_price(self) -> float | None:
        return self.spent / self.shares if self.shares > EPS else None

    @property
    def filled(self) -> bool:
        return self.shares > EPS


def walk_book(book: OrderBook, limit: float, stake: float) -> tuple[float, float]:
    """Shares and cost of buying up to ``stake`` from the asks priced at or below ``limit``."""
    shares = cost = 0.0
    for level in book.asks_ascending():
        if level.price > limit + EPS or cost >= stake - EPS:
            break
        take = min(level.size, (stake - cost) / level.price)
        shares += take
        cost += take * level.price
    return shares, cost


def paper_fill(book: OrderBook, limit: float, stake: float) -> Fill:
    shares, cost = walk_book(book, limit, stake)
    return Fill(shares=shares, spent=cost, limit=limit, order_id="paper")


def payout(fill_shares: float, outcome: str, winner: str) -> float:
    return fill_shares if outcome == winner else 0.0


def pnl(fill_shares: float, spent: float, outcome: str, winner: str) -> float:
    """P&L = payout − tokens spent (unspent stake is not lost)."""
    return payout(fill_shares, outcome, winner) - spent


class Broker(Protocol):
    """Places one IOC buy of ``stake`` tokens on ``outcome`` at most at ``limit``."""

    def buy_ioc(self, market: Market, outcome: str, book: OrderBook, limit: float, stake: float,
                client_id: str) -> Fill: ...


def paper_broker(venue: object) -> PaperBroker:
    """The ``paper`` broker (entry point ``forecast_league.contest_brokers``): it needs nothing of the venue."""
    return PaperBroker()


class PaperBroker:
    """Paper trading: the fill is simulated against the book read when the bet was accepted."""

    def buy_ioc(self, market: Market, outcome: str, book: OrderBook, limit: float, stake: float,
                client_id: str) -> Fill:
        fill = paper_fill(book, limit, stake)
        return Fill(shares=fill.shares, spent=fill.spent, limit=limit, order_id=f"paper-{client_id}")
