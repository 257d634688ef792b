"""Operator verbs: `league daemon`, `league run JOB`, `league status`."""

from __future__ import annotations

from datetime import date, datetime, timedelta
from pathlib import Path
from typing import Annotated, Any

import typer

from league.errors import LeagueError

JOB_HELP = "snapshot | ask | second_wave | ingest_close | score | publish | stamp_upgrade"
ConfigOpt = Annotated[Path, typer.Option("--config", envvar="LEAGUE_CONFIG", help="config folder")]


def open_live(config_dir: Path) -> tuple[Any, Any]:
    """The league as the daemon runs it: system clock (or simulated per config), real providers, store."""
    from league.calendar import default_calendar
    from league.clock import SystemClock
    from league.config import load_config
    from league.season import League
    from league.store import open_store

    config = load_config(config_dir)
    from league.preflight import require

    require(config.roster.seat, local_tsa=config.settings.stamps.local_tsa,
            simulated=config.settings.clock.mode == "simulated", what="the daemon")
    store = open_store(config.database_url)
    prices = make_prices(config, store=store)
    from agents.registry import build_seat

    seats = {s.name: build_seat(s) for s in config.roster.seat}
    lg = League(config, SystemClock(), prices=prices, seats=seats, calendar=default_calendar(), store=store)
    from league.wiring import wire

    wire(lg, self_check=True)
    return lg, store


def make_prices(config: Any, *, store: Any = None) -> Any:
    """The configured price provider behind the price cache (DATA/prices, mirrored into the database)."""
    from league.calendar import default_calendar

    if config.settings.prices.provider == "replay":
        from league.prices.replay import SyntheticMarket

        return SyntheticMarket(config.settings.prices.seed, config.markets.markets, default_calendar())
    from league.prices.cache import CachedProvider
    from league.prices.yahoo import YahooProvider

    mirrors = []
    if store is not None:
        from league.store.bar_cache import DbBarCache

        mirrors.append(DbBarCache(store))
    return CachedProvider(YahooProvider(retries=config.settings.prices.retries), config.data_dir / "prices",
                          mirrors=mirrors)


def daemon(config: ConfigOpt = Path("config")) -> None:
    """Run live: catch up on missed jobs in order (once each), then follow the NYSE schedule."""
    from league.log import configure
    from league.scheduler import run_daemon

    configure(json_logs=True, level="INFO")
    lg, store = open_live(config)
    try:
        run_daemon(lg, store, lg.config.database_url)
    finally:
        lg.close()


def run(
    job: Annotated[str, typer.Argument(help="one of: " + JOB_HELP)],
    session: Annotated[str | None, typer.Option("--session", envvar="LEAGUE_SESSION", help="YYYY-MM-DD")] = None,
    config: ConfigOpt = Path("config"),
    force_counted: Annotated[
        bool, typer.Option("--counted", help="an ask by hand counts (default: a reference run)")
    ] = False,
) -> None:
    """Run one job by hand for one session (default today, New York time)."""
    from league.scheduler import DAY_JOBS, run_job

    if job not in DAY_JOBS:
        raise LeagueError(f"unknown job {job!r}", fix=f"use one of: {', '.join(DAY_JOBS)}")
    lg, store = open_live(config)
    try:
        day = session or _today(lg)
        if not lg.calendar.is_session(date.fromisoformat(day)):
            raise LeagueError(f"{day} is not an NYSE session", fix="pass --session with a trading day")
        if job == "ask" and not force_counted:
            from league.day import job_ask

            run_id = job_ask(lg, day, role="not_counted")
            typer.echo(f"reference run {run_id} sent (not counted; pass --counted for the session's counted run)")
            return
        result = run_job(lg, job, day, ledger=store)
        why = {"skipped": " (the job ledger says it is done or running; nothing sealed twice)",
               "late": " (after counted ingest closed at the deadline: an ask now could not count)"}
        typer.echo(f"{job} {day}: {result}{why.get(result, '')}")
    finally:
        lg.close()


def _today(lg: Any) -> str:
    from league.markettime import ET

    return str(lg.clock.now().astimezone(ET).date().isoformat())


def status(config: ConfigOpt = Path("config")) -> None:
    """Next jobs, the last runs and job results, and each seat's last answer."""
    from rich.console import Console
    from rich.table import Table

    from league.config import load_config
    from league.markettime import ET
    from league.scheduler import planned
    from league.store import open_store

    cfg = load_config(config)
    if not (cfg.data_dir / "books").is_dir():
        raise LeagueError(f"{cfg.data_dir}: no league data folder (no books/)",
                          fix="check [paths] data in league.toml, or run `league init DIR`")
    store = open_store(cfg.database_url)
    console = Console()
    now = datetime.now().astimezone()
    from league.calendar import default_calendar

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
    from league.stamps.stamper import recent_stamps

    stamps = Table(title="recent stamps (trust level reached; failures are retried at the next batch)")
    for col in ("day", "list", "trust level", "backends"):
        stamps.add_column(col)
    for s in recent_stamps(cfg.data_dir / "stamps"):
        outcomes = ", ".join(f"{b.get('name', '?')}: {'ok' if b.get('ok') else 'FAILED ' + str(b.get('error', ''))}"
                             for b in s.get("backends", []))
        stamps.add_row(str(s.get("day", "")), str(s.get("list", "")), str(s.get("trust_level", "")), outcomes)
    console.print(stamps)
    store.close()


def _print_rows(console: Any, title: str, cols: tuple[str, ...], rows: list[Any]) -> None:
    from rich.table import Table

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
