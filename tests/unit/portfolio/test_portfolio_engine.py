"""Execution, costs, interest, buy_dips and rejections on hand-written bars with hand-computed values."""

from __future__ import annotations

from datetime import date
from decimal import ROUND_DOWN, ROUND_HALF_UP, Decimal

import pytest
from portfolio_helpers import HandBars, et, px

from league.portfolio.bills import BillRates
from league.portfolio.decisions import ActionCell, Decision
from league.portfolio.engine import PriceBook, open_account, step
from league.portfolio.interface import Bar
from league.portfolio.rules import ARENA_3, PRO_1

D1 = date(2026, 3, 2)
D2 = date(2026, 3, 4)
BILLS = BillRates.constant("4.0")
CENT = Decimal("0.01")


def cents(x: Decimal) -> Decimal:
    return x.quantize(CENT, ROUND_HALF_UP)


def trunc4(x: float) -> Decimal:
    return Decimal(repr(x)).quantize(Decimal("0.0001"), ROUND_DOWN)


def decide(cells: dict[str, str], *, hh: int = 9, mm: int = 0, session: date = D1, **kw: object) -> Decision:
    return Decision(seat="s", session=session, at=et(session, hh, mm),
                    cells={m: ActionCell(a) for m, a in cells.items()}, **kw)  # type: ignore[arg-type]


def run(bars: HandBars, decision: Decision | None, rules=ARENA_3, state=None, session: date = D1):  # type: ignore[no-untyped-def]
    state = state or open_account(rules, "s", session)
    return step(state, session, decision, rules, PriceBook(bars), BILLS)


def test_buy_strong_fills_at_first_window_bar_with_cost_and_marks_at_close() -> None:
    bars = HandBars()
    bars.put("SPY", D1, [Bar(et(D1, 9, 30), 500.0, 500.0, 500.0, 500.0), Bar(et(D1, 9, 31), 501.0, 501, 501, 501),
                         Bar(et(D1, 15, 59), 510.0, 510.5, 509.5, 510.25)])
    result = run(bars, decide({"SPX": "buy_strong"}))
    (fill,) = result.execution.fills  # type: ignore[union-attr]
    w = 0.25 - 1e-5                    # the target, a hair inside the band
    qty = trunc4(w * (100000 / (1 + 0.001 * w)) / 500.0)
    amount = cents(qty * Decimal(500))
    fee = cents(amount * Decimal("0.001"))
    assert (fill.time, fill.price, fill.qty, fill.amount, fill.fee) == (et(D1, 9, 30), Decimal("500.0000"), qty,
                                                                         amount, fee)
    assert fill.cash_after == Decimal(100000) - amount - fee
    assert result.mark.value == fill.cash_after + qty * Decimal("510.2500")
    assert Decimal("0.2499") < qty * 500 / (Decimal(100000) - fee) <= Decimal("0.25")


def test_decision_after_the_open_uses_the_first_bar_at_or_after_it() -> None:
    bars = HandBars()
    bars.put("SPY", D1, [Bar(et(D1, 9, 30 + i), 500.0 + i, 500.0 + i, 500.0 + i, 500.0 + i) for i in range(6)]
             + [Bar(et(D1, 15, 59), 500.0, 500.0, 500.0, 500.0)])
    decision = Decision(seat="s", session=D1, at=et(D1, 9, 33, 20), cells={"SPX": ActionCell("buy_strong")})
    (fill,) = run(bars, decision).execution.fills  # type: ignore[union-attr]
    assert (fill.time, fill.price) == (et(D1, 9, 34), Decimal("504.0000"))


def test_decision_after_the_window_is_rejected_and_changes_nothing() -> None:
    bars = HandBars()
    bars.flat("SPY", D1, 500.0)
    result = run(bars, decide({"SPX": "buy_strong"}, hh=9, mm=50))
    assert result.execution is None and result.rejection is not None
    assert "after the 09:45 ET window" in result.rejection.reason
    assert result.state.cash == Decimal(100000) and dict(result.state.positions) == {}


def test_no_price_in_the_window_rejects_the_whole_decision() -> None:
    bars = HandBars()
    bars.put("SPY", D1, [Bar(et(D1, 9, 50), 500.0, 500.0, 500.0, 500.0)])
    bars.flat("QQQ", D1, 400.0)
    result = run(bars, decide({"SPX": "buy_strong", "NDX": "buy_strong"}))
    assert result.rejection is not None and "no 1-minute price for ['SPY']" in result.rejection.reason
    assert dict(result.state.positions) == {}


def test_hold_trades_nothing_and_costs_nothing() -> None:
    bars = HandBars()
    for symbol in ARENA_3.funds.values():
        bars.flat(symbol, D1, 100.0)
    result = run(bars, decide({m: "hold" for m in ARENA_3.funds}))
    assert result.execution is not None and result.execution.fills == ()
    assert result.state.cash == Decimal(100000) and result.state.fees_paid == 0


def test_interest_is_actual_360_on_the_previous_cash() -> None:
    bars = HandBars()
    first = run(bars, None)
    second = run(bars, None, state=first.state, session=D2)
    assert (second.mark.days, second.mark.interest) == (2, Decimal("22.22"))   # 100000 × 4% × 2/360 = 22.222…
    assert second.mark.value == Decimal("100022.22")


def _dip_bars(low_at_11: float) -> HandBars:
    bars = HandBars()
    bars.put("^GSPC", D1, [Bar(et(D1, 9, 30), 6000.0, 6001.0, 5999.0, 6000.0),
                           Bar(et(D1, 11, 0), 5990.0, 5991.0, low_at_11, 5985.0),
                           Bar(et(D1, 15, 59), 5990.0, 5990.0, 5990.0, 5990.0)])
    bars.put("SPY", D1, [Bar(et(D1, 9, 30), 500.0, 500.0, 500.0, 500.0),
                         Bar(et(D1, 11, 0), 496.0, 497.0, 494.0, 495.0),
                         Bar(et(D1, 15, 59), 498.0, 498.0, 498.0, 498.0)])
    return bars


def test_buy_dips_fills_at_the_entry_level_when_touched() -> None:
    decision = Decision(seat="s", session=D1, at=et(D1, 9, 0), cells={"SPX": ActionCell("buy_dips", 5970.0)})
    result = run(_dip_bars(5950.0), decision)
    (fill,) = result.execution.fills  # type: ignore[union-attr]
    # 500 × 5970/6000 = 497.5, kept inside that minute's fund bar [494, 497]
    assert (fill.time, fill.price, fill.leg) == (et(D1, 11, 0), Decimal("497.0000"), "dips")
    w = 0.15 - 1e-5
    assert fill.qty == trunc4(w * 100000 * (1 - 0.001 * 0.15) / 497.0)


def test_buy_dips_not_touched_does_not_fill() -> None:
    decision = Decision(seat="s", session=D1, at=et(D1, 9, 0), cells={"SPX": ActionCell("buy_dips", 5970.0)})
    result = run(_dip_bars(5980.0), decision)
    assert result.execution is not None and result.execution.fills == ()
    assert any("not touched" in n for n in result.execution.notes)


def test_buy_dips_entry_above_the_reference_is_rejected() -> None:
    decision = Decision(seat="s", session=D1, at=et(D1, 9, 0), cells={"SPX": ActionCell("buy_dips", 6100.0)})
    result = run(_dip_bars(5950.0), decision)
    assert result.rejection is not None and "not below the reference" in result.rejection.reason


def test_yield_market_trades_the_bond_fund_the_other_way() -> None:
    bars = HandBars()
    bars.flat("IEF", D1, 95.0)
    assert run(bars, decide({"TNX": "buy_strong"})).execution.fills == ()  # type: ignore[union-attr]
    (fill,) = run(bars, decide({"TNX": "sell"})).execution.fills  # type: ignore[union-attr]
    assert (fill.symbol, fill.side) == ("IEF", "buy")


@pytest.mark.parametrize(("targets", "reason"), [
    ({"SPX": 0.30}, "outside 5%-25%"),
    ({"SPX": 0.03}, "outside 5%-25%"),
    ({"VIX": 0.10}, "indicator-only"),
    ({"SPX": -0.10}, "short"),
    ({"SPX": 0.25, "NDX": 0.25, "DJI": 0.25, "SOX": 0.25, "GOLD": 0.05}, "above 100%"),
])
def test_explicit_targets_that_break_a_rule_are_rejected_whole(targets: dict[str, float], reason: str) -> None:
    bars = HandBars()
    for symbol in ARENA_3.funds.values():
        bars.flat(symbol, D1, 100.0)
    result = run(bars, Decision(seat="s", session=D1, at=et(D1, 9, 0), targets=targets, source="targets"))
    assert result.rejection is not None and reason in result.rejection.reason
    assert result.state.cash == Decimal(100000) and dict(result.state.positions) == {}


def test_pro_league_shorts_on_sell_and_keeps_gross_within_limits() -> None:
    bars = HandBars()
    for symbol in PRO_1.funds.values():
        bars.flat(symbol, D1, 50.0)
    decision = decide({"SPX": "sell", "NDX": "buy_strong", "DJI": "buy_strong", "GOLD": "buy_strong"})
    result = run(bars, decision, rules=PRO_1)
    sides = {f.symbol: f.side for f in result.execution.fills}  # type: ignore[union-attr]
    assert sides == {"SPY": "sell", "QQQ": "buy", "DIA": "buy", "GLD": "buy"}
    assert result.state.positions["SPY"] < 0
    value = result.mark.value
    gross = sum(abs(q) * px(50.0) for q in result.state.positions.values()) / value
    assert Decimal("1.0") <= gross <= Decimal("2.0")


def test_pro_league_rejects_a_book_that_cannot_reach_100_percent_gross() -> None:
    bars = HandBars()
    for symbol in PRO_1.funds.values():
        bars.flat(symbol, D1, 50.0)
    result = run(bars, decide({"SPX": "buy_strong", "NDX": "buy_strong", "DJI": "buy_strong"}), rules=PRO_1)
    assert result.rejection is not None and "below 100%" in result.rejection.reason


def test_missing_close_carries_the_last_mark_and_flags_it() -> None:
    bars = HandBars()
    bars.flat("SPY", D1, 500.0)
    first = run(bars, decide({"SPX": "buy_strong"}))
    second = run(bars, None, state=first.state, session=D2)     # no SPY bars on D2
    assert second.mark.stale == ("SPY",) and second.mark.prices["SPY"] == Decimal("500.0000")
