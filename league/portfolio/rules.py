"""Versioned portfolio rule sets (portfolio.md): ``arena-3`` long-only and ``pro-1`` long/short.

A rule set is configuration, not code: a frozen, validated model whose :meth:`RuleSet.as_json` is
sealed in the book before it governs any decision, and whose dated changes are published in
``arena-protocol.json``. Changing a number means a new name (``arena-4``), never an edit in place,
so every published account can say exactly which rules it ran under.
"""

from __future__ import annotations

from datetime import date
from decimal import Decimal
from typing import Literal

from pydantic import BaseModel, ConfigDict, Field, model_validator

from league.jsonvalue import JsonObject
from league.portfolio.interface import PortfolioError

#: market code -> fund symbol held by portfolios (docs/protocol.md §1). VIX has no fund in arena-3.
DEFAULT_FUNDS: dict[str, str] = {
    "SPX": "SPY",
    "NDX": "QQQ",
    "DJI": "DIA",
    "SOX": "SOXX",
    "TNX": "IEF",
    "DXY": "UUP",
    "GOLD": "GLD",
    "WTI": "USO",
    "BRENT": "BNO",
    "COPPER": "CPER",
    "BTC": "IBIT",
}

#: market code -> the indicator's own price symbol (docs/protocol.md §1); ``buy_dips`` entries are indicator levels.
DEFAULT_INDICATORS: dict[str, str] = {
    "SPX": "^GSPC",
    "NDX": "^NDX",
    "DJI": "^DJI",
    "SOX": "^SOX",
    "TNX": "^TNX",
    "DXY": "DX-Y.NYB",
    "VIX": "^VIX",
    "GOLD": "GC=F",
    "WTI": "CL=F",
    "BRENT": "BZ=F",
    "COPPER": "HG=F",
    "BTC": "BTC-USD",
}


class RuleSet(BaseModel):
    """One league's rules; every weight is a fraction of equity at execution (0.05 = 5%)."""

    model_config = ConfigDict(frozen=True, extra="forbid")

    name: str = Field(pattern=r"^[a-z]+-[0-9]+$")
    league: Literal["long_only", "long_short"]
    capital: Decimal = Field(gt=0)
    funds: dict[str, str]
    indicators: dict[str, str] = Field(default_factory=lambda: dict(DEFAULT_INDICATORS))
    inverse_markets: tuple[str, ...] = ("TNX",)
    indicator_only: tuple[str, ...] = ()
    min_weight: float = Field(gt=0, lt=1)
    max_weight: float = Field(gt=0, le=1)
    min_gross: float = Field(ge=0)
    max_gross: float = Field(gt=0)
    cost_rate: Decimal = Field(ge=0, lt=Decimal("0.1"))
    cash: str = "13-week US Treasury bill rate, actual/360, credited at each session's open"
    window_start_et: str = "09:30"
    window_end_et: str = "09:45"
    mapping_cash_floor: float = Field(default=0.01, ge=0, lt=0.5)
    inward_margin: float = Field(default=1e-5, ge=0, lt=0.001)
    adopted: date

    @model_validator(mode="after")
    def _consistent(self) -> RuleSet:
        """Refuse rule sets no decision could satisfy, so a typo cannot silently reject a season."""
        if self.min_weight >= self.max_weight:
            raise ValueError("min_weight must be below max_weight")
        if self.min_gross > self.max_gross:
            raise ValueError("min_gross must not exceed max_gross")
        if self.league == "long_only" and self.max_gross > 1:
            raise ValueError("a long-only league cannot borrow: max_gross must be <= 1")
        if not self.funds:
            raise ValueError("a rule set needs at least one tradable fund")
        if len(set(self.funds.values())) != len(self.funds):
            raise ValueError("two markets map to the same fund symbol")
        missing = sorted(set(self.funds) - set(self.indicators))
        if missing:
            raise ValueError(f"tradable markets {missing} have no indicator symbol (needed for buy_dips)")
        overlap = set(self.indicator_only) & set(self.funds)
        if overlap:
            raise ValueError(f"markets {sorted(overlap)} are both tradable and indicator-only")
        return self

    @property
    def allow_short(self) -> bool:
        return self.league == "long_short"

    @property
    def market_of(self) -> dict[str, str]:
        """fund symbol -> market code (the inverse of ``funds``)."""
        return {symbol: market for market, symbol in self.funds.items()}

    def as_json(self) -> JsonObject:
        """The exact object sealed in the book (``kind: rules``) and published in arena-protocol.json."""
        dumped: JsonObject = self.model_dump(mode="json")
        return dumped


ARENA_3 = RuleSet(
    name="arena-3",
    league="long_only",
    capital=Decimal("100000"),
    funds=DEFAULT_FUNDS,
    indicator_only=("VIX",),
    min_weight=0.05,
    max_weight=0.25,
    min_gross=0.0,
    max_gross=1.0,
    cost_rate=Decimal("0.001"),
    adopted=date(2026, 11, 29),
)

PRO_1 = RuleSet(
    name="pro-1",
    league="long_short",
    capital=Decimal("100000"),
    funds={**DEFAULT_FUNDS, "VIX": "^VIX"},
    min_weight=0.05,
    max_weight=0.30,
    min_gross=1.0,
    max_gross=2.0,
    cost_rate=Decimal("0.001"),
    adopted=date(2026, 11, 29),
)

RULE_SETS: dict[str, RuleSet] = {r.name: r for r in (ARENA_3, PRO_1)}

#: Dated changes published in arena-protocol.json; append, never edit.
RULE_CHANGES: tuple[dict[str, str], ...] = (
    {"date": "2026-11-29", "rules": "arena-3", "change": "long-only league adopted: 5-25% per fund, "
     "cash at the 13-week bill rate, 0.1% cost, execution 09:30-09:45 ET"},
    {"date": "2026-11-29", "rules": "pro-1", "change": "long/short league adopted: 5-30% per position, "
     "gross 100-200%, VIX tradable, 0.1% cost"},
)


def rule_set(name: str) -> RuleSet:
    """Look a rule set up by name with an error that lists the known ones."""
    try:
        return RULE_SETS[name]
    except KeyError:
        raise PortfolioError(f"unknown rule set {name!r}", fix=f"use one of {sorted(RULE_SETS)}") from None


def protocol_document() -> JsonObject:
    """The portfolio part of arena-protocol.json: every rule set with its version and the dated changes."""
    return {
        "rule_sets": {name: rules.as_json() for name, rules in sorted(RULE_SETS.items())},
        "changes": [{**c} for c in RULE_CHANGES],
    }
