"""The second wave (docs/protocol.md §5): seats still silent at 09:00 ET are asked once more.

Each re-ask has its own run line and ask hash; a seat whose first ask is still running is working on
an answer, not silent, and is not asked again.
"""

from __future__ import annotations

import structlog

from league.counting import counted_runs
from league.jobs.ask import job_ask, next_run_id
from league.jobs.context import League
from league.jobs.stamp import stamp
from league.stamping.stamper import StampResult

log = structlog.get_logger(__name__)


def answered_seats(lg: League, session: str) -> set[str]:
    runs = {r.run_id for r in counted_runs(lg.view, session)}
    return {a.seat for a in lg.books.index.answers(runs)}


def asks_in_flight(lg: League, session: str) -> set[str]:
    """Seats whose ask of this session is still running: working on an answer, not silent.

    Live, a thread is still waiting for the seat; simulated, the reply arrives after now. Such a
    seat is not asked again (a restart between 09:00 and 09:30 would otherwise ask every seat twice).
    """
    now = lg.clock.now()
    busy = {p.seat for p in lg.asking.pending if p.council and p.session == session
            and (not p.future.done() or p.future.result().finished_at > now)}
    busy |= {seat for (sess, seat), fut in lg.asking.inflight_by_seat.items() if sess == session and not fut.done()}
    return busy


def job_second_wave(lg: League, session: str) -> str | None:
    """Ask seats still silent at the second-wave time again, under their own run line and ask hash."""
    runs = counted_runs(lg.view, session)
    if not runs or any(r.attempt == 2 for r in runs):
        return None
    in_flight = asks_in_flight(lg, session)
    silent = [s.name for s in lg.config.roster.seat
              if s.name not in answered_seats(lg, session) and s.name not in in_flight]
    if not silent:
        return None
    log.info("second_wave", session=session, seats=silent, still_running=sorted(in_flight))
    return job_ask(lg, session, seats=silent, attempt=2, parent=runs[0].run_id)


def stamp_first_wave(lg: League, session: str) -> StampResult | None:
    """The first wave's seals are a batch: stamp them before the second wave, once. A daemon restarted
    in the middle of the second wave (its roster already in the ask chain) does not stamp again: the
    first wave was stamped before that roster, and the books' heads have moved on since."""
    runs = counted_runs(lg.view, session)
    started = any(r.attempt == 2 for r in runs) or lg.books.asks.roster_of(next_run_id(lg, session)) is not None
    if runs and started:
        log.info("second_wave.first_wave_already_stamped", session=session)
        return None
    return stamp(lg, session)
