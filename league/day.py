"""One league day (protocol.md §5): snapshot → ask → seal on arrival → second wave → ingest close.

Scoring at the close lives in :mod:`league.scoring_day`. Every job here is idempotent per
(session, job) by the book itself: a job looks at what is already sealed before doing anything,
so a restarted daemon never seals a line twice.

Replies are sealed the moment they arrive. Live, a reply is sealed in the thread that received it.
Under a simulated clock the seats still run as real processes, but each reply carries the simulated
time it arrived (``finished_at``); :func:`pump` seals due replies in arrival order, moving the clock
to each arrival first, so the demo season seals exactly as a live day would.
"""

from __future__ import annotations

import hashlib
import json
import os
import threading
from collections.abc import Mapping, Sequence
from concurrent.futures import Future, ThreadPoolExecutor
from dataclasses import dataclass
from datetime import date, datetime
from pathlib import Path
from typing import Any

import structlog

from agents.base import Ask, FailureClass, Seat, SeatReply, SeatSpec
from league.accounts import seat_accounts
from league.answers import ParsedReply, clean_text, json_safe, parse_reply
from league.asks import MarketLine, account_block, common_text, publish_ask_text, sha256_text
from league.clock import SimulatedClock, iso_seconds, parse_iso
from league.config import as_time
from league.errors import BookError, InvalidRecord
from league.fetchrecord import fetch_fields
from league.markettime import et_time, event_contract
from league.season import League

log = structlog.get_logger(__name__)

COUNTED, NOT_COUNTED = "counted", "not_counted"


@dataclass
class Pending:
    """An ask in flight: sealed in the ask chain, sent, reply not yet sealed."""

    run_id: str
    session: str
    seat: str
    attempt: int
    common_sha256: str
    seat_ask_sha256: str
    markets: dict[str, list[str]]
    future: Future[SeatReply]


# ----------------------------------------------------------------------------- snapshot
def snapshot_path(lg: League, session: str) -> Any:
    return lg.data_dir / "snapshots" / f"{session}.json"


def job_snapshot(lg: League, session: str) -> dict[str, Any]:
    """Take (once) and keep the morning snapshot; its SHA-256 goes into the run line."""
    path = snapshot_path(lg, session)
    if path.exists():
        loaded: dict[str, Any] = json.loads(path.read_text(encoding="utf-8"))
        return loaded
    from league.snapshot import take_snapshot

    snap = take_snapshot(lg.config.markets.markets, lg.prices, lg.calendar, lg.clock.now())
    body = snap.as_json()
    record = {"session": session, "sha256": snap.sha256, "snapshot": body, **crowd_quotes(lg, session)}
    path.parent.mkdir(parents=True, exist_ok=True)
    tmp = path.with_suffix(".tmp")
    tmp.write_text(json.dumps(record, sort_keys=True, ensure_ascii=False), encoding="utf-8")
    tmp.replace(path)
    return record


def crowd_quotes(lg: League, session: str) -> dict[str, Any]:
    """Prediction-market prices and volumes recorded with the snapshot (sealed later in the run line).

    A failing venue leaves the list empty with the error named; the day goes on without a crowd.
    """
    provider = getattr(lg, "crowd", None)
    if provider is None:
        return {"crowd": []}
    try:
        quotes = provider.quotes(date.fromisoformat(session), lg.config.markets.codes, lg.clock.now())
    except Exception as exc:  # noqa: BLE001 - the crowd is a comparison, never a reason to skip a day
        log.warning("crowd.unavailable", session=session, error=str(exc))
        return {"crowd": [], "crowd_error": str(exc)[:500]}
    return {"crowd": [q.as_json() for q in quotes]}


# ----------------------------------------------------------------------------------- ask
def counted_runs(lg: League, session: str) -> list[dict[str, Any]]:
    return [r for r in lg.index.runs(session) if r.get("role") == COUNTED]


def markets_asked(lg: League) -> dict[str, list[str]]:
    return {m.code: list(m.horizons) for m in lg.config.markets.markets}


def snapshot_rows(snapshot: Mapping[str, Any]) -> dict[str, dict[str, Any]]:
    """The snapshot's market rows by code (it stores them as a list, in config order)."""
    rows = snapshot.get("markets", [])
    return {r["code"]: r for r in rows} if isinstance(rows, list) else dict(rows)


def _market_lines(lg: League, session: str, snapshot: Mapping[str, Any]) -> list[MarketLine]:
    rows = snapshot_rows(snapshot)
    lines = []
    for m in lg.config.markets.markets:
        ref = (f"reference = first 1-minute bar at/after 09:30 ET on {session}; one-day end {m.end_time} ET"
               if m.daily else "reference = close of the first 1-minute bar starting at/after your answer is sealed; "
               f"one-day end 16:00 ET on {session}; horizons in calendar days (7/30/182)")
        lines.append(MarketLine(m.code, m.name, tuple(m.horizons), ref, rows.get(m.code, {})))
    return lines


def run_events(lg: League, session: str) -> dict[str, dict[str, Any]]:
    """The common event contracts of a session's daily markets, fixed before the ask."""
    out: dict[str, dict[str, Any]] = {}
    day = date.fromisoformat(session)
    for m in lg.config.markets.markets:
        if not m.daily:
            continue
        out[m.code] = {}
        for h in m.horizons:
            contract = event_contract(lg.calendar, m, day, h, None)
            out[m.code][h] = {"event_id": contract.event_id, "event_id_v2": contract.event_id_v2,
                              **contract.as_dict()}
    return out


def job_ask(lg: League, session: str, *, role: str = COUNTED, seats: Sequence[str] | None = None,
            attempt: int = 1, parent: str | None = None, crowd: Sequence[Mapping[str, Any]] = (),
            context_extra: Mapping[str, Any] | None = None) -> str | None:
    """Seal the roster and the run line, hash every ask into the chain, fan out concurrently."""
    if role == COUNTED and attempt == 1 and counted_runs(lg, session):
        log.info("ask.already_done", session=session)
        return None
    record = job_snapshot(lg, session)
    crowd = crowd or record.get("crowd", [])
    if attempt == 1 and "preflight" in lg.hooks:
        lg.hooks["preflight"](lg, session)
    specs = [s for s in lg.config.roster.seat if seats is None or s.name in seats]
    run_id = f"{session}-r{len(lg.index.runs(session)) + 1}"
    text = common_text(session, run_id, _market_lines(lg, session, record["snapshot"]), record["sha256"], crowd)
    common_sha = publish_ask_text(lg.data_dir / "asks", text)
    asked = markets_asked(lg)
    deadline, second = _deadline(lg, session), _second_wave_time(lg, session)
    lg.asks.seal_roster(run_id, session, specs, asked, deadline, second, lg.config.roster.retry_policy, role)
    lg.append("run", {
        "run_id": run_id, "session": session, "role": role, "attempt": attempt, "parent_run": parent,
        "ask_sha256": common_sha, "snapshot_sha256": record["sha256"], "roster": [s.name for s in specs],
        "methodology": lg.config.settings.methodology.as_json(), "crowd": list(crowd),
        "events": run_events(lg, session), "deadline": iso_seconds(deadline),
    })
    if context_extra is None and "ask_context" in lg.hooks:
        context_extra = lg.hooks["ask_context"](lg, session)
    context = _ask_context(lg, record, context_extra)
    _fan_out(lg, run_id, session, specs, text, common_sha, attempt, asked, context)
    return run_id


def _ask_context(lg: League, record: Mapping[str, Any], extra: Mapping[str, Any] | None) -> dict[str, Any]:
    rows = snapshot_rows(record["snapshot"])
    crowd = {q.get("market") for q in record.get("crowd", [])}
    previous = previous_day_changes(lg, record["session"])
    markets = {m.code: {"horizons": list(m.horizons), "last_change_pct": previous.get(m.code),
                        "price": rows.get(m.code, {}).get("price"), "crowd": m.code in crowd}
               for m in lg.config.markets.markets}
    return {"markets": markets, **(extra or {})}


def previous_day_changes(lg: League, session: str) -> dict[str, float]:
    """Each market's one-day move on the previous NYSE session (reference → close, as sealed in that
    session's ``score`` line): "yesterday's direction" for the momentum baseline (scoring.md §2),
    recomputable from the book. Not scored → no entry (the baseline then states nothing)."""
    prev = lg.calendar.previous_session(date.fromisoformat(session)).isoformat()
    earlier = [x for x in lg.index.of_kind("score", prev) if x.get("horizon") == "1d"]
    if not earlier:
        return {}
    latest = earlier[0]
    out: dict[str, float] = {}
    for m in latest.get("markets", []):
        if isinstance(m, dict) and not m.get("late_ref") and m.get("change_pct") is not None:
            out.setdefault(m["market"], float(m["change_pct"]))
    return out


def _deadline(lg: League, session: str) -> datetime:
    return et_time(date.fromisoformat(session), as_time(lg.config.roster.deadline))


def _second_wave_time(lg: League, session: str) -> datetime:
    return et_time(date.fromisoformat(session), as_time(lg.config.roster.second_wave))


_POOL = ThreadPoolExecutor(max_workers=max(8, (os.cpu_count() or 2) * 8), thread_name_prefix="seat")


def _fan_out(lg: League, run_id: str, session: str, specs: Sequence[SeatSpec], common: str, common_sha: str,
             attempt: int, asked: dict[str, list[str]], context: Mapping[str, Any]) -> None:
    """Hash each seat's exact text into the ask chain, then send all asks at once."""
    prepared = []
    for spec in specs:
        text = common + account_block(spec.name, seat_accounts(lg.index, spec.name))
        lg.asks.seal_ask(run_id, session, spec.name, attempt, text, common_sha)
        prepared.append((spec, Ask(text=text, sha256=sha256_text(text), session=session, attempt=attempt,
                                   context=context)))
    for spec, ask in prepared:
        seat = lg.seats[spec.name]
        if lg.simulated:
            fut = _POOL.submit(_ask_one, seat, ask, lg.clock.now)
            lg.pending.append(Pending(run_id, session, spec.name, attempt, common_sha, ask.sha256, asked, fut))
        else:
            pend = Pending(run_id, session, spec.name, attempt, common_sha, ask.sha256, asked, Future())
            fut = _POOL.submit(_ask_and_seal, lg, pend, seat, ask)
            lg.inflight.append(fut)
            lg.inflight_by_seat[(session, spec.name)] = fut


def _ask_and_seal(lg: League, pend: Pending, seat: Seat, ask: Ask) -> SeatReply:
    """Live: the reply is sealed in the thread that received it, the moment it arrives; the task
    ends only once the line is on disk, so waiting for it (League.drain) waits for the seal."""
    reply = _ask_one(seat, ask, lg.clock.now)
    try:
        seal_reply(lg, pend, reply)
    except Exception as exc:
        log.exception("seal.failed", seat=pend.seat, run_id=pend.run_id)
        lg.seal_failures.append(f"{pend.run_id} {pend.seat}: {exc}")
        raise
    return reply


def _ask_one(seat: Seat, ask: Ask, now: Any) -> SeatReply:
    """Never raises: an adapter bug becomes a seat fault reply, so one seat cannot stop the run."""
    started = now()
    try:
        return seat.ask(ask, now)
    except Exception as exc:  # noqa: BLE001 - classified and sealed as an incident/fault
        failure = getattr(exc, "failure", FailureClass.SEAT_FAULT)
        return SeatReply(seat=seat.spec.name, raw="", model=seat.spec.model, version="unreported", mode="",
                         started_at=started, finished_at=now(), failure=failure, detail=str(exc)[:500])


def pump(lg: League, until: datetime) -> int:
    """Simulated clock only: seal every reply that has arrived by ``until``, in arrival order.

    Each sealed reply leaves ``lg.pending`` at once, so a reply is never sealed twice. A reply whose
    seal fails (the book cannot be written: full disk…) stays pending for the next pump, the others
    are sealed regardless, and :class:`SealFailed` is raised at the end."""
    if not lg.simulated:
        return 0
    until = max(until, lg.clock.now())  # whatever has arrived by now is sealed, even when a job is late
    for p in lg.pending:
        p.future.result()
    due = sorted((p for p in lg.pending if p.future.result().finished_at <= until),
                 key=lambda p: (p.future.result().finished_at, p.seat))
    sealed, failed = 0, []
    for p in due:
        reply = p.future.result()
        assert isinstance(lg.clock, SimulatedClock)
        lg.clock.set(max(reply.finished_at, lg.clock.now()))
        try:
            seal_reply(lg, p, reply)
        except Exception as exc:  # noqa: BLE001 - the others are still sealed; reported below
            log.exception("seal.failed", seat=p.seat, run_id=p.run_id)
            failed.append(f"{p.run_id} {p.seat}: {exc}")
            continue
        lg.pending.remove(p)
        sealed += 1
    if isinstance(lg.clock, SimulatedClock) and until > lg.clock.now():
        lg.clock.set(until)
    if failed:
        raise SealFailed(f"{len(failed)} replies could not be sealed: {'; '.join(failed)[:1000]}",
                         fix="check the disk of the data folder; the replies stay pending and are sealed next time")
    return sealed


class SealFailed(BookError):
    """A reply's line could not be written to the book (I/O); the reply is not lost from memory."""


RAW_UTF8, RAW_SURROGATES = "utf-8", "utf-8-surrogatepass"
MAX_USAGE_CHARS = 16_384


def raw_bytes(raw: str) -> tuple[bytes, str]:
    """The exact bytes a reply is kept as, and how to read them back.

    UTF-8 when the text is valid Unicode; a reply holding lone surrogates (a CLI's JSON carrying
    ``\\ud800``, or bytes that were not UTF-8 decoded with ``surrogateescape``) is kept in
    generalised UTF-8 (each surrogate as its 3-byte form, Python's ``surrogatepass``), which maps
    every string to its own bytes and back: nothing is replaced, so nothing is lost."""
    try:
        return raw.encode("utf-8"), RAW_UTF8
    except UnicodeEncodeError:
        return raw.encode("utf-8", "surrogatepass"), RAW_SURROGATES


def read_reply(data_dir: Path, answer: Mapping[str, Any]) -> str | None:
    """The raw reply an answer line names (``None`` when its file is gone)."""
    path = data_dir / "replies" / f"{answer.get('own_sha256')}.txt"
    if not path.is_file():
        return None
    errors = "surrogatepass" if answer.get("raw_encoding") == RAW_SURROGATES else "strict"
    return path.read_bytes().decode("utf-8", errors)


def _store_raw(lg: League, raw: str) -> tuple[str, str, str]:
    """Keep the raw reply under the hash of its exact bytes before sealing: the book carries the hash.

    Returns ``(sha256, encoding, problem)``; a file that cannot be written (full disk) is a problem
    named in the answer line, never a reason not to seal the answer."""
    data, encoding = raw_bytes(raw)
    digest = hashlib.sha256(data).hexdigest()
    path = lg.data_dir / "replies" / f"{digest}.txt"
    if path.exists():
        return digest, encoding, ""
    tmp = path.with_name(f"{digest}.{os.getpid()}.{threading.get_ident()}.tmp")
    try:
        path.parent.mkdir(parents=True, exist_ok=True)
        with open(tmp, "wb") as fh:
            fh.write(data)
            fh.flush()
            os.fsync(fh.fileno())
        tmp.replace(path)
    except OSError as exc:
        log.error("reply.store_failed", path=str(path), error=str(exc))
        try:
            tmp.unlink(missing_ok=True)
        except OSError:
            pass
        return digest, encoding, f"the raw reply could not be stored: {exc.strerror or exc}"
    return digest, encoding, ""


def seal_reply(lg: League, p: Pending, reply: SeatReply) -> None:
    """Seal on arrival exactly ONE line per reply: an answer line (well-formed or refused_shape) or
    an incident/silence line. Whatever the reply holds, it is sealed; only an I/O failure of the
    book itself (full disk) raises."""
    if reply.silent:
        kind = "incident" if reply.failure and reply.failure.is_incident else "silence"
        lg.append(kind, {"run_id": p.run_id, "session": p.session, "seat": p.seat, "attempt": p.attempt,
                         "failure": str(reply.failure or "no_reply"), "detail": clean_text(reply.detail[:500]),
                         "booked_at": iso_seconds(reply.finished_at), **json_safe(fetch_fields(reply))})
        return
    content = _answer_content(lg, p, reply)
    try:
        lg.append("answer", content)
    except InvalidRecord as exc:  # a last guard: the line is sealed without what could not be written
        log.error("seal.answer_unwritable", seat=p.seat, run_id=p.run_id, error=exc.message)
        lg.append("answer", _bare_answer(content, exc.message))
    if "answer_sealed" in lg.hooks:
        lg.hooks["answer_sealed"](lg, p.session)


def _answer_content(lg: League, p: Pending, reply: SeatReply) -> dict[str, Any]:
    own, encoding, store_problem = _store_raw(lg, reply.raw)
    try:
        parsed = parse_reply(reply.raw, p.markets)
    except Exception as exc:  # noqa: BLE001 - the parser is total by design; this keeps the promise if not
        log.exception("parse.failed", seat=p.seat, run_id=p.run_id)
        parsed = ParsedReply(ok=False, failure=f"the parser failed on this reply ({type(exc).__name__})")
    content: dict[str, Any] = {
        "run_id": p.run_id, "session": p.session, "seat": p.seat, "attempt": p.attempt,
        "model": _short(reply.model), "version": _short(reply.version), "mode": _short(reply.mode),
        "status": "answered" if parsed.ok else "refused_shape", "parse_failure": parsed.failure,
        "parse_notes": list(parsed.notes), "items": parsed.items_json(), "years": parsed.years,
        "own_sha256": own, "ask_sha256": p.common_sha256, "seat_ask_sha256": p.seat_ask_sha256,
        "booked_at": iso_seconds(min(reply.finished_at, lg.clock.now())),
        "started_at": iso_seconds(reply.started_at),
        "usage": _usage(reply.usage), "elapsed_s": round((reply.finished_at - reply.started_at).total_seconds(), 3),
        **json_safe(fetch_fields(reply)),
    }
    if encoding != RAW_UTF8:
        content["raw_encoding"] = encoding
    if store_problem:
        content["raw_store_problem"] = store_problem
    return content


def _short(text: Any) -> str:
    return clean_text(str(text)[:200])


def _usage(usage: Mapping[str, Any]) -> dict[str, Any]:
    """What the seat reported about its run, made safe for the book and bounded in size."""
    safe: dict[str, Any] = json_safe(dict(usage))
    size = len(json.dumps(safe, ensure_ascii=False))
    return safe if size <= MAX_USAGE_CHARS else {"dropped": f"usage was {size} characters (at most {MAX_USAGE_CHARS})"}


def _bare_answer(content: Mapping[str, Any], problem: str) -> dict[str, Any]:
    keep = ("run_id", "session", "seat", "attempt", "own_sha256", "ask_sha256", "seat_ask_sha256", "booked_at",
            "started_at", "elapsed_s", "raw_encoding", "raw_store_problem", "fetches")
    return {**{k: content[k] for k in keep if k in content}, "model": "unreported", "version": "unreported",
            "mode": "", "status": "refused_shape", "items": {}, "years": {}, "parse_notes": [], "usage": {},
            "parse_failure": f"the parsed reply could not be sealed ({problem[:300]}); sealed without its cells"}


# ---------------------------------------------------------------------------- second wave
def answered_seats(lg: League, session: str) -> set[str]:
    runs = {r["run_id"] for r in counted_runs(lg, session)}
    return {a["seat"] for a in lg.index.answers(runs)}


def asks_in_flight(lg: League, session: str) -> set[str]:
    """Seats whose ask of this session is still running: working on an answer, not silent.

    Live, a thread is still waiting for the seat; simulated, the reply arrives after now. Such a
    seat is not asked again (a restart between 09:00 and 09:30 would otherwise ask every seat twice).
    """
    now = lg.clock.now()
    busy = {p.seat for p in lg.pending if p.session == session
            and (not p.future.done() or p.future.result().finished_at > now)}
    busy |= {seat for (sess, seat), fut in lg.inflight_by_seat.items() if sess == session and not fut.done()}
    return busy


def job_second_wave(lg: League, session: str) -> str | None:
    """Ask seats still silent at the second-wave time again, under their own run line and ask hash."""
    runs = counted_runs(lg, session)
    if not runs or any(r.get("attempt") == 2 for r in runs):
        return None
    in_flight = asks_in_flight(lg, session)
    silent = [s.name for s in lg.config.roster.seat
              if s.name not in answered_seats(lg, session) and s.name not in in_flight]
    if not silent:
        return None
    log.info("second_wave", session=session, seats=silent, still_running=sorted(in_flight))
    return job_ask(lg, session, seats=silent, attempt=2, parent=runs[0]["run_id"])


# ---------------------------------------------------------------------------- ingest close
def sealed_time(line: Mapping[str, Any]) -> datetime:
    """The time a line was sealed: ``max(at, booked_at)`` (open-data.md)."""
    at = parse_iso(line["at"])
    booked = line.get("booked_at")
    return max(at, parse_iso(booked)) if booked else at


def job_ingest_close(lg: League, session: str) -> int | None:
    """State, in the book, when counted ingest closed and which answer lines it holds."""
    if lg.index.of_kind("ingest_close", session):
        return None
    close_at = _deadline(lg, session)
    runs = {r["run_id"] for r in counted_runs(lg, session)}
    inside = [a["n"] for a in lg.index.answers(runs) if sealed_time(a) <= close_at]
    line = lg.append("ingest_close", {"session": session, "closed_at": iso_seconds(close_at),
                                      "counted_runs": sorted(runs), "answer_lines": inside,
                                      "book_lines": lg.book.lines})
    return line.n
