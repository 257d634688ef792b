"""Benchmark of ``league publish`` on a 126-session season: wall time and peak memory.

Not a test: it measures and prints a table and a JSON record; the figures go into docs/open-data.md.

The season is the test fixture's generator (tests/unit/publish/season_fixture.py) at full size:
126 sessions x ``--seats`` seats (one of them the ``_coin`` baseline) x 12 markets x 4 horizons,
each answer a real sealed book line. Each measured run is a fresh ``python3`` child (so imports
and peak RSS belong to that run alone) that publishes into an empty folder:

* ``full``     every installed producer (scoring statistics, portfolio tables, proof pages) plus
               publish's own files; the fixture's council-forecasts.csv stands in for the
               exporter's, whose cost is measured by benchmarks/demo_bench.py;
* ``own``      publish's own files only (producers switched off): books, protocol, code
               manifest, digest, data dictionary, index;
* ``baseline`` the least any publisher must do: one pass of ``league.verify.chain.verify`` over the
               book plus a byte copy of the book and the forecasts CSV.

Every figure is the median of ``--runs`` runs (default 3); ratios are against the baseline of the
same invocation. Usage::

    python benchmarks/publish_bench.py [--sessions 126] [--seats 14] [--runs 3] [--dir DIR]
"""

from __future__ import annotations

import argparse
import json
import os
import platform
import shutil
import statistics
import subprocess
import sys
import tempfile
from pathlib import Path
from typing import Any

ROOT = Path(__file__).resolve().parent.parent
sys.path.insert(0, str(ROOT / "tests" / "unit" / "publish"))

CHILD = r"""
import json, shutil, sys, time, logging
from pathlib import Path
import structlog
structlog.configure(wrapper_class=structlog.make_filtering_bound_logger(logging.ERROR))
mode, data, out = sys.argv[1], Path(sys.argv[2]), Path(sys.argv[3])
t0 = time.perf_counter()
if mode == "baseline":
    from league.verify.chain import verify
    verify(data / "books" / "council-book.jsonl")
    out.mkdir(parents=True)
    shutil.copyfile(data / "books" / "council-book.jsonl", out / "council-book.jsonl")
    shutil.copyfile(data / "public" / "council-forecasts.csv", out / "council-forecasts.csv")
else:
    from league.publish import files
    # the fixture's CSV stands in for the exporter's (the fixture book is not a full league day)
    files.PRODUCERS["forecasts"] = None  # a producer the league does without: the file present is kept
    if mode == "own":
        files.PRODUCERS = {k: None for k in files.PRODUCERS}
    out.mkdir(parents=True)
    shutil.copyfile(data / "public" / "council-forecasts.csv", out / "council-forecasts.csv")
    shutil.copyfile(data / "public" / "council-league.json", out / "council-league.json")
    report = files.publish(data, out)
    assert report.ok, report.failed
wall = time.perf_counter() - t0
# VmHWM, not ru_maxrss: on Linux a forked child's ru_maxrss starts at its parent's RSS
hwm = next(int(x.split()[1]) for x in open("/proc/self/status") if x.startswith("VmHWM:"))
print(json.dumps({"wall_s": wall, "max_rss_mib": hwm / 1024}))
"""


def run_child(mode: str, data: Path, out: Path) -> dict[str, float]:
    shutil.rmtree(out, ignore_errors=True)
    proc = subprocess.run([sys.executable, "-c", CHILD, mode, str(data), str(out)], capture_output=True,
                          text=True, check=True, cwd=ROOT)
    result: dict[str, float] = json.loads(proc.stdout.strip().splitlines()[-1])
    return result


def main() -> None:
    parser = argparse.ArgumentParser(description=__doc__.split("\n")[0])
    parser.add_argument("--sessions", type=int, default=126)
    parser.add_argument("--seats", type=int, default=14)
    parser.add_argument("--runs", type=int, default=3)
    parser.add_argument("--dir", type=Path, default=None)
    args = parser.parse_args()
    from season_fixture import write_season

    work = Path(args.dir or tempfile.mkdtemp(prefix="publish-bench-"))
    seats = tuple(f"seat{i:02d}" for i in range(args.seats - 1)) + ("_coin",)
    assets = ("SPX", "NDX", "DJI", "SOX", "TNX", "DXY", "VIX", "GOLD", "WTI", "BRENT", "COPPER", "BTC")
    season = write_season(work / "data", sessions=args.sessions, seats=seats, assets=assets,
                          horizons=("1d", "1w", "1m", "6m"))
    book_mib = season.book.stat().st_size / 2**20
    csv_mib = (season.public / "council-forecasts.csv").stat().st_size / 2**20
    results: dict[str, list[dict[str, float]]] = {"baseline": [], "own": [], "full": []}
    for _ in range(args.runs):
        for mode in results:
            results[mode].append(run_child(mode, season.data, work / f"out-{mode}"))
    summary = {mode: {"wall_s": statistics.median(r["wall_s"] for r in runs),
                      "max_rss_mib": statistics.median(r["max_rss_mib"] for r in runs)}
               for mode, runs in results.items()}
    base = summary["baseline"]["wall_s"]
    record: dict[str, Any] = {
        "machine": f"{platform.machine()} {os.cpu_count()} cores, {platform.python_version()}",
        "sessions": args.sessions, "seats": args.seats, "book_lines": sum(1 for _ in open(season.book, "rb")),
        "book_mib": round(book_mib, 2), "forecast_rows": len(season.rows), "forecasts_mib": round(csv_mib, 2),
        "runs": args.runs, "summary": summary,
        "ratio_vs_baseline": {m: round(s["wall_s"] / base, 2) for m, s in summary.items()},
    }
    print(f"{'mode':<9} {'wall s (median)':>16} {'peak RSS MiB':>13} {'x baseline':>11}")
    for mode, s in summary.items():
        print(f"{mode:<9} {s['wall_s']:>16.2f} {s['max_rss_mib']:>13.0f} {s['wall_s'] / base:>11.2f}")
    print(json.dumps(record))
    if args.dir is None:
        shutil.rmtree(work, ignore_errors=True)


if __name__ == "__main__":
    main()
