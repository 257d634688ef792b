"""Scoring at the close (protocol.md §5.5–5.6): reference prices taken only now, after the seals.

:func:`session_rows` decides, for one session and horizon, every expected seat × market cell: which
answer counts (the first well-formed answer of each seat in the counted runs), which event it is
about (the common 09:30 event, its own ``late_ref`` event when sealed after the open, the seal-time
event for bitcoin, nothing when sealed after the close) and its row status. :func:`job_score`
resolves those events with prices and seals a ``score`` line (the day) or ``score_h`` lines (longer
horizons whose windows close today). A missing price leaves the event unresolved, never guessed.
"""

from __future__ import annotations

from collections.abc import Mapping
from dataclasses import dataclass, field
from datetime import UTC, date, datetime, timedelta
from typing import Any

import structlog

from league.clock import iso_seconds, parse_iso
from league.config import MarketSpec
from league.contracts import EventContract
from league.day import COUNTED, sealed_time
from league.markettime import event_contract
from league.season import League

log = structlog.get_logger(__name__)
LONG_HORIZONS = ("1w", "1m", "6m")


@dataclass
class Event:
    market: str
    horizon: str
    contract: EventContract
    late_ref: bool = False
    seal_based: bool = False
    result: dict[str, Any] = field(default_factory=dict)

    def as_json(self) -> dict[str, Any]:
        return {"market": self.market, "horizon": self.horizon, "event_id": self.contract.event_id,
                "event_id_v2": self.contract.event_id_v2, "contract": self.contract.as_dict(),
                "late_ref": self.late_ref, **self.result}


# ------------------------------------------------------------------------------ rows
def _role_of(run: Mapping[str, Any]) -> str:
    return str(run.get("role", COUNTED))


def _counted_choice(answers: list[dict[str, Any]]) -> dict[str, dict[str, Any]]:
    """The first well-formed answer of each seat; failing that, its first refused one."""
    chosen: dict[str, dict[str, Any]] = {}
    for a in answers:
        current = chosen.get(a["seat"])
        if current is None or (current["status"] != "answered" and a["status"] == "answered"):
            chosen[a["seat"]] = a
    return chosen


def session_rows(lg: Any, session: str, horizon: str) -> tuple[list[dict[str, Any]], dict[str, Event]]:
    """Every expected cell of a session at one horizon, with the event each scored cell belongs to."""
    runs = lg.index.runs(session)
    roles = {r["run_id"]: _role_of(r) for r in runs}
    answers = sorted(lg.index.answers(set(roles)), key=lambda a: a["n"])
    counted = [a for a in answers if roles[a["run_id"]] == COUNTED]
    chosen = _counted_choice(counted)
    events: dict[str, Event] = {}
    rows: list[dict[str, Any]] = []
    for a in answers:
        role = roles[a["run_id"]] if roles[a["run_id"]] != COUNTED else (
            "counted" if chosen.get(a["seat"]) is a else "asked_again")
        rows += _answer_rows(lg, session, horizon, a, role, events)
    expected = _expected_seats(lg, runs)
    for seat in sorted(expected - set(chosen)):
        rows += _missing_rows(lg, session, horizon, seat, runs)
    return rows, events


def _expected_seats(lg: Any, runs: list[dict[str, Any]]) -> set[str]:
    return {s for r in runs if _role_of(r) == COUNTED for s in r.get("roster", [])}


def _market_specs(lg: Any, horizon: str) -> list[MarketSpec]:
    return [m for m in lg.config.markets.markets if horizon in m.horizons]


def _answer_rows(lg: Any, session: str, horizon: str, a: dict[str, Any], role: str,
                 events: dict[str, Event]) -> list[dict[str, Any]]:
    out = []
    for m in _market_specs(lg, horizon):
        cell = a.get("items", {}).get(m.code, {}).get(horizon)
        row = _base_row(session, horizon, a["seat"], m.code, a, role)
        if a["status"] != "answered":
            row.update(status="refused_shape" if role == "counted" else "not_counted",
                       why_missing=a.get("parse_failure", ""))
            out.append(row)
            continue
        row.update(_cell_fields(cell))
        ev, why = _event_for(lg, session, horizon, m, a)
        if ev is not None:
            events.setdefault(ev.contract.event_id_v2, ev)
            row.update(event_id=ev.contract.event_id, event_id_v2=ev.contract.event_id_v2, late_ref=ev.late_ref)
        row["status"] = _row_status(role, cell, ev, why)
        row["why_missing"] = why if ev is None else row.get("why_missing", "")
        out.append(row)
    return out


def _row_status(role: str, cell: Mapping[str, Any] | None, ev: Event | None, why: str) -> str:
    if role != "counted" or ev is None:
        return "not_counted"
    if cell is None or cell.get("prob_up") is None:
        return "counted_50"
    return "counted"


def _cell_fields(cell: Mapping[str, Any] | None) -> dict[str, Any]:
    if cell is None:
        return {"prob_up": None, "cell_status": "", "why_missing": "empty cell"}
    return {"prob_up": cell.get("prob_up"), "cell_status": cell.get("cell_status", ""),
            "action": cell.get("action", ""), "action_word": cell.get("action_word", ""),
            "target": cell.get("target"), "invalidation": cell.get("invalidation"),
            "source_urls": cell.get("source_urls", []), "source_domains": cell.get("source_domains", []),
            "why_missing": cell.get("problem", "")}


def _base_row(session: str, horizon: str, seat: str, market: str, a: Mapping[str, Any] | None,
              role: str) -> dict[str, Any]:
    a = a or {}
    return {"session": session, "horizon": horizon, "seat": seat, "market": market, "run_id": a.get("run_id", ""),
            "line": a.get("n"), "model": a.get("model", ""), "mode": a.get("mode", ""),
            "version": a.get("version", ""), "attempt": a.get("attempt"), "run_role": role,
            "sealed_at": iso_seconds(sealed_time(a)) if a else ""}


def _missing_rows(lg: Any, session: str, horizon: str, seat: str,
                  runs: list[dict[str, Any]]) -> list[dict[str, Any]]:
    why = _why_silent(lg, session, seat)
    out = []
    for m in _market_specs(lg, horizon):
        row = _base_row(session, horizon, seat, m.code, None, "counted")
        row.update(status="no_answer", why_missing=why, run_id=runs[0]["run_id"] if runs else "")
        out.append(row)
    return out


def _why_silent(lg: Any, session: str, seat: str) -> str:
    notes = [x for k in ("incident", "silence") for x in lg.index.of_kind(k, session) if x.get("seat") == seat]
    if not notes:
        return "no reply by the close"
    return "; ".join(f"attempt {x.get('attempt')}: {x.get('failure')}" for x in notes)


# ---------------------------------------------------------------------------- events
def sealed_contract(lg: Any, run_id: str, market: str, horizon: str) -> EventContract | None:
    """The common event fixed in the run line before the ask (protocol.md §2), if it names one."""
    run = next((r for r in lg.index.of_kind("run") if r.get("run_id") == run_id), None)
    ev = ((run or {}).get("events") or {}).get(market, {}).get(horizon)
    if not isinstance(ev, dict):
        return None
    return EventContract.from_mapping(ev)


def _event_for(lg: Any, session: str, horizon: str, m: MarketSpec,
               a: Mapping[str, Any]) -> tuple[Event | None, str]:
    day = date.fromisoformat(session)
    sealed = sealed_time(a)
    try:
        if not m.daily:
            return Event(m.code, horizon, event_contract(lg.calendar, m, day, horizon, sealed), seal_based=True), ""
        common = sealed_contract(lg, a["run_id"], m.code, horizon) or event_contract(lg.calendar, m, day, horizon, None)
        if sealed <= parse_iso(common.reference_at):
            return Event(m.code, horizon, common), ""
        day_end = parse_iso((sealed_contract(lg, a["run_id"], m.code, "1d")
                             or event_contract(lg.calendar, m, day, "1d", None)).end_at)
        if sealed >= min(day_end, lg.calendar.session_close(day)):
            return None, "sealed after the close"
        own = EventContract.make(asset=m.code, horizon=horizon, reference_at=_ceil_second(sealed),
                                 end_at=parse_iso(common.end_at), reference_rule=common.reference_rule,
                                 price_provider=common.price_provider, price_symbol=common.price_symbol)
        return Event(m.code, horizon, own, late_ref=True), ""
    except Exception as exc:  # noqa: BLE001 - an event we cannot place is reported, not scored
        return None, f"no event: {exc}"


def _ceil_second(t: datetime) -> datetime:
    return t if t.microsecond == 0 else t.replace(microsecond=0) + timedelta(seconds=1)


# ------------------------------------------------------------------------------ prices
class _Bars:
    """Bars fetched once per job, a whole UTC day per symbol at a time, then sliced.

    A provider failure is remembered and reported per window; the cache lives only as long as
    the job, so a day fetched while it was still trading is never reused as if complete.
    """

    def __init__(self, lg: League) -> None:
        self.lg = lg
        self.days: dict[tuple[str, date], list[Any] | None] = {}
        self.bands: dict[tuple[str, date], Any] = {}
        self.errors: list[str] = []

    def band(self, symbol: str, day: date, compute: Any) -> Any:
        """The draw band of a symbol for references on ``day`` (the same four sessions): computed once."""
        key = (symbol, day)
        if key not in self.bands:
            self.bands[key] = compute()
        return self.bands[key]

    def _day(self, symbol: str, day: date) -> list[Any] | None:
        key = (symbol, day)
        if key not in self.days:
            start = datetime(day.year, day.month, day.day, tzinfo=UTC)
            try:
                self.days[key] = list(self.lg.prices.bars(symbol, start, start + timedelta(days=1)))
            except Exception as exc:  # noqa: BLE001 - leaves the cell unresolved, reported in the line
                self.errors.append(f"{symbol} {day.isoformat()}: {exc}")
                log.warning("prices.unavailable", symbol=symbol, day=day.isoformat(), error=str(exc))
                self.days[key] = None
        return self.days[key]

    def get(self, symbol: str, start: datetime, end: datetime) -> list[Any] | None:
        """Bars with start in [start, end); ``None`` when any day of the window could not be read."""
        out: list[Any] = []
        day = start.astimezone(UTC).date()
        while datetime(day.year, day.month, day.day, tzinfo=UTC) < end:
            got = self._day(symbol, day)
            if got is None:
                return None
            out.extend(b for b in got if start <= b.start < end)
            day += timedelta(days=1)
        return out


def event_outcome(lg: Any, market: str, horizon: str, contract: EventContract,
                  bars: _Bars | None = None) -> bool | None:
    """Resolve one common event with the league's own rules (``None`` when a price is missing)."""
    probe = Event(market, horizon, contract)
    resolve_event(lg, probe, bars or _Bars(lg))
    up = probe.result.get("up")
    return None if up is None else bool(up)


def sealed_references(lg: Any, session: str) -> dict[tuple[str, str], dict[str, Any]]:
    """References already sealed in the session's ``score`` line, by (market, reference_at).

    A longer horizon shares its reference bar with the day's event; taking it from the sealed line
    (not from the provider months later, when 1-minute history is gone) keeps one reference per bar.
    """
    out: dict[tuple[str, str], dict[str, Any]] = {}
    for line in lg.index.of_kind("score", session):
        for m in line.get("markets", []):
            if m.get("reference") is not None:
                out[(m["market"], m["contract"]["reference_at"])] = {**m, "line": line["n"]}
    return out


def _known_reference(ev: Event, known: dict[tuple[str, str], dict[str, Any]] | None) -> Any:
    from league.prices.reference import PricePoint

    hit = (known or {}).get((ev.market, ev.contract.reference_at))
    if hit is None or hit.get("reference_bar") is None:
        return None
    field = "close" if ev.seal_based else "open"
    return PricePoint(float(hit["reference"]), parse_iso(hit["reference_bar"]), field)  # type: ignore[arg-type]


def resolve_event(lg: League, ev: Event, bars: _Bars,
                  known: dict[tuple[str, str], dict[str, Any]] | None = None) -> None:
    from league.prices.reference import daily_reference, draw_band, resolve, seal_reference, terminal_price

    symbol = ev.contract.price_symbol
    ref_at, end_at = parse_iso(ev.contract.reference_at), parse_iso(ev.contract.end_at)
    last_start = end_at - timedelta(minutes=1)  # the last bar that has ENDED by end_at
    end_bars = bars.get(symbol, end_at - timedelta(hours=8), end_at)
    reference = _known_reference(ev, known)
    if reference is None:
        ref_bars = bars.get(symbol, ref_at, ref_at + timedelta(hours=8))
        pick = seal_reference if ev.seal_based else daily_reference
        reference = pick(ref_bars, ref_at) if ref_bars else None
    terminal = terminal_price(end_bars, last_start, since=end_at - timedelta(hours=8)) if end_bars else None
    if reference is not None and terminal is not None and reference.bar_start >= terminal.bar_start:
        reference = terminal = None  # no minute between the two prices: the outcome would be certain
    k = lg.config.settings.methodology.draw_band_k
    from league.markettime import ET

    sealed = (known or {}).get((ev.market, ev.contract.reference_at), {})
    band: Any = sealed.get("band_pct")
    if band is None:
        band = bars.band(symbol, ref_at.astimezone(ET).date(),
                         lambda: draw_band(_band_sessions(lg, symbol, ref_at, bars), k))
    res = resolve(reference, terminal, band)
    ev.result = {
        "reference": reference.price if reference else None,
        "reference_bar": iso_seconds(reference.bar_start) if reference else None,
        "close": terminal.price if terminal else None,
        "close_bar": iso_seconds(terminal.bar_start) if terminal else None,
        "change_pct": res.change_pct, "up": res.up, "draw": res.draw,
        "band_pct": band if isinstance(band, float | int) or band is None else band.pct,
        "status": "resolved" if res.resolved else "unresolved",
    }


def _band_sessions(lg: Any, symbol: str, ref_at: datetime, bars: _Bars) -> list[list[Any]]:
    """The regular-session bars of the four sessions before the reference's day (scoring.md §1)."""
    from league.markettime import ET

    day = ref_at.astimezone(ET).date()
    sessions = lg.calendar.sessions_before(lg.calendar.session_on_or_after(day), 4)
    return [bars.get(symbol, lg.calendar.session_open(s), lg.calendar.session_close(s)) or [] for s in sessions]



# ------------------------------------------------------------------------------- jobs
def _scored(lg: League, kind: str, session: str, horizon: str) -> bool:
    return any(x.get("horizon") == horizon for x in lg.index.of_kind(kind, session))


def score_line(lg: League, session: str, horizon: str) -> dict[str, Any]:
    rows, events = session_rows(lg, session, horizon)
    bars = _Bars(lg)
    known = sealed_references(lg, session) if horizon != "1d" else None
    for ev in events.values():
        resolve_event(lg, ev, bars, known)
    for row in rows:
        _outcome(row, events.get(row.get("event_id_v2", "")))
    return {"session": session, "horizon": horizon, "runs": sorted({r["run_id"] for r in lg.index.runs(session)}),
            "markets": [ev.as_json() for ev in events.values()], "seats": rows,
            "of": sorted({r["line"] for r in rows if r.get("line")}),
            "noise": {ev.market: ev.result.get("band_pct") for ev in events.values() if not ev.late_ref},
            "price_errors": bars.errors}


def _outcome(row: dict[str, Any], ev: Event | None) -> None:
    up = ev.result.get("up") if ev else None
    row["outcome"] = None if up is None else int(up)
    p = row.get("prob_up")
    if row["status"] == "counted" and p is not None and up is not None:
        row["brier"] = (float(p) / 100.0 - int(up)) ** 2
    else:
        row["brier"] = None


def job_score(lg: League, session: str) -> list[int]:
    """Seal the day's ``score`` line and every ``score_h`` whose window has closed.

    Nothing is scored before every event of that horizon has ended by the clock, whatever session
    a by-hand run names: a sealed score is never redone, so it must not be early.
    """
    sealed: list[int] = []
    if lg.index.runs(session) and not _scored(lg, "score", session, "1d"):
        if horizon_ended(lg, date.fromisoformat(session), "1d"):
            sealed.append(lg.append("score", score_line(lg, session, "1d")).n)
        else:
            log.warning("score.not_yet", session=session, now=iso_seconds(lg.clock.now()))
    today = min(date.fromisoformat(session), lg.clock.now().date())
    for earlier, horizon in _windows_closing(lg, today):
        if horizon_ended(lg, date.fromisoformat(earlier), horizon):
            sealed.append(lg.append("score_h", score_line(lg, earlier, horizon)).n)
    return sealed


def horizon_ended(lg: Any, session: date, horizon: str) -> bool:
    """True once the clock is past the end of every market's event at this horizon (plus one minute,
    so the last bar has closed)."""
    ends = []
    for m in _market_specs(lg, horizon):
        try:
            day = (lg.calendar.horizon_end_session(session, horizon) if m.daily
                   else lg.calendar.horizon_end_day(session, horizon))
            ends.append(lg.calendar.capped_end(day, m.end_time))
        except Exception:  # noqa: BLE001 - beyond the calendar: not ended
            return False
    return bool(ends) and lg.clock.now() >= max(ends) + timedelta(minutes=1)


def _windows_closing(lg: League, today: date) -> list[tuple[str, str]]:
    """(session, horizon) pairs whose every event has ended by today's close and are not yet scored."""
    done = {(x["session"], x["horizon"]) for x in lg.index.of_kind("score_h")}
    due = []
    for s in sorted({r["session"] for r in lg.index.of_kind("run")}):
        for h in LONG_HORIZONS:
            if (s, h) not in done and _window_end(lg, date.fromisoformat(s), h) <= today:
                due.append((s, h))
    return due


def _window_end(lg: League, session: date, horizon: str) -> date:
    """The last end day of a horizon's events: daily markets end on a session, 24x7 ones on a day."""
    kinds = {m.daily for m in _market_specs(lg, horizon)}
    try:
        ends = [lg.calendar.horizon_end_session(session, horizon) if daily
                else lg.calendar.horizon_end_day(session, horizon) for daily in kinds]
    except Exception:  # noqa: BLE001 - beyond the calendar: not due yet
        return date.max
    return max(ends) if ends else date.max
