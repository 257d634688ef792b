"""Small builders shared by the contest's unit tests."""

from __future__ import annotations

from datetime import UTC, datetime, timedelta

from league.contest.markets.interface import Level, Market, OrderBook

NOW = datetime(2026, 12, 7, 6, 0, tzinfo=UTC)


def market(mid: str = "m1", *, outcomes: tuple[str, ...] = ("Yes", "No"), prices: tuple[float, ...] = (0.4, 0.6),
           end: datetime | None = None, tags: tuple[str, ...] = ("sports",), question: str = "Aster vs. Borealis",
           comments: int = 0, volume: float = 0.0, **kw: object) -> Market:
    tokens = kw.pop("token_ids", None) or tuple(f"{mid}-{o}" for o in outcomes)
    return Market(id=mid, question=question, outcomes=outcomes, token_ids=tokens,  # type: ignore[arg-type]
                  prices=prices, end=end or NOW + timedelta(days=2), tags=tags, comment_count=comments,
                  volume_24h=volume, **kw)  # type: ignore[arg-type]


def book(token: str = "t", *, bids: tuple[tuple[float, float], ...] = ((0.39, 100),),
         asks: tuple[tuple[float, float], ...] = ((0.41, 100),)) -> OrderBook:
    return OrderBook(token, bids=tuple(Level(p, s) for p, s in bids), asks=tuple(Level(p, s) for p, s in asks))


def books(m: Market, **kw: object) -> dict[str, OrderBook]:
    return {o: book(t, **kw) for o, t in zip(m.outcomes, m.token_ids, strict=True)}  # type: ignore[arg-type]
