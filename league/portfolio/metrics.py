"""Account statistics from the marks: return, drawdown, Sharpe, Sortino, turnover, costs, shadow gain.

Sharpe and Sortino are reported only from 20 sessions of returns on (portfolio.md): fewer is noise.
Both use daily returns in excess of the bill accrual of the same day and are annualised by √252;
Sortino's downside deviation is the root mean square of the negative excess returns (zero target).
"""

from __future__ import annotations

import math
from collections.abc import Sequence
from dataclasses import dataclass
from decimal import Decimal

from league.portfolio.engine import Mark
from league.portfolio.money import cents

MIN_SESSIONS = 20
PERIODS_PER_YEAR = 252


@dataclass(frozen=True)
class AccountMetrics:
    league: str
    account: str
    opened: str
    sessions: int
    value: float
    ret: float
    max_drawdown: float
    sharpe: float | None
    sortino: float | None
    turnover: float
    costs: float
    shadow_value: float
    shadow_gain: float


def published_value(mark: Mark) -> float:
    """Metrics use the value as published (cents), so they are the same whether computed live or from the book."""
    return float(cents(mark.value))


def daily_returns(marks: Sequence[Mark]) -> list[float]:
    """Session-over-session returns, the first against the starting capital."""
    values = [float(marks[0].capital)] + [published_value(m) for m in marks]
    return [b / a - 1 if a > 0 else 0.0 for a, b in zip(values, values[1:], strict=False)]


def bill_returns(marks: Sequence[Mark]) -> list[float]:
    return [float(m.bill_rate) / 100 * m.days / 360 for m in marks]


def max_drawdown(values: Sequence[float]) -> float:
    peak, worst = -math.inf, 0.0
    for v in values:
        peak = max(peak, v)
        worst = max(worst, 1 - v / peak if peak > 0 else 0.0)
    return worst


def sharpe(excess: Sequence[float]) -> float | None:
    if len(excess) < MIN_SESSIONS:
        return None
    mean = sum(excess) / len(excess)
    var = sum((x - mean) ** 2 for x in excess) / (len(excess) - 1)
    return None if var <= 0 else mean / math.sqrt(var) * math.sqrt(PERIODS_PER_YEAR)


def sortino(excess: Sequence[float]) -> float | None:
    if len(excess) < MIN_SESSIONS:
        return None
    downside = math.sqrt(sum(min(x, 0.0) ** 2 for x in excess) / len(excess))
    mean = sum(excess) / len(excess)
    return None if downside <= 0 else mean / downside * math.sqrt(PERIODS_PER_YEAR)


def account_metrics(marks: Sequence[Mark]) -> AccountMetrics:
    """Everything the league table shows for one account, from its marks alone."""
    if not marks:
        raise ValueError("an account without marks has no metrics")
    last = marks[-1]
    capital = float(last.capital)
    excess = [r - b for r, b in zip(daily_returns(marks), bill_returns(marks), strict=True)]
    mean_equity = sum(published_value(m) for m in marks) / len(marks)
    shadow_gain = sum(float(cents(m.value) - cents(m.shadow_value)) for m in marks)
    return AccountMetrics(
        league=last.league, account=last.account, opened=last.opened.isoformat(), sessions=len(marks),
        value=_cents(last.value), ret=published_value(last) / capital - 1,
        max_drawdown=max_drawdown([capital] + [published_value(m) for m in marks]),
        sharpe=sharpe(excess), sortino=sortino(excess),
        turnover=float(last.traded_total) / mean_equity if mean_equity > 0 else 0.0,
        costs=_cents(last.fees_total), shadow_value=_cents(last.shadow_value), shadow_gain=round(shadow_gain, 2),
    )


def _cents(value: Decimal) -> float:
    return float(round(value, 2))
