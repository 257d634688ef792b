"""The portfolio stage after the close: the session's counted decisions drive both leagues' accounts.

Run after the score job (docs/portfolio.md). Each rule set (``arena-3`` long-only, ``pro-1``
long/short) is sealed once before it governs a decision; then, per session, the decisions,
rejections, trades and marks of :func:`league.portfolio.seal.session_lines` are sealed in order.
Decisions come from the counted answers only (their raw reply, so an explicit ``targets`` block is
honoured). After a restart the seasons are restored from the sealed ``mark``/``trade`` lines — the last
marked session's and a few bisected ones (league.portfolio.restore), every one only when those do not
fit — and a session already marked is never marked again.
"""

from __future__ import annotations

import json
from collections.abc import Mapping, Sequence
from datetime import UTC, date, datetime
from pathlib import Path
from typing import Any
from weakref import WeakKeyDictionary

import numpy as np
import numpy.typing as npt
import structlog

from league import records
from league.answers import extract_json, json_safe_object
from league.book.index import BookIndex
from league.book.lines import RulesLine, typed_line
from league.counting import COUNTED, sealed_time, session_rows
from league.jobs.context import League, MarketData
from league.jobs.seal import read_reply
from league.jsonvalue import Json
from league.portfolio.bills import BillRates
from league.portfolio.decisions import Decision, decision_from_reply
from league.portfolio.engine import PriceBook
from league.portfolio.interface import Bar, SessionBars
from league.portfolio.restore import resume_point
from league.portfolio.rules import rule_set
from league.portfolio.seal import fill_of, mark_of, rules_content, session_lines
from league.portfolio.season import Season
from league.prices.columns import bar_checks, minute_starts, slot_setters

log = structlog.get_logger(__name__)
RULE_SETS = ("arena-3", "pro-1")
#: Each open league's two seasons (the portfolio engine's state), built at first use.
_SEASONS: WeakKeyDictionary[League, dict[str, Season]] = WeakKeyDictionary()
#: The last session each of them has run in memory (restored or marked), by league.
_MARKED: WeakKeyDictionary[League, dict[str, str]] = WeakKeyDictionary()
#: The bar source both seasons of a league read (each session through a fresh PriceBook).
_BARS: WeakKeyDictionary[League, ProviderBars] = WeakKeyDictionary()
#: The kinds of a session's portfolio lines (league.portfolio.seal.session_lines).
SESSION_KINDS = ("decision", "rejection", "trade", "mark")


class ProviderBars:
    """The league's price provider seen as the portfolio engine's ``BarSource`` (one session's bars).

    It holds the league's market data, not the league: the stage keeps its seasons (which hold this) in a
    WeakKeyDictionary keyed by the League, and a value that referred to its own key would keep a closed
    League alive."""

    def __init__(self, market: MarketData) -> None:
        self.market = market
        self.cache: dict[tuple[str, date], Sequence[Bar]] = {}  # the session being marked only (both leagues read it)

    def bars(self, symbol: str, session: date) -> Sequence[Bar]:
        """A session's bars; a provider failure is not remembered (the next stage asks again), so what
        a session's lines say never depends on how long the daemon process has lived."""
        key = (symbol, session)
        if key in self.cache:
            return self.cache[key]
        got = self._fetch(symbol, session)
        if got is None:
            return []
        if any(day != session for _, day in self.cache):  # a later session: the seasons never read this again
            self.cache.clear()
        self.cache[key] = got
        return got

    def _fetch(self, symbol: str, session: date) -> Sequence[Bar] | None:
        cal = self.market.calendar
        start, end = cal.session_open(session), cal.session_close(session)
        try:
            fast = bars_from_arrays(self.market.prices, symbol, start, end)
            if fast is not None:
                return fast
            raw = self.market.prices.bars(symbol, start, end)
        except Exception as exc:  # noqa: BLE001 - no bars: the engine leaves the trade unfilled
            log.warning("portfolio.no_bars", symbol=symbol, session=str(session), error=str(exc))
            return None
        return [engine_bar(b.start, b.open, b.high, b.low, b.close) for b in raw]


def engine_bar(start: datetime, open_: float, high: float, low: float, close: float) -> Bar:
    """The engine's bar of a provider's checked bar, without checking it a second time.

    A :class:`league.prices.interface.Bar` (or a minute passing :func:`_provider_checks`) already holds
    all that ``Bar.__post_init__`` checks (a UTC start; finite, positive prices with low and high
    bracketing open and close), so only the five fields are set: the check cost four times the copy,
    on every minute of every fund in every session."""
    bar = _NEW(Bar)
    _SET_START(bar, start)  # Bar is frozen with slots: its slots' own setters, as its __init__ sets them
    _SET_OPEN(bar, open_)
    _SET_HIGH(bar, high)
    _SET_LOW(bar, low)
    _SET_CLOSE(bar, close)
    return bar


_NEW = object.__new__
_SET_START, _SET_OPEN, _SET_HIGH, _SET_LOW, _SET_CLOSE = slot_setters(Bar, "start", "open", "high", "low", "close")


def bars_from_arrays(prices: object, symbol: str, start: datetime, end: datetime) -> SessionBars | None:
    """The bars ``prices.bars(symbol, start, end)`` gives, as the columns of a replay's minute arrays.

    The replay (:meth:`league.prices.replay.SyntheticMarket.minute_arrays`, reached through the day
    memo) keeps each day's minutes as arrays; its ``bars`` makes a provider Bar of every minute of the
    whole UTC day, which the memo keeps and this stage would copy once more. Here the session's minutes
    stay columns (:class:`league.portfolio.interface.SessionBars`) and the engine makes a Bar of the few it
    reads. ``None`` (take the ordinary path) for a provider without arrays, or when a minute of the UTC day
    would fail the provider Bar's check (the ordinary path then raises as before).
    """
    arrays = getattr(prices, "minute_arrays", None)
    if arrays is None:
        return None
    lo, hi = int(start.timestamp()), int(end.timestamp())
    first = start.astimezone(UTC)
    day = int(datetime(first.year, first.month, first.day, tzinfo=UTC).timestamp())  # the memo's UTC day
    columns: tuple[list[Any], ...] = ([], [], [], [], [])
    for m in arrays(symbol, start, end):
        if not _provider_checks(m, (m.t >= day) & (m.t < day + 86_400)):
            return None
        keep = np.nonzero((m.t >= lo) & (m.t < hi))[0]
        columns[0].extend(minute_starts(m.t[keep].tolist()))
        for column, values in zip(columns[1:], (m.o, m.h, m.low, m.c), strict=True):
            column.extend(values[keep].tolist())
    return SessionBars(*columns)


def _provider_checks(m: Any, day: npt.NDArray[np.bool_]) -> bool:
    """Every minute of the UTC day passes :class:`league.prices.interface.Bar`'s check (NaN fails it)."""
    o, h, low, c, v = (x[day] for x in (m.o, m.h, m.low, m.c, m.v))
    return bar_checks(o, h, low, c, v)


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
    closes = lg.market.prices.daily_closes(symbol, start, end)
    points = {d.isoformat(): f"{c:.3f}" for d, c in closes}
    if points:  # written whole or not at all (a temporary name, then a rename)
        path = lg.data_dir / lg.config.settings.portfolio.bill_rates
        tmp = path.with_name(path.name + ".tmp")
        tmp.write_text(json.dumps(points, indent=0))
        tmp.replace(path)
    return len(points)


def _seasons(lg: League, before: str) -> dict[str, Season]:
    """Both leagues' seasons in memory, restored the first time a league needs them from the lines
    sealed for sessions before ``before`` (the session being marked may be half-sealed: a daemon killed
    in the middle of its lines; mark_session finishes it)."""
    if lg not in _SEASONS:
        bars, bills = ProviderBars(lg.market), bill_rates(lg)
        seasons = {name: Season(rule_set(name), bars, bills, seed=lg.config.settings.prices.seed)
                   for name in RULE_SETS}
        _MARKED[lg] = _restore(lg.books.index, seasons, before)
        _SEASONS[lg] = seasons
        _BARS[lg] = bars
    return dict(_SEASONS[lg])


def _restore(index: BookIndex, seasons: dict[str, Any], before: str) -> dict[str, str]:
    """Restore each season from its lines of sessions before ``before``; the last session restored, by league.

    From the last marked session and a few bisected ones (league.portfolio.restore), so a fresh process's
    score job does not read the whole season; from every mark and trade when those lines do not fit."""
    sessions = [s for s in index.sessions("mark") if s < before]

    def read(kind: str, session: str) -> list[records.Sealed]:
        return index.of_kind(kind, session)

    last: dict[str, str] = {}
    for name, season in seasons.items():
        point = resume_point(name, sessions, read)
        if point is None:
            if sessions:
                log.warning("portfolio.restore_full", league=name, sessions=len(sessions))
            got = _restore_full(index, name, season, before)
            if got:
                last[name] = got
            continue
        season.resume(point.marks, point.fills, point.sessions)
        last[name] = sessions[-1]
    return last


def _restore_full(index: BookIndex, name: str, season: Season, before: str) -> str | None:
    """The season from every one of its marks and trades before ``before`` (reads the whole history)."""
    mine = [m for m in index.of(records.Mark) if m.league == name and m.session < before]
    fills = [fill_of(t) for t in index.of(records.Trade) if t.league == name and t.session < before]
    if not mine:
        return None
    season.restore([mark_of(m) for m in mine], fills)
    return max(m.session for m in mine)


def _seal_rules(lg: League) -> None:
    sealed = {x.rules for x in lg.books.index.of(records.Rules)}
    for name in RULE_SETS:
        if name not in sealed:
            lg.books.seal(RulesLine.from_content(rules_content(rule_set(name))))


def counted_decisions(lg: League, session: str) -> list[Decision]:
    """One decision per seat: its counted (first well-formed, pre-close) answer of the session."""

    rows, _ = session_rows(lg.view, session, "1d")
    lines = {n for r in rows if r.get("run_role") == "counted" and r.get("status") in ("counted", "counted_50")
             and (n := r.get("line")) is not None}
    out = []
    for n in sorted(lines):
        a = lg.books.index.line(n)
        assert isinstance(a, records.Answer), f"counted answer line {n} is not in the book"
        out.append(decision_from_reply(_reply_object(lg, a), seat=a.seat, session=date.fromisoformat(session),
                                       at=sealed_time(a), model=a.model, version=a.version, answer_line=n))
    return out


def _reply_object(lg: League, answer: records.Answer) -> dict[str, Any]:
    """The seat's own JSON object (with any ``targets`` block); the sealed cells when the raw is gone."""
    return reply_object(lg.data_dir, answer.own_sha256, answer.raw_encoding, answer.items)


def reply_object(data_dir: Path, own_sha256: str, raw_encoding: str,
                 items: Mapping[str, Mapping[str, Mapping[str, Json]]]) -> dict[str, Json]:
    """A sealed reply's own JSON object, read back from its stored raw; ``{"forecast": items}`` (the sealed
    cells) when the raw is gone. Shared with the arms' accounts (league.jobs.arm_accounts)."""
    raw = read_reply(data_dir, own_sha256, raw_encoding)
    obj = extract_json(raw) if raw is not None else None
    if obj is not None:
        safe = json_safe_object(obj)  # whatever the seat wrote, the portfolio lines can carry it
        return safe
    return {"forecast": {m: {h: dict(cell) for h, cell in cells.items()} for m, cells in items.items()}}


def mark_session(lg: League, session: str) -> int:
    """Seal the session's portfolio lines for both leagues; returns how many lines were sealed.

    Idempotent at every line: a league's lines of a session are computed from the state before it, and
    only those not yet sealed (after the sealed prefix a killed daemon left) are sealed."""
    if not lg.stages.portfolio:
        return 0
    if not any(r.role == COUNTED for r in lg.books.index.runs(session)):
        return 0
    _seal_rules(lg)
    decisions = counted_decisions(lg, session)
    sealed = 0
    for name, season in _seasons(lg, session).items():
        if _MARKED[lg].get(name, "") >= session:
            continue
        # A season reads only the session it runs: a fresh PriceBook lets the last session's bars go
        # (the engine's book would keep every session's, ~200 bytes a fund-minute, all season).
        season.prices = PriceBook(_BARS[lg])
        outcome = season.run_session(date.fromisoformat(session), decisions)
        _MARKED[lg][name] = session
        lines = session_lines(outcome)
        done = [x.kind for kind in SESSION_KINDS for x in lg.books.index.of_kind(kind, session)
                if getattr(x, "league", None) == name]
        if done and sorted(done) != sorted(kind for kind, _ in lines[: len(done)]):
            log.error("portfolio.sealed_prefix_differs", league=name, session=session, sealed=len(done))
        # One fsync for the league's lines of the session (Book.append_all): computed lines, not replies.
        sealed += len(lg.books.seal_all([typed_line({"kind": kind, "league": name, "session": session, **content})
                                   for kind, content in lines[len(done):]]))
    return sealed
