"""The score job at the close (docs/protocol.md §5.5–5.6): reference prices taken only now, after the seals.

The counting rule (:mod:`league.counting`) says which cell counts for which event; this job resolves
those events with prices and seals a ``score`` line (the day) or ``score_h`` lines (longer horizons
whose windows close today). A missing price leaves the event unresolved, never guessed.
"""

from __future__ import annotations

import bisect
import operator
from collections.abc import Callable, Collection, Sequence
from datetime import UTC, date, datetime, timedelta
from typing import Literal
from weakref import WeakKeyDictionary

import structlog

from league import records
from league.book.lines import ScoreLine
from league.calendar import ET, Calendar
from league.clock import iso_seconds, parse_iso
from league.config import Config, MarketSpec
from league.contracts import EventContract
from league.counting import LONG_HORIZONS, Event, Row, Sealed, market_specs, session_rows
from league.jobs.context import League, Reading
from league.jobs.window import DRAW_BAND_SESSIONS, cutoff
from league.jsonvalue import flag, text
from league.prices.columns import BarColumns
from league.prices.interface import Bar
from league.prices.reference import (
    DrawBand,
    PricePoint,
    daily_reference,
    draw_band,
    resolve,
    seal_reference,
    terminal_price,
)

log = structlog.get_logger(__name__)


# ------------------------------------------------------------------------------ prices
class Bars:
    """Bars fetched once per job, a whole UTC day per symbol at a time, then sliced.

    A provider failure is remembered and reported per window; the cache lives only as long as
    the job, so a day fetched while it was still trading is never reused as if complete.
    """

    def __init__(self, lg: Reading) -> None:
        self.lg = lg
        self.days: dict[tuple[str, date], Sequence[Bar] | None] = {}
        self.starts: dict[tuple[str, date], list[datetime] | None] = {}  # a sorted day's bar starts, else None
        self.bands: dict[tuple[str, date], DrawBand | None] = {}
        self.errors: list[str] = []

    def band(self, symbol: str, day: date, compute: Callable[[], DrawBand | None]) -> DrawBand | None:
        """The draw band of a symbol for references on ``day`` (the same four sessions): computed once."""
        key = (symbol, day)
        if key not in self.bands:
            self.bands[key] = compute()
        return self.bands[key]

    def _day(self, symbol: str, day: date) -> Sequence[Bar] | None:
        key = (symbol, day)
        if key not in self.days:
            try:
                self.days[key] = self._fetch(symbol, day)
            except Exception as exc:  # noqa: BLE001 - leaves the cell unresolved, reported in the line
                self.errors.append(f"{symbol} {day.isoformat()}: {exc}")
                log.warning("prices.unavailable", symbol=symbol, day=day.isoformat(), error=str(exc))
                self.days[key] = None
            got = self.days[key]
            if isinstance(got, BarColumns):  # in time order by construction
                self.starts[key] = got.starts_all
            else:
                starts = [b.start for b in got] if got else []
                self.starts[key] = starts if all(map(operator.le, starts, starts[1:])) else None
        return self.days[key]

    def _fetch(self, symbol: str, day: date) -> Sequence[Bar]:
        """The UTC day's bars: as the day memo keeps them (league.prices.memo, the replay's columns), else a
        copy of the provider's list."""
        kept = getattr(self.lg.prices, "day_bars", None)
        if kept is not None:
            got: Sequence[Bar] = kept(symbol, day)
            return got
        start = datetime(day.year, day.month, day.day, tzinfo=UTC)
        return list(self.lg.prices.bars(symbol, start, start + timedelta(days=1)))

    def get(self, symbol: str, start: datetime, end: datetime) -> Sequence[Bar] | None:
        """Bars with start in [start, end); ``None`` when any day of the window could not be read. A window
        inside one day kept as columns is a view of them (no bar is made until one is read)."""
        day = start.astimezone(UTC).date()
        if datetime(day.year, day.month, day.day, tzinfo=UTC) + timedelta(days=1) >= end:
            got = self._day(symbol, day)
            if isinstance(got, BarColumns):
                column = got.starts_all
                return got[bisect.bisect_left(column, start):bisect.bisect_left(column, end)]
        out: list[Bar] = []
        while datetime(day.year, day.month, day.day, tzinfo=UTC) < end:
            got = self._day(symbol, day)
            if got is None:
                return None
            starts = self.starts[(symbol, day)]
            if starts is not None:  # sorted: the window is one slice (the same bars the filter below keeps)
                out.extend(got[bisect.bisect_left(starts, start):bisect.bisect_left(starts, end)])
            else:
                out.extend(b for b in got if start <= b.start < end)
            day += timedelta(days=1)
        return out


def event_outcome(lg: Reading, market: str, horizon: str, contract: EventContract,
                  bars: Bars | None = None) -> bool | None:
    """Resolve one common event with the league's own rules (``None`` when a price is missing)."""
    spec = lg.config.markets.by_code().get(market)
    probe = Event(market, horizon, contract, seal_based=spec is not None and not spec.daily)
    reference, terminal = event_prices(probe, bars or Bars(lg))
    up = resolve(reference, terminal, None).up  # the direction needs no draw band
    return None if up is None else bool(up)


#: The sealed events of a session's ``score`` line that carry a reference, by (market, reference_at).
Known = dict[tuple[str, str], records.ScoreEvent]


def sealed_references(lg: Sealed, session: str) -> Known:
    """References already sealed in the session's ``score`` line, by (market, reference_at).

    A longer horizon shares its reference bar with the day's event; taking it from the sealed line
    (not from the provider months later, when 1-minute history is gone) keeps one reference per bar.
    """
    out: Known = {}
    for line in lg.index.of_kind("score", session):
        for m in line.markets if isinstance(line, records.Score) else ():
            if m.reference is not None:
                out[(m.market, text(m.contract.get("reference_at")))] = m
    return out


def _known_reference(ev: Event, known: Known | None) -> PricePoint | None:
    hit = (known or {}).get((ev.market, ev.contract.reference_at))
    if hit is None or hit.reference_bar is None or hit.reference is None:
        return None
    field: Literal["open", "close"] = "close" if ev.seal_based else "open"
    return PricePoint(float(hit.reference), parse_iso(hit.reference_bar), field)


def event_prices(ev: Event, bars: Bars, known: Known | None = None) -> tuple[
        PricePoint | None, PricePoint | None]:
    """The event's reference and terminal prices (both ``None`` when no minute lies between them)."""
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
        return None, None  # no minute between the two prices: the outcome would be certain
    return reference, terminal


def resolve_event(lg: Reading, ev: Event, bars: Bars, known: Known | None = None) -> None:
    symbol = ev.contract.price_symbol
    ref_at = parse_iso(ev.contract.reference_at)
    reference, terminal = event_prices(ev, bars, known)
    k = lg.config.settings.methodology.draw_band_k
    sealed = (known or {}).get((ev.market, ev.contract.reference_at))
    band: float | int | DrawBand | None = sealed.band_pct if sealed is not None else None
    if band is None:
        rolls = lg.config.rolls.of(ev.market)
        band = bars.band(symbol, ref_at.astimezone(ET).date(),
                         lambda: draw_band(_band_sessions(lg, symbol, ref_at, bars), k, rolls=rolls))
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


def _band_days(lg: Reading, ref_at: datetime) -> list[date]:
    """The four sessions before the reference's day whose minutes make its draw band (scoring.md §1)."""
    day = ref_at.astimezone(ET).date()
    return lg.calendar.sessions_before(lg.calendar.session_on_or_after(day), DRAW_BAND_SESSIONS)


def _band_sessions(lg: Reading, symbol: str, ref_at: datetime, bars: Bars) -> list[Sequence[Bar]]:
    """The regular-session bars of the four sessions before the reference's day."""
    return [bars.get(symbol, lg.calendar.session_open(s), lg.calendar.session_close(s)) or []
            for s in _band_days(lg, ref_at)]


def noise_rolls(lg: Reading, events: Collection[Event]) -> dict[str, list[str]]:
    """Per market: the recorded futures rolls inside its draw band's sessions (the minutes the band left
    out straddle one of these), sealed in the score line as ``noise_rolls``; markets without one are absent."""
    out: dict[str, list[str]] = {}
    for ev in events:
        rolls = lg.config.rolls.of(ev.market)
        if ev.late_ref or not rolls:
            continue
        days = _band_days(lg, parse_iso(ev.contract.reference_at))
        start, end = lg.calendar.session_open(days[0]), lg.calendar.session_close(days[-1])
        inside = [iso_seconds(r) for r in rolls if start < r <= end + timedelta(minutes=1)]
        if inside:
            out[ev.market] = inside
    return out



# ------------------------------------------------------------------------------- jobs
def _scored(lg: Reading, kind: str, session: str, horizon: str) -> bool:
    return any(isinstance(x, records.Score) and x.horizon == horizon for x in lg.index.of_kind(kind, session))


def score_line(lg: Reading, session: str, horizon: str, markets: Collection[str] | None = None) -> ScoreLine:
    """The score of one session at one horizon: the counting rule's rows, each event resolved with
    prices now, each counted row's outcome and Brier score (a ``score`` line, or ``score_h``).
    ``markets`` limits a ``score_h`` line to the markets whose events have ended (see :func:`end_groups`)."""
    rows, events = session_rows(lg, session, horizon)
    if markets is not None:
        rows = [r for r in rows if r.get("market") in markets]
        events = {k: ev for k, ev in events.items() if ev.market in markets}
    bars = Bars(lg)
    known = sealed_references(lg, session) if horizon != "1d" else None
    for ev in events.values():
        resolve_event(lg, ev, bars, known)
    for row in rows:
        _outcome(row, events.get(row.get("event_id_v2", "")))
    return ScoreLine.from_content({
        "kind": "score" if horizon == "1d" else "score_h", "session": session, "horizon": horizon,
        "runs": sorted({r.run_id for r in lg.index.runs(session)}),
        "markets": [ev.as_json() for ev in events.values()], "seats": rows,
        "of": sorted({line for r in rows if (line := r.get("line"))}),
        "noise": {ev.market: ev.result.get("band_pct") for ev in events.values() if not ev.late_ref},
        **({"noise_rolls": rolled} if (rolled := noise_rolls(lg, events.values())) else {}),
        "price_errors": bars.errors})


def _outcome(row: Row, ev: Event | None) -> None:
    up = flag(ev.result.get("up")) if ev else None
    row["outcome"] = None if up is None else int(up)
    p = row.get("prob_up")
    if row.get("status") == "counted" and p is not None and up is not None:
        row["brier"] = (float(p) / 100.0 - int(up)) ** 2
    else:
        row["brier"] = None


def job_score(lg: League, session: str) -> list[int]:
    """Seal the day's ``score`` line and a ``score_h`` for every group of markets whose window has closed.

    Nothing is scored before every event of that group has ended by the clock, whatever session a
    by-hand run names: a sealed score is never redone, so it must not be early.
    """
    sealed: list[int] = []
    if lg.books.index.runs(session) and not _scored(lg.view, "score", session, "1d"):
        if horizon_ended(lg, date.fromisoformat(session), "1d"):
            sealed.append(lg.books.seal(score_line(lg.view, session, "1d")).n)
        else:
            log.warning("score.not_yet", session=session, now=iso_seconds(lg.clock.now()))
    today = min(date.fromisoformat(session), lg.clock.now().date())
    for earlier, horizon, codes in windows_closing(lg.view, today):
        if group_ended(lg, date.fromisoformat(earlier), horizon, codes):
            sealed.append(lg.books.seal(score_line(lg.view, earlier, horizon, codes)).n)
    return sealed


def _market_end(calendar: Calendar, m: MarketSpec, session: date, horizon: str) -> date:
    """The day a market's event ends: a session for daily markets, a calendar day for 24x7 ones."""
    if m.daily:
        return calendar.horizon_end_session(session, horizon)
    return calendar.horizon_end_day(session, horizon)


def end_groups(lg: Sealed, session: date, horizon: str) -> dict[date, frozenset[str]]:
    """The horizon's markets grouped by the first scoring session on or after the day their events
    end (empty beyond the calendar); a pure function of the config and calendar, so each (session,
    horizon) is computed once for them (every close looks at every session of the memory window).

    A one-week event asked on a Monday ends at Friday's close for the daily markets but on Sunday for
    bitcoin (seven calendar days): each group is sealed at the first scoring run after its own end, so
    the daily markets' week is scored that Friday, not the Monday after with bitcoin's. Markets that
    end on different days but are first scorable at the same run share one line."""
    memo = _groups_memo(lg.config, lg.calendar)
    key = (session, horizon)
    if key not in memo:
        memo[key] = _end_groups(lg, session, horizon)
    return dict(memo[key])


#: end_groups's answers by (session, horizon), per (config, calendar) pair (the last few pairs seen).
_END_GROUPS: dict[tuple[int, int], tuple[Config, Calendar, dict[tuple[date, str], dict[date, frozenset[str]]]]] = {}


def _groups_memo(config: Config, calendar: Calendar) -> dict[tuple[date, str], dict[date, frozenset[str]]]:
    key = (id(config), id(calendar))  # held below, so neither id can be reused while its entry lives
    hit = _END_GROUPS.get(key)
    if hit is None:
        if len(_END_GROUPS) >= 4:
            _END_GROUPS.pop(next(iter(_END_GROUPS)))
        hit = _END_GROUPS[key] = (config, calendar, {})
    return hit[2]


def _end_groups(lg: Sealed, session: date, horizon: str) -> dict[date, frozenset[str]]:
    groups: dict[date, set[str]] = {}
    try:
        for m in market_specs(lg, horizon):
            run = lg.calendar.session_on_or_after(_market_end(lg.calendar, m, session, horizon))
            groups.setdefault(run, set()).add(m.code)
    except Exception:  # noqa: BLE001 - beyond the calendar: not due yet
        return {}
    return {day: frozenset(codes) for day, codes in sorted(groups.items())}


def group_ended(lg: League, session: date, horizon: str, codes: Collection[str]) -> bool:
    """True once the clock is past the end of the events of ``codes`` at this horizon (plus one
    minute, so the last bar has closed)."""
    ends = []
    for m in market_specs(lg.view, horizon):
        if m.code not in codes:
            continue
        try:
            ends.append(lg.market.calendar.capped_end(_market_end(lg.market.calendar, m, session, horizon), m.end_time))
        except Exception:  # noqa: BLE001 - beyond the calendar: not ended
            return False
    return bool(ends) and lg.clock.now() >= max(ends) + timedelta(minutes=1)


def horizon_ended(lg: League, session: date, horizon: str) -> bool:
    """True once every market's event at this horizon has ended."""
    return group_ended(lg, session, horizon, {m.code for m in market_specs(lg.view, horizon)})


def _scored_markets(lg: Reading, sessions: list[str]) -> dict[tuple[str, str], set[str]]:
    """(session, horizon) -> the markets some sealed ``score_h`` line of these sessions already scored."""
    done: dict[tuple[str, str], set[str]] = {}
    known, kept = _LINE_MARKETS.get(lg, {}), {}
    for n in (n for s in sessions for n in lg.index.numbers("score_h", s)):
        seen = known.get(n)
        if seen is None:  # a sealed line never changes: each one is read (decoded) once
            x = lg.index.line(n)
            if not isinstance(x, records.Score):
                continue
            seen = (x.session, x.horizon, _line_markets(x))
        kept[n] = seen
        done.setdefault(seen[:2], set()).update(seen[2])
    _LINE_MARKETS[lg] = kept  # the lines of these sessions only: the window moves on
    return done


def _line_markets(line: records.Score) -> frozenset[str]:
    return frozenset({r.market for r in line.seats} | {e.market for e in line.markets})


#: The session, horizon and markets of each sealed ``score_h`` line, by league and line number.
_LINE_MARKETS: WeakKeyDictionary[Reading, dict[int, tuple[str, str, frozenset[str]]]] = WeakKeyDictionary()


def windows_closing(lg: Reading, today: date) -> list[tuple[str, str, frozenset[str]]]:
    """(session, horizon, markets) whose scoring session (:func:`end_groups`) is ``today`` or earlier
    and are not yet scored, one entry per group, oldest first.

    Only sessions inside the memory window counted back from ``today`` (league.jobs.window) are looked
    at: an older session's windows all closed before it; one left unscored by a downtime longer than the
    window's look-back margin is scored by naming a session it closes on (`league run score --session`)."""
    sessions = lg.index.sessions("run", since=cutoff(lg.config, today))
    done = _scored_markets(lg, sessions)
    due = []
    for s in sessions:
        for h in LONG_HORIZONS:
            for end, codes in end_groups(lg, date.fromisoformat(s), h).items():
                left = codes - done.get((s, h), set())
                if left and end <= today:
                    due.append((s, h, frozenset(left)))
    return due
