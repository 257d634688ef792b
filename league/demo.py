"""The demo season: configuration plus offline stand-ins, run through the live code paths at full speed.

The league is built by the one composition root (:func:`league.compose.build_league`) from the demo
configuration that ``league init --demo`` writes: replay prices (real daily history with synthesized
minutes), scripted seats running as real child processes inside the bubblewrap sandbox, the
baselines, two local RFC 3161 test authorities, SQLite. The stand-ins that no configuration can
express are added here: a seeded synthetic crowd resolved by the replay's own outcomes, the oracle
hints, and a local OpenTimestamps calendar and Rekor log on 127.0.0.1 for the season's duration.
The day's jobs run through the scheduler's catch-up path under a simulated clock; replies are sealed
at their simulated arrival times. It ends by publishing the open data (the caller verifies the book).

Demo-only: scripted seats may receive an "oracle hint" (the session's true direction, blurred by
each seat's ``skill``) in the ask's structured context so the league table has something to rank.
The hint never appears in the ask text and no live seat receives it. Only the ``league demo`` verb
imports this module (an import contract in pyproject.toml holds that).
"""

from __future__ import annotations

from collections.abc import Callable, Iterator
from contextlib import contextmanager
from dataclasses import dataclass
from datetime import date, time, timedelta
from pathlib import Path
from typing import Any

import structlog

from league.calendar import Calendar, default_calendar, et_time, event_contract
from league.clock import Clock, SimulatedClock
from league.compose import build_league
from league.config import Config, MarketSpec, load_config, load_roster, shipped_config_dir
from league.counting import run_events
from league.crowd.recorded import SyntheticCrowd
from league.errors import LeagueError
from league.folder import init_folder
from league.jobs.ask import default_context
from league.jobs.context import League, Stages
from league.jobs.portfolio import record_bill_rates
from league.jobs.preflight import require
from league.jobs.scheduler import run_session, session_start
from league.jobs.score import Bars, event_outcome
from league.jobs.seal import pump
from league.jobs.stamp import release_stamp, use_services
from league.prices.reference import terminal_price
from league.publish.compliance import MANIFEST
from league.publish.files import PublishReport, publish, refresh_proof
from league.publish.memory import release_memory
from league.stamps.stamper import Stamper
from league.stamps.standins import LocalCalendar, LocalRekor
from league.store import open_store

log = structlog.get_logger(__name__)
DEFAULT_START = date(2026, 6, 1)
#: The demo publishes once, at the end (not every simulated night).
DEMO_STAGES = Stages(publish=False)


@dataclass(frozen=True)
class DemoResult:
    data_dir: Path
    public_dir: Path
    sessions: list[str]
    book_lines: int
    forecasts: int


def demo_sessions(calendar: Calendar, start: date, count: int) -> list[date]:
    first = calendar.session_on_or_after(start)
    return [calendar.offset(first, k) for k in range(count)]


def run_demo(out: Path, *, sessions: int = 10, seed: int = 7, start: date = DEFAULT_START,
             progress: Callable[[str], None] | None = None) -> DemoResult:
    """Write a demo league into OUT, run SESSIONS days, publish; nothing is sealed if a tool is missing."""
    if (out / "config").exists():
        raise LeagueError(f"{out} already holds a league", fix="choose an empty --out folder")
    require(load_roster(shipped_config_dir() / "roster.demo.toml").seat, what="the demo")
    days = demo_sessions(default_calendar(), start, sessions)
    clock = SimulatedClock(session_start(days[0]))
    config_dir, data_dir = init_folder(out, demo=True, seed=seed, clock=clock)
    config = load_config(config_dir)
    store = open_store(config.database_url)
    with local_stamp_services(clock) as services:
        with build_league(config, clock, stages=DEMO_STAGES, store=store, anchor=days[0]) as lg:
            add_stand_ins(lg, seed)
            stamper = use_services(lg, **services)
            record_bill_rates(lg, days[0] - timedelta(days=10), days[-1])
            for day in days:
                run_session(lg, day, ledger=store)
                if progress:
                    progress(day.isoformat())
            pump(lg, clock.now() + timedelta(days=1))
            lines = lg.book.lines
        forget(lg)
        del lg  # closed: its index, price memo and seats are freed before the publish step's own peak
        release_memory()
        public = publish_closed(data_dir, config, clock, stamper).out_dir
        count = _count_rows(public / "council-forecasts.csv")
    return DemoResult(data_dir, public, [d.isoformat() for d in days], lines, count)


def forget(lg: League) -> None:
    """Drop what module-level tables keep of a closed League at once, before the publish step. The portfolio
    stage keeps its seasons in a WeakKeyDictionary keyed by the League; its bar source holds the League
    weakly (a value referring to its own key kept the closed League and its season's index and price memo
    alive), so the entries also go by themselves once the League is collected: this only makes it immediate."""
    from league.jobs import portfolio

    for name in ("_SEASONS", "_MARKED"):  # the stage's own caches, by League (gone once it keeps them weakly)
        table = getattr(portfolio, name, None)
        if table is not None:
            table.pop(lg, None)


def publish_closed(data_dir: Path, config: Config, clock: Clock, stamper: Stamper) -> PublishReport:
    """What :func:`league.jobs.publish.publish_now` does, for a league whose books are already closed:
    the open data from the books, the release manifest stamped by the league's stamper, proof/ again.
    The demo publishes once, at the end, so it closes the League first: a season's in-memory index and
    price memo need not sit beside publishing's whole-book read and statistics frames."""
    report = publish(data_dir, config=config, clock=clock)
    if DEMO_STAGES.stamps and release_stamp(stamper, report.out_dir, MANIFEST) is not None:
        refresh_proof(data_dir, report.out_dir)
    for name, why in (*report.skipped, *report.failed):
        log.warning("publish.incomplete", file=name, why=why)
    return report


@contextmanager
def local_stamp_services(clock: Clock) -> Iterator[dict[str, Any]]:
    """The demo's OpenTimestamps calendar and Rekor log: local stand-ins on 127.0.0.1 for as long as the
    season runs (league/stamps/standins.py), so its folder has ``.ots`` proofs and log entries for the
    reader's steps 6 and 10 — reported as pending and as a log that is not Sigstore's public one."""
    with LocalCalendar().serve() as calendar, LocalRekor(clock.now).serve() as rekor:
        yield {"calendars": (calendar,), "rekor_url": rekor}


def add_stand_ins(lg: League, seed: int) -> None:
    """What the demo adds to a league built from its configuration: the synthetic crowd, and the oracle
    hints beside the climatology table in each ask's context."""
    lg.crowd = synthetic_crowd(lg, seed)
    hints: dict[str, dict[str, dict[str, float]]] = {}  # by session: the second wave's ask reuses the first's
    source, bars = lg.prices, Bars(lg)  # the hints' bars, kept from session to session (forget_bars_before)

    def context(league: League, session: str) -> dict[str, Any]:
        if session not in hints:  # replay outcomes are fixed, so the hints of a session never change
            hints.clear()
            day = date.fromisoformat(session)
            forget_bars_before(bars, day - HINT_BARS_KEPT)
            kept = bars if league.prices is source else Bars(league)  # a price source put in later: read afresh
            hints[session] = oracle_hints(league, day, kept)
        return {"hint": {code: dict(by_h) for code, by_h in hints[session].items()}, **default_context(league, session)}

    lg.ask_context = context


#: How far back the hints keep their bars: a session's hints read its own day, the days of its draw band
#: (the sessions before it) and the day a week ahead; later sessions read most of them again.
HINT_BARS_KEPT = timedelta(days=14)


def forget_bars_before(bars: Bars, first: date) -> None:
    """Drop the days (and draw bands) before ``first`` from a :class:`Bars` kept across sessions. Only the
    replay's fixed prices make keeping them sound: a live job's Bars lives for that job alone. A day that
    could not be read is read again next session (a fresh Bars would): after any error, all is dropped."""
    if bars.errors:
        first = date.max
    for table in (bars.days, bars.starts, bars.bands):
        for key in [k for k in table if k[1] < first]:
            del table[key]
    bars.errors.clear()  # reported by a score line; the hints read outcomes only


def oracle_hints(lg: League, session: date, bars: Bars | None = None) -> dict[str, dict[str, float]]:
    """Demo only: the session's true 1d/1w direction per market, for scripted seats' ``skill``. ``bars``:
    bars already read by earlier hints (replay prices: the same bars whenever read)."""
    from league.contracts import EventContract

    hints: dict[str, dict[str, float]] = {}
    bars = bars if bars is not None else Bars(lg)
    for code, by_h in run_events(lg, session.isoformat()).items():
        hints[code] = {}
        for h in ("1d", "1w"):
            if h in by_h:
                up = event_outcome(lg, code, h, EventContract.from_mapping(by_h[h]), bars)
                if up is not None:
                    hints[code][h] = 80.0 if up else 20.0
    return hints


def synthetic_crowd(lg: League, seed: int) -> SyntheticCrowd:
    """Seeded quotes for up to 8 markets, resolved by the replay's own 1d outcome."""
    return SyntheticCrowd(seed, resolver=lambda code, day: _replay_outcome(lg, code, day))


def _replay_outcome(lg: League, code: str, day: date) -> bool | None:
    spec = lg.config.markets.by_code().get(code)
    if spec is None:
        return None
    if not spec.daily:
        return _day_over_day(lg, spec, day)
    return event_outcome(lg, code, "1d", event_contract(lg.calendar, spec, day, "1d", None))


def _day_over_day(lg: League, spec: MarketSpec, day: date) -> bool | None:
    """24x7 markets: the 16:00 ET price of ``day`` against the day before's (the crowd's own terms)."""
    prices = []
    for d in (day - timedelta(days=1), day):
        end = et_time(d, time(16, 0))
        bars = lg.prices.bars(spec.symbol, end - timedelta(hours=1), end + timedelta(minutes=1))
        point = terminal_price(bars, end, since=end - timedelta(hours=1)) if bars else None
        if point is None:
            return None
        prices.append(point.price)
    return prices[1] > prices[0]


def _count_rows(path: Path) -> int:
    with open(path, encoding="utf-8") as fh:
        return max(0, sum(1 for _ in fh) - 1)

