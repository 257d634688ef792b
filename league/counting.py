"""The counting rule (docs/protocol.md §5): which answer counts, for which event, with which status.

For one session and horizon, :func:`session_rows` decides every expected seat × market cell from
the sealed lines alone: which answer counts (the first well-formed answer of each seat in the
counted runs), which event it is about (the common event fixed in the run line, its own ``late_ref``
event when sealed after the common reference, nothing when sealed after the close) and its row
status. Bitcoin trades all day; with seal on arrival its common reference is the run's ingest close
(09:30 ET, after every counted seal: paper §3.3), so every counted bitcoin answer of a session shares
one event and only a line sealed after ingest close gets its own reference.
Pure: it reads the book's index, the config and the exchange
calendar, never a price, a file or the clock — the score job adds prices, the CSV writer copies
scored rows, the portfolio takes the counted decisions, all from these same rows.
"""

from __future__ import annotations

import threading
from collections import OrderedDict
from collections.abc import Hashable, Mapping
from dataclasses import dataclass, field, replace
from datetime import date, datetime, timedelta
from functools import lru_cache
from typing import Final, Protocol, TypedDict

from league import records
from league.calendar import Calendar, et_time, event_contract
from league.config import Config, MarketSpec, as_time
from league.contracts import CONTRACT_KEYS, EventContract
from league.isotime import iso_seconds, parse_iso
from league.jsonvalue import Json, JsonObject, Number, number, text
from league.records import Sealed as SealedLine

COUNTED: Final = "counted"
NOT_COUNTED: Final = "not_counted"
LONG_HORIZONS = ("1w", "1m", "6m")


class SealedLines(Protocol):
    """The book's index as the counting rule reads it (:class:`league.book.index.BookIndex`)."""

    def of_kind(self, kind: str, session: str | None = None) -> list[SealedLine]: ...

    def runs(self, session: str) -> list[records.Run]: ...

    def answers(self, run_ids: set[str]) -> list[records.Answer]: ...


class Row(TypedDict, total=False):
    """One expected seat × market cell of a session at one horizon, as the counting rule decided it (the
    score job adds ``outcome`` and ``brier``; a key absent stays absent in the sealed score line)."""

    session: str
    horizon: str
    seat: str
    market: str
    run_id: str
    line: int | None
    model: str
    mode: str
    version: str
    attempt: int | None
    run_role: str
    sealed_at: str
    status: str
    why_missing: str
    prob_up: Number | None
    cell_status: str
    action: Json
    action_word: Json
    target: Json
    invalidation: Json
    source_urls: Json
    source_domains: Json
    event_id: str
    event_id_v2: str
    late_ref: bool
    outcome: int | None
    brier: float | None


#: A line the counting rule reads the time of: an answer, a silence or an incident.
Timed = records.Answer | records.Silence | records.Incident


class Sealed(Protocol):
    """What the counting rule reads: the book's index, the config and the calendar (a league or a
    read-only view of one)."""

    @property
    def index(self) -> SealedLines: ...

    @property
    def config(self) -> Config: ...

    @property
    def calendar(self) -> Calendar: ...


def counted_runs(lg: Sealed, session: str) -> list[records.Run]:
    """The session's run lines whose answers count (the scheduled morning run and its second wave)."""
    return [r for r in lg.index.runs(session) if r.role == COUNTED]


def sealed_time(line: Timed) -> datetime:
    """The time a line was sealed: ``max(at, booked_at)`` (open-data.md)."""
    at = parse_iso(line.at)
    return max(at, parse_iso(line.booked_at)) if line.booked_at else at


def ingest_close(lg: Sealed, day: date) -> datetime:
    """When counted ingest closes on ``day`` (the roster's deadline, 09:30 ET): a round-the-clock
    market's common reference (paper §3.3)."""
    return et_time(day, as_time(lg.config.roster.deadline))


def common_contract(lg: Sealed, m: MarketSpec, day: date, horizon: str) -> EventContract:
    """The session's common event: 09:30 ET for daily markets, the ingest close for bitcoin."""
    return event_contract(lg.calendar, m, day, horizon, None if m.daily else ingest_close(lg, day))


def run_events(lg: Sealed, session: str) -> dict[str, dict[str, JsonObject]]:
    """The common event contracts of every market of a session, fixed before the ask."""
    out: dict[str, dict[str, JsonObject]] = {}
    day = date.fromisoformat(session)
    for m in lg.config.markets.markets:
        out[m.code] = {}
        for h in m.horizons:
            contract = common_contract(lg, m, day, h)
            out[m.code][h] = {"event_id": contract.event_id, "event_id_v2": contract.event_id_v2,
                              **contract.as_dict()}
    return out


@dataclass
class Event:
    market: str
    horizon: str
    contract: EventContract
    late_ref: bool = False
    seal_based: bool = False
    result: JsonObject = field(default_factory=dict)

    def as_json(self) -> JsonObject:
        contract: JsonObject = {k: v for k, v in self.contract.as_dict().items()}
        return {"market": self.market, "horizon": self.horizon, "event_id": self.contract.event_id,
                "event_id_v2": self.contract.event_id_v2, "contract": contract, "late_ref": self.late_ref,
                **self.result}


# ------------------------------------------------------------------------------ rows
def _counted_choice(answers: list[records.Answer]) -> dict[str, records.Answer]:
    """The first well-formed answer of each seat; failing that, its first refused one."""
    chosen: dict[str, records.Answer] = {}
    for a in answers:
        current = chosen.get(a.seat)
        if current is None or (current.status != "answered" and a.status == "answered"):
            chosen[a.seat] = a
    return chosen


def session_rows(lg: Sealed, session: str, horizon: str) -> tuple[list[Row], dict[str, Event]]:
    """Every expected cell of a session at one horizon, with the event each scored cell belongs to.

    Remembered by what it reads (see :func:`_rows_key`): the score job and the portfolio stage ask for the
    same session's rows one after the other. Each caller gets its own copies (the score job writes each
    row's outcome and each event's result into them)."""
    runs = lg.index.runs(session)
    roles: dict[str, str] = {r.run_id: r.role for r in runs}
    answers = sorted(lg.index.answers(set(roles)), key=lambda a: a.n)
    notes = _notes(lg, session)
    key = _rows_key(lg, session, horizon, runs, answers, notes)
    with _ROWS_LOCK:
        hit = _ROWS.get(key) if key is not None else None
        if hit is not None and key is not None:
            _ROWS.move_to_end(key)
    if hit is None:
        hit = _session_rows(lg, session, horizon, runs, roles, answers, notes)
        if key is not None:
            with _ROWS_LOCK:
                _ROWS[key] = hit
                if len(_ROWS) > _MAX_ROWS:
                    _ROWS.popitem(last=False)
    rows, events = hit[2]
    return [Row(**r) for r in rows], {k: replace(ev, result=dict(ev.result)) for k, ev in events.items()}


def _notes(lg: Sealed, session: str) -> list[records.Incident | records.Silence]:
    """The session's incident and silence lines, in that order."""
    return [x for k in ("incident", "silence") for x in lg.index.of_kind(k, session)
            if isinstance(x, records.Incident | records.Silence)]


_Rows = tuple[list[Row], dict[str, Event]]
#: session_rows's answers by what they were computed from: (config, calendar, rows and events), newest last.
_ROWS: OrderedDict[tuple[Hashable, ...], tuple[Config | None, Calendar | None, _Rows]] = OrderedDict()
_MAX_ROWS = 32
_ROWS_LOCK = threading.Lock()  # a daemon's API threads may read rows while its jobs run


def _rows_key(lg: Sealed, session: str, horizon: str, runs: list[records.Run], answers: list[records.Answer],
              notes: list[records.Incident | records.Silence]) -> tuple[Hashable, ...] | None:
    """Everything :func:`session_rows` reads: the config and calendar (by identity, ``None`` for a view
    without one: the memo entry holds both, so neither id is reused while it lives) and each line it reads
    by number and seal (the seal is the hash of the line's content, so equal keys mean equal lines,
    whatever book they come from).
    ``None`` (not remembered) when a line carries no seal, e.g. a hand-made index in a test."""
    lines = tuple((x.n, x.seal) for group in (runs, answers, notes) for x in group)
    if any(not seal for _, seal in lines):
        return None
    return (id(getattr(lg, "config", None)), id(_calendar_of(lg)), session, horizon, len(runs), len(answers), lines)


def _calendar_of(lg: Sealed) -> Calendar | None:
    """The view's calendar, ``None`` when it has none: a read-only view whose runs seal their events needs
    none (the rule reads it only to place a late answer's event, and says so in that row when it is missing)."""
    return getattr(lg, "calendar", None)


def _session_rows(lg: Sealed, session: str, horizon: str, runs: list[records.Run], roles: dict[str, str],
                  answers: list[records.Answer], notes: list[records.Incident | records.Silence],
                  ) -> tuple[Config | None, Calendar | None, _Rows]:
    counted = [a for a in answers if roles[a.run_id] == COUNTED]
    chosen = _counted_choice(counted)
    events: dict[str, Event] = {}
    rows: list[Row] = []
    for a in answers:
        role = roles[a.run_id] if roles[a.run_id] != COUNTED else (
            "counted" if chosen.get(a.seat) is a else "asked_again")
        rows += _answer_rows(lg, session, horizon, a, role, events)
    expected = _expected_seats(runs)
    for seat in sorted(expected - set(chosen)):
        rows += _missing_rows(lg, session, horizon, seat, runs, notes)
    return getattr(lg, "config", None), _calendar_of(lg), (rows, events)


def _expected_seats(runs: list[records.Run]) -> set[str]:
    return {s for r in runs if r.role == COUNTED for s in r.roster}


def market_specs(lg: Sealed, horizon: str) -> list[MarketSpec]:
    return [m for m in lg.config.markets.markets if horizon in m.horizons]


def _answer_rows(lg: Sealed, session: str, horizon: str, a: records.Answer, role: str,
                 events: dict[str, Event]) -> list[Row]:
    out = []
    sealed = sealed_time(a)
    sealed_at = iso_seconds(sealed)
    for m in market_specs(lg, horizon):
        found = a.items.get(m.code, {}).get(horizon)
        cell = found if isinstance(found, dict) else None
        row = _base_row(session, horizon, a.seat, m.code, a, role, sealed_at)
        if a.status != "answered":
            row["status"] = "refused_shape" if role == "counted" else "not_counted"
            row["why_missing"] = a.parse_failure
            out.append(row)
            continue
        row.update(_cell_fields(cell))
        ev, why = _event_for(lg, session, horizon, m, a, sealed)
        if ev is not None:
            events.setdefault(ev.contract.event_id_v2, ev)
            row["event_id"], row["event_id_v2"] = ev.contract.event_id, ev.contract.event_id_v2
            row["late_ref"] = ev.late_ref
        row["status"] = _row_status(role, cell, ev, why)
        row["why_missing"] = why if ev is None else row.get("why_missing", "")
        out.append(row)
    return out


def _row_status(role: str, cell: Mapping[str, Json] | None, ev: Event | None, why: str) -> str:
    if role != "counted" or ev is None:
        return "not_counted"
    if cell is None or cell.get("prob_up") is None:
        return "counted_50"
    return "counted"


def _cell_fields(cell: Mapping[str, Json] | None) -> Row:
    if cell is None:
        return Row(prob_up=None, cell_status="", why_missing="empty cell")
    return Row(prob_up=number(cell.get("prob_up")), cell_status=text(cell.get("cell_status")),
               action=cell.get("action", ""), action_word=cell.get("action_word", ""), target=cell.get("target"),
               invalidation=cell.get("invalidation"), source_urls=cell.get("source_urls", []),
               source_domains=cell.get("source_domains", []), why_missing=text(cell.get("problem")))


def _base_row(session: str, horizon: str, seat: str, market: str, a: records.Answer | None,
              role: str, sealed_at: str | None = None) -> Row:
    """``sealed_at``: the answer's sealed time as text when the caller has it already (else computed)."""
    if a is None:
        return Row(session=session, horizon=horizon, seat=seat, market=market, run_id="", line=None, model="",
                   mode="", version="", attempt=None, run_role=role, sealed_at=sealed_at or "")
    if sealed_at is None:
        sealed_at = iso_seconds(sealed_time(a))
    return Row(session=session, horizon=horizon, seat=seat, market=market, run_id=a.run_id, line=a.n, model=a.model,
               mode=a.mode, version=a.version, attempt=a.attempt, run_role=role, sealed_at=sealed_at)


def _missing_rows(lg: Sealed, session: str, horizon: str, seat: str, runs: list[records.Run],
                  notes: list[records.Incident | records.Silence] | None = None) -> list[Row]:
    why = _why_silent(lg, session, seat, notes)
    out = []
    for m in market_specs(lg, horizon):
        row = _base_row(session, horizon, seat, m.code, None, "counted")
        row["status"], row["why_missing"] = "no_answer", why
        row["run_id"] = runs[0].run_id if runs else ""
        out.append(row)
    return out


def _why_silent(lg: Sealed, session: str, seat: str,
                notes: list[records.Incident | records.Silence] | None = None) -> str:
    """``notes``: the session's incident and silence lines (in that order) when the caller has read them."""
    mine = [x for x in (_notes(lg, session) if notes is None else notes) if x.seat == seat]
    if not mine:
        return "no reply by the close"
    return "; ".join(f"attempt {x.attempt}: {x.failure}" for x in mine)


# ---------------------------------------------------------------------------- events
def sealed_contract(lg: Sealed, run_id: str, market: str, horizon: str,
                    session: str | None = None) -> EventContract | None:
    """The common event fixed in the run line before the ask (docs/protocol.md §2), if it names one.
    Naming the run's ``session`` makes it a keyed lookup instead of a pass over every run line."""
    runs = lg.index.runs(session) if session is not None else [
        r for r in lg.index.of_kind("run") if isinstance(r, records.Run)]
    run = next((r for r in runs if r.run_id == run_id), None)
    ev = run.events.get(market, {}).get(horizon) if run is not None else None
    if not isinstance(ev, dict):
        return None
    return contract_of(ev)


def contract_of(sealed: Mapping[str, Json]) -> EventContract:
    """``EventContract.from_mapping(sealed)``, remembered: a session's few dozen sealed contracts are read
    back once per cell, and a contract is immutable (its checks parse and format both times each time).
    A mapping that cannot be keyed (an unhashable value: not a valid contract) takes the direct path,
    which raises as before; so does any failure (an exception is never remembered)."""
    try:
        values = tuple(sealed[k] for k in CONTRACT_KEYS)
        hash(values)
    except (KeyError, TypeError):
        return EventContract.from_mapping(sealed)
    return _contract(values)


@lru_cache(maxsize=4096)
def _contract(values: tuple[Json, ...]) -> EventContract:
    return EventContract.from_mapping(dict(zip(CONTRACT_KEYS, values, strict=True)))


def _event_for(lg: Sealed, session: str, horizon: str, m: MarketSpec,
               a: records.Answer, sealed: datetime | None = None) -> tuple[Event | None, str]:
    day = date.fromisoformat(session)
    sealed = sealed_time(a) if sealed is None else sealed
    seal_based = not m.daily  # bitcoin's price is the close of the bar at/after its reference
    try:
        common = sealed_contract(lg, a.run_id, m.code, horizon, session) or common_contract(lg, m, day, horizon)
        if sealed <= parse_iso(common.reference_at):
            return Event(m.code, horizon, common, seal_based=seal_based), ""
        day_end = parse_iso((sealed_contract(lg, a.run_id, m.code, "1d", session)
                             or common_contract(lg, m, day, "1d")).end_at)
        if sealed >= min(day_end, lg.calendar.session_close(day)):
            return None, "sealed after the close"
        own = EventContract.make(asset=m.code, horizon=horizon, reference_at=_ceil_second(sealed),
                                 end_at=parse_iso(common.end_at), reference_rule=common.reference_rule,
                                 price_provider=common.price_provider, price_symbol=common.price_symbol)
        return Event(m.code, horizon, own, late_ref=True, seal_based=seal_based), ""
    except Exception as exc:  # noqa: BLE001 - an event we cannot place is reported, not scored
        return None, f"no event: {exc}"


def _ceil_second(t: datetime) -> datetime:
    return t if t.microsecond == 0 else t.replace(microsecond=0) + timedelta(seconds=1)


