"""Benchmark of the API's session view: one session's rows from its CSV slices vs. the whole CSV (not a test).

A season of ``--sessions`` sessions (``--seats`` seats × 12 markets × 4 horizons) is written with the test
fixture's generator and published (the fixture's own CSV; its ``council-forecasts-index.json`` is
written by the publisher). Each mode then runs in a fresh process that opens the API's ``Store`` and
answers ``/api/sessions/<day>`` as the view does, first once (cold: what the first reader after a
start or a publish waits for), then ``--requests`` times over random sessions (warm):

* ``whole``: the rows of the session filtered out of the whole CSV (``Store.rows()``, the baseline:
  the parsed season kept in memory, re-parsed after every publish);
* ``slice``: the session's byte slices of the CSV named by the forecasts index, each checked against
  its SHA-256 (``Store.session_rows``, the view now).

Printed: cold time, warm p50/p99 and the process's peak resident memory (VmHWM), median of ``--runs``.
Usage::

    python benchmarks/api_session_bench.py [--sessions 126] [--seats 14] [--requests 200] [--runs 3]
"""

from __future__ import annotations

import argparse
import json
import os
import shutil
import statistics
import subprocess
import sys
import tempfile
from pathlib import Path

ROOT = Path(__file__).resolve().parent.parent
sys.path.insert(0, str(ROOT / "tests" / "unit" / "publish"))

CHILD = """
import json, os, random, sys, time
from pathlib import Path
from league.api.paths import DataPaths
from league.api import views
data, mode, requests = Path(sys.argv[1]), sys.argv[2], int(sys.argv[3])
store = views.Store(DataPaths.resolve(data))
if mode == "whole":
    store.session_rows = lambda day: [r for r in store.rows() if r["session"] == day]
index = json.loads((data / "public" / "council-forecasts-index.json").read_text())
days = sorted({s["session"] for s in index["sessions"]})
t = time.perf_counter(); views.session(store, days[-1]); cold = time.perf_counter() - t
rng, warm = random.Random(7), []
for _ in range(requests):
    day = rng.choice(days)
    t = time.perf_counter(); views.session(store, day); warm.append(time.perf_counter() - t)
warm.sort()
hwm = [l for l in open(f"/proc/{os.getpid()}/status") if l.startswith("VmHWM")][0].split()[1]
print(json.dumps({"cold": cold, "p50": warm[len(warm) // 2], "p99": warm[int(len(warm) * 0.99) - 1],
                  "hwm_mib": int(hwm) // 1024}))
"""


def main() -> None:
    parser = argparse.ArgumentParser(description=__doc__.split("\n")[0])
    parser.add_argument("--sessions", type=int, default=126)
    parser.add_argument("--seats", type=int, default=14)
    parser.add_argument("--requests", type=int, default=200)
    parser.add_argument("--runs", type=int, default=3)
    args = parser.parse_args()
    from season_fixture import write_season

    from league.publish import files

    work = Path(tempfile.mkdtemp(prefix="api-session-bench-"))
    try:
        seats = tuple(f"seat{i:02d}" for i in range(args.seats - 1)) + ("_coin",)
        season = write_season(work / "data", sessions=args.sessions, seats=seats,
                              assets=("SPX", "NDX", "DJI", "SOX", "TNX", "DXY", "VIX", "GOLD", "WTI", "BRENT",
                                      "COPPER", "BTC"), horizons=("1d", "1w", "1m", "6m"))
        files.PRODUCERS = {k: None for k in files.PRODUCERS}  # the fixture's own CSV is what is served
        files.publish(season.data)
        csv_mib = (season.public / "council-forecasts.csv").stat().st_size / 2**20
        out: dict[str, dict[str, float]] = {}
        for mode in ("whole", "slice"):
            runs = [json.loads(subprocess.run([sys.executable, "-c", CHILD, str(season.data), mode,
                                               str(args.requests)], check=True, capture_output=True, text=True,
                                              cwd=ROOT).stdout.strip().splitlines()[-1]) for _ in range(args.runs)]
            out[mode] = {k: statistics.median(r[k] for r in runs) for k in runs[0]}
    finally:
        shutil.rmtree(work, ignore_errors=True)
    print(f"season: {args.sessions} sessions, {args.seats} seats, CSV {csv_mib:.1f} MiB; "
          f"load average {os.getloadavg()[0]:.1f}; median of {args.runs} runs")
    print("| view | cold (first request) | warm p50 | warm p99 | peak RSS |")
    print("|---|---|---|---|---|")
    for mode, r in out.items():
        print(f"| {mode} | {r['cold'] * 1000:.0f} ms | {r['p50'] * 1000:.1f} ms | {r['p99'] * 1000:.1f} ms | "
              f"{r['hwm_mib']:.0f} MiB |")


if __name__ == "__main__":
    main()
