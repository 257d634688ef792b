"""When the contest's jobs run: the 06:00 UTC sweep, the round poll, the nightly resolve + publish.

The contest runs on the league daemon's APScheduler beside the council's day (same job defaults:
coalesced, one instance at a time, five minutes' misfire grace), but on UTC and every day, because
prediction markets do not keep NYSE hours. Three jobs:

- ``contest_sweep`` at ``[schedule] contest_sweep_utc``: :func:`run_sweep`, idempotent per UTC date
  (the book says whether the date is sealed). After a new seal the league stamps its books, the contest
  book among them, so the sweep's SHA-256 gets a time no operator can move.
- ``contest_poll`` every ``[schedule] poll_minutes``: new markets open rounds (Big Bet Friday on the
  configured weekday), then the follower calls waiting in the spool folder. A round's open line is
  sealed on the poll's thread, so the next poll counts it against "3 at once"; the round itself plays on
  a small pool, so a five-minute round never delays the next poll.
- ``contest_nightly`` at ``nightly_utc``: the winners the venue reports are sealed, the contest's
  public files rewritten, the books stamped.

Catch-up after a restart follows the council's rules: every missed fire of the last day runs once, in
order; a job that can no longer count is not run. A sweep asks about the markets open *now*, so the
sweep of an earlier UTC day is reported late and never made up; today's missed sweep runs at once. A
missed nightly runs once (resolution and publication are idempotent). Polls are not caught up: a poll
only ever looks at the present.
"""

from __future__ import annotations

import json
import os
import threading
from collections.abc import Callable
from concurrent.futures import Future, ThreadPoolExecutor, wait
from dataclasses import dataclass, field
from datetime import UTC, datetime, timedelta
from pathlib import Path
from typing import Protocol

import structlog
from apscheduler.triggers.cron import CronTrigger
from apscheduler.triggers.interval import IntervalTrigger

from league.contest.context import ContestContext
from league.contest.eligibility import Candidate
from league.contest.markets.interface import MarketSourceError
from league.contest.publish import publish
from league.contest.resolve import resolve_due
from league.contest.rounds import RoundResult, open_round, pick_rounds, play_opened, void_opened
from league.contest.sweep import SweepResult, run_sweep

log = structlog.get_logger(__name__)

SWEEP, POLL, NIGHTLY = "contest_sweep", "contest_poll", "contest_nightly"
CONTEST_JOBS = (SWEEP, POLL, NIGHTLY)
CATCH_UP_WINDOW = timedelta(days=1)


@dataclass(frozen=True, order=True)
class ContestFire:
    at: datetime
    job: str


@dataclass
class ContestRuntime:
    """What the scheduled contest jobs of one process share: the context (one ledger), the sweep time,
    the follower-call spool, the hook run after each seal (the league's stamp) and the rounds' pool."""

    ctx: ContestContext
    sweep_utc: str = "06:00"
    calls: Path | None = None
    after_seal: Callable[[str], object] = lambda _note: None
    _pool: ThreadPoolExecutor | None = field(default=None, repr=False)
    _rounds: list[Future[RoundResult]] = field(default_factory=list, repr=False)
    _lock: threading.Lock = field(default_factory=threading.Lock, repr=False)

    def submit(self, play: Callable[[], RoundResult]) -> Future[RoundResult]:
        with self._lock:
            if self._pool is None:
                workers = self.ctx.config.schedule.rounds_in_parallel
                self._pool = ThreadPoolExecutor(max_workers=workers, thread_name_prefix="contest-round")
            future = self._pool.submit(play)
            self._rounds = [f for f in self._rounds if not f.done()] + [future]
            return future

    def wait_rounds(self, timeout: float | None = None) -> list[RoundResult]:
        """The results of the rounds still tracked (those that finished within ``timeout``)."""
        with self._lock:
            pending = list(self._rounds)
        done, _ = wait(pending, timeout=timeout)
        return [f.result() for f in pending if f in done and f.exception() is None]

    def shutdown(self) -> None:
        """Start no new round; rounds already playing finish on their own threads (their clocks decide)."""
        with self._lock:
            if self._pool is not None:
                self._pool.shutdown(wait=False, cancel_futures=True)

    def close(self, timeout: float | None = None) -> None:
        """Stop, wait (bounded) for the rounds in play, then close the contest's book."""
        self.shutdown()
        self.wait_rounds(timeout)
        self.ctx.ledger.close()


# ----------------------------------------------------------------------------- the plan
def _daily(hhmm: str, start: datetime, end: datetime, job: str) -> list[ContestFire]:
    hour, minute = (int(x) for x in hhmm.split(":"))
    day = start.astimezone(UTC).date()
    fires = []
    while (at := datetime(day.year, day.month, day.day, hour, minute, tzinfo=UTC)) < end:
        if at >= start:
            fires.append(ContestFire(at, job))
        day += timedelta(days=1)
    return fires


def planned(rt: ContestRuntime, start: datetime, end: datetime) -> list[ContestFire]:
    """The sweep and nightly fires in [start, end), in time order (polls are not planned)."""
    nightly = rt.ctx.config.schedule.nightly_utc
    return sorted(_daily(rt.sweep_utc, start, end, SWEEP) + _daily(nightly, start, end, NIGHTLY))


def catch_up(rt: ContestRuntime, now: datetime | None = None) -> list[tuple[ContestFire, str]]:
    """Run what the last day's downtime missed, once each, in order; see the module docstring."""
    now = now or rt.ctx.clock.now()
    fires = planned(rt, now - CATCH_UP_WINDOW, now)
    last_nightly = max((f for f in fires if f.job == NIGHTLY), default=None)
    ran: list[tuple[ContestFire, str]] = []
    for fire in fires:
        if fire.job == SWEEP and fire.at.date() != now.astimezone(UTC).date():
            log.warning("contest.sweep_missed", date=fire.at.date().isoformat())
            ran.append((fire, "late"))
        elif fire.job == NIGHTLY and fire != last_nightly:
            ran.append((fire, "coalesced"))
        else:
            ran.append((fire, run_job(rt, fire.job)))
    return ran


# ----------------------------------------------------------------------------- the jobs
def job_sweep(rt: ContestRuntime) -> SweepResult:
    result = run_sweep(rt.ctx)
    if result.markets > 0 and result.sha256 is not None:
        rt.after_seal(f"contest sweep {result.date}")
    return result


def job_poll(rt: ContestRuntime) -> list[int]:
    """Open the new rounds (and the called ones) and hand each to the pool; the ids of those opened."""
    ctx = rt.ctx
    friday = ctx.clock.now().astimezone(UTC).weekday() == ctx.config.rounds.big_bet_weekday
    checked: list[list[str]] = []

    def failed() -> list[str]:
        """The pre-batch self-check, run once per poll and only before its first round opens (a check
        never eats into an agent's five minutes)."""
        if not checked:
            checked.append(ctx.failed_checks())
        return checked[0]

    opened = [_start(rt, c, high_stakes=friday, follower_called=False, failed=failed()) for c in pick_rounds(ctx)]
    called = take_calls(rt.calls) if rt.calls is not None else ()
    if called:  # picked after the poll's own rounds opened: those count against the caps
        try:
            picked = pick_rounds(ctx, market_ids=called)
        except MarketSourceError as exc:
            log.error("contest.call_unavailable", markets=list(called), error=exc.message)
            picked = []
        opened += [_start(rt, c, high_stakes=friday, follower_called=True, failed=failed()) for c in picked]
    return opened


def _start(rt: ContestRuntime, c: Candidate, *, high_stakes: bool, follower_called: bool, failed: list[str]) -> int:
    r = open_round(rt.ctx, c, high_stakes=high_stakes, follower_called=follower_called)
    rt.submit(lambda: void_opened(rt.ctx, r, failed) if failed else play_opened(rt.ctx, r))
    log.info("contest.round_started", round_id=r.round_id, market_id=r.market_id, high_stakes=high_stakes)
    return r.round_id


def job_nightly(rt: ContestRuntime) -> dict[str, str]:
    sealed = resolve_due(rt.ctx)
    publish(rt.ctx)
    rt.after_seal("contest nightly")
    return sealed


JOBS: dict[str, Callable[[ContestRuntime], object]] = {SWEEP: job_sweep, POLL: job_poll, NIGHTLY: job_nightly}


def run_job(rt: ContestRuntime, job: str) -> str:
    """Run one contest job; done | failed (logged: the daemon never dies of one job)."""
    try:
        JOBS[job](rt)
    except Exception:  # noqa: BLE001 - one failing job must not stop the scheduler
        log.exception("contest.job_failed", job=job)
        return "failed"
    return "done"


# ------------------------------------------------------------------------- follower calls
def call_market(spool: Path, market_id: str, by: str, at: datetime) -> Path:
    """Queue a follower's call for a market; the next poll opens its round (if the rules allow it)."""
    spool.mkdir(parents=True, exist_ok=True)
    path = spool / f"{at:%Y%m%dT%H%M%S}-{os.getpid()}-{threading.get_ident()}.json"
    tmp = path.with_suffix(".tmp")
    tmp.write_text(json.dumps({"market_id": market_id, "by": by, "at": at.isoformat()}), encoding="utf-8")
    os.replace(tmp, path)
    return path


def take_calls(spool: Path) -> tuple[str, ...]:
    """The market ids called since the last poll, oldest first; each call file moves to ``done/``."""
    if not spool.is_dir():
        return ()
    ids: list[str] = []
    done = spool / "done"
    for path in sorted(spool.glob("*.json")):
        try:
            market_id = str(json.loads(path.read_text(encoding="utf-8"))["market_id"])
        except (OSError, ValueError, KeyError, TypeError) as exc:
            log.error("contest.call_unreadable", file=str(path), error=str(exc))
            market_id = ""
        done.mkdir(exist_ok=True)
        os.replace(path, done / path.name)
        if market_id and market_id not in ids:
            ids.append(market_id)
    return tuple(ids)


# ----------------------------------------------------------------------------- APScheduler
_RUNTIME: dict[str, ContestRuntime] = {}


def scheduled_entry(job: str) -> None:
    """Module-level job function for the persistent job store (APScheduler needs an importable name)."""
    rt = _RUNTIME.get("rt")
    if rt is None:
        log.error("contest.not_configured", job=job)
        return
    run_job(rt, job)


class Scheduler(Protocol):
    """What the contest calls of an APScheduler scheduler."""

    def add_job(self, func: str, trigger: CronTrigger | IntervalTrigger, *, args: list[str], id: str,  # noqa: A002
                name: str, replace_existing: bool) -> object: ...


def add_jobs(sched: Scheduler, rt: ContestRuntime) -> None:
    """Add the three contest jobs to ``sched`` (UTC triggers) and register the runtime they run on."""
    _RUNTIME["rt"] = rt
    hour, minute = rt.sweep_utc.split(":")
    n_hour, n_minute = rt.ctx.config.schedule.nightly_utc.split(":")
    triggers = {
        SWEEP: CronTrigger(hour=int(hour), minute=int(minute), timezone=UTC),
        POLL: IntervalTrigger(minutes=rt.ctx.config.schedule.poll_minutes, timezone=UTC),
        NIGHTLY: CronTrigger(hour=int(n_hour), minute=int(n_minute), timezone=UTC),
    }
    for job, trigger in triggers.items():
        sched.add_job("league.contest.schedule:scheduled_entry", trigger, args=[job], id=f"league-{job}",
                      name=job, replace_existing=True)
