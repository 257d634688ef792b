"""The one composition root: configuration → a :class:`League` ready to run.

The daemon and ``league run`` (:func:`open_live`), the demo and the tests all build their league
here, from a loaded :class:`Config`: the calendar, the price source, the seats and the runner that asks
them, the crowd provider, the store, and which optional stages run. Nothing else constructs a League,
so what runs in production is what the demo and the tests run; an offline league differs only by its
configuration (replay prices, scripted seats, local authorities) and by stand-ins passed explicitly.
"""

from __future__ import annotations

from collections.abc import Callable, Mapping, Sequence
from datetime import date
from functools import partial
from pathlib import Path
from typing import cast

from league.calendar import Calendar, default_calendar
from league.clock import Clock, SimulatedClock, SystemClock
from league.config import Config, load_config
from league.contest.config import load_config as load_contest
from league.contest.context import ContestContext, broker_for, market_source
from league.contest.ledger import Ledger
from league.contest.schedule import ContestRuntime
from league.crowd.combined import CombinedCrowd
from league.crowd.interface import CrowdProvider
from league.errors import ConfigError, LeagueError
from league.heap import collector_paused, settle_heap
from league.jobs.ask import default_context
from league.jobs.context import BARE, EVERY, AskContext, League, Stages
from league.jobs.inflight import remote_state_file
from league.jobs.preflight import require
from league.jobs.seal import seal_record
from league.jobs.stamp import CONTEST_BOOK, stamp_note
from league.prices.cache import BarCache
from league.prices.interface import PriceSource
from league.registry import CROWD, NO_CROWD, PRICES, ROUTED_RUNNER, THREAD_RUNNER, load
from league.runner import SeatRunner, remote_runner, runner_factory
from league.store import open_store
from league.store.bar_cache import DbBarCache
from league.store.interface import Store
from league.workers import wire
from league.workers.broker import league_target
from league.workers.errors import WorkerError
from league_agents.base import Seat
from league_agents.registry import build_seat, is_sandboxed, make_sandbox
from league_agents.selfcheck import preflight
from sandbox.interface import SandboxError

#: What the entry points of ``forecast_league.prices`` and ``forecast_league.crowd`` are.
PriceFactory = Callable[[Config, Calendar, Sequence[BarCache], date | None], PriceSource]
CrowdFactory = Callable[[Config, PriceSource, Calendar], CrowdProvider]
#: What each seat runner of ``forecast_league.runners`` is built from, by name.
LocalRunnerFactory = Callable[[Mapping[str, Seat]], SeatRunner]
RouterFactory = Callable[[SeatRunner, SeatRunner], SeatRunner]
#: Where a live league runs: every stage, and the self-check sealed before each morning run.
LIVE = Stages(preflight=True)


def build_league(config: Config, clock: Clock, *, stages: Stages = EVERY, store: Store | None = None,
                 prices: PriceSource | None = None, seats: dict[str, Seat] | None = None,
                 crowd: CrowdProvider | None = None, runner: SeatRunner | None = None,
                 calendar: Calendar | None = None, anchor: date | None = None,
                 ask_context: AskContext | None = None) -> League:
    """Open the league of ``config`` with everything built from it; an argument given replaces what the
    config would build (a test's price stand-in, the demo's synthetic crowd and hints).

    ``anchor`` fixes where replay prices sit at realistic levels (the demo's first session)."""
    calendar = calendar or default_calendar()
    prices = prices if prices is not None else make_prices(config, calendar, store=store, anchor=anchor)
    seats = seats if seats is not None else build_seats(config)
    if crowd is None and stages.crowd:
        crowd = make_crowd(config, prices, calendar)
    if ask_context is None and stages.climatology:
        ask_context = default_context
    runner = runner or make_runner(config, clock, seats)
    with collector_paused():  # the memory window's lines are loaded: long-lived, no cycles (league/heap.py)
        league = League(config, clock, prices=prices, seats=seats, runner=runner, calendar=calendar, store=store,
                        crowd=crowd, stages=stages, ask_context=ask_context)
    runner.on_record(partial(seal_record, league))
    return league


def build_seats(config: Config) -> dict[str, Seat]:
    """One seat per roster entry that runs here, by its adapter (CLI and scripted seats share the
    bubblewrap sandbox); a seat on a lab's worker (``worker = ...``) is built there, not here."""
    return {s.name: build_seat(s) for s in config.roster.seat if not s.worker}


def make_runner(config: Config, clock: Clock, seats: dict[str, Seat]) -> SeatRunner:
    """The registered seat runners (group ``forecast_league.runners``): local threads; when the roster names
    lab workers, those seats go through the broker (``remote``) and the router (``routed``) sends each
    roster entry to its runner."""
    local = cast(LocalRunnerFactory, runner_factory(THREAD_RUNNER))(seats)
    if not any(s.worker for s in config.roster.seat):
        return local
    return cast(RouterFactory, runner_factory(ROUTED_RUNNER))(local, make_remote_runner(config, clock))


def make_remote_runner(config: Config, clock: Clock) -> SeatRunner:
    """The league's side of remote seats, from ``[workers]`` of league.toml (docs/workers.md). Each remote
    seat's roster entry is checked for secrets first: nothing secret may travel to a queue."""
    for spec in (s for s in config.roster.seat if s.worker):
        problems = wire.secret_problems(spec)
        if problems:
            raise ConfigError(f"roster seat {spec.name!r} (worker {spec.worker!r}): {problems[0]}",
                              fix="name the variable or the credential file; the lab's worker reads the value")
    try:
        target = league_target(config)
    except WorkerError as exc:
        raise ConfigError(f"{config.folder / 'league.toml'}: [workers]: {exc.message}", fix=exc.fix) from None
    w = config.settings.workers
    simulated = isinstance(clock, SimulatedClock)
    return remote_runner(target, SystemClock() if simulated else clock, grace_s=w.grace_s,
                         run_margin_s=w.run_margin_s, simulated=simulated, state_file=remote_state_file(config))


def make_prices(config: Config, calendar: Calendar, *, store: Store | None = None,
                anchor: date | None = None) -> PriceSource:
    """The price provider ``[prices] provider`` names (entry-point group ``forecast_league.prices``); a
    live provider mirrors the bars it caches into the database."""
    factory = load(PRICES, config.settings.prices.provider, f"{config.folder / 'league.toml'}: key `prices.provider`")
    mirrors = [DbBarCache(store)] if store is not None else []
    return cast(PriceFactory, factory)(config, calendar, mirrors, anchor)


def make_crowd(config: Config, prices: PriceSource, calendar: Calendar) -> CrowdProvider | None:
    """The crowd provider ``[crowd] provider`` names (group ``forecast_league.crowd``), or none; behind it, the
    venue ``[crowd] fallback`` names for the markets it lacks (Kalshi behind Polymarket unless set)."""
    crowd = config.settings.crowd
    if crowd.provider == NO_CROWD:
        return None
    primary = crowd_provider(config, crowd.provider, "crowd.provider", prices, calendar)
    if crowd.fallback_provider == NO_CROWD:
        return primary
    return CombinedCrowd(primary, crowd_provider(config, crowd.fallback_provider, "crowd.fallback", prices, calendar))


def crowd_provider(config: Config, name: str, key: str, prices: PriceSource, calendar: Calendar) -> CrowdProvider:
    factory = load(CROWD, name, f"{config.folder / 'league.toml'}: key `{key}`")
    return cast(CrowdFactory, factory)(config, prices, calendar)


def open_live(config_dir: Path) -> League:
    """The league as the daemon and ``league run`` run it: the system clock, the configured providers,
    the store, every stage and the self-check; refused up front when it could not run as configured."""
    config = load_config(config_dir)
    if config.settings.clock.mode != "system":
        raise ConfigError(
            f"{config.folder / 'league.toml'}: [clock] mode = {config.settings.clock.mode!r}: the daemon and "
            "`league run` follow the system clock; a simulated clock is run by `league demo` itself",
            fix='set [clock] mode = "system" in league.toml (or run `league demo` for a simulated season)',
        )
    here = [s for s in config.roster.seat if not s.worker]  # a lab's worker checks its own seats
    require(here, what="the daemon")
    sandbox_ready(config)
    store = open_store(config.database_url)
    league = build_league(config, SystemClock(), stages=LIVE, store=store)
    settle_heap()  # once, the window just loaded: later full collections walk only the day's new objects
    return league


def sandbox_ready(config: Config) -> None:
    """Refuse to start when sandboxed seats could not run capped here (no bubblewrap, no cgroup):
    a clear error now, instead of an incident sealed for every such seat every morning."""
    if not any(is_sandboxed(s.adapter) for s in config.roster.seat if not s.worker):
        return

    try:
        make_sandbox()
    except SandboxError as exc:
        raise LeagueError(f"the seats' sandbox cannot run on this host: {exc.message}", fix=exc.fix) from None


def open_for_correction(config_dir: Path) -> League:
    """The league's books for sealing a correction by hand (``league correct``): no seats, no stamps,
    no price source in use; the correction is sealed at the system clock's time, after every line it
    names."""
    config = load_config(config_dir)
    return build_league(config, SystemClock(), stages=BARE, store=open_store(config.database_url))


def open_contest(lg: League) -> ContestRuntime | None:
    """The CLI contest beside a live league, when ``contest.toml`` is in its config folder (see
    :func:`contest_runtime`), stamped with the league's books after every contest seal."""
    path = lg.config.folder / "contest.toml"
    if not path.is_file():
        return None

    return contest_runtime(path, lg.data_dir, lg.clock, lg.config.settings.schedule.contest_sweep_utc,
                           after_seal=lambda note: stamp_note(lg, note))


def contest_runtime(path: Path, data_dir: Path, clock: Clock, sweep_utc: str,
                    after_seal: Callable[[str], object] = lambda _note: None) -> ContestRuntime:
    """The contest of ``path`` on a data folder: the contest book under DATA/books (one ledger, the
    process's one writer), the live market source (``gamma``: Polymarket's Gamma and CLOB APIs), the paper
    broker unless the operator enabled live trading, the contest's files under DATA/contest, follower calls
    spooled in DATA/contest-calls, and the pre-batch self-check of every seat."""
    config = load_contest(path)
    ledger = Ledger(data_dir / "books" / CONTEST_BOOK, clock)
    ctx = ContestContext(config, clock, ledger, market_source("gamma", config.venue), data_dir / "contest",
                         broker=broker_for(config.venue))
    ctx.selfcheck = lambda: contest_selfcheck(ctx)
    return ContestRuntime(ctx, sweep_utc=sweep_utc, calls=data_dir / "contest-calls", after_seal=after_seal)


def contest_selfcheck(ctx: ContestContext) -> list[str]:
    """Before each contest batch: the sandbox's isolation, the egress proxy, every agent's CLI and
    credentials, and a trivial ask answered by each (league_agents.selfcheck.preflight); the failed lines."""
    checks = preflight([a.seat for a in ctx.config.agents], ctx.clock.now, sandbox=ctx.base_sandbox(), ask_each=True)
    return [f"{c.name}: {c.detail}" for c in checks if not c.ok]
