"""Rule sets, the action → weight mapping, reading replies, seasons with versions, metrics and sealing."""

from __future__ import annotations

import json
from datetime import UTC, date, datetime
from decimal import Decimal

import pytest
from portfolio_helpers import et
from pydantic import ValidationError

from league.book import Book
from league.clock import SimulatedClock
from league.portfolio.bills import BillRates
from league.portfolio.decisions import ActionCell, Decision, RuleBreach, decision_from_reply, plan_decision
from league.portfolio.interface import PortfolioError
from league.portfolio.metrics import max_drawdown, sharpe, sortino
from league.portfolio.rules import ARENA_3, PRO_1, RuleSet, protocol_document, rule_set
from league.portfolio.seal import (
    fill_from_content,
    mark_content,
    mark_from_content,
    rules_content,
    session_lines,
    trade_content,
)
from league.portfolio.season import Season
from league.portfolio.synthetic import SyntheticBars, weekday_sessions
from league.verify.chain import verify

D1 = date(2026, 3, 2)


def test_rule_sets_round_trip_through_their_sealed_json() -> None:
    for rules in (ARENA_3, PRO_1):
        assert RuleSet.model_validate(json.loads(json.dumps(rules.as_json()))) == rules
    assert ARENA_3.as_json()["max_weight"] == 0.25 and "VIX" not in ARENA_3.funds and PRO_1.funds["VIX"] == "^VIX"
    assert [c["rules"] for c in protocol_document()["changes"]] == ["arena-3", "pro-1"]


@pytest.mark.parametrize("change", [
    {"min_weight": 0.3},                     # min above max
    {"max_gross": 1.5},                      # a long-only league that borrows
    {"funds": {"SPX": "SPY", "NDX": "SPY"}},
    {"cost_rate": "-0.001"},
])
def test_inconsistent_rule_sets_are_refused(change: dict[str, object]) -> None:
    with pytest.raises(ValidationError):
        RuleSet.model_validate({**ARENA_3.as_json(), **change})
    with pytest.raises(PortfolioError):
        rule_set("arena-9")


def _plan(cells: dict[str, str], weights: dict[str, float] | None = None, rules: RuleSet = ARENA_3):  # type: ignore[no-untyped-def]
    decision = Decision(seat="s", session=D1, at=et(D1, 9, 0), cells={m: ActionCell(a) for m, a in cells.items()})
    return plan_decision(decision, rules, weights or {})


def test_mapping_of_each_action() -> None:
    plan = _plan({"SPX": "buy_strong", "NDX": "sell", "DJI": "trim", "SOX": "hold", "GOLD": "moon"},
                 {"QQQ": 0.10, "DIA": 0.20, "SOXX": 0.10})
    assert plan.targets == {"SPY": 0.25, "QQQ": 0.0, "DIA": 0.10}


def test_buys_beyond_the_cash_floor_are_scaled_together() -> None:
    plan = _plan({m: "buy_strong" for m in ARENA_3.funds})
    # buy_strong on the yield means "sell the bond fund": not held, so 10 buys of 25% squeezed into 99%
    assert set(plan.targets) == set(ARENA_3.funds.values()) - {"IEF"}
    assert all(w == pytest.approx(0.099) for w in plan.targets.values())


def test_scaled_buys_below_the_minimum_are_dropped() -> None:
    held = {"SPY": 0.25, "QQQ": 0.25, "DIA": 0.25, "SOXX": 0.20}     # 95% invested, 4% left for buys
    plan = _plan({"GOLD": "buy_strong"}, held)
    assert plan.targets == {}


def test_reply_with_bad_targets_becomes_a_problem_not_an_exception() -> None:
    reply = {"forecast": {"SPX": {"1d": {"prob_up": 60, "action": "buy_dips", "entry": 5980.0}},
                          "BTC": {"1d": {"action": "trim", "entry": "low"}}},
             "targets": {"SPX": "lots"}}
    decision = decision_from_reply(reply, seat="s", session=D1, at=et(D1, 9, 0))
    assert decision.cells["SPX"] == ActionCell("buy_dips", 5980.0) and decision.cells["BTC"].entry is None
    assert decision.problem is not None and "targets block" in decision.problem and "BTC: entry" in decision.problem
    with pytest.raises(RuleBreach):
        plan_decision(decision, ARENA_3, {})


def test_reply_targets_are_percent_of_equity() -> None:
    decision = decision_from_reply({"forecast": {}, "targets": {"SPX": 20, "GOLD": 10}}, seat="s", session=D1,
                                   at=et(D1, 9, 0))
    assert decision.source == "targets" and decision.targets == {"SPX": 0.2, "GOLD": 0.1}


def test_targets_keyed_by_league_drive_only_that_league() -> None:
    reply = {"forecast": {"SPX": {"1d": {"prob_up": 60, "action": "buy_strong"}}},
             "targets": {"pro-1": {"SPX": 30, "GOLD": -30, "BTC": 25, "WTI": 20}}}
    decision = decision_from_reply(reply, seat="s", session=D1, at=et(D1, 9, 0))
    assert decision.problem is None and decision.targets is None
    pro = decision.for_league("pro-1")
    assert pro.source == "targets" and pro.targets == {"SPX": 0.3, "GOLD": -0.3, "BTC": 0.25, "WTI": 0.2}
    plan = plan_decision(pro, PRO_1, {})
    assert {s: w for s, w in plan.targets.items() if w} == {"SPY": 0.3, "GLD": -0.3, "IBIT": 0.25, "USO": 0.2}
    arena = decision.for_league("arena-3")
    assert arena.source == "actions" and plan_decision(arena, ARENA_3, {}).targets == {"SPY": 0.25}
    bad = decision_from_reply({"forecast": {}, "targets": {"pro-1": {"SPX": "all"}}}, seat="s", session=D1,
                              at=et(D1, 9, 0))
    assert bad.problem is not None and "targets block of a league" in bad.problem


def test_an_empty_pro_account_that_holds_or_only_buys_dips_trades_nothing() -> None:
    """pro-1's 100% gross floor: a dip leg alone (17.5%) could never meet it; nothing to reject either."""
    assert _plan({"SPX": "hold", "GOLD": "hold"}, rules=PRO_1).targets == {}
    decision = Decision(seat="s", session=D1, at=et(D1, 9, 0), cells={"SPX": ActionCell("buy_dips", 5980.0)})
    plan = plan_decision(decision, PRO_1, {})
    assert plan.targets == {} and plan.dips == () and "not traded" in plan.notes[-1]
    held = plan_decision(decision, PRO_1, {"QQQ": 0.6, "GLD": -0.5})  # a book at the floor keeps its dip leg
    assert [leg.symbol for leg in held.dips] == ["SPY"]


def test_naive_decision_times_are_refused() -> None:
    with pytest.raises(PortfolioError):
        Decision(seat="s", session=D1, at=datetime(2026, 3, 2, 9, 0))  # noqa: DTZ001


def test_season_opens_benchmarks_and_a_version_account_at_take_over() -> None:
    sessions = weekday_sessions(D1, 4)
    season = Season(ARENA_3, SyntheticBars(sessions, minutes=30), BillRates.constant("4.0"))
    opened = []
    for i, day in enumerate(sessions):
        decision = Decision(seat="claude", session=day, at=et(day, 9, 0), cells={"SPX": ActionCell("hold")},
                            model="opus", version="4.1" if i < 2 else "4.5")
        opened.append(season.run_session(day, [decision]).opened)
    assert opened[0] == ("claude", "_cash", "_hold_all", "_passive", "_random", "_spy")
    assert opened[1] == () and opened[2] == ("_ver:opus:2",) and opened[3] == ()
    assert season.history["_ver:opus:2"][0].session == sessions[2]
    assert all(m.fees_total == 0 and m.positions == {} for m in season.history["_cash"])
    with pytest.raises(PortfolioError):
        season.run_session(sessions[1], [])


def test_baseline_seats_trade_but_may_not_take_a_benchmark_id() -> None:
    sessions = weekday_sessions(D1, 2)
    season = Season(ARENA_3, SyntheticBars(sessions, minutes=30), BillRates.constant("4.0"))
    momentum = Decision(seat="_momentum", session=D1, at=et(D1, 9, 0), cells={"SPX": ActionCell("buy_strong")})
    outcome = season.run_session(D1, [momentum])
    assert "_momentum" in outcome.opened and any(e.decision.seat == "_momentum" for e in outcome.executions)
    with pytest.raises(PortfolioError):
        season.run_session(sessions[1], [Decision(seat="_spy", session=sessions[1], at=et(sessions[1], 9, 0))])


def test_drawdown_sharpe_and_sortino_by_hand() -> None:
    assert max_drawdown([100, 120, 90, 130, 117]) == pytest.approx(0.25)
    assert sharpe([0.01] * 19 + [0.0]) is not None and sharpe([0.01] * 19) is None
    series = [0.02, -0.01] * 10                        # mean 0.005, sample sd 0.015390…, downside rms 0.0070711
    assert sharpe(series) == pytest.approx(0.005 / 0.0153897 * 252 ** 0.5, rel=1e-4)
    assert sortino(series) == pytest.approx(0.005 / 0.0070711 * 252 ** 0.5, rel=1e-4)


def test_session_lines_seal_into_a_book_that_verifies(tmp_path) -> None:  # type: ignore[no-untyped-def]
    sessions = weekday_sessions(D1, 2)
    season = Season(PRO_1, SyntheticBars(sessions, minutes=30), BillRates.constant("4.0"))
    book = Book(tmp_path / "book.jsonl", SimulatedClock(datetime(2026, 3, 2, 20, tzinfo=UTC)))
    book.append("rules", rules_content(PRO_1))
    kinds = []
    for day in sessions:
        bad = Decision(seat="x", session=day, at=et(day, 9, 0), targets={"SPX": 0.9}, source="targets")
        for kind, content in session_lines(season.run_session(day, [bad])):
            kinds.append(kind)
            book.append(kind, content)
    book.close()
    assert verify(tmp_path / "book.jsonl").ok
    assert kinds.count("rejection") == 2 and "trade" in kinds and kinds.count("mark") == 6
    lines = [json.loads(x) for x in (tmp_path / "book.jsonl").read_text().splitlines()]
    trade = next(x for x in lines if x["kind"] == "trade")
    assert Decimal(trade["fee"]) == (Decimal(trade["amount"]) * Decimal("0.001")).quantize(Decimal("0.01"))


def test_a_season_restored_from_sealed_lines_continues_identically() -> None:
    sessions = weekday_sessions(D1, 6)
    bars = SyntheticBars(sessions, seed=4, minutes=30)
    playbook = ["buy_strong", "trim", "sell", "hold", "buy_strong", "sell"]

    def decisions(i: int, day: date) -> list[Decision]:
        return [Decision(seat="s", session=day, at=et(day, 9, 0), model="m", version="1" if i < 2 else "2",
                         cells={"SPX": ActionCell(playbook[i]), "GOLD": ActionCell(playbook[-1 - i])})]

    whole = Season(ARENA_3, bars, BillRates.constant("4.0"), seed=2)
    for i, day in enumerate(sessions):
        whole.run_session(day, decisions(i, day))
    first = Season(ARENA_3, bars, BillRates.constant("4.0"), seed=2)
    for i, day in enumerate(sessions[:3]):
        first.run_session(day, decisions(i, day))
    sealed_marks = [mark_from_content(mark_content(m)) for ms in first.history.values() for m in ms]
    sealed_fills = [fill_from_content(trade_content(f)) for f in first.fills]
    resumed = Season(ARENA_3, bars, BillRates.constant("4.0"), seed=2)
    resumed.restore(sealed_marks, sealed_fills, {"s": ("m", "2")})
    for i, day in enumerate(sessions[3:], start=3):
        resumed.run_session(day, decisions(i, day))
    assert set(resumed.history) == set(whole.history) and "_ver:m:2" in whole.history
    for account, marks in whole.history.items():
        assert [mark_content(m) for m in resumed.history[account][-3:]] == [mark_content(m) for m in marks[-3:]]
    assert [trade_content(f) for f in resumed.fills] == [trade_content(f) for f in whole.fills[len(first.fills):]]
