"""Asks in flight when the daemon died, resumed at open/catch-up (docs/operations.md, "Restart").

An ask is in flight from its ``ask`` line in the ask chain until its reply line in the council book
(:mod:`league.jobs.inflight`). The replies of a killed daemon's asks were in its memory only, so a
restarted daemon resumes every ask of a sealed run that has no reply line, exactly once:

* sealed in the chain, no reply line: re-sent IDENTICALLY — same run, same attempt, the same text
  (re-built from the published common text and the seat's accounts as they were when it was sealed,
  and checked against the sealed hash). Under a simulated clock the seat reads the original asked
  time, so a deterministic seat's reply arrives at the simulated instant it would have arrived
  without the restart, and is sealed then (the uninterrupted run's line);
* named by its run line's roster, never sealed in the chain (the daemon died in the fan-out): sealed
  and sent now, as the fan-out would have;
* live, past its deadline: nobody can answer it in time any more; the line an uninterrupted run
  would have written is unknowable, so a ``silence`` line with failure ``no_answer`` says the ask
  was lost with the daemon. The same line is sealed when an ask cannot be re-sent identically (its
  common text or snapshot is gone, or the text no longer has the sealed hash).

Resuming is idempotent within a process (an ask already pending or running here is not re-sent),
and across processes the reply line decides.
"""

from __future__ import annotations

import json
from collections import defaultdict
from collections.abc import Mapping, Sequence
from dataclasses import dataclass
from datetime import UTC, datetime, timedelta
from typing import Any

import structlog

from league import records
from league.asks import account_block, sha256_text
from league.book.chain import BookLine
from league.book.index import record_of
from league.book.lines import SilenceLine
from league.book.tail import recent_lines
from league.clock import iso_seconds, parse_iso
from league.jobs.arms import resume_arms
from league.jobs.ask import deadline, markets_asked, seat_accounts, send, structured_context
from league.jobs.context import League
from league.jobs.inflight import REPLY_KINDS
from league.jobs.seal import sweep_temporary
from league.jobs.snapshot import snapshot_path
from league.jobs.talk import resume_talk
from league.runner import SeatAsk
from league_agents.base import Ask, Now

log = structlog.get_logger(__name__)
LOST = "no_answer"

Key = tuple[str, str, int]  # (run_id, seat, attempt)


@dataclass(frozen=True)
class Resumed:
    """What a restart did with one ask in flight: ``resent``, ``sent`` (never sealed before) or ``lost``."""

    run_id: str
    seat: str
    attempt: int
    action: str
    detail: str = ""


def resume_in_flight(lg: League) -> list[Resumed]:
    """Resume every ask of a sealed run that has no reply line (see the module docstring), after
    removing the temporary files the dead daemon left behind. Once per opened league: only a process
    that died can leave asks in flight, and this one's own are pending or running (re-reading the whole
    ask chain at every simulated session's catch-up made a season quadratic)."""
    if lg.asking.resumed:
        return []
    lg.asking.resumed = True
    sweep_temporary(lg.data_dir)
    runs = lg.books.index.of(records.Run)
    chain = [record_of(line) for line in _recent_asks(lg, runs) if line.kind in ("roster", "ask")]
    rosters = {x.run_id: x for x in chain if isinstance(x, records.Roster)}
    sealed = {(x.run_id, x.seat, x.attempt): x for x in chain if isinstance(x, records.Ask)}
    replied = {(x.run_id, x.seat, x.attempt) for kind in REPLY_KINDS for x in lg.books.index.of_kind(kind)
               if isinstance(x, records.Answer | records.Silence | records.Incident | records.ReplyRecord)}
    busy = _in_process(lg)
    out: list[Resumed] = []
    for run in runs:
        todo = []
        for seat in run.roster:
            key = (run.run_id, seat, run.attempt)
            if key in replied or key in busy:
                continue
            ask = sealed.get(key)
            todo.append((key, ask, parse_iso(ask.at) if ask else parse_iso(run.at)))
        if todo:
            out += _resume_run(lg, run, rosters.get(run.run_id), todo)
    out += [Resumed(rid, seat, 1, action) for rid, seat, action in resume_arms(lg)]
    out += [Resumed(rid, seat, 1, action) for rid, seat, action in resume_talk(lg)]
    if out:
        log.warning("resume.in_flight", asks=[f"{r.run_id} {r.seat} #{r.attempt}: {r.action}" for r in out])
    return out


#: How long before a run's line its roster and asks may have been sealed (they come first, minutes before).
ASKED_BEFORE_RUN = timedelta(days=1)


def _recent_asks(lg: League, runs: Sequence[records.Run]) -> list[BookLine]:
    """The ask chain's lines sealed since the day before the earliest run in memory, read back from the end
    of the file and verified (league.book.tail): only those runs can have asks in flight. The whole chain,
    read from line 1, made every new process's first catch-up grow with the league's age."""
    if not runs:
        return []
    since = min(parse_iso(run.at) for run in runs) - ASKED_BEFORE_RUN
    return recent_lines(lg.books.asks.path, lambda obj: _sealed_at(obj) >= since)


def _sealed_at(obj: Mapping[str, object]) -> datetime:
    """A line's ``at`` (the writer's clock, in the file's order); a line without one ends the read."""
    try:
        return parse_iso(str(obj["at"]))
    except (KeyError, ValueError):
        return datetime.min.replace(tzinfo=UTC)


def _in_process(lg: League) -> set[Key]:
    """Asks this process already holds: pending (simulated) or running (live: by session and seat)."""
    busy = {(p.run_id, p.seat, p.attempt) for p in lg.asking.pending if p.council}
    running = {key for key, fut in lg.asking.inflight_by_seat.items() if not fut.done()}
    for run in lg.books.index.of(records.Run):
        busy |= {(run.run_id, s, run.attempt) for s in run.roster if (run.session, s) in running}
    return busy


def _resume_run(lg: League, run: records.Run, roster: records.Roster | None,
                todo: Sequence[tuple[Key, records.Ask | None, datetime]]) -> list[Resumed]:
    session, run_id, attempt = run.session, run.run_id, run.attempt
    common_sha = run.ask_sha256
    common, record = _common(lg, run)
    asked = _asked(lg, roster)
    specs = {s.name: s for s in lg.config.roster.seat}
    out: list[Resumed] = []
    batches: dict[datetime, list[SeatAsk]] = defaultdict(list)
    context = None
    for (_, seat, _), ask, asked_at in todo:
        problem = _why_not(lg, session, seat, specs, common, asked_at)
        text = "" if problem or common is None else common + account_block(
            seat, seat_accounts(lg.books.index, seat, until=asked_at))
        if not problem and ask is not None and sha256_text(text) != ask.ask_sha256:
            problem = "its text can no longer be re-built with the sealed hash"
        if problem:
            _seal_lost(lg, run_id, session, seat, attempt, problem)
            out.append(Resumed(run_id, seat, attempt, "lost", problem))
            continue
        if ask is None:  # named by the run's roster, never sealed: the fan-out died before it
            lg.books.asks.seal_ask(run_id, session, seat, attempt, text, common_sha)
        if context is None:
            extra = lg.asking.ask_context(lg, session) if lg.asking.ask_context is not None else None
            context = structured_context(lg, record, extra)
        batches[asked_at].append(SeatAsk(specs[seat], Ask(text=text, sha256=sha256_text(text), session=session,
                                                          attempt=attempt, context=context)))
        out.append(Resumed(run_id, seat, attempt, "resent" if ask else "sent"))
    for asked_at, items in sorted(batches.items()):
        send(lg, run_id, session, items, common_sha, asked, now=_at(asked_at) if lg.simulated else None)
    return out


def _at(instant: datetime) -> Now:
    """A clock standing at ``instant``: what a resumed seat of a simulated league reads (its asked time)."""
    return lambda: instant


def _common(lg: League, run: records.Run) -> tuple[str | None, dict[str, Any]]:
    """The run's published common text and its snapshot record (``None`` text when either is gone)."""
    text_path = lg.data_dir / "asks" / f"{run.ask_sha256}.md"
    snap_path = snapshot_path(lg, run.session)
    try:
        text = text_path.read_bytes().decode("utf-8")
        record: dict[str, Any] = json.loads(snap_path.read_text(encoding="utf-8"))
    except (OSError, ValueError):
        return None, {}
    if sha256_text(text) != run.ask_sha256 or record.get("sha256") != run.snapshot_sha256:
        return None, {}
    return text, record


def _asked(lg: League, roster: records.Roster | None) -> dict[str, list[str]]:
    """The markets and horizons the run asked (its sealed roster; the configuration without one)."""
    if roster is not None and roster.seats:
        return {m: list(h) for m, h in roster.seats[0].horizons.items()}
    return markets_asked(lg)


def _why_not(lg: League, session: str, seat: str, specs: Mapping[str, object], common: str | None,
             asked_at: datetime) -> str:
    """Why this ask cannot be resumed identically ("" when it can)."""
    if seat not in specs:
        return "its seat is no longer in the roster"
    if common is None:
        return "its common text or snapshot is gone or no longer has the sealed hash"
    if not lg.simulated and lg.clock.now() >= deadline(lg, session):
        return (f"it was in flight (asked {iso_seconds(asked_at)}) when the daemon stopped and counted ingest "
                f"closed before the restart")
    return ""


def _seal_lost(lg: League, run_id: str, session: str, seat: str, attempt: int, why: str) -> None:
    lg.books.seal(SilenceLine.from_content({
        "run_id": run_id, "session": session, "seat": seat, "attempt": attempt, "failure": LOST,
        "detail": f"the ask was lost with the daemon: {why}"[:500], "booked_at": iso_seconds(lg.clock.now())}))
