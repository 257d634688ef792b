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

import bisect
import json
from datetime import datetime, timedelta
from pathlib import Path

from league.contest.markets.gamma import book_from, parse_history, parse_market, winner_of
from league.contest.markets.interface import Market, MarketSourceError, OrderBook, aware, parse_time
from league.jsonvalue import Json, JsonObject

FILES = ("markets.json", "books.json", "history.json", "closed.json")


def read_json(path: Path, default: Json) -> Json:
    if not path.exists():
        return default
    try:
        body: Json = json.loads(path.read_text(encoding="utf-8"))
    except OSError as exc:
        raise MarketSourceError(f"cannot read {path}: {exc}") from exc
    except ValueError as exc:
        raise MarketSourceError(f"{path} is not JSON: {exc}", fix="restore the recorded file") from exc
    return body


def read_object(path: Path) -> JsonObject:
    """A recorded file that maps ids to answers (an absent file maps none)."""
    body = read_json(path, {})
    if not isinstance(body, dict):
        raise MarketSourceError(f"{path}: expected a JSON object of id -> answer", fix="restore the recorded file")
    return body


class RecordedSource:
    """Read-only replay of a recorded folder (see the module docstring)."""

    def __init__(self, root: Path) -> None:
        self.root = Path(root)
        items = read_json(self.root / "markets.json", [])
        if not isinstance(items, list):
            raise MarketSourceError(f"{self.root / 'markets.json'}: expected a Gamma /markets list")
        self._items = {str(item.get("id")): item for item in items if isinstance(item, dict)}
        self._books = read_object(self.root / "books.json")
        self._history = read_object(self.root / "history.json")
        self._closed = read_object(self.root / "closed.json")
        self._rows: list[tuple[datetime, int, datetime | None, Market]] | None = None
        self._ends: list[datetime] = []

    def _by_end(self) -> list[tuple[datetime, int, datetime | None, Market]]:
        """Every recorded market parsed once, as (end, file position, listed from, market), by end time:
        a poll then costs a bisection, not a parse of the whole season (docs/contest.md, Benchmark)."""
        if self._rows is None:
            rows = []
            for i, (key, item) in enumerate(self._items.items()):
                market = parse_market(item, f"recorded markets.json id {key}")
                start = item.get("startDate")
                listed = None if start is None else parse_time(start, f"recorded market {key} startDate")
                rows.append((market.end, i, listed, market))
            rows.sort(key=lambda r: (r[0], r[1]))
            self._rows, self._ends = rows, [r[0] for r in rows]
        return self._rows

    def open_markets(self, now: datetime, within_days: float) -> list[Market]:
        """Listed (from ``startDate``), not closed, and ``now < end <= now + within_days``; in file order."""
        now = aware(now, "now")
        rows = self._by_end()
        lo = bisect.bisect_right(self._ends, now)
        hi = bisect.bisect_right(self._ends, now + timedelta(days=within_days))
        found = [(i, m) for _, i, listed, m in rows[lo:hi] if (listed is None or listed <= now) and not m.closed]
        return [m for _, m in sorted(found, key=lambda x: x[0])]

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
