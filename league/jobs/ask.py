"""The ask job (docs/protocol.md §4–5): seal the roster and the run line, hash every ask, fan out.

Every job is idempotent per (session, job) by the book itself: a job looks at what is already sealed
before doing anything, so a restarted daemon never asks a counted run twice. Each seat's exact text
(the common text plus the seat's own paper accounts) is sealed in the ask chain BEFORE it is sent;
the batch goes to the league's :class:`league.runner.SeatRunner`, and each reply is sealed the
moment it arrives (:mod:`league.jobs.seal`).
"""

from __future__ import annotations

import json
from collections.abc import Callable, Mapping, Sequence
from concurrent.futures import Future
from datetime import date, datetime
from functools import partial
from typing import Any

import structlog

from league import budgets, records
from league.asks import MarketLine, account_block, common_text, publish_ask_text, sha256_text, unsealable
from league.book.index import BookIndex
from league.book.lines import RunLine, RunRole
from league.calendar import et_time
from league.clock import iso_seconds, parse_iso
from league.config import MarketSpec, as_time
from league.counting import COUNTED, counted_runs, run_events
from league.jobs.context import League, Pending, Reading
from league.jobs.preflight import preflight
from league.jobs.seal import seal_fault, seal_on_arrival
from league.jobs.snapshot import daily_closes, job_snapshot
from league.jsonvalue import Json, JsonObject
from league.runner import SeatAsk
from league.scoring.climatology import clim_probabilities
from league_agents.base import Ask, FailureClass, Now, SeatReply, SeatSpec, prefetch, prefetches
from league_agents.registry import reads_history

log = structlog.get_logger(__name__)
#: Who seals a reply that is not the council's (an arm's sealer, league.jobs.arms).
Sealer = Callable[[League, Pending, SeatReply], None]
#: What a seat's ask shows of its own paper accounts (from its latest sealed ``mark`` per league).
SHOWN = ("session", "capital", "cash", "value", "interest", "positions", "prices", "weights", "fees_total", "peak")


def markets_asked(lg: League) -> dict[str, list[str]]:
    return {m.code: list(m.horizons) for m in lg.config.markets.markets}


def snapshot_rows(snapshot: Mapping[str, Any]) -> dict[str, dict[str, Any]]:
    """The snapshot's market rows by code (it stores them as a list, in config order)."""
    rows = snapshot.get("markets", [])
    return {r["code"]: r for r in rows} if isinstance(rows, list) else dict(rows)


def market_lines(lg: League, session: str, snapshot: Mapping[str, object],
                 markets: Sequence[MarketSpec] | None = None) -> list[MarketLine]:
    """Each market's line of the ask (of ``markets``, default all): its name, horizons, reference rule and
    snapshot row."""
    rows = snapshot_rows(snapshot)
    lines = []
    for m in markets if markets is not None else lg.config.markets.markets:
        ref = (f"reference = first 1-minute bar at/after 09:30 ET on {session}; one-day end {m.end_time} ET"
               if m.daily else "reference = close of the first 1-minute bar starting at/after counted ingest closes "
               f"({lg.config.roster.deadline} ET; an answer sealed later has its own reference); one-day end "
               f"16:00 ET on {session}; horizons in calendar days (7/30/182)")
        lines.append(MarketLine(m.code, m.name, tuple(m.horizons), ref, rows.get(m.code, {})))
    return lines


def job_ask(lg: League, session: str, *, role: RunRole = COUNTED, seats: Sequence[str] | None = None,
            attempt: int = 1, parent: str | None = None, crowd: Sequence[Mapping[str, object]] = (),
            context_extra: Mapping[str, object] | None = None) -> str | None:
    """Seal the roster and the run line, hash every ask into the chain, fan out concurrently."""
    if role == COUNTED and attempt == 1 and counted_runs(lg.view, session):
        log.info("ask.already_done", session=session)
        return None
    record = job_snapshot(lg, session)
    crowd = crowd or record.get("crowd", [])
    if attempt == 1 and lg.stages.preflight:
        preflight(lg, session)
    specs = [s for s in lg.config.roster.seat if seats is None or s.name in seats]
    run_id = next_run_id(lg, session)
    text = common_text(session, run_id, market_lines(lg, session, record["snapshot"]), record["sha256"], crowd)
    common_sha = publish_ask_text(lg.data_dir / "asks", text)
    asked = markets_asked(lg)
    closes, second = deadline(lg, session), second_wave_time(lg, session)
    faults = unsealable(specs, asked, closes)
    specs = [s for s in specs if s.name not in faults]
    lg.books.asks.seal_roster(run_id, session, specs, asked, closes, second, lg.config.roster.retry_policy, role)
    lg.books.seal(RunLine.from_content({
        "run_id": run_id, "session": session, "role": role, "attempt": attempt, "parent_run": parent,
        "ask_sha256": common_sha, "snapshot_sha256": record["sha256"], "roster": [s.name for s in specs],
        "methodology": lg.config.settings.methodology.as_json(), "crowd": list(crowd),
        "events": run_events(lg.view, session), "deadline": iso_seconds(closes),
    }))
    for name, problem in faults.items():
        seal_fault(lg, run_id, session, name, attempt, f"not asked: {problem}")
    if context_extra is None and lg.asking.ask_context is not None:
        context_extra = lg.asking.ask_context(lg, session)
    context = structured_context(lg, record, context_extra)
    with structlog.contextvars.bound_contextvars(run_id=run_id):  # every line of the fan-out names its run
        _fan_out(lg, run_id, session, specs, text, common_sha, attempt, asked, context)
    return run_id


def next_run_id(lg: League, session: str) -> str:
    """The id the next run of a session gets (a run killed before its run line gets the same id again)."""
    return f"{session}-r{len(lg.books.index.runs(session)) + 1}"


def structured_context(lg: League, record: Mapping[str, Any], extra: Mapping[str, object] | None) -> dict[str, Any]:
    rows = snapshot_rows(record["snapshot"])
    crowd = {q.get("market") for q in record.get("crowd", [])}
    previous = previous_day_changes(lg.view, record["session"])
    markets = {m.code: {"horizons": list(m.horizons), "last_change_pct": previous.get(m.code),
                        "price": rows.get(m.code, {}).get("price"), "crowd": m.code in crowd}
               for m in lg.config.markets.markets}
    return {"markets": markets, **(extra or {})}


def previous_day_changes(lg: Reading, session: str) -> dict[str, float]:
    """Each market's one-day move on the previous NYSE session (reference → close, as sealed in that
    session's ``score`` line): "yesterday's direction" for the momentum baseline (scoring.md §2),
    recomputable from the book. Not scored → no entry (the baseline then states nothing)."""
    prev = lg.calendar.previous_session(date.fromisoformat(session)).isoformat()
    earlier = [x for x in lg.index.of(records.Score, prev) if x.kind == "score" and x.horizon == "1d"]
    if not earlier:
        return {}
    out: dict[str, float] = {}
    for m in earlier[0].markets:
        if not m.late_ref and m.change_pct is not None:
            out.setdefault(m.market, float(m.change_pct))
    return out


def deadline(lg: League, session: str) -> datetime:
    """When counted ingest closes for a session (the roster's deadline, New York time)."""
    return et_time(date.fromisoformat(session), as_time(lg.config.roster.deadline))


def second_wave_time(lg: League, session: str) -> datetime:
    return et_time(date.fromisoformat(session), as_time(lg.config.roster.second_wave))


def seat_accounts(index: BookIndex, seat: str, *, until: datetime | None = None) -> dict[str, JsonObject] | None:
    """A seat's own paper accounts as its ask shows them (the paper's ask carries each model's account):
    ``{league: {as_of, cash, value, positions, …}}`` from its latest sealed ``mark`` per league, or
    ``None`` before its first mark. A seat sees nothing of anyone else's account. Marks are read from the
    memory window (league.jobs.window): a seat not marked for longer than that shows no account. ``until``:
    only marks sealed by then (the text of an ask re-sent after a restart is the text first sealed)."""
    latest: dict[str, records.Mark] = {}
    for mark in index.recent_of(records.Mark):
        if mark.account != seat or (until is not None and parse_iso(mark.at) > until):
            continue
        if mark.league not in latest or mark.n > latest[mark.league].n:
            latest[mark.league] = mark
    if not latest:
        return None
    return {league: {"as_of" if k == "session" else k: _shown(getattr(m, k)) for k in SHOWN}
            for league, m in sorted(latest.items())}


def _shown(value: str | dict[str, str]) -> Json:
    return dict(value) if isinstance(value, dict) else value


HISTORY_DAYS = 260


def history_context(lg: League, session: str) -> dict[str, Any]:
    """Each market's daily closes up to the session before ``session`` (what was known at 08:30), for the
    point baselines; empty when no roster seat reads history (no cost for a league without them)."""
    if not any(reads_history(s.adapter) for s in lg.config.roster.seat):
        return {}
    previous = lg.market.calendar.previous_session(date.fromisoformat(session))
    out: dict[str, list[float]] = {}
    for m in lg.config.markets.markets:
        closes = daily_closes(lg.market.prices, lg.market.calendar, m, previous)
        out[m.code] = [c for d, c in closes if d <= previous][-HISTORY_DAYS:]
    return {"history": out}


def prefetch_fits(lg: League, session: str) -> int:
    """A stage before the score job (16:05 ET): start the next session's history-only fits now (the `_ets` seat's, in
    its worker process), so they run beside the evening's jobs and that ask only collects them.

    Safe to run at any time: the history given is what :func:`history_context` reads now for the next
    session (closes up to this session, the one just scored), and a seat uses a prefetched fit only when its
    ask's own history is exactly those closes (league_agents.ets_fit: the fit is keyed by its input). A
    close not final yet (a price source without today's close at 16:05, a UTC day not over) makes a fit
    the ask does not use; it then fits its own closes. Returns how many fits were started."""
    starting = [seat for seat in lg.asking.seats.values() if prefetches(seat)]
    if not starting:  # no seat would use it: the coming history is not even read
        return 0
    coming = lg.market.calendar.next_session(date.fromisoformat(session)).isoformat()
    try:
        history = history_context(lg, coming).get("history", {})
    except Exception as exc:  # noqa: BLE001 - a close not available yet: the ask fits its own history then
        log.info("prefetch.skipped", session=coming, error=str(exc)[:300])
        return 0
    return sum(prefetch(seat, history) for seat in starting)


def default_context(lg: League, session: str) -> dict[str, Any]:
    """What every ask's context carries in a league: the sealed climatology table and, when a seat reads
    it, the closes history."""
    return {**climatology_context(lg, session), **history_context(lg, session)}


def climatology_context(lg: League, session: str) -> dict[str, Any]:
    """The sealed climatology table (DATA/climatology.json, hash re-checked) for the `_climatology`
    seat: p_up in percent per market and horizon."""
    path = lg.data_dir / "climatology.json"
    if not path.is_file():
        return {}
    out: dict[str, dict[str, float]] = {}
    for (asset, horizon), p in clim_probabilities(json.loads(path.read_text(encoding="utf-8"))).items():
        out.setdefault(asset, {})[horizon] = round(p, 2)
    return {"climatology": out}


def budget_stops(lg: League, session: str, specs: Sequence[SeatSpec]) -> dict[str, str]:
    """Seats whose roster budget is spent (from the usage sealed in their answer lines), with why."""
    stops: dict[str, str] = {}
    for spec in specs:
        if spec.budget is None:
            continue
        answers = lg.books.index.of_seat(records.Answer, spec.name)
        reason = budgets.exhausted(spec.budget, budgets.total(a.usage for a in answers if a.session == session),
                                   budgets.total(a.usage for a in answers))
        if reason is not None:
            stops[spec.name] = reason
    return stops


def stopped_reply(lg: League, seat: str, reason: str, clock: Now | None = None) -> Future[SeatReply]:
    """The reply of a seat the league did not run: a ``budget_exhausted`` silence, arrived now."""
    now = (clock or lg.clock.now)()
    fut: Future[SeatReply] = Future()
    fut.set_result(SeatReply(seat=seat, raw="", model="", version="", mode="", started_at=now, finished_at=now,
                             failure=FailureClass.BUDGET, detail=reason))
    return fut


def _fan_out(lg: League, run_id: str, session: str, specs: Sequence[SeatSpec], common: str, common_sha: str,
             attempt: int, asked: dict[str, list[str]], context: Mapping[str, object]) -> None:
    """Hash each seat's exact text into the ask chain, then send all asks at once through the runner."""
    texts = [(spec.name, common + account_block(spec.name, seat_accounts(lg.books.index, spec.name))) for spec in specs]
    lg.books.asks.seal_asks(run_id, session, attempt, texts, common_sha)  # one fsync for the run's asks
    prepared = [SeatAsk(spec, Ask(text=text, sha256=sha256_text(text), session=session, attempt=attempt,
                                  context=context)) for spec, (_, text) in zip(specs, texts, strict=True)]
    send(lg, run_id, session, prepared, common_sha, asked)


def send(lg: League, run_id: str, session: str, prepared: Sequence[SeatAsk], common_sha: str,
         asked: dict[str, list[str]], *, now: Now | None = None, seal: Sealer | None = None,
         closes: datetime | None = None) -> None:
    """Send asks already sealed in the ask chain through the runner; each reply is sealed on arrival
    (simulated: by pump() at its arrival time). ``now`` is the clock the seats read (a resumed ask of
    a simulated league reads its original asked time, league.jobs.inflight). ``seal``: an arm's sealer
    (league.jobs.arms), ``None`` for the council's answer lines; an arm's ask is never a seat's ask in
    flight for the second wave. ``closes``: the asks' deadline when it is not the session's ingest close (the
    council talk's, after the close)."""
    if not prepared:
        return
    stopped = budget_stops(lg, session, [item.spec for item in prepared])
    running = [item for item in prepared if item.spec.name not in stopped]
    started = iter(lg.asking.runner.start(running, now or lg.clock.now, closes or deadline(lg, session)))
    arriving = [stopped_reply(lg, item.spec.name, stopped[item.spec.name], now) if item.spec.name in stopped
                else next(started) for item in prepared]
    for item, fut in zip(prepared, arriving, strict=True):
        name, attempt = item.spec.name, item.ask.attempt
        if lg.simulated:  # sealed by pump() at its simulated arrival time
            lg.asking.pending.append(Pending(run_id, session, name, attempt, common_sha, item.ask.sha256, asked, fut,
                                             seal))
            continue
        pend = Pending(run_id, session, name, attempt, common_sha, item.ask.sha256, asked, Future(), seal)
        sealed: Future[SeatReply] = Future()
        fut.add_done_callback(partial(seal_on_arrival, lg, pend, sealed=sealed))
        lg.asking.inflight.append(sealed)
        if seal is None:
            lg.asking.inflight_by_seat[(session, name)] = sealed
