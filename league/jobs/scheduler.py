"""When jobs run: APScheduler wiring, the NYSE gate, catch-up after a restart, and the job runner.

The plan of a day is computed, not remembered: :func:`planned` lists every (time, session, job)
between two instants from the cron triggers in America/New_York, keeping only NYSE sessions. After a
restart, :func:`catch_up` runs every planned job that is not marked done in the job ledger, once and
in order; the scheduler then takes over for future fires. Each job is idempotent per (session, job)
twice over: the ledger claims it atomically and the day's functions check the book before sealing.
"""

from __future__ import annotations

import threading
import time as time_mod
from collections.abc import Callable
from dataclasses import dataclass
from datetime import date, datetime, time, timedelta
from typing import TYPE_CHECKING, Any
from zoneinfo import ZoneInfo

import structlog
from apscheduler.jobstores.sqlalchemy import SQLAlchemyJobStore
from apscheduler.schedulers.background import BackgroundScheduler
from apscheduler.schedulers.blocking import BlockingScheduler
from apscheduler.triggers.cron import CronTrigger

from league.calendar import Calendar, et_time
from league.clock import parse_iso
from league.config import Schedule
from league.contest.schedule import add_jobs
from league.contest.schedule import catch_up as contest_catch_up
from league.errors import BookError
from league.jobs.arm_accounts import mark_arms
from league.jobs.arms import job_arms
from league.jobs.ask import deadline, job_ask, prefetch_fits
from league.jobs.context import League
from league.jobs.crowd import resolve_crowd
from league.jobs.extra_runs import job_evening, job_sunday_radar, job_weekend_btc, score_extra_runs
from league.jobs.ingest_close import job_ingest_close
from league.jobs.portfolio import mark_session
from league.jobs.publish import publish_open_data
from league.jobs.resume import resume_in_flight
from league.jobs.score import job_score
from league.jobs.seal import pump
from league.jobs.second_wave import job_second_wave, stamp_first_wave
from league.jobs.shadow import seal_shadow_weights
from league.jobs.snapshot import job_snapshot
from league.jobs.sources import fetch_sources
from league.jobs.stamp import stamp, stamp_upgrade
from league.jobs.talk import job_talk, job_talk_replies, settle_talk
from league.jobs.verify_book import start_nightly
from league.ops import health as ops_health
from league.ops import metrics, sdnotify
from league.shutdown import Shutdown
from league.store.interface import Store

if TYPE_CHECKING:
    from league.contest.schedule import ContestRuntime

log = structlog.get_logger(__name__)
ET = ZoneInfo("America/New_York")


@dataclass(frozen=True, order=True)
class Fire:
    at: datetime
    session: str
    job: str


def trigger_for(schedule: Schedule, job: str) -> Any:
    """A cron trigger in New York time (day names, never weekday numbers): Monday–Friday for the day's jobs,
    the extra reference runs on their own days (:data:`EXTRA_DAYS`)."""
    hour, minute = getattr(schedule, job).split(":")
    return CronTrigger(day_of_week=EXTRA_DAYS.get(job, WEEKDAYS), hour=int(hour), minute=int(minute), timezone=ET)


def planned(schedule: Schedule, calendar: Calendar, start: datetime, end: datetime,
            jobs: tuple[str, ...] | None = None, *, extra: tuple[str, ...] = ()) -> list[Fire]:
    """Every fire in [start, end) of the day's jobs that falls on an NYSE session, and of the ``extra`` reference
    runs configured (the evening run on sessions, the weekend ones on their days), in time order. A fire's
    ``session`` is the New York day it falls on."""
    fires: list[Fire] = []
    for job in (*(jobs or DAY_JOBS), *extra):
        trigger = trigger_for(schedule, job)
        prev = None
        nxt = trigger.get_next_fire_time(None, start)
        while nxt is not None and nxt < end:
            day = nxt.astimezone(ET).date()
            if calendar.is_session(day) or job in OFF_SESSION:
                fires.append(Fire(nxt.astimezone(ZoneInfo("UTC")), day.isoformat(), job))
            prev = nxt
            nxt = trigger.get_next_fire_time(prev, nxt + timedelta(seconds=1))
    order = (*DAY_JOBS, *EXTRA_JOBS)
    return sorted(fires, key=lambda f: (f.at, order.index(f.job)))


# ------------------------------------------------------------------------------- the jobs
Run = Callable[[League, str], object]


@dataclass(frozen=True)
class Stage:
    """An optional stage run beside a job; it fails alone (logged with its session), never undoing a seal."""

    name: str
    run: Run


@dataclass(frozen=True)
class Job:
    """One scheduled job: its name (its ``[schedule]`` key), what it runs, and the stages around it.

    ``optional`` jobs are stages themselves (publish, the stamp upgrade): their failure is logged and
    the job is still done. Another schedule (the CLI contest's) builds its own table of Jobs."""

    name: str
    run: Run
    before: tuple[Stage, ...] = ()
    after: tuple[Stage, ...] = ()
    optional: bool = False


STAMP = Stage("stamp", stamp)
#: The league day, in order: snapshot → ask → arms → (stamp) second wave → ingest close (stamp) → score
#: (crowd, portfolio, the arms' own accounts, the talk's reveals and shadow accounts, the frozen shadow weights
#: after session 10, stamp) → the council talk's chair and replies (on the talk day) → publish → stamp upgrade.
#: Before the score, the next session's history-only fits start in their worker process
#: (league.jobs.ask.prefetch_fits).
#: Each stage is one module of this package.
DAY: tuple[Job, ...] = (
    Job("snapshot", job_snapshot),
    Job("ask", job_ask),
    Job("arms", job_arms),  # the experiments' arms and repeats (docs/experiments.md): their own book, never counted
    Job("second_wave", job_second_wave, before=(Stage("stamp", stamp_first_wave),)),  # the first wave: a batch
    Job("ingest_close", job_ingest_close, after=(Stage("fetch_records", fetch_sources), STAMP)),
    Job("score", job_score, before=(Stage("prefetch", prefetch_fits),),
        after=(Stage("crowd", resolve_crowd), Stage("portfolio", mark_session), Stage("arm_accounts", mark_arms),
               Stage("extra_scores", score_extra_runs), Stage("talk_settle", settle_talk),
               Stage("shadow_weights", seal_shadow_weights), STAMP)),
    Job("talk", job_talk),  # the council talk (docs/experiments.md): its own lines in the arms' book
    Job("talk_replies", job_talk_replies),
    Job("publish", publish_open_data, optional=True),
    Job("stamp_upgrade", stamp_upgrade, optional=True),
)
DAY_JOBS = tuple(job.name for job in DAY)
#: The extra reference runs (docs/experiments.md): planned only when ``[arms] extra_runs`` names them.
EXTRA: tuple[Job, ...] = (
    Job("evening", job_evening),
    Job("weekend_btc", job_weekend_btc),
    Job("sunday_radar", job_sunday_radar),
)
EXTRA_JOBS = tuple(job.name for job in EXTRA)
WEEKDAYS = "mon,tue,wed,thu,fri"
#: The days each extra run fires on; the evening run only on a session, the weekend ones whatever the calendar.
EXTRA_DAYS = {"evening": WEEKDAYS, "weekend_btc": "sat,sun", "sunday_radar": "sun"}
OFF_SESSION = frozenset({"weekend_btc", "sunday_radar"})
JOBS = {job.name: job for job in (*DAY, *EXTRA)}
MORNING_JOBS = ("snapshot", "ask", "arms", "second_wave")


TALK_JOBS = ("talk", "talk_replies")


def day_jobs(lg: League) -> tuple[str, ...]:
    """The day's jobs this league runs: the ``arms`` job only when ``[arms]`` asks for arms or repeats, the talk's
    only when ``[talk]`` is enabled (a league without them plans, claims and logs exactly the day it always had)."""
    arms = lg.config.settings.arms
    off = (() if arms.arms or arms.repeat_seats else ("arms",)) + (() if lg.config.settings.talk.enabled
                                                                     else TALK_JOBS)
    return tuple(j for j in DAY_JOBS if j not in off)


def _stage(lg: League, stage: Stage, session: str) -> object:
    """Run a stage; its failure is logged, except a book that could not be written (a full disk): then
    the job fails, so the catch-up retries it with its stages (each idempotent) instead of losing the
    stage's lines for good (docs/reliability.md)."""
    try:
        return stage.run(lg, session)
    except BookError:
        raise
    except Exception:  # noqa: BLE001 - a stage failing (stamps, portfolio, publish) never undoes a seal
        log.exception("stage.failed", stage=stage.name, session=session)
        return None


def run_stages(lg: League, job: Job, session: str) -> object:
    """The job with the stages before and after it (an optional job runs as a stage itself)."""
    for stage in job.before:
        _stage(lg, stage, session)
    result = _stage(lg, Stage(job.name, job.run), session) if job.optional else job.run(lg, session)
    for stage in job.after:
        _stage(lg, stage, session)
    return result


def too_late(lg: League, job: str, session: str) -> bool:
    """A morning job found after counted ingest closed is not run: asking then would not count."""
    return job in MORNING_JOBS and lg.clock.now() >= deadline(lg, session)


def run_job(lg: League, job: str, session: str, *, ledger: Store | None = None) -> str:
    """Run one job for one session exactly once; returns done | skipped | late | failed.

    Every log line it causes carries the job and session (structlog context variables), and the
    result is counted in the metrics and kept as the daemon's last job."""
    with structlog.contextvars.bound_contextvars(job=job, session=session):
        started = time_mod.perf_counter()
        ops_health.DAEMON.started(job, session)
        result = "failed"
        try:
            result = _run_job(lg, job, session, ledger)
        finally:
            ops_health.DAEMON.finished(job, session, result)
            ran = result in ("done", "failed")
            metrics.job_result(job, result, time_mod.perf_counter() - started if ran else None)
        return result


def _run_job(lg: League, job: str, session: str, ledger: Store | None) -> str:
    now = lg.clock.now()
    lg.books.refresh_window()  # a daemon that runs for months keeps only the window in memory
    if too_late(lg, job, session):
        log.warning("job.past_ingest_close", job=job, session=session)
        return "late"
    if ledger is not None and not ledger.claim_job(date.fromisoformat(session), job, now):
        return "skipped"
    try:
        with lg.books.indexing_batch():  # the job's lines reach the database index in one transaction at its end
            run_stages(lg, JOBS[job], session)
    except Exception as exc:  # noqa: BLE001 - the daemon never dies of one job; logged with run and job
        log.exception("job.failed", job=job, session=session)
        if ledger is not None:
            ledger.finish_job(date.fromisoformat(session), job, "failed", str(exc)[:500], lg.clock.now())
        return "failed"
    lg.books.index_asks()
    if ledger is not None:
        ledger.finish_job(date.fromisoformat(session), job, "done", "", lg.clock.now())
    return "done"


def catch_up(lg: League, start: datetime, until: datetime, *, ledger: Store | None = None,
             before_each: Callable[[Fire], object] | None = None,
             should_stop: Callable[[], bool] = lambda: False,
             stop_on_failure: bool = False) -> list[tuple[Fire, str]]:
    """Run, in order, every planned job in [start, until) not yet done; each once (and none after
    ``should_stop`` turns true: a stop was requested). First, the asks a killed daemon left in flight
    are resumed (league.jobs.resume): re-sent identically, or sealed as lost when past their deadline.
    With ``stop_on_failure`` the catch-up ends at the first failed job (a simulated daemon retries it
    at once, before any later job runs: docs/reliability.md)."""
    resume_in_flight(lg)
    done: list[tuple[Fire, str]] = []
    opened = lg.books.index.of_kind("opening")
    if opened:
        start = max(start, parse_iso(opened[0].at))
    for fire in planned(lg.config.settings.schedule, lg.market.calendar, start, until, day_jobs(lg),
                        extra=lg.config.settings.arms.extra_runs):
        if should_stop():
            log.info("catch_up.stopped", next_job=fire.job, session=fire.session)
            break
        if before_each is not None:
            before_each(fire)
        done.append((fire, run_job(lg, fire.job, fire.session, ledger=ledger)))
        if stop_on_failure and done[-1][1] == "failed":
            log.warning("catch_up.stopped_at_failure", job=fire.job, session=fire.session)
            break
    return done


def session_start(day: date) -> datetime:
    """08:00 New York time on ``day``: where a simulated league day starts (before the snapshot)."""
    return et_time(day, time(8, 0))


def run_session(lg: League, day: date, *, ledger: Store | None = None) -> list[tuple[Fire, str]]:
    """One league day under a simulated clock, through the scheduler's own catch-up path: the clock
    jumps from fire to fire and replies are sealed at their simulated arrival times in between."""
    start = et_time(day, time(3, 0))
    end = et_time(day + timedelta(days=1), time(3, 0))
    if lg.config.settings.arms.extra_runs:  # the weekend's (and a holiday's) runs before the next session's day
        end = max(end, et_time(lg.market.calendar.next_session(day), time(3, 0)))
    return catch_up(lg, start, end, ledger=ledger, before_each=lambda fire: pump(lg, fire.at))


# ------------------------------------------------------------------------------- daemon
_DAEMON: dict[str, Any] = {}
_ACTIVE = threading.Condition()
_RUNNING: list[str] = []  # scheduled jobs running now


def scheduled_entry(job: str) -> None:
    """Module-level job function for the persistent job store (APScheduler needs an importable name). A job runs
    on an NYSE session only, except the weekend reference runs (:data:`OFF_SESSION`), keyed by the day they fire."""
    lg, ledger = _DAEMON["league"], _DAEMON.get("ledger")
    stop: Shutdown | None = _DAEMON.get("shutdown")
    if stop is not None and stop.requested.is_set():
        log.info("job.not_started_stopping", job=job)
        return
    session = lg.clock.now().astimezone(ET).date()
    if job not in OFF_SESSION and not lg.market.calendar.is_session(session):
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


def verify_book_entry() -> None:
    """Module-level nightly job (APScheduler needs an importable name): the full verification of the
    council book on a background thread of its own (league.jobs.verify_book), never blocking a day job."""
    lg: League | None = _DAEMON.get("league")
    stop: Shutdown | None = _DAEMON.get("shutdown")
    if lg is None or (stop is not None and stop.requested.is_set()):
        return
    start_nightly(lg)


def nightly_trigger(schedule: Schedule) -> Any:
    """Every day (weekends too: the book does not rest) at ``[schedule] verify_book``, New York time."""
    hour, minute = schedule.verify_book.split(":")
    return CronTrigger(hour=int(hour), minute=int(minute), timezone=ET)


def build_scheduler(lg: League, db_url: str, *, blocking: bool = True, contest: ContestRuntime | None = None) -> Any:
    """APScheduler 3.x with a SQLAlchemy job store: one job per day-job, coalesced, one instance; the CLI
    contest's three UTC jobs beside them when this league runs the contest."""
    cls = BlockingScheduler if blocking else BackgroundScheduler
    sched = cls(jobstores={"default": SQLAlchemyJobStore(url=db_url, tablename="apscheduler_jobs")}, timezone=ET,
                job_defaults={"coalesce": True, "max_instances": 1, "misfire_grace_time": 300})
    for job in day_jobs(lg):
        sched.add_job("league.jobs.scheduler:scheduled_entry", trigger_for(lg.config.settings.schedule, job),
                      args=[job], id=f"league-{job}", name=job, replace_existing=True)
    sched.add_job("league.jobs.scheduler:verify_book_entry", nightly_trigger(lg.config.settings.schedule),
                  id="league-verify-book", name="verify_book", replace_existing=True)
    for job in lg.config.settings.arms.extra_runs:  # the extra reference runs, on their own days
        sched.add_job("league.jobs.scheduler:scheduled_entry", trigger_for(lg.config.settings.schedule, job),
                      args=[job], id=f"league-{job}", name=job, replace_existing=True)
    if contest is not None:
        add_jobs(sched, contest)
    return sched


def run_daemon(lg: League, ledger: Store | None, db_url: str, shutdown: Shutdown | None = None,
               contest: ContestRuntime | None = None) -> None:
    """Catch up on what a downtime missed since the book opened (in order, once), then run live
    until a stop is requested; then start nothing new and wait (bounded) for what is running. With
    ``contest``, the contest catches up after the council (its own rules) and runs beside it.

    Under systemd it reports its state (STATUS, STOPPING); the entry point has said READY and runs
    the watchdog pings by the health rule of league.ops.health, which the loop here keeps beating."""
    stop = shutdown or Shutdown()
    health = ops_health.DAEMON
    _DAEMON.update(league=lg, ledger=ledger, shutdown=stop)
    sdnotify.notify("STATUS=catching up on missed jobs")
    try:
        _live(lg, ledger, db_url, stop, health, contest)
    finally:
        health.stopping = True
        sdnotify.notify("STOPPING=1", "STATUS=stopped: no job starts; replies in flight were sealed or abandoned")


def _live(lg: League, ledger: Store | None, db_url: str, stop: Shutdown, health: ops_health.Health,
          contest: ContestRuntime | None = None) -> None:
    now = lg.clock.now()
    ran = catch_up(lg, datetime(2000, 1, 1, tzinfo=ET), now, ledger=ledger,  # catch_up starts at the opening
                   should_stop=stop.requested.is_set, before_each=lambda _fire: health.beat())
    log.info("daemon.caught_up", jobs=len([r for r in ran if r[1] == "done"]))
    if contest is not None and not stop.requested.is_set():
        contest_catch_up(contest)
    if stop.requested.is_set():
        return
    sched = build_scheduler(lg, db_url, blocking=False, contest=contest)
    sched.start()
    sdnotify.notify("STATUS=following the NYSE schedule")
    try:
        while not stop.requested.wait(1.0):
            health.beat()
    finally:
        sched.shutdown(wait=False)  # no job starts from here on
        if contest is not None:
            contest.shutdown()
    sdnotify.notify("STATUS=stopping: sealing replies in flight")
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
