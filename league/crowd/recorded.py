"""Offline crowd providers: a replay of recorded quote files, and a seeded synthetic crowd for the demo.

``RecordedCrowd`` reads ``<root>/<YYYY-MM-DD>.json`` (a JSON list of :meth:`CrowdQuote.as_json`
objects, e.g. the ``crowd`` field of a sealed run line) and, for resolutions,
``<root>/<YYYY-MM-DD>.resolved.json`` (``{contract_id: true | false | null}``). ``SyntheticCrowd``
invents plausible quotes so the demo season exercises the whole crowd path without a network; its
outcomes come from the caller (the demo's own price replay), never from the crowd itself.
"""

from __future__ import annotations

import json
import random
from collections.abc import Callable, Sequence
from datetime import date, datetime, timedelta
from pathlib import Path

import structlog

from league.calendar import Calendar
from league.config import Config
from league.crowd.interface import CrowdError, CrowdProvider, CrowdQuote, aware_utc
from league.jsonvalue import Json
from league.prices.interface import PriceSource

log = structlog.get_logger(__name__)
Resolver = Callable[[str, date], bool | None]
# The markets a daily crowd question plausibly exists for (scoring.md §8: up to 8 of the 12).
SYNTHETIC_MARKETS: tuple[str, ...] = ("SPX", "NDX", "DJI", "BTC", "GOLD", "WTI", "TNX", "DXY")


def _read_json(path: Path) -> Json:
    try:
        body: Json = json.loads(path.read_text(encoding="utf-8"))
    except OSError as exc:
        raise CrowdError(f"cannot read {path}: {exc}") from exc
    except ValueError as exc:
        raise CrowdError(f"{path} is not JSON: {exc}", fix="restore the file from the sealed run line") from exc
    return body


class RecordedCrowd:
    """Replays recorded quotes; a session without a file simply has no crowd."""

    venue = "recorded"

    def __init__(self, root: Path) -> None:
        self._root = Path(root)

    def _load(self, session: date) -> list[CrowdQuote]:
        path = self._root / f"{session.isoformat()}.json"
        if not path.exists():
            log.info("no recorded crowd for session", session=session.isoformat(), path=str(path))
            return []
        body = _read_json(path)
        if not isinstance(body, list):
            raise CrowdError(f"{path}: expected a JSON list of quotes, got {type(body).__name__}")
        return [self._one(path, i, item) for i, item in enumerate(body)]

    @staticmethod
    def _one(path: Path, index: int, item: Json) -> CrowdQuote:
        if not isinstance(item, dict):
            raise CrowdError(f"{path} item {index}: expected an object, got {item!r}")
        try:
            return CrowdQuote.from_json(item)
        except CrowdError as exc:
            raise CrowdError(f"{path} item {index}: {exc.message}", fix=exc.fix) from exc

    def quotes(self, session: date, markets: Sequence[str], now: datetime) -> list[CrowdQuote]:
        """The recorded quotes of the requested markets, in the file's order (``now`` is not used)."""
        aware_utc(now, "now")
        wanted = set(markets)
        return [q for q in self._load(session) if q.market in wanted and q.session == session]

    def resolution(self, quote: CrowdQuote) -> bool | None:
        path = self._root / f"{quote.session.isoformat()}.resolved.json"
        if not path.exists():
            return None
        table = _read_json(path)
        if not isinstance(table, dict):
            raise CrowdError(f"{path}: expected an object {{contract_id: true|false|null}}")
        value = table.get(quote.contract_id)
        if value is not None and not isinstance(value, bool):
            raise CrowdError(f"{path}: {quote.contract_id} must map to true, false or null, got {value!r}")
        return value

    def price_at(self, quote: CrowdQuote, minute: datetime) -> float | None:
        """``<root>/<YYYY-MM-DD>.minutes.json``: ``{contract_id: {"YYYY-MM-DDTHH:MMZ": price}}``; the
        latest recorded minute at or before ``minute`` (no file, no such minute: None)."""
        path = self._root / f"{quote.session.isoformat()}.minutes.json"
        if not path.exists():
            return None
        table = _read_json(path)
        prices = table.get(quote.contract_id) if isinstance(table, dict) else None
        if not isinstance(prices, dict):
            return None
        key = _minute_key(minute)
        earlier = sorted(k for k in prices if isinstance(k, str) and k <= key)
        value = prices[earlier[-1]] if earlier else None
        return float(value) if isinstance(value, int | float) and 0.0 <= value <= 1.0 else None


def _minute_key(minute: datetime) -> str:
    return aware_utc(minute, "minute").strftime("%Y-%m-%dT%H:%MZ")


class SyntheticCrowd:
    """Seeded plausible quotes for up to 8 markets; same seed and session give the same quotes."""

    venue = "recorded"

    def __init__(self, seed: int, resolver: Resolver, markets: Sequence[str] = SYNTHETIC_MARKETS) -> None:
        if len(markets) > 8:
            raise CrowdError(f"a synthetic crowd covers at most 8 markets, got {len(markets)}")
        self._seed = seed
        self._resolver = resolver
        self._markets = tuple(markets)

    def quotes(self, session: date, markets: Sequence[str], now: datetime) -> list[CrowdQuote]:
        now = aware_utc(now, "now")
        return [self._quote(session, code, now) for code in markets if code in self._markets]

    def _quote(self, session: date, code: str, now: datetime) -> CrowdQuote:
        # One generator per (seed, session, market): a market's quote does not depend on which others are asked.
        rng = random.Random(f"{self._seed}:{session.isoformat()}:{code}")
        price = round(min(0.95, max(0.05, rng.gauss(0.5, 0.08))), 3)
        half = rng.choice((0.005, 0.01, 0.015, 0.02))
        return CrowdQuote(
            session=session, market=code, venue="recorded", contract_id=f"synthetic-{code}-{session.isoformat()}",
            question=f"Synthetic crowd: will {code} close the session of {session.isoformat()} up?",
            rules=f"Demo contract: resolves Up when {code} closes {session.isoformat()} above its reference "
                  "(the league's own demo replay decides). Not a real market.",
            side="Up", price=price, bid=round(max(0.0, price - half), 3), ask=round(min(1.0, price + half), 3),
            volume_usd=round(rng.lognormvariate(8.0, 1.6), 2),
            last_trade_at=now - timedelta(minutes=rng.randint(1, 180)), read_at=now,
        )

    def resolution(self, quote: CrowdQuote) -> bool | None:
        """The caller's resolver decides (the demo's replayed close vs reference); None = not yet."""
        return self._resolver(quote.market, quote.session)

    def price_at(self, quote: CrowdQuote, minute: datetime) -> float | None:
        """A seeded drift of the ask-time price by the minute (same seed, same minute, same price)."""
        rng = random.Random(f"{self._seed}:{quote.contract_id}:{_minute_key(minute)}")
        return round(min(0.99, max(0.01, quote.price + rng.gauss(0.0, 0.02))), 3)


def from_config(config: Config, prices: PriceSource, calendar: Calendar) -> CrowdProvider:
    """The ``recorded`` crowd provider (entry point ``forecast_league.crowd``): DATA/crowd/<day>.json."""
    return RecordedCrowd(config.data_dir / "crowd")
