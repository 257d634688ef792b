"""Seat budgets: spend read from each vendor's usage shape, limits by hand."""

from __future__ import annotations

import pytest
from pydantic import ValidationError

from league.budgets import Spend, exhausted, total, usage_spend
from league_agents.base import SeatBudget, SeatSpec


@pytest.mark.parametrize(("usage", "tokens", "usd"), [
    # Claude Code's result message: cached input is part of the input, not added again; its own cost
    ({"input_tokens": 1200, "output_tokens": 300, "cache_read_input_tokens": 5000, "total_cost_usd": 0.0123},
     1500, 0.0123),
    # Codex turn.completed
    ({"input_tokens": 800, "cached_input_tokens": 600, "output_tokens": 90}, 890, 0.0),
    # OpenAI SDK: the total wins over the parts
    ({"input_tokens": 10, "output_tokens": 5, "total_tokens": 17}, 17, 0.0),
    # Gemini SDK usage_metadata
    ({"prompt_token_count": 90, "candidates_token_count": 4, "total_token_count": 94}, 94, 0.0),
    # Gemini CLI stats, two models
    ({"models": {"gemini-2.5-pro": {"tokens": {"prompt": 90, "candidates": 4, "total": 94}},
                 "gemini-2.5-flash": {"tokens": {"total": 6}}}}, 100, 0.0),
    # Grok CLI reports nothing; junk is ignored, never an error
    ({}, 0, 0.0),
    ({"input_tokens": "many", "total_cost_usd": True, "models": ["x"]}, 0, 0.0),
])
def test_spend_from_each_vendors_usage(usage: dict[str, object], tokens: int, usd: float) -> None:
    assert usage_spend(usage) == Spend(tokens, pytest.approx(usd))  # type: ignore[arg-type]


def test_limits_reached_by_hand() -> None:
    budget = SeatBudget(tokens_per_session=2000, usd_total=1.0)
    assert exhausted(budget, Spend(1999, 0.2), Spend(50_000, 0.99)) is None
    assert "tokens this session 2,000 >= 2,000" in str(exhausted(budget, Spend(2000, 0.2), Spend(50_000, 0.5)))
    assert "USD in total 1 >= 1" in str(exhausted(budget, Spend(0, 0.0), Spend(0, 1.0)))
    assert total([{"total_tokens": 5}, {"input_tokens": 2, "output_tokens": 1, "cost_usd": 0.5}]) == Spend(8, 0.5)


def test_a_budget_in_the_roster_is_validated() -> None:
    spec = SeatSpec(name="a", adapter="scripted", budget={"tokens_per_session": 1000})  # type: ignore[arg-type]
    assert spec.budget == SeatBudget(tokens_per_session=1000)
    with pytest.raises(ValidationError):
        SeatSpec(name="a", adapter="scripted", budget={"tokens_per_day": 1})  # type: ignore[arg-type]
    with pytest.raises(ValidationError):
        SeatBudget(usd_total=-1)
