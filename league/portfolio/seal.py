"""Book-line contents for the portfolio leagues (the integrator seals them with ``Book.append(kind, c)``).

Money is written as decimal strings so the sealed numbers are the exact ones the engine used and a
reader never meets a binary float. ``session_lines`` gives one session's lines in their sealing order:
decisions, then rejections, then trades, then marks — a rejection is sealed with its reason, a hold
is a decision with no trades.
"""

from __future__ import annotations

from collections.abc import Mapping
from datetime import date, datetime
from decimal import Decimal
from typing import TypeVar

from league import records
from league.jsonvalue import JsonObject
from league.portfolio.decisions import Decision, Plan
from league.portfolio.engine import Execution, Fill, Mark, Rejection
from league.portfolio.interface import PortfolioError
from league.portfolio.money import cents, weight_text
from league.portfolio.rules import RuleSet
from league.portfolio.season import SessionOutcome


def rules_content(rules: RuleSet) -> JsonObject:
    """kind ``rules``: sealed before the rule set governs its first decision."""
    return {"rules": rules.name, "rule_set": rules.as_json()}


def _decision_fields(decision: Decision) -> JsonObject:
    return {
        "seat": decision.seat,
        "session": decision.session.isoformat(),
        "decided_at": decision.at.isoformat(),
        "source": decision.source,
        "model": decision.model,
        "version": decision.version,
        "answer_line": decision.answer_line,
        "actions": {m: {"action": c.action, "entry": c.entry} for m, c in sorted(decision.cells.items())},
        "targets": {s: w for s, w in sorted(decision.targets.items())} if decision.targets is not None else None,
    }


def _plan_fields(plan: Plan) -> JsonObject:
    return {
        "targets": {s: round(w, 8) for s, w in sorted(plan.targets.items())},
        "dips": [{"market": d.market, "symbol": d.symbol, "weight": round(d.weight, 8), "entry": d.entry}
                 for d in plan.dips],
    }


def decision_content(execution: Execution, account: str, league: str) -> JsonObject:
    """kind ``decision``: an accepted decision, its plan, the equity it was sized on, its fill count."""
    return {
        "league": league, "account": account, **_decision_fields(execution.decision),
        "executed_at": execution.executed_at.isoformat(), "equity": str(cents(execution.equity)),
        "plan": _plan_fields(execution.plan), "fills": len(execution.fills),
        "weights_after": {s: round(w, 6) for s, w in sorted(execution.weights_after.items())},
        "notes": [*execution.notes],
    }


def rejection_content(rejection: Rejection) -> JsonObject:
    """kind ``rejection``: the whole decision and why it broke a rule; nothing was traded."""
    return {"league": rejection.league, "account": rejection.account, **_decision_fields(rejection.decision),
            "reason": rejection.reason}


def trade_content(fill: Fill) -> JsonObject:
    """kind ``trade``: one fill, with everything replay.py needs."""
    return {
        "league": fill.league, "account": fill.account, "session": fill.session.isoformat(),
        "time": fill.time.isoformat(), "seq": fill.seq, "symbol": fill.symbol, "market": fill.market,
        "side": fill.side, "qty": str(fill.qty), "price": str(fill.price), "amount": str(fill.amount),
        "fee_rate": str(fill.fee_rate), "fee": str(fill.fee), "cash_after": str(fill.cash_after),
        "position_after": str(fill.position_after), "leg": fill.leg,
    }


def _decimals(values: Mapping[str, Decimal]) -> JsonObject:
    return {k: str(v) for k, v in sorted(values.items())}


def mark_content(mark: Mark) -> JsonObject:
    """kind ``mark``: the close-of-session account with its no-trade shadow."""
    return {
        "league": mark.league, "account": mark.account, "session": mark.session.isoformat(),
        "opened": mark.opened.isoformat(), "capital": str(mark.capital), "bill_rate": str(mark.bill_rate),
        "days": mark.days, "interest": str(mark.interest), "cash": str(mark.cash), "value": str(cents(mark.value)),
        "positions": _decimals(mark.positions), "prices": _decimals(mark.prices),
        "weights": {s: weight_text(w) for s, w in mark.weights.items()},
        "shadow_value": str(cents(mark.shadow_value)), "fees_total": str(mark.fees_total),
        "traded_total": str(mark.traded_total), "peak": str(mark.peak), "stale": [*mark.stale],
    }


def _decimal_map(values: Mapping[str, str]) -> dict[str, Decimal]:
    return {str(k): Decimal(str(v)) for k, v in values.items()}


def mark_of(rec: records.Mark) -> Mark:
    """A sealed ``mark`` line's record back into a :class:`Mark` (published files are rebuilt from the book)."""
    try:
        return Mark(
            league=rec.league, account=rec.account, session=date.fromisoformat(rec.session),
            capital=Decimal(rec.capital), opened=date.fromisoformat(rec.opened), bill_rate=Decimal(rec.bill_rate),
            days=rec.days, interest=Decimal(rec.interest), cash=Decimal(rec.cash), value=Decimal(rec.value),
            positions=_decimal_map(rec.positions), prices=_decimal_map(rec.prices),
            shadow_value=Decimal(rec.shadow_value), fees_total=Decimal(rec.fees_total),
            traded_total=Decimal(rec.traded_total), peak=Decimal(rec.peak), stale=tuple(rec.stale))
    except (ValueError, ArithmeticError) as exc:
        raise PortfolioError(f"sealed mark line is malformed: {exc!r}") from exc


def fill_of(rec: records.Trade) -> Fill:
    """A sealed ``trade`` line's record back into a :class:`Fill`."""
    try:
        return Fill(
            league=rec.league, account=rec.account, session=date.fromisoformat(rec.session),
            time=datetime.fromisoformat(rec.time), seq=rec.seq, symbol=rec.symbol, market=rec.market, side=rec.side,
            qty=Decimal(rec.qty), price=Decimal(rec.price), amount=Decimal(rec.amount), fee=Decimal(rec.fee),
            fee_rate=Decimal(rec.fee_rate), cash_after=Decimal(rec.cash_after),
            position_after=Decimal(rec.position_after), leg=rec.leg)
    except (ValueError, ArithmeticError) as exc:
        raise PortfolioError(f"sealed trade line is malformed: {exc!r}") from exc


def mark_from_content(content: Mapping[str, object]) -> Mark:
    """A sealed ``mark`` line's content back into a :class:`Mark` (a reader of raw lines)."""
    return mark_of(_record(content, "mark", records.Mark))


def fill_from_content(content: Mapping[str, object]) -> Fill:
    """A sealed ``trade`` line's content back into a :class:`Fill` (a reader of raw lines)."""
    return fill_of(_record(content, "trade", records.Trade))


R = TypeVar("R", bound=records.Sealed)


def _record(content: Mapping[str, object], kind: str, model: type[R]) -> R:
    rec = records.record({**content, "kind": kind})
    if not isinstance(rec, model):
        raise PortfolioError(f"sealed {kind} line is incomplete or malformed: {sorted(content)[:20]}")
    return rec


def retry_content(seat: str, session: str, ask_sha256: str, note: str = "asked_again") -> JsonObject:
    """kind ``portfolio_retry``: a re-asked portfolio question, a diagnostic row and never the decision."""
    return {"seat": seat, "session": session, "ask_sha256": ask_sha256, "status": "asked_again", "note": note}


def session_lines(outcome: SessionOutcome) -> list[tuple[str, JsonObject]]:
    """All (kind, content) pairs of one session in sealing order."""
    lines: list[tuple[str, JsonObject]] = []
    lines += [("decision", decision_content(e, e.decision.seat, outcome.league)) for e in outcome.executions]
    lines += [("rejection", rejection_content(r)) for r in outcome.rejections]
    lines += [("trade", trade_content(f)) for e in outcome.executions for f in e.fills]
    lines += [("mark", mark_content(m)) for m in outcome.marks]
    return lines
