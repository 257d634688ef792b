"""Seat budgets: what a seat's runs have spent, from the usage they reported, against its limits.

Pure rules (no I/O, no clock). CLIs report usage only when a run ends (Claude Code's ``result``
message, Codex's token counts, the SDKs' usage objects), so a budget cannot stop a run midway on
tokens; it stops the seat before its next ask, and ``timeout_s`` bounds each run's wall time.
"""

from __future__ import annotations

from collections.abc import Iterable, Mapping
from dataclasses import dataclass
from typing import Any

from league_agents.base import SeatBudget

#: Token counts as the adapters report them (cached input is part of the input and not added again).
TOKEN_KEYS = ("input_tokens", "output_tokens", "reasoning_tokens", "thoughts_tokens")
COST_KEYS = ("total_cost_usd", "cost_usd")


@dataclass(frozen=True)
class Spend:
    tokens: int = 0
    usd: float = 0.0

    def __add__(self, other: Spend) -> Spend:
        return Spend(self.tokens + other.tokens, self.usd + other.usd)


def _number(value: object) -> float:
    return float(value) if isinstance(value, int | float) and not isinstance(value, bool) and value > 0 else 0.0


def usage_spend(usage: Mapping[str, object]) -> Spend:
    """Tokens and dollars one run reported, whatever the vendor's shape: a total when given
    (``total_tokens``, Gemini's ``total_token_count``), else the sum of the parts; Gemini CLI's
    per-model ``models.<m>.tokens.total``; Claude Code's ``total_cost_usd``."""
    tokens = (_number(usage.get("total_tokens")) or _number(usage.get("total_token_count"))
              or sum(_number(usage.get(k)) for k in TOKEN_KEYS) or _per_model(usage.get("models")))
    usd = next((_number(usage.get(k)) for k in COST_KEYS if _number(usage.get(k))), 0.0)
    return Spend(int(tokens), usd)


def _per_model(models: Any) -> float:
    if not isinstance(models, Mapping):
        return 0.0
    return sum(_number(((m or {}).get("tokens") or {}).get("total")) for m in models.values() if isinstance(m, Mapping))


def total(usages: Iterable[Mapping[str, object]]) -> Spend:
    spent = Spend()
    for usage in usages:
        spent = spent + usage_spend(usage)
    return spent


def exhausted(budget: SeatBudget, session: Spend, season: Spend) -> str | None:
    """The first limit reached, as a sentence for the sealed silence line; None while within budget."""
    limits = (("tokens this session", session.tokens, budget.tokens_per_session),
              ("USD this session", session.usd, budget.usd_per_session),
              ("tokens in total", season.tokens, budget.tokens_total),
              ("USD in total", season.usd, budget.usd_total))
    for what, spent, limit in limits:
        if limit is not None and spent >= limit:
            return f"budget reached: {what} {spent:,.4g} >= {limit:,.4g} (roster budget)"
    return None
