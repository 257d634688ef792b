"""The crowd port: one record (:class:`CrowdQuote`), one provider protocol, one base exception.

A quote is what the crowd said about ONE contract at ask time. It is sealed in the run line, so it
validates on construction: a malformed price or a naive time is refused rather than sealed.

``side`` is the contract's own outcome label (``"Up"``, ``"Yes"``, ``"above 5870.25"``) that
corresponds to the league's "up" for that market: the indicator ending higher (for TNX the yield
rising, for VIX volatility rising). ``price`` is the crowd's probability of THAT outcome, so it is
directly comparable with a seat's ``crowd_up`` / 100. The crowd's event is judged on the crowd's own
terms (its own reference and close), which is why the comparison reports the share ``d`` of
sessions where the two events resolved differently.
"""

from __future__ import annotations

import math
from collections.abc import Mapping, Sequence
from dataclasses import dataclass, field
from datetime import UTC, date, datetime
from typing import Literal, Protocol, runtime_checkable

from league.errors import LeagueError
from league.jsonvalue import Json, JsonObject, as_float

Venue = Literal["polymarket", "kalshi", "recorded"]
VENUES: tuple[str, ...] = ("polymarket", "kalshi", "recorded")
THIN_VOLUME_USD = 1000.0


class CrowdError(LeagueError):
    """A crowd quote could not be obtained, parsed or resolved (base exception of the crowd port)."""


def aware_utc(value: datetime, what: str) -> datetime:
    """Return ``value`` in UTC; a naive time is refused because sealed times must be unambiguous."""
    if value.tzinfo is None or value.utcoffset() is None:
        raise CrowdError(f"{what} {value!r} is naive", fix="pass timezone-aware datetimes")
    return value.astimezone(UTC)


def _check_probability(name: str, value: float | None, *, required: bool) -> None:
    if value is None:
        if required:
            raise CrowdError(f"crowd quote: {name} is required")
        return
    if not (isinstance(value, int | float) and math.isfinite(value) and 0.0 <= value <= 1.0):
        raise CrowdError(f"crowd quote: {name} must be a probability in [0, 1], got {value!r}")


def _iso(value: datetime | None) -> str | None:
    return None if value is None else value.strftime("%Y-%m-%dT%H:%M:%SZ")


def _parse_time(value: Json | None, what: str) -> datetime | None:
    if value is None:
        return None
    try:
        return aware_utc(datetime.fromisoformat(str(value).replace("Z", "+00:00")), what)
    except ValueError as exc:
        raise CrowdError(f"crowd quote: {what} {value!r} is not an ISO time") from exc


@dataclass(frozen=True, slots=True)
class CrowdQuote:
    """One contract's crowd price at ask time; ``thin`` is derived (volume below $1,000)."""

    session: date
    market: str
    venue: Venue
    contract_id: str
    question: str
    rules: str
    side: str
    price: float
    bid: float | None
    ask: float | None
    volume_usd: float
    last_trade_at: datetime | None
    read_at: datetime
    token_id: str | None = None
    threshold: float | None = None
    thin: bool = field(init=False)

    def __post_init__(self) -> None:
        self._check_text()
        for name, value, required in (("price", self.price, True), ("bid", self.bid, False), ("ask", self.ask, False)):
            _check_probability(name, value, required=required)
        if self.bid is not None and self.ask is not None and self.bid > self.ask:
            raise CrowdError(f"crowd quote {self.contract_id}: bid {self.bid} above ask {self.ask}")
        if not (math.isfinite(self.volume_usd) and self.volume_usd >= 0):
            raise CrowdError(f"crowd quote {self.contract_id}: volume_usd must be >= 0, got {self.volume_usd!r}")
        object.__setattr__(self, "read_at", aware_utc(self.read_at, "read_at"))
        if self.last_trade_at is not None:
            object.__setattr__(self, "last_trade_at", aware_utc(self.last_trade_at, "last_trade_at"))
        object.__setattr__(self, "thin", self.volume_usd < THIN_VOLUME_USD)

    def _check_text(self) -> None:
        if self.venue not in VENUES:
            raise CrowdError(f"crowd quote: venue must be one of {VENUES}, got {self.venue!r}")
        for name in ("market", "contract_id", "question", "rules", "side"):
            value = getattr(self, name)
            if not isinstance(value, str) or not value.strip():
                raise CrowdError(f"crowd quote: {name} must be a non-empty string, got {value!r}")
        if not isinstance(self.session, date) or isinstance(self.session, datetime):
            raise CrowdError(f"crowd quote: session must be a date, got {self.session!r}")

    def as_json(self) -> JsonObject:
        """The object sealed in the run line's ``crowd`` list (times in UTC with seconds)."""
        return {
            "session": self.session.isoformat(),
            "market": self.market,
            "venue": self.venue,
            "contract_id": self.contract_id,
            "question": self.question,
            "rules": self.rules,
            "side": self.side,
            "price": self.price,
            "bid": self.bid,
            "ask": self.ask,
            "volume_usd": self.volume_usd,
            "thin": self.thin,
            "last_trade_at": _iso(self.last_trade_at),
            "read_at": _iso(self.read_at),
            "token_id": self.token_id,
            "threshold": self.threshold,
        }

    def for_ask(self) -> JsonObject:
        """What the ask may show a seat: the contract and its rules, never price or volume."""
        return {k: v for k, v in self.as_json().items() if k in _ASK_KEYS}

    @classmethod
    def from_json(cls, obj: Mapping[str, Json]) -> CrowdQuote:
        """Rebuild a sealed quote; any missing or mistyped field is a CrowdError naming it."""
        try:
            return cls(
                session=date.fromisoformat(str(obj["session"])),
                market=_text(obj["market"], "market"),
                venue=_venue(obj["venue"]),
                contract_id=_text(obj["contract_id"], "contract_id"),
                question=_text(obj["question"], "question"),
                rules=_text(obj["rules"], "rules"),
                side=_text(obj["side"], "side"),
                price=_float(obj["price"]),
                bid=_opt_float(obj.get("bid")),
                ask=_opt_float(obj.get("ask")),
                volume_usd=_float(obj["volume_usd"]),
                last_trade_at=_parse_time(obj.get("last_trade_at"), "last_trade_at"),
                read_at=_required_time(obj.get("read_at")),
                token_id=_opt_text(obj.get("token_id"), "token_id"),
                threshold=_opt_float(obj.get("threshold")),
            )
        except (KeyError, TypeError, ValueError) as exc:
            raise CrowdError(f"not a crowd quote: {exc!r} in {obj!r}") from exc


_ASK_KEYS = frozenset({"session", "market", "venue", "contract_id", "question", "rules", "side", "threshold"})


def _text(value: Json, name: str) -> str:
    """A sealed text field (its emptiness is checked with the quote)."""
    if not isinstance(value, str):
        raise CrowdError(f"crowd quote: {name} must be a non-empty string, got {value!r}")
    return value


def _opt_text(value: Json | None, name: str) -> str | None:
    return None if value is None else _text(value, name)


def _venue(value: Json) -> Venue:
    if value == "polymarket":
        return "polymarket"
    if value == "kalshi":
        return "kalshi"
    if value == "recorded":
        return "recorded"
    raise CrowdError(f"crowd quote: venue must be one of {VENUES}, got {value!r}")


def _float(value: Json | None) -> float:
    if isinstance(value, bool):
        raise TypeError(f"expected a number, got {value!r}")
    return as_float(value)


def _opt_float(value: Json | None) -> float | None:
    return None if value is None else _float(value)


def _required_time(value: Json | None) -> datetime:
    parsed = _parse_time(value, "read_at")
    if parsed is None:
        raise CrowdError("crowd quote: read_at is required")
    return parsed


@runtime_checkable
class CrowdProvider(Protocol):
    """Source of crowd quotes for a session's daily contracts."""

    def quotes(self, session: date, markets: Sequence[str], now: datetime) -> list[CrowdQuote]:
        """Quotes for those of ``markets`` that have a contract; markets without one are left out."""
        ...

    def resolution(self, quote: CrowdQuote) -> bool | None:
        """True if the contract resolved on ``quote.side``, False if not, None if not resolved yet."""
        ...

    def price_at(self, quote: CrowdQuote, minute: datetime) -> float | None:
        """The crowd's price (0-1) of ``quote.side`` at ``minute`` (the last price at or before its end):
        the crowd at the minute a seat answered (paper §4.9); None when the venue has no price then."""
        ...
