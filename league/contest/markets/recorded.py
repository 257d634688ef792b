"""A market source replaying recorded venue answers: the tests' fixtures and the offline demo day.

A recorded folder holds the venue's own answer shapes, so the recorded path runs the same parsers
as the live one:

- ``markets.json``: a Gamma ``/markets`` list. An item is listed from its ``startDate`` (when
  present) until its ``endDate``, which lets a recorded day have markets "appear" during the day.
- ``books.json``: ``{token_id: CLOB /book answer}``.
- ``history.json``: ``{token_id: CLOB /prices-history answer}``.
- ``closed.json``: ``{market_id: Gamma /markets/{id} answer after the close}`` (settled prices).
"""

from __future__ import annotations

import json
from datetime import datetime, timedelta
from pathlib import Path
from typing import Any

from league.contest.markets.gamma import book_from, parse_history, parse_market, winner_of
from league.contest.markets.interface import Market, MarketSourceError, OrderBook, aware, parse_time

FILES = ("markets.json", "books.json", "history.json", "closed.json")


def read_json(path: Path, default: Any) -> Any:
    if not path.exists():
        return default
    try:
        return json.loads(path.read_text(encoding="utf-8"))
    except OSError as exc:
        raise MarketSourceError(f"cannot read {path}: {exc}") from exc
    except ValueError as exc:
        raise MarketSourceError(f"{path} is not JSON: {exc}", fix="restore the recorded file") from exc


class RecordedSource:
    """Read-only replay of a recorded folder (see the module docstring)."""

    def __init__(self, root: Path) -> None:
        self.root = Path(root)
        items = read_json(self.root / "markets.json", [])
        if not isinstance(items, list):
            raise MarketSourceError(f"{self.root / 'markets.json'}: expected a Gamma /markets list")
        self._items = {str(item.get("id")): item for item in items if isinstance(item, dict)}
        self._books: dict[str, Any] = read_json(self.root / "books.json", {})
        self._history: dict[str, Any] = read_json(self.root / "history.json", {})
        self._closed: dict[str, Any] = read_json(self.root / "closed.json", {})

    def _listed(self, item: dict[str, Any], now: datetime) -> bool:
        start = item.get("startDate")
        return start is None or parse_time(start, f"recorded market {item.get('id')} startDate") <= now

    def open_markets(self, now: datetime, within_days: float) -> list[Market]:
        now = aware(now, "now")
        horizon = now + timedelta(days=within_days)
        out = []
        for key, item in self._items.items():
            market = parse_market(item, f"recorded markets.json id {key}")
            if self._listed(item, now) and not market.closed and now < market.end <= horizon:
                out.append(market)
        return out

    def market(self, market_id: str) -> Market:
        item = self._items.get(market_id)
        if item is None:
            raise MarketSourceError(f"recorded venue {self.root}: no market {market_id}")
        return parse_market(item, f"recorded markets.json id {market_id}")

    def book(self, token_id: str) -> OrderBook:
        body = self._books.get(token_id)
        return OrderBook(token_id=token_id) if body is None else book_from(body, token_id, f"recorded book {token_id}")

    def history(self, token_id: str) -> list[tuple[int, float]]:
        body = self._history.get(token_id)
        return [] if body is None else parse_history(body, f"recorded history {token_id}")

    def resolution(self, market_id: str) -> str | None:
        body = self._closed.get(market_id)
        return None if body is None else winner_of(parse_market(body, f"recorded closed.json id {market_id}"))
