"""The full fault-injection season: at least 50 SIGKILLs of a simulated daemon, with a full
disk on some appends and clock steps, under price-provider and authority outages; then its data
folder is compared with an uninterrupted run's (docs/reliability.md has the figures).

    python benchmarks/fault_season.py [--sessions 5] [--kills 50] [--seed 19] [--runs 1] [--work DIR]

The harness itself is tests/integration/jobs/fault_season.py (its small version runs in
tests/integration/jobs/test_fault_season.py). Each run prints its figures as JSON; the summary gives
the median wall time of the uninterrupted and of the faulted season, their ratio, and the machine's
load average before and after (the machine is shared: the times say little, the counts everything).
Exit status 1 when any run shows a difference or a duplicated line.
"""

from __future__ import annotations

import argparse
import json
import os
import platform
import statistics
import sys
import tempfile
from pathlib import Path

ROOT = Path(__file__).resolve().parents[1]
sys.path.insert(0, str(ROOT / "tests" / "integration" / "jobs"))

from fault_season import season  # noqa: E402


def main(argv: list[str] | None = None) -> int:
    parser = argparse.ArgumentParser(description=__doc__.splitlines()[0])
    parser.add_argument("--sessions", type=int, default=5)
    parser.add_argument("--kills", type=int, default=50)
    parser.add_argument("--seed", type=int, default=19)
    parser.add_argument("--runs", type=int, default=1, help="seasons, with seeds seed, seed+1, …")
    parser.add_argument("--work", type=Path, default=None, help="keep the folders here (default: a temporary one)")
    args = parser.parse_args(argv)
    load_before = os.getloadavg()
    results = []
    for k in range(args.runs):
        work = args.work / f"run-{k}" if args.work else Path(tempfile.mkdtemp(prefix="fault-season-"))
        work.mkdir(parents=True, exist_ok=True)
        figures = season(work, sessions=args.sessions, kills=args.kills, seed=args.seed + k)
        print(json.dumps(figures.as_json()), flush=True)
        results.append(figures)
    load_after = os.getloadavg()
    calm = statistics.median(f.calm_s for f in results)
    faulted = statistics.median(f.faulted_s for f in results)
    bad = [f for f in results if f.differences or f.duplicates]
    print(f"machine: {platform.machine()} {os.cpu_count()} cpus, Python {platform.python_version()}; "
          f"load average before {load_before[0]:.2f} {load_before[1]:.2f} {load_before[2]:.2f}, "
          f"after {load_after[0]:.2f} {load_after[1]:.2f} {load_after[2]:.2f}")
    for f in results:
        print(f"sessions {f.sessions}: kills {f.kills} ({f.kills_at_line} at a book append, {f.kills_on_timer} on a "
              f"timer, {f.timer_kills_after_a_seal} of them after a seal), full-disk appends {f.enospc}, "
              f"failed-job exits {f.failed_exits}, clock steps {f.steps}, "
              f"restarts {f.restarts}; {f.council_lines} council + {f.ask_lines} ask lines; files "
              f"{sum(f.counts.values())} compared ({f.counts.get('identical', 0)} identical); differences "
              f"{len(f.differences)}, duplicates {len(f.duplicates)}")
    print(f"median wall time: uninterrupted {calm:.1f} s, faulted {faulted:.1f} s (ratio {faulted / calm:.1f})")
    for f in bad:
        print("DIFFERENT", f.differences[:20], f.duplicates[:20])
    return 1 if bad else 0


if __name__ == "__main__":
    sys.exit(main())
