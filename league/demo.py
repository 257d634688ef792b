"""The demo season: the live code paths, offline, under a simulated clock at full speed.

Replay prices (real daily history with synthesized minutes), scripted seats running as real child
processes inside the bubblewrap sandbox, the baselines, the local RFC 3161 authority when it is
available, SQLite. The day's jobs run in their scheduled order; replies are sealed at their
simulated arrival times. It ends by publishing the open data and verifying the book it wrote.

Demo-only: scripted seats may receive an "oracle hint" (the session's true direction, blurred by
each seat's ``skill``) in the ask's structured context so the league table has something to rank.
The hint never appears in the ask text and no live seat receives it.
"""

from __future__ import annotations

import json
from collections.abc import Callable
from dataclasses import dataclass
from datetime import date, timedelta
from pathlib import Path
from typing import Any

import structlog

from league.clock import SimulatedClock
from league.config import Config, load_config
from league.day import pump
from league.errors import LeagueError
from league.season import League

log = structlog.get_logger(__name__)
DEFAULT_START = date(2026, 6, 1)


@dataclass(frozen=True)
class DemoResult:
    data_dir: Path
    public_dir: Path
    sessions: list[str]
    book_lines: int
    forecasts: int


def demo_sessions(calendar: Any, start: date, count: int) -> list[date]:
    first = calendar.session_on_or_after(start)
    return [calendar.offset(first, k) for k in range(count)]


def build_league(config: Config, clock: SimulatedClock, *, seats: dict[str, Any] | None = None,
                 prices: Any = None, store: Any = None, anchor: date | None = None) -> League:
    from league.calendar import default_calendar
    from league.prices.replay import SyntheticMarket

    calendar = default_calendar()
    if prices is None:
        seed, markets = config.settings.prices.seed, config.markets.markets
        from league.prices.memo import MemoProvider

        prices = MemoProvider(SyntheticMarket(seed, markets, calendar, anchor=anchor) if anchor is not None
                              else SyntheticMarket(seed, markets, calendar))
    if seats is None:
        from agents.registry import build_seat

        seats = {s.name: build_seat(s) for s in config.roster.seat}
    return League(config, clock, prices=prices, seats=seats, calendar=calendar, store=store)


def oracle_hints(lg: League, session: date) -> dict[str, dict[str, float]]:
    """Demo only: the session's true 1d/1w direction per market, for scripted seats' ``skill``."""
    from league.contracts import EventContract
    from league.day import run_events
    from league.scoring_day import _Bars, event_outcome

    hints: dict[str, dict[str, float]] = {}
    bars = _Bars(lg)
    for code, by_h in run_events(lg, session.isoformat()).items():
        hints[code] = {}
        for h in ("1d", "1w"):
            if h in by_h:
                up = event_outcome(lg, code, h, EventContract.from_mapping(by_h[h]), bars)
                if up is not None:
                    hints[code][h] = 80.0 if up else 20.0
    return hints


def run_session(lg: League, day: date, *, ledger: Any = None) -> list[tuple[Any, str]]:
    """One league day through the scheduler's own catch-up path; the clock jumps from fire to fire
    and replies are sealed at their simulated arrival times in between."""
    from datetime import time

    from league.markettime import et_time
    from league.scheduler import catch_up

    start = et_time(day, time(3, 0))
    end = et_time(day + timedelta(days=1), time(3, 0))
    return catch_up(lg, start, end, ledger=ledger, before_each=lambda fire: pump(lg, fire.at))


def run_demo(out: Path, *, sessions: int = 10, seed: int = 7, start: date = DEFAULT_START,
             progress: Callable[[str], None] | None = None) -> DemoResult:
    from league.cli.init import init_folder

    if (out / "config").exists():
        raise LeagueError(f"{out} already holds a league", fix="choose an empty --out folder")
    from league.calendar import default_calendar
    from league.config import load_roster, shipped_config_dir
    from league.preflight import require

    demo_roster = load_roster(shipped_config_dir() / "roster.demo.toml")
    require(demo_roster.seat, local_tsa=True, simulated=True, what="the demo")

    days = demo_sessions(default_calendar(), start, sessions)
    clock = SimulatedClock(session_times_start(days[0]))
    config_dir, data_dir = init_folder(out, demo=True, seed=seed, clock=clock)
    config = load_config(config_dir)
    from league.store import open_store

    store = open_store(config.database_url)
    with build_league(config, clock, anchor=days[0], store=store) as lg:
        from league.crowd_day import synthetic_crowd
        from league.wiring import wire

        lg.crowd = synthetic_crowd(lg, seed)
        wire(lg, publish_nightly=False)
        from league.portfolio_day import record_bill_rates

        record_bill_rates(lg, days[0] - timedelta(days=10), days[-1])
        table = json.loads((lg.data_dir / "climatology.json").read_text(encoding="utf-8"))
        clim = climatology_context(table)
        lg.hooks["ask_context"] = lambda league, s: {"hint": oracle_hints(league, date.fromisoformat(s)),
                                                      "climatology": clim}
        for day in days:
            run_session(lg, day, ledger=store)
            if progress:
                progress(day.isoformat())
        pump(lg, clock.now() + timedelta(days=1))
        public = publish_all(lg)
        lines, count = lg.book.lines, _count_rows(public / "council-forecasts.csv")
    return DemoResult(data_dir, public, [d.isoformat() for d in days], lines, count)


def session_times_start(day: date) -> Any:
    from datetime import time

    from league.markettime import et_time

    return et_time(day, time(8, 0))


def climatology_context(table: dict[str, Any]) -> dict[str, dict[str, float]]:
    """p_up (percent) per market and horizon for the `_climatology` seat, after the hash re-check."""
    from league.scoring.climatology import clim_probabilities

    out: dict[str, dict[str, float]] = {}
    for (asset, horizon), p in clim_probabilities(table).items():
        out.setdefault(asset, {})[horizon] = round(p, 2)
    return out


def publish_all(lg: League) -> Path:
    """Write the open data under DATA/public with the nightly publisher (`league publish`)."""
    from league.publish.files import publish

    report = publish(lg.data_dir, config=lg.config, clock=lg.clock)
    for name, why in (*report.skipped, *report.failed):
        log.warning("demo.publish_incomplete", file=name, why=why)
    return report.out_dir


def _count_rows(path: Path) -> int:
    with open(path, encoding="utf-8") as fh:
        return max(0, sum(1 for _ in fh) - 1)
