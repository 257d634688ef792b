"""Benchmark a recorded contest season: wall time and peak memory of 90 days (not a timed test).

    python3 benchmarks/contest_season_bench.py [--days 90] [--runs 3] [--baseline-days 9] [--write-doc]

Each run is a fresh child process that plays DAYS recorded days exactly as the demo plays one (the
06:00 sweep of 30 markets with four stand-in CLIs in the real bubblewrap sandbox, the first poll, two
betting rounds over `bench`, the daily resolutions), then publishes and verifies the folder. In the
same go a BASELINE season of --baseline-days days runs the same way, so the ratio shows how the cost
grows with the season's length (the contest reads its state back from its book). Reported: median
wall time and median peak RSS (ru_maxrss of the child) over --runs; --write-doc puts them between the
BENCH markers of docs/contest.md.
"""

from __future__ import annotations

import argparse
import os
import platform
import re
import statistics
import subprocess
import sys
import tempfile
import time
from datetime import UTC, datetime, timedelta
from pathlib import Path

ROOT = Path(__file__).resolve().parent.parent
DOC = ROOT / "docs" / "contest.md"


def season(days: int, out: Path) -> None:
    """The child: play ``days`` days on a simulated clock, publish, verify."""
    from league.clock import SimulatedClock
    from league.contest.config import load_config
    from league.contest.context import ContestContext
    from league.contest.demo import run_day
    from league.contest.ledger import Ledger
    from league.contest.markets.recorded import RecordedSource
    from league.contest.markets.synthetic import make_venue
    from league.contest.publish import publish
    from league.contest.resolve import resolve_due
    from league.contest.verify import verify_folder

    start = datetime(2026, 12, 1, tzinfo=UTC)
    venue = make_venue(start, days, seed=11)
    venue.write(out / "venue")
    clock = SimulatedClock(start)
    with Ledger(out / "contest-book.jsonl", clock) as ledger:
        ctx = ContestContext(load_config(), clock, ledger, RecordedSource(out / "venue"), out / "public",
                             hints=venue.winners())
        for d in range(days):
            run_day(ctx, clock, (start + timedelta(days=d)).date(), lambda _: None)
            clock.set(start + timedelta(days=d, hours=23, minutes=59))
            resolve_due(ctx)
        clock.set(start + timedelta(days=days + 8))
        resolve_due(ctx)
        metrics = publish(ctx)
    failed = [c for c in verify_folder(out / "public") if c.failed]
    if failed:
        raise SystemExit(f"verify failed: {failed[0]}")
    n = sum(r["n"] for r in metrics["forecast_accuracy"]["agents"])
    print(f"forecasts={n} rounds={metrics['betting_record']['rounds_counted']}")


def one_run(days: int) -> tuple[float, float, str]:
    """Wall seconds, peak RSS (MiB) and the child's summary line."""
    with tempfile.TemporaryDirectory(prefix="contest-bench-") as tmp:
        t0 = time.perf_counter()
        proc = subprocess.Popen([sys.executable, __file__, "--child", str(days), tmp], stdout=subprocess.PIPE,
                                text=True, env={**os.environ, "LEAGUE_LOG_LEVEL": "ERROR"})
        _, status, usage = os.wait4(proc.pid, 0)
        wall = time.perf_counter() - t0
        out = proc.stdout.read() if proc.stdout else ""
        if os.waitstatus_to_exitcode(status) != 0:
            raise SystemExit(f"season of {days} days failed")
        return wall, usage.ru_maxrss / 1024, out.strip().splitlines()[-1]


def measure(days: int, runs: int) -> tuple[float, float, str]:
    results = [one_run(days) for _ in range(runs)]
    return (statistics.median(r[0] for r in results), statistics.median(r[1] for r in results), results[-1][2])


def write_doc(text: str) -> None:
    doc = DOC.read_text()
    new = re.sub(r"(<!-- BENCH:contest-season -->\n).*?(<!-- /BENCH -->)", lambda m: m.group(1) + text + m.group(2),
                 doc, flags=re.S)
    DOC.write_text(new)


def main() -> None:
    if len(sys.argv) == 4 and sys.argv[1] == "--child":
        season(int(sys.argv[2]), Path(sys.argv[3]))
        return
    p = argparse.ArgumentParser()
    p.add_argument("--days", type=int, default=90)
    p.add_argument("--baseline-days", type=int, default=9)
    p.add_argument("--runs", type=int, default=3)
    p.add_argument("--write-doc", action="store_true")
    a = p.parse_args()
    base = measure(a.baseline_days, a.runs)
    full = measure(a.days, a.runs)
    machine = f"{platform.machine()}, {os.cpu_count()} cores, Python {platform.python_version()}"
    lines = [
        f"Machine: {machine}; median of {a.runs} runs each, other work running on the same cores.",
        "",
        "| season | wall time | peak RSS | what ran |",
        "|---|---|---|---|",
        f"| {a.baseline_days} days (baseline) | {base[0]:.1f} s | {base[1]:.0f} MiB | {base[2]} |",
        f"| {a.days} days | {full[0]:.1f} s | {full[1]:.0f} MiB | {full[2]} |",
        "",
        f"Ratio {a.days}-day / {a.baseline_days}-day wall time: {full[0] / base[0]:.1f}× for "
        f"{a.days / a.baseline_days:.0f}× the days.",
        "",
    ]
    text = "\n".join(lines)
    print(text)
    if a.write_doc:
        write_doc(text)


if __name__ == "__main__":
    main()
