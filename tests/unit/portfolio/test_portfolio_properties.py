"""Property tests over random decision streams (hypothesis), for both leagues.

Every expectation is recomputed here from the bars and the fills, never read back from the engine:
accepted states keep traded positions inside the band (every position, for explicit books), the pro
league inside its gross limits; a rejection leaves positions and cash as they were (bar the bill
interest every account earns); every fee is 0.1% of its traded dollars; value = cash + Σ qty × close.
"""

from __future__ import annotations

from datetime import date
from decimal import ROUND_HALF_UP, Decimal
from typing import Any

from hypothesis import HealthCheck, given, settings
from hypothesis import strategies as st
from portfolio_helpers import et, px

from league.portfolio.bills import BillRates
from league.portfolio.decisions import ActionCell, Decision
from league.portfolio.engine import PriceBook, StepResult, open_account, step
from league.portfolio.rules import ARENA_3, PRO_1, RuleSet
from league.portfolio.synthetic import SyntheticBars, weekday_sessions

ACTIONS = ["buy_strong", "buy_dips", "hold", "trim", "sell", "moon"]
CENT = Decimal("0.01")
FIRST = date(2026, 4, 6)


def cents(x: Decimal) -> Decimal:
    return x.quantize(CENT, ROUND_HALF_UP)


@st.composite
def streams(draw: Any, rules: RuleSet) -> tuple[int, list[dict[str, Any]]]:
    seed = draw(st.integers(0, 10_000))
    markets = sorted(rules.funds)
    steps = []
    for _ in range(draw(st.integers(2, 5))):
        kind = draw(st.sampled_from(["none", "actions", "actions", "targets"]))
        chosen = draw(st.lists(st.sampled_from(markets), unique=True, min_size=1, max_size=len(markets)))
        low = -0.35 if rules.allow_short else 0.0
        steps.append({
            "kind": kind,
            "minute": draw(st.integers(-90, 20)),
            "cells": {m: (draw(st.sampled_from(ACTIONS)), draw(st.floats(0.985, 1.01))) for m in chosen},
            "targets": {m: draw(st.floats(low, 0.35)) for m in chosen},
        })
    return seed, steps


def _decision(spec: dict[str, Any], session: date, bars: SyntheticBars, rules: RuleSet) -> Decision | None:
    at = et(session, 9, 30)
    at = at.replace(minute=0) if spec["minute"] < 0 else et(session, 9, 30 + spec["minute"])
    if spec["kind"] == "none":
        return None
    if spec["kind"] == "targets":
        return Decision(seat="p", session=session, at=at, targets=spec["targets"], source="targets")
    cells = {}
    for market, (action, factor) in spec["cells"].items():
        level = bars.bars(rules.indicators[market], session)[0].open
        cells[market] = ActionCell(action, entry=level * factor)
    return Decision(seat="p", session=session, at=at, cells=cells)


def _quotes(bars: SyntheticBars, session: date, decision: Decision, symbols: set[str]) -> dict[str, Decimal]:
    t0 = max(decision.at, et(session, 9, 30))
    out = {}
    for s in symbols:
        first = next(b for b in bars.bars(s, session) if b.start >= t0)
        out[s] = px(first.open)
    return out


def _check(result: StepResult, before_cash: Decimal, before_pos: dict[str, Decimal], decision: Decision | None,
           bars: SyntheticBars, session: date, rules: RuleSet) -> None:
    cash0 = before_cash + result.mark.interest
    if result.rejection is not None:
        assert result.execution is None
        assert dict(result.state.positions) == before_pos and result.state.cash == cash0
    fills = result.execution.fills if result.execution else ()
    for f in fills:
        assert f.amount == cents(f.qty * f.price)
        assert f.fee == cents(f.amount * Decimal("0.001")) and abs(f.fee - f.amount * Decimal("0.001")) <= Decimal(
            "0.005")
    if fills and decision is not None:
        _check_execution(fills, cash0, before_pos, decision, bars, session, rules)
    closes = {s: px(bars.bars(s, session)[-1].close) for s in result.state.positions}
    assert result.mark.value == result.state.cash + sum(q * closes[s] for s, q in result.state.positions.items())


def _check_execution(fills: Any, cash0: Decimal, before_pos: dict[str, Decimal], decision: Decision,
                     bars: SyntheticBars, session: date, rules: RuleSet) -> None:
    pos = dict(before_pos)
    cash = cash0
    opening = [f for f in fills if f.leg == "open"]
    for f in opening:
        pos[f.symbol] = pos.get(f.symbol, Decimal(0)) + (f.qty if f.side == "buy" else -f.qty)
        cash = f.cash_after
    held = {s: q for s, q in pos.items() if q}
    quotes = _quotes(bars, session, decision, set(held))
    equity = cash + sum(q * quotes[s] for s, q in held.items())
    weights = {s: q * quotes[s] / equity for s, q in held.items()}
    lo, hi = Decimal(str(rules.min_weight)), Decimal(str(rules.max_weight))
    checked = set(held) if decision.targets is not None else {f.symbol for f in opening} & set(held)
    for s in checked:
        assert lo <= abs(weights[s]) <= hi, (s, weights[s])
    if rules.allow_short:
        if opening:
            assert Decimal(1) <= sum(abs(w) for w in weights.values()) <= Decimal(2)
    else:
        assert cash >= 0 and all(q > 0 for q in held.values())
        assert all(f.cash_after >= 0 for f in fills)
    for f in fills:
        if f.leg == "dips":
            assert lo <= f.position_after * f.price / (equity - f.fee) <= hi


def _run(rules: RuleSet, seed: int, specs: list[dict[str, Any]]) -> tuple[int, int]:
    sessions = weekday_sessions(FIRST, len(specs))
    bars = SyntheticBars(sessions, seed=seed, minutes=40)
    book = PriceBook(bars)
    bills = BillRates.constant("4.5")
    state = open_account(rules, "p", sessions[0])
    accepted = rejected = 0
    for session, spec in zip(sessions, specs, strict=True):
        decision = _decision(spec, session, bars, rules)
        before_cash, before_pos = state.cash, dict(state.positions)
        result = step(state, session, decision, rules, book, bills)
        _check(result, before_cash, before_pos, decision, bars, session, rules)
        accepted += result.execution is not None
        rejected += result.rejection is not None
        state = result.state
    return accepted, rejected


SETTINGS = settings(max_examples=60, deadline=None, suppress_health_check=[HealthCheck.too_slow])


@SETTINGS
@given(streams(ARENA_3))
def test_long_only_streams_keep_the_rules(stream: tuple[int, list[dict[str, Any]]]) -> None:
    _run(ARENA_3, *stream)


@SETTINGS
@given(streams(PRO_1))
def test_pro_streams_keep_the_rules(stream: tuple[int, list[dict[str, Any]]]) -> None:
    _run(PRO_1, *stream)


def test_random_streams_do_exercise_both_outcomes() -> None:
    """Guard against a vacuous property: the generator really produces accepted and rejected decisions."""
    totals = [0, 0]
    for seed in range(12):
        specs = [{"kind": k, "minute": -10, "cells": {"SPX": ("buy_strong", 1.0), "GOLD": ("buy_dips", 0.99)},
                  "targets": {"SPX": 0.6 if k == "targets" else 0.2}} for k in ("actions", "targets", "actions")]
        accepted, rejected = _run(ARENA_3, seed, specs)
        totals[0] += accepted
        totals[1] += rejected
    assert totals[0] > 0 and totals[1] > 0
