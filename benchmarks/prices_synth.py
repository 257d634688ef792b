"""Benchmark: synthesising a 126-session season of replay prices (12 markets + funds + ^IRX).

Measures, each as the median of several runs on a fresh ``SyntheticMarket`` (daily paths included):
- ``arrays``: every (symbol, session) of the season as 1-minute numpy arrays — what the replay
  provider computes;
- ``bars``: the same, materialised as validated ``Bar`` objects through ``bars()`` (what a caller
  that reads every bar of the season would pay);
- ``baseline``: a naive pure-Python random walk (``random.gauss`` per minute) over the same number of
  minutes, run in the same go, as the yardstick for the vectorised bridge.

Also reports the one-off cold start (reading the five shipped ``arch`` CSVs) separately.
Run: ``python benchmarks/prices_synth.py [--runs 5] [--sessions 126]``.
"""

from __future__ import annotations

import argparse
import os
import platform
import random
import statistics
import time
from datetime import date
from pathlib import Path

from league.calendar import Calendar
from league.config import load_markets
from league.prices.replay import SyntheticMarket, _load_history

ROOT = Path(__file__).resolve().parents[1]


def season_symbols(markets: tuple) -> list[str]:  # type: ignore[type-arg]
    out = [m.symbol for m in markets] + [m.fund for m in markets if m.fund]
    return [*out, "^IRX"]


def run_arrays(seed: int, markets: tuple, cal: Calendar, sessions: list[date]) -> int:  # type: ignore[type-arg]
    sm = SyntheticMarket(seed, markets, cal, anchor=sessions[0], before=10, after=len(sessions) + 5)
    minutes = 0
    for symbol in season_symbols(markets):
        for day in sessions:
            for arr in sm.minute_arrays(symbol, cal.session_open(day), cal.session_close(day)):
                minutes += len(arr.t)
    return minutes


def run_bars(seed: int, markets: tuple, cal: Calendar, sessions: list[date]) -> int:  # type: ignore[type-arg]
    sm = SyntheticMarket(seed, markets, cal, anchor=sessions[0], before=10, after=len(sessions) + 5)
    n = 0
    for symbol in season_symbols(markets):
        for day in sessions:
            n += len(sm.bars(symbol, cal.session_open(day), cal.session_close(day)))
    return n


def run_baseline(minutes: int, seed: int) -> float:
    rng = random.Random(seed)
    price, total = 100.0, 0.0
    for _ in range(minutes):
        price *= 1.0 + rng.gauss(0.0, 0.0005)
        total += price
    return total


def timed(fn, *args) -> tuple[float, object]:  # type: ignore[no-untyped-def]
    t0 = time.perf_counter()
    out = fn(*args)
    return time.perf_counter() - t0, out


def main() -> None:
    parser = argparse.ArgumentParser(description=__doc__.splitlines()[0])
    parser.add_argument("--runs", type=int, default=5)
    parser.add_argument("--sessions", type=int, default=126)
    args = parser.parse_args()
    markets = load_markets(ROOT / "config" / "markets.toml").markets
    cold, _ = timed(lambda: [_load_history(n) for n in ("sp500", "nasdaq", "vix", "wti", "crude")])
    cal = Calendar()
    first = cal.session_on_or_after(date(2026, 6, 1))
    sessions = [cal.offset(first, k) for k in range(args.sessions)]
    arrays, bars, base = [], [], []
    minutes = n_bars = 0
    for r in range(args.runs):
        t, minutes = timed(run_arrays, 100 + r, markets, cal, sessions)
        arrays.append(t)
        t, n_bars = timed(run_bars, 100 + r, markets, cal, sessions)
        bars.append(t)
        t, _ = timed(run_baseline, minutes, r)
        base.append(t)
    med = {k: statistics.median(v) for k, v in (("arrays", arrays), ("bars", bars), ("baseline", base))}
    print(f"machine: {platform.machine()} {os.cpu_count()} cores, python {platform.python_version()}")
    print(
        f"season: {args.sessions} sessions, {len(season_symbols(markets))} symbols, {minutes} minutes, "
        f"{n_bars} bars; runs: {args.runs}"
    )
    print(f"cold start (read arch CSVs once): {cold:.3f} s")
    for key, runs in (("arrays", arrays), ("bars", bars), ("baseline", base)):
        print(f"{key:9s} median {med[key]:.3f} s   (runs: {', '.join(f'{x:.3f}' for x in runs)})")
    print(f"ratio baseline/arrays: {med['baseline'] / med['arrays']:.1f}x")


if __name__ == "__main__":
    main()
