"""The portfolio stage after the close: the session's counted decisions drive both leagues' accounts.

Run after the score job (docs/portfolio.md). Each rule set (``arena-3`` long-only, ``pro-1``
long/short) is sealed once before it governs a decision; then, per session, the decisions,
rejections, trades and marks of :func:`league.portfolio.seal.session_lines` are sealed in order.
Decisions come from the counted answers only (their raw reply, so an explicit ``targets`` block is
honoured). After a restart the seasons are restored from the sealed ``mark``/``trade`` lines, and a
session already marked is never marked again.
"""

from __future__ import annotations

from collections.abc import Sequence
from datetime import UTC, date
from typing import Any
from weakref import WeakKeyDictionary

import structlog

from league.answers import extract_json, json_safe
from league.book.lines import RulesLine, typed_line
from league.counting import COUNTED, sealed_time, session_rows
from league.jobs.context import League
from league.jobs.seal import read_reply
from league.portfolio.bills import BillRates
from league.portfolio.decisions import Decision, decision_from_reply
from league.portfolio.interface import Bar
from league.portfolio.rules import rule_set
from league.portfolio.season import Season

log = structlog.get_logger(__name__)
RULE_SETS = ("arena-3", "pro-1")
#: Each open league's two seasons (the portfolio engine's state), built at first use.
_SEASONS: WeakKeyDictionary[League, dict[str, Season]] = WeakKeyDictionary()


class ProviderBars:
    """The league's price provider seen as the portfolio engine's ``BarSource`` (one session's bars)."""

    def __init__(self, lg: League) -> None:
        self.lg = lg
        self.cache: dict[tuple[str, date], list[Bar]] = {}

    def bars(self, symbol: str, session: date) -> Sequence[Bar]:
        key = (symbol, session)
        if key not in self.cache:
            self.cache[key] = self._fetch(symbol, session)
        return self.cache[key]

    def _fetch(self, symbol: str, session: date) -> list[Bar]:
        cal = self.lg.calendar
        try:
            raw = self.lg.prices.bars(symbol, cal.session_open(session), cal.session_close(session))
        except Exception as exc:  # noqa: BLE001 - no bars: the engine leaves the trade unfilled
            log.warning("portfolio.no_bars", symbol=symbol, session=str(session), error=str(exc))
            return []
        return [Bar(b.start.astimezone(UTC), b.open, b.high, b.low, b.close) for b in raw]


def bill_rates(lg: League) -> BillRates:
    """The configured 13-week bill series (recorded file in DATA), else the configured constant."""
    settings = lg.config.settings.portfolio
    path = lg.data_dir / settings.bill_rates
    if path.is_file():
        return BillRates.from_json(path.read_text(encoding="utf-8"), source=str(settings.bill_rates))
    log.warning("portfolio.constant_bill_rate", rate=settings.bill_rate_default, missing=str(path))
    return BillRates.constant(settings.bill_rate_default)


def record_bill_rates(lg: League, start: date, end: date, symbol: str = "^IRX") -> int:
    """Record the provider's daily 13-week bill closes into DATA (the demo replays the synthetic ^IRX)."""
    import json

    closes = lg.prices.daily_closes(symbol, start, end)
    points = {d.isoformat(): f"{c:.3f}" for d, c in closes}
    if points:
        (lg.data_dir / lg.config.settings.portfolio.bill_rates).write_text(json.dumps(points, indent=0))
    return len(points)


def _seasons(lg: League) -> dict[str, Season]:
    """Both leagues' seasons in memory, restored from the sealed lines the first time a league needs them."""
    if lg not in _SEASONS:
        bars, bills = ProviderBars(lg), bill_rates(lg)
        seasons = {name: Season(rule_set(name), bars, bills, seed=lg.config.settings.prices.seed)
                   for name in RULE_SETS}
        _restore(lg, seasons)
        _SEASONS[lg] = seasons
    return dict(_SEASONS[lg])


def _restore(lg: League, seasons: dict[str, Any]) -> None:
    from league.portfolio.seal import fill_from_content, mark_from_content

    for name, season in seasons.items():
        marks = [mark_from_content(m) for m in lg.index.of_kind("mark") if m.get("league") == name]
        fills = [fill_from_content(t) for t in lg.index.of_kind("trade") if t.get("league") == name]
        if marks:
            season.restore(marks, fills)


def _seal_rules(lg: League) -> None:
    from league.portfolio.seal import rules_content

    sealed = {x.get("rules") for x in lg.index.of_kind("rules")}
    for name in RULE_SETS:
        if name not in sealed:
            lg.seal(RulesLine.from_content(rules_content(rule_set(name))))


def counted_decisions(lg: League, session: str) -> list[Decision]:
    """One decision per seat: its counted (first well-formed, pre-close) answer of the session."""

    rows, _ = session_rows(lg, session, "1d")
    lines = {r["line"] for r in rows if r["run_role"] == "counted" and r["status"] in ("counted", "counted_50")}
    out = []
    for n in sorted(lines):
        a = lg.index.line(n)
        assert a is not None, f"counted answer line {n} is not in the book"
        out.append(decision_from_reply(_reply_object(lg, a), seat=a["seat"], session=date.fromisoformat(session),
                                       at=sealed_time(a), model=a.get("model"), version=a.get("version"),
                                       answer_line=n))
    return out


def _reply_object(lg: League, answer: dict[str, Any]) -> dict[str, Any]:
    """The seat's own JSON object (with any ``targets`` block); the sealed cells when the raw is gone."""
    raw = read_reply(lg.data_dir, answer)
    obj = extract_json(raw) if raw is not None else None
    if obj is not None:
        safe: dict[str, Any] = json_safe(obj)  # whatever the seat wrote, the portfolio lines can carry it
        return safe
    return {"forecast": answer.get("items", {})}


def mark_session(lg: League, session: str) -> int:
    """Seal the session's portfolio lines for both leagues; returns how many lines were sealed."""
    if not lg.stages.portfolio or lg.index.of_kind("mark", session):
        return 0
    if not any(r.get("role") == COUNTED for r in lg.index.runs(session)):
        return 0
    _seal_rules(lg)
    decisions = counted_decisions(lg, session)
    sealed = 0
    for name, season in _seasons(lg).items():
        outcome = season.run_session(date.fromisoformat(session), decisions)
        from league.portfolio.seal import session_lines

        for kind, content in session_lines(outcome):
            lg.seal(typed_line({"kind": kind, "league": name, "session": session, **content}))
            sealed += 1
    return sealed
