"""When jobs run: APScheduler wiring, the NYSE gate, catch-up after a restart, and the job runner.

The plan of a day is computed, not remembered: :func:`planned` lists every (time, session, job)
between two instants from the cron triggers in America/New_York, keeping only NYSE sessions. After a
restart, :func:`catch_up` runs every planned job that is not marked done in the job ledger, once and
in order; the scheduler then takes over for future fires. Each job is idempotent per (session, job)
twice over: the ledger claims it atomically and the day's functions check the book before sealing.
"""

from __future__ import annotations

import threading
from collections.abc import Callable
from dataclasses import dataclass
from datetime import date, datetime, timedelta
from typing import Any
from zoneinfo import ZoneInfo

import structlog

from league.config import Schedule
from league.season import League
from league.shutdown import Shutdown

log = structlog.get_logger(__name__)
ET = ZoneInfo("America/New_York")
DAY_JOBS = ("snapshot", "ask", "second_wave", "ingest_close", "score", "publish", "stamp_upgrade")


@dataclass(frozen=True, order=True)
class Fire:
    at: datetime
    session: str
    job: str


def trigger_for(schedule: Schedule, job: str) -> Any:
    """A Monday–Friday cron trigger in New York time (day names, never weekday numbers)."""
    from apscheduler.triggers.cron import CronTrigger

    hour, minute = getattr(schedule, job).split(":")
    return CronTrigger(day_of_week="mon,tue,wed,thu,fri", hour=int(hour), minute=int(minute), timezone=ET)


def planned(schedule: Schedule, calendar: Any, start: datetime, end: datetime,
            jobs: tuple[str, ...] = DAY_JOBS) -> list[Fire]:
    """Every fire in [start, end) of the day's jobs that falls on an NYSE session, in time order."""
    fires: list[Fire] = []
    for job in jobs:
        trigger = trigger_for(schedule, job)
        prev = None
        nxt = trigger.get_next_fire_time(None, start)
        while nxt is not None and nxt < end:
            day = nxt.astimezone(ET).date()
            if calendar.is_session(day):
                fires.append(Fire(nxt.astimezone(ZoneInfo("UTC")), day.isoformat(), job))
            prev = nxt
            nxt = trigger.get_next_fire_time(prev, nxt + timedelta(seconds=1))
    return sorted(fires, key=lambda f: (f.at, DAY_JOBS.index(f.job)))


# ------------------------------------------------------------------------------- running
def job_functions() -> dict[str, Callable[..., Any]]:
    from league import day

    table: dict[str, Callable[..., Any]] = {
        "snapshot": day.job_snapshot,
        "ask": day.job_ask,
        "second_wave": _second_wave_and_stamp,
        "ingest_close": _ingest_and_stamp,
        "score": _score_and_mark,
        "publish": _publish,
        "stamp_upgrade": _stamp_upgrade,
    }
    return table


def _second_wave_and_stamp(lg: League, session: str) -> Any:
    """The first wave's seals are a batch: stamp them before asking the silent seats again."""
    from league.day import job_second_wave

    _hook(lg, "stamp", session)
    return job_second_wave(lg, session)


def _ingest_and_stamp(lg: League, session: str) -> Any:
    from league.day import job_ingest_close

    n = job_ingest_close(lg, session)
    _hook(lg, "stamp", session)
    return n


def _score_and_mark(lg: League, session: str) -> Any:
    from league.scoring_day import job_score

    sealed = job_score(lg, session)
    _hook(lg, "crowd", session)
    _hook(lg, "portfolio", session)
    _hook(lg, "stamp", session)
    return sealed


def _publish(lg: League, session: str) -> Any:
    return _hook(lg, "publish", session)


def _stamp_upgrade(lg: League, session: str) -> Any:
    return _hook(lg, "stamp_upgrade", session)


def _hook(lg: League, name: str, session: str) -> Any:
    """Optional stages (stamps, portfolio, publish) registered on the league by the integration layer."""
    fn = getattr(lg, "hooks", {}).get(name)
    if fn is None:
        return None
    try:
        return fn(lg, session)
    except Exception:  # noqa: BLE001 - a stage failing (stamps, portfolio, publish) never undoes a seal
        log.exception("stage.failed", stage=name, session=session)
        return None


MORNING_JOBS = ("snapshot", "ask", "second_wave")


def too_late(lg: League, job: str, session: str) -> bool:
    """A morning job found after counted ingest closed is not run: asking then would not count."""
    from league.day import _deadline

    return job in MORNING_JOBS and lg.clock.now() >= _deadline(lg, session)


def run_job(lg: League, job: str, session: str, *, ledger: Any = None) -> str:
    """Run one job for one session exactly once; returns done | skipped | late | failed."""
    fn = job_functions()[job]
    now = lg.clock.now()
    if too_late(lg, job, session):
        log.warning("job.past_ingest_close", job=job, session=session)
        return "late"
    if ledger is not None and not ledger.claim_job(date.fromisoformat(session), job, now):
        return "skipped"
    try:
        fn(lg, session)
    except Exception as exc:  # noqa: BLE001 - the daemon never dies of one job; logged with run and job
        log.exception("job.failed", job=job, session=session)
        if ledger is not None:
            ledger.finish_job(date.fromisoformat(session), job, "failed", str(exc)[:500], lg.clock.now())
        return "failed"
    lg.index_asks()
    if ledger is not None:
        ledger.finish_job(date.fromisoformat(session), job, "done", "", lg.clock.now())
    return "done"


def catch_up(lg: League, start: datetime, until: datetime, *, ledger: Any = None,
             before_each: Callable[[Fire], object] | None = None,
             should_stop: Callable[[], bool] = lambda: False) -> list[tuple[Fire, str]]:
    """Run, in order, every planned job in [start, until) not yet done; each once (and none after
    ``should_stop`` turns true: a stop was requested)."""
    done: list[tuple[Fire, str]] = []
    opened = lg.index.of_kind("opening")
    if opened:
        from league.clock import parse_iso

        start = max(start, parse_iso(opened[0]["at"]))
    for fire in planned(lg.config.settings.schedule, lg.calendar, start, until):
        if should_stop():
            log.info("catch_up.stopped", next_job=fire.job, session=fire.session)
            break
        if before_each is not None:
            before_each(fire)
        done.append((fire, run_job(lg, fire.job, fire.session, ledger=ledger)))
    return done


# ------------------------------------------------------------------------------- daemon
_DAEMON: dict[str, Any] = {}
_ACTIVE = threading.Condition()
_RUNNING: list[str] = []  # scheduled jobs running now


def scheduled_entry(job: str) -> None:
    """Module-level job function for the persistent job store (APScheduler needs an importable name)."""
    lg, ledger = _DAEMON["league"], _DAEMON.get("ledger")
    stop: Shutdown | None = _DAEMON.get("shutdown")
    if stop is not None and stop.requested.is_set():
        log.info("job.not_started_stopping", job=job)
        return
    session = lg.clock.now().astimezone(ET).date()
    if not lg.calendar.is_session(session):
        log.info("job.not_a_session", job=job, day=str(session))
        return
    with _ACTIVE:
        _RUNNING.append(job)
    try:
        run_job(lg, job, session.isoformat(), ledger=ledger)
    finally:
        with _ACTIVE:
            _RUNNING.remove(job)
            _ACTIVE.notify_all()


def build_scheduler(lg: League, db_url: str, *, blocking: bool = True) -> Any:
    """APScheduler 3.x with a SQLAlchemy job store: one job per day-job, coalesced, one instance."""
    from apscheduler.jobstores.sqlalchemy import SQLAlchemyJobStore
    from apscheduler.schedulers.background import BackgroundScheduler
    from apscheduler.schedulers.blocking import BlockingScheduler

    cls = BlockingScheduler if blocking else BackgroundScheduler
    sched = cls(jobstores={"default": SQLAlchemyJobStore(url=db_url, tablename="apscheduler_jobs")}, timezone=ET,
                job_defaults={"coalesce": True, "max_instances": 1, "misfire_grace_time": 300})
    for job in DAY_JOBS:
        sched.add_job("league.scheduler:scheduled_entry", trigger_for(lg.config.settings.schedule, job), args=[job],
                      id=f"league-{job}", name=job, replace_existing=True)
    return sched


def run_daemon(lg: League, ledger: Any, db_url: str, shutdown: Shutdown | None = None) -> None:
    """Catch up on what a downtime missed since the book opened (in order, once), then run live
    until a stop is requested; then start nothing new and wait (bounded) for what is running."""
    stop = shutdown or Shutdown()
    _DAEMON.update(league=lg, ledger=ledger, shutdown=stop)
    now = lg.clock.now()
    ran = catch_up(lg, datetime(2000, 1, 1, tzinfo=ET), now, ledger=ledger,  # catch_up starts at the opening
                   should_stop=stop.requested.is_set)
    log.info("daemon.caught_up", jobs=len([r for r in ran if r[1] == "done"]))
    if stop.requested.is_set():
        return
    sched = build_scheduler(lg, db_url, blocking=False)
    sched.start()
    try:
        while not stop.requested.wait(1.0):
            pass
    finally:
        sched.shutdown(wait=False)  # no job starts from here on
    log.info("daemon.stopping", signal=stop.signum, grace_s=stop.grace_s, jobs_running=list(_RUNNING))
    wait_for_jobs(stop)


def wait_for_jobs(stop: Shutdown) -> bool:
    """Wait for scheduled jobs still running, at most the rest of the grace period; True if none is left."""
    with _ACTIVE:
        while _RUNNING:
            left = stop.remaining()
            if left is not None and left <= 0:
                log.warning("daemon.jobs_abandoned", jobs=list(_RUNNING))
                return False
            _ACTIVE.wait(0.25 if left is None else min(0.25, left))
    return True
