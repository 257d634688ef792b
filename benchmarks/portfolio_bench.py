"""Benchmark: mark and replay a 126-session season, 14 seats × 2 leagues + benchmarks (not a test).

Phases, each the median CPU time of --runs runs (wall time beside it; peak memory from one extra
run under tracemalloc):
  season   both leagues run session by session over in-memory 1-minute bars (390 a session, every
           fund and indicator), 14 scripted seats with a model-version change half-way (the 64th session);
  publish  arena-trades.csv + arena-accounts.csv written;
  replay   league/verify/tools/replay.py's recount of both files (in-process, the same code a reader runs);
baselines, measured in the same run on the same data:
  mark-floats    a plain float loop computing cash + Σ qty × close for every published account row;
  csv-read       reading both CSVs into dicts with the csv module (what any replay must do at least).
Usage: python benchmarks/portfolio_bench.py [--runs 3] [--sessions 126] [--seats 14]
"""

from __future__ import annotations

import argparse
import csv
import importlib.util
import platform
import random
import resource
import statistics
import tempfile
import time
import tracemalloc
from collections.abc import Callable
from datetime import date, datetime
from datetime import time as clock_time
from pathlib import Path
from typing import Any

from league.portfolio.bills import BillRates
from league.portfolio.decisions import TRADED_ACTIONS, ActionCell, Decision
from league.portfolio.engine import ET
from league.portfolio.interface import Bar
from league.portfolio.publish import write_accounts_csv, write_trades_csv
from league.portfolio.rules import ARENA_3, PRO_1
from league.portfolio.season import Season
from league.portfolio.synthetic import SyntheticBars, weekday_sessions

REPLAY = Path(__file__).resolve().parents[1] / "league" / "verify" / "tools" / "replay.py"


class MemoryBars:
    """All bars generated up front, so the season phase times the engine, not the generator."""

    def __init__(self, data: dict[tuple[str, date], list[Bar]]) -> None:
        self.data = data

    def bars(self, symbol: str, session: date) -> list[Bar]:
        return self.data.get((symbol, session), [])


def make_bars(sessions: list[date]) -> MemoryBars:
    synthetic = SyntheticBars(sessions, seed=5)
    symbols = sorted(set(PRO_1.funds.values()) | set(PRO_1.indicators.values()))
    return MemoryBars({(s, d): synthetic.bars(s, d) for s in symbols for d in sessions})


def decisions_for(bars: MemoryBars, day: date, index: int, seats: int, rng: random.Random) -> list[Decision]:
    out = []
    for k in range(seats):
        cells = {}
        for market in rng.sample(sorted(PRO_1.funds), rng.randint(3, 7)):
            cells[market] = ActionCell(
                rng.choice(sorted(TRADED_ACTIONS)), entry=bars.bars(PRO_1.indicators[market], day)[0].open * 0.997
            )
        out.append(
            Decision(
                seat=f"seat{k:02d}",
                session=day,
                at=datetime.combine(day, clock_time(9, 5), tzinfo=ET),
                cells=cells,
                model=f"m{k:02d}",
                version="1" if index < 64 or k % 3 else "2",
            )
        )
    return out


def run_season(bars: MemoryBars, sessions: list[date], seats: int) -> list[Season]:
    seasons = [Season(rules, bars, BillRates.constant("4.0"), seed=1) for rules in (ARENA_3, PRO_1)]
    rng = random.Random(9)
    for index, day in enumerate(sessions):
        decisions = decisions_for(bars, day, index, seats, rng)
        for season in seasons:
            season.run_session(day, decisions)  # VIX cells are simply not traded in arena-3
    return seasons


def publish(seasons: list[Season], folder: Path) -> None:
    write_trades_csv(folder / "arena-trades.csv", [f for s in seasons for f in s.fills])
    write_accounts_csv(folder / "arena-accounts.csv", [m for s in seasons for ms in s.history.values() for m in ms])


def load_replay() -> Any:
    spec = importlib.util.spec_from_file_location("replay_tool", REPLAY)
    assert spec and spec.loader
    module = importlib.util.module_from_spec(spec)
    spec.loader.exec_module(module)
    return module


def read_rows(folder: Path) -> tuple[list[dict[str, str]], list[dict[str, str]]]:
    with (folder / "arena-accounts.csv").open(newline="") as a, (folder / "arena-trades.csv").open(newline="") as t:
        return list(csv.DictReader(a)), list(csv.DictReader(t))


def mark_floats(rows: list[dict[str, str]]) -> float:
    """The simplest marking there is: floats, no rules, no rounding."""
    total = 0.0
    for row in rows:
        qty = {k: float(v) for k, _, v in (p.partition(":") for p in row["positions"].split(";") if p)}
        px = {k: float(v) for k, _, v in (p.partition(":") for p in row["prices"].split(";") if p)}
        total += float(row["cash"]) + sum(q * px[s] for s, q in qty.items())
    return total


def timed(fn: Callable[[], Any], runs: int) -> tuple[float, float, Any]:
    """Median CPU seconds of this process (stable on a shared machine) and median wall seconds."""
    cpu, wall, result = [], [], None
    for _ in range(runs):
        start, start_cpu = time.perf_counter(), time.process_time()
        result = fn()
        cpu.append(time.process_time() - start_cpu)
        wall.append(time.perf_counter() - start)
    return statistics.median(cpu), statistics.median(wall), result


def peak_mib(fn: Callable[[], Any]) -> float:
    tracemalloc.start()
    fn()
    peak = tracemalloc.get_traced_memory()[1]
    tracemalloc.stop()
    return peak / 2**20


def main() -> None:
    parser = argparse.ArgumentParser()
    parser.add_argument("--runs", type=int, default=3)
    parser.add_argument("--sessions", type=int, default=126)
    parser.add_argument("--seats", type=int, default=14)
    args = parser.parse_args()
    sessions = weekday_sessions(date(2026, 1, 5), args.sessions)
    gen_start = time.perf_counter()
    bars = make_bars(sessions)
    gen_time = time.perf_counter() - gen_start
    folder = Path(tempfile.mkdtemp(prefix="portfolio-bench-"))
    season_cpu, season_wall, seasons = timed(lambda: run_season(bars, sessions, args.seats), args.runs)
    publish_cpu, publish_wall, _ = timed(lambda: publish(seasons, folder), args.runs)
    replay_tool = load_replay()
    replay_cpu, replay_wall, (results, _) = timed(lambda: replay_tool.replay(folder), args.runs)
    read_cpu, read_wall, (accounts, trades) = timed(lambda: read_rows(folder), args.runs)
    mark_cpu, mark_wall, _ = timed(lambda: mark_floats(accounts), args.runs)
    season_peak = peak_mib(lambda: run_season(bars, sessions, args.seats))
    replay_peak = peak_mib(lambda: replay_tool.replay(folder))
    counts = {level: sum(c[level] for c in results.values()) for level in ("exact", "within rounding", "DIFFERENT")}
    accounts_n = sum(len(s.history) for s in seasons)
    print(f"machine: {platform.machine()} python {platform.python_version()}, {args.runs} runs, medians; "
          "cpu = process CPU seconds, wall = elapsed")
    print(f"season: {args.sessions} sessions, {args.seats} seats x 2 leagues, {accounts_n} accounts incl. "
          f"benchmarks and version accounts; {len(accounts)} account rows, {len(trades)} trades; "
          f"bars generated in {gen_time:.1f} s (not counted)")
    print(f"season (execute + mark)  cpu {season_cpu:.2f} s  wall {season_wall:.2f} s  peak {season_peak:.1f} MiB")
    print(f"publish both CSVs        cpu {publish_cpu:.2f} s  wall {publish_wall:.2f} s")
    print(f"replay.py recount        cpu {replay_cpu:.2f} s  wall {replay_wall:.2f} s  peak {replay_peak:.1f} MiB; "
          f"{counts}")
    print(f"baseline float marking   cpu {mark_cpu:.3f} s  wall {mark_wall:.3f} s  -> season/baseline "
          f"{season_cpu / mark_cpu:.0f}x")
    print(f"baseline csv read        cpu {read_cpu:.3f} s  wall {read_wall:.3f} s  -> replay/baseline "
          f"{replay_cpu / read_cpu:.1f}x")
    rss = resource.getrusage(resource.RUSAGE_SELF).ru_maxrss / 1024
    print(f"process max RSS {rss:.0f} MiB (includes every in-memory bar)")


if __name__ == "__main__":
    main()
