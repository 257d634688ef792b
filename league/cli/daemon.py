"""Operator verbs: `league daemon`, `league run JOB`, `league status`."""

from __future__ import annotations

import threading
from collections.abc import Sequence
from datetime import datetime, timedelta
from pathlib import Path
from typing import TYPE_CHECKING, Annotated

import structlog
import typer
from rich.console import Console
from rich.table import Table

from league.calendar import ET, default_calendar
from league.cli._common import parse_day
from league.config import load_config
from league.errors import LeagueError
from league.extras import extra
from league.jobs.inflight import read_in_flight, read_remote_state
from league.jsonvalue import items, obj
from league.log import configure
from league.shutdown import DEFAULT_GRACE_S, Shutdown, exit_now
from league.workers.broker import broker_report

if TYPE_CHECKING:
    from league.config import Config
    from league.jobs.context import League

log = structlog.get_logger(__name__)
JOB_HELP = "snapshot | ask | second_wave | ingest_close | score | publish | stamp_upgrade"
ConfigOpt = Annotated[Path, typer.Option("--config", envvar="LEAGUE_CONFIG", help="config folder")]
GraceOpt = Annotated[float, typer.Option(
    "--stop-grace", envvar="LEAGUE_STOP_GRACE_S", min=0.0,
    help="after SIGTERM/SIGINT, seconds to wait for asks in flight (keep below systemd's TimeoutStopSec)")]
StandbyOpt = Annotated[float, typer.Option(
    "--standby-poll", envvar="LEAGUE_STANDBY_POLL_S", min=0.1,
    help="while another daemon leads this league, seconds between tries of the leader lock")]
OpsOpt = Annotated[str, typer.Option(
    "--ops-listen", envvar="LEAGUE_OPS_LISTEN",
    help="HOST:PORT of the daemon's /healthz and /metrics endpoint (loopback by default; 'off' disables it)")]


def daemon(config: ConfigOpt = Path("config"), stop_grace: GraceOpt = DEFAULT_GRACE_S,
           ops_listen: OpsOpt = "127.0.0.1:9464", standby_poll: StandbyOpt = 5.0) -> None:
    """Run live: catch up on missed jobs in order (once each), then follow the NYSE schedule.

    One daemon leads a league: a second one started beside it (this host or another sharing the
    PostgreSQL index) waits as a standby and takes over when the leader dies (docs/operations.md).
    SIGTERM/SIGINT: start nothing new, seal the replies that arrive within --stop-grace seconds,
    exit 0; a second signal exits at once. Under systemd (Type=notify) it reports READY and pings
    the watchdog; /healthz and /metrics are served on --ops-listen. The CLI contest runs beside the
    council when the config folder holds a contest.toml (docs/contest.md)."""
    with extra("daemon"):
        from league.ops import health, leader, sdnotify
    configure(json_logs=True, level="INFO")
    listen = health.parse_listen(ops_listen)
    cfg = load_config(config)
    stop = Shutdown(stop_grace).install()
    server = health.serve(health.DAEMON, *listen) if listen else None
    if server is not None:
        log.info("ops.listening", url=f"http://{listen[0]}:{server.server_address[1]}/healthz")  # type: ignore[index]
    pings_off = threading.Event()
    sdnotify.start_watchdog(health.DAEMON.alive, pings_off)
    lock = leader.leader_lock(cfg.database_url, cfg.data_dir)
    try:
        sdnotify.notify("READY=1", "STATUS=taking the leader lock")
        if leader.wait_to_lead(lock, poll_s=standby_poll, stop=stop.requested.is_set,
                               on_wait=_standing_by):
            _lead(config, stop)
    finally:
        pings_off.set()
        lock.release()
        if server is not None:
            server.shutdown()
    exit_now(0)  # asks still running past the grace period are abandoned, not waited for


def _standing_by() -> None:
    with extra("daemon"):
        from league.ops import health, sdnotify
    health.DAEMON.beat()
    sdnotify.notify("STATUS=standby: another daemon leads this league")


def _lead(config: Path, stop: Shutdown) -> None:
    with extra("daemon"):
        from league.compose import open_contest, open_live
        from league.jobs.scheduler import run_daemon
    lg = open_live(config)
    lg.asking.shutdown = stop
    contest = open_contest(lg)  # the CLI contest runs beside the council when config/contest.toml exists
    try:
        run_daemon(lg, lg.books.store, lg.config.database_url, stop, contest=contest)
    finally:
        if contest is not None:
            contest.close(stop.remaining())
        lg.close()
    log.info("daemon.stopped", signal=stop.signum, seal_failures=len(lg.asking.seal_failures))


def run(
    job: Annotated[str, typer.Argument(help="one of: " + JOB_HELP)],
    session: Annotated[str | None, typer.Option("--session", envvar="LEAGUE_SESSION", help="YYYY-MM-DD")] = None,
    config: ConfigOpt = Path("config"),
    force_counted: Annotated[
        bool, typer.Option("--counted", help="an ask by hand counts (default: a reference run)")
    ] = False,
    stop_grace: GraceOpt = DEFAULT_GRACE_S,
) -> None:
    """Run one job by hand for one session (default today, New York time).

    Exits 1 if a reply could not be sealed. SIGTERM/SIGINT: seal what arrives within --stop-grace
    seconds, then exit; a second signal exits at once."""
    with extra("daemon"):
        from league.compose import open_live
        from league.jobs.scheduler import DAY_JOBS
    if job not in DAY_JOBS:
        raise LeagueError(f"unknown job {job!r}", fix=f"use one of: {', '.join(DAY_JOBS)}")
    stop = Shutdown(stop_grace).install()
    lg = open_live(config)
    lg.asking.shutdown = stop
    try:
        message = _run_one(lg, job, session, force_counted)
    finally:
        lg.close()
        if not stop.requested.is_set():
            stop.restore()
    typer.echo(message)
    if lg.asking.seal_failures:
        with extra("daemon"):
            from league.jobs.seal import SealFailed
        failures = lg.asking.seal_failures
        error = SealFailed(f"{len(failures)} replies could not be sealed: {'; '.join(failures)[:1500]}",
                           fix="check the disk of the data folder; the raw replies named in the log were not lost "
                               "from the seats, ask again with `league run ask`")
        if not stop.requested.is_set():
            raise error
        typer.echo(f"error: {error.diagnostics()}", err=True)
    if stop.requested.is_set():
        exit_now(1 if lg.asking.seal_failures else 0)


def _run_one(lg: League, job: str, session: str | None, force_counted: bool) -> str:
    with extra("daemon"):
        from league.jobs.scheduler import run_job
    day = session or _today(lg)
    if not lg.market.calendar.is_session(parse_day(day, option="--session")):
        raise LeagueError(f"{day} is not an NYSE session", fix="pass --session with a trading day")
    if job == "ask" and not force_counted:
        with extra("daemon"):
            from league.jobs.ask import job_ask
        run_id = job_ask(lg, day, role="not_counted")
        return f"reference run {run_id} sent (not counted; pass --counted for the session's counted run)"
    result = run_job(lg, job, day, ledger=lg.books.store)
    why = {"skipped": " (the job ledger says it is done or running; nothing sealed twice)",
           "late": " (after counted ingest closed at the deadline: an ask now could not count)"}
    return f"{job} {day}: {result}{why.get(result, '')}"


def _today(lg: League) -> str:
    return str(lg.clock.now().astimezone(ET).date().isoformat())


def status(config: ConfigOpt = Path("config")) -> None:
    """Next jobs, the last runs and job results, and each seat's last answer."""
    with extra("daemon"):
        from league.jobs.scheduler import planned
        from league.store import open_store
    if not (config / "league.toml").is_file() and (config / "config" / "league.toml").is_file():
        config = config / "config"  # the folder of `league demo --out DIR`
    cfg = load_config(config)
    if not (cfg.data_dir / "books").is_dir():
        raise LeagueError(f"{cfg.data_dir}: no league data folder (no books/)",
                          fix="check [paths] data in league.toml, or run `league init DIR`")
    store = open_store(cfg.database_url)
    console = Console()
    now = datetime.now().astimezone()
    nxt = Table(title="next jobs (America/New_York)")
    for col in ("when", "session", "job"):
        nxt.add_column(col)
    for fire in planned(cfg.settings.schedule, default_calendar(), now, now + timedelta(days=4))[:10]:
        nxt.add_row(fire.at.astimezone(ET).strftime("%a %Y-%m-%d %H:%M %Z"), fire.session, fire.job)
    console.print(nxt)
    _print_rows(console, "last jobs", ("session", "job", "status", "finished_at", "detail"),
                store.job_history(limit=10))
    _print_rows(console, "last runs", ("session", "run_id", "role", "line", "at"), store.last_runs(limit=5))
    _print_rows(console, "each seat's last answer", ("seat", "session", "run_id", "line", "booked_at", "model"),
                store.last_answers())
    with extra("daemon"):
        from league.stamping.stamper import recent_stamps
    stamps = Table(title="recent stamps (trust level reached; failures are retried at the next batch)")
    for col in ("day", "list", "trust level", "backends"):
        stamps.add_column(col)
    for s in recent_stamps(cfg.data_dir / "stamps"):
        outcomes = ", ".join(f"{b.get('name', '?')}: {'ok' if b.get('ok') else 'FAILED ' + str(b.get('error', ''))}"
                             for b in map(obj, items(s.get("backends"))))
        stamps.add_row(str(s.get("day", "")), str(s.get("list", "")), str(s.get("trust_level", "")), outcomes)
    console.print(stamps)
    store.close()
    _print_workers(console, cfg)


def _print_workers(console: Console, cfg: Config) -> None:
    """The asks in flight (from the books: sent, no reply sealed yet) and, when the roster names lab
    workers, each lab's queue on the broker: workers connected, asks waiting, replies not yet taken."""
    queues = {s.name: s.worker for s in cfg.roster.seat if s.worker}
    flying = Table(title="asks in flight (sent, no reply sealed yet; latest session)")
    for col in ("session", "run_id", "seat", "attempt", "asked at", "runs on"):
        flying.add_column(col)
    for f in read_in_flight(cfg.data_dir / "books", queues):
        flying.add_row(f.session, f.run_id, f.seat, str(f.attempt), f.asked_at, f.queue or "this host")
    console.print(flying)
    if not queues:
        return
    _print_remote_state(console, cfg)
    labs = Table(title="lab workers (broker)")
    for col in ("queue", "workers", "asks waiting", "replies not yet taken", "problem"):
        labs.add_column(col)
    for queue, st, problem in broker_report(cfg):
        cells = (str(st.workers), str(st.asks_waiting), str(st.replies_waiting)) if st else ("", "", "")
        labs.add_row(queue, *cells, problem or ("no worker connected" if st and not st.workers else ""))
    console.print(labs)


def _print_remote_state(console: Console, cfg: Config) -> None:
    """The daemon's remote runner's own view: each ask queued or running, on which worker, until when."""
    state = read_remote_state(cfg)
    if state is None:
        return
    table = Table(title=f"remote asks as the daemon sees them (written {state.get('written_at', '?')})")
    for col in ("seat", "queue", "state", "worker", "since", "cutoff"):
        table.add_column(col)
    for row in state.get("asks", []):
        table.add_row(*(str(row.get(c) or "") for c in ("seat", "queue", "state", "worker", "since", "cutoff")))
    console.print(table)


def _print_rows(console: Console, title: str, cols: tuple[str, ...], rows: Sequence[object]) -> None:
    table = Table(title=title)
    for col in cols:
        table.add_column(col)
    for r in rows:
        table.add_row(*(str(getattr(r, c, "") or "") for c in cols))
    console.print(table)


def register(app: typer.Typer) -> None:
    app.command("daemon")(daemon)
    app.command("run")(run)
    app.command("status")(status)
