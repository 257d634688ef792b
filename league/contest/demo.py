"""``league contest demo``: one recorded contest day, offline, on a simulated clock.

06:00 UTC the sweep (four stand-in CLIs in the real bubblewrap sandbox, the strict parser, the
sealed file); the first poll of new markets; 06:10 and 09:00 a new market each opens a betting
round, where every stand-in uses the real ``bench`` over its Unix socket; then the clock jumps past
every close, the winners are read from the recorded venue, the open data is published and
``league contest verify`` runs on the folder. The venue is synthetic (seeded), written as recorded
Gamma/CLOB answers under ``<out>/venue`` so a reader sees exactly what the contest read.
"""

from __future__ import annotations

from collections.abc import Callable
from dataclasses import dataclass
from datetime import UTC, date, datetime, time, timedelta
from pathlib import Path

from league.clock import SimulatedClock
from league.contest.config import ContestConfig, load_config
from league.contest.context import ContestContext, market_source
from league.contest.ledger import Ledger
from league.contest.markets.synthetic import make_venue
from league.contest.publish import publish
from league.contest.resolve import resolve_due
from league.contest.rounds import RoundResult, open_rounds
from league.contest.sweep import SweepResult, run_sweep
from league.contest.verify import Check, verify_folder
from sandbox.interface import Sandbox

ROUND_TIMES = (time(6, 10), time(9, 0))


@dataclass(frozen=True)
class DemoResult:
    public: Path
    sweep: SweepResult
    rounds: list[RoundResult]
    checks: list[Check]

    @property
    def verified(self) -> bool:
        return not any(c.failed for c in self.checks)


def run_day(ctx: ContestContext, clock: SimulatedClock, day: date, say: Callable[[str], None]) -> tuple[
        SweepResult, list[RoundResult]]:
    """One contest day on ``ctx``: sweep at 06:00, first poll, rounds at the ROUND_TIMES."""
    clock.set(datetime.combine(day, time(6, 0), UTC))
    sweep = run_sweep(ctx)
    say(f"sweep {sweep.date}: {sweep.markets} markets, {sweep.forecasts} forecasts sealed, sha256 {sweep.sha256}")
    rounds = open_rounds(ctx)
    for at in ROUND_TIMES:
        clock.set(datetime.combine(day, at, UTC))
        for r in open_rounds(ctx):
            rounds.append(r)
            say(f"round {r.round_id} on market {r.market_id}: {r.state} {r.bets}")
    return sweep, rounds


def run_demo(out: Path, *, seed: int = 7, day: date = date(2026, 12, 7), config: ContestConfig | None = None,
             sandbox: Sandbox | None = None, say: Callable[[str], None] = lambda _: None) -> DemoResult:
    out.mkdir(parents=True, exist_ok=True)
    start = datetime.combine(day, time(0), UTC)
    venue = make_venue(start, 1, seed)
    venue.write(out / "venue")
    clock = SimulatedClock(start)
    public = out / "public"
    with Ledger(out / "contest-book.jsonl", clock) as ledger:
        ctx = ContestContext(config or load_config(), clock, ledger, market_source("recorded", out / "venue"),
                             public, sandbox=sandbox, hints=venue.winners())
        sweep, rounds = run_day(ctx, clock, day, say)
        clock.set(start + timedelta(days=8))
        say(f"resolved {len(resolve_due(ctx))} markets")
        publish(ctx)
    return DemoResult(public, sweep, rounds, verify_folder(public))
