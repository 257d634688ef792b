"""Benchmark of opening a League on a data folder: with the startup checkpoint, without it, and the old way.

Not a test; figures go to docs/book.md ("Startup checkpoint and memory window"). Each measurement
runs in a fresh child process (so peak RSS is that open's alone) and is repeated ``--runs`` times;
the median is reported, with the machine and the load average before and after.

* ``checkpoint``: ``build_league`` with the database, a matching checkpoint in it: only the lines
  after it are re-hashed, the window is loaded from the database;
* ``full``: the same with the checkpoint row deleted first: every line re-hashed (then a checkpoint);
* ``old index``: what the League did before (``BookIndex.of_book``: every line verified and kept),
  timed alone, as the baseline of the ratio.

The League is opened with a simulated clock one day after the book's last line, so the window is
the one a daemon would keep that day. Usage::

    league demo --out /tmp/demo30 --sessions 30
    python benchmarks/open_bench.py /tmp/demo30/data [--runs 3]
"""

from __future__ import annotations

import argparse
import json
import os
import platform
import statistics
import subprocess
import sys
from pathlib import Path

CHILD = r"""
import json, resource, sys, time
from datetime import timedelta
from pathlib import Path
mode, data, later = sys.argv[1], Path(sys.argv[2]), int(sys.argv[3])
from league.book.index import BookIndex
from league.book.startup import open_index
from league.calendar import ET
from league.clock import SimulatedClock, parse_iso
from league.compose import build_league
from league.config import load_config
from league.jobs.books import COUNCIL_BOOK
from league.jobs.context import BARE
from league.jobs.window import cutoff
from league.store import open_store
config = load_config(data.parent / "config")
book = data / "books" / "council-book.jsonl"
with open(book, "rb") as fh:
    fh.seek(max(0, book.stat().st_size - 1_000_000))
    last = fh.read().splitlines()[-1]
at = parse_iso(json.loads(last)["at"]) + timedelta(days=1 + (later if mode.endswith("later") else 0))
store = open_store(config.database_url)
if mode.startswith("full"):
    from sqlalchemy import delete
    from league.store.models import metadata
    with store.engine.begin() as conn:
        conn.execute(delete(metadata.tables["book_checkpoints"]))
before = resource.getrusage(resource.RUSAGE_SELF).ru_maxrss
start = time.perf_counter()
if mode == "old":
    index = BookIndex.of_book(book)
    kept, how = len(index.lines), "of_book"
elif mode == "league":
    lg = build_league(config, SimulatedClock(at), stages=BARE, store=store)
    opened = lg.books.opened
    kept, how = len(lg.books.index.lines), f"{opened.mode}, re-hashed {opened.rehashed} of {opened.lines}"
else:
    index, opened = open_index(book, cutoff=cutoff(config, at.astimezone(ET).date()), store=store,
                               book=COUNCIL_BOOK, now=at)
    kept, how = len(index.lines), f"{opened.mode}, re-hashed {opened.rehashed} of {opened.lines}"
seconds = time.perf_counter() - start
peak = resource.getrusage(resource.RUSAGE_SELF).ru_maxrss
if mode == "league":
    lg.close()
print(json.dumps({"seconds": seconds, "peak_mb": peak / 1024, "import_mb": before / 1024, "in_memory": kept,
                  "how": how}))
"""


def measure(mode: str, data: Path, later: int = 0) -> dict[str, object]:
    out = subprocess.run([sys.executable, "-c", CHILD, mode, str(data), str(later)], capture_output=True,
                         text=True, check=True, env={**os.environ, "LEAGUE_LOG_LEVEL": "warning"})
    result: dict[str, object] = json.loads(out.stdout.strip().splitlines()[-1])
    return result


def median_of(runs: list[dict[str, object]], key: str) -> float:
    return statistics.median(float(str(r[key])) for r in runs)


def main() -> None:
    parser = argparse.ArgumentParser(description=__doc__, formatter_class=argparse.RawDescriptionHelpFormatter)
    parser.add_argument("data", type=Path, help="a league's data folder (its config/ is the sibling folder)")
    parser.add_argument("--runs", type=int, default=3)
    parser.add_argument("--later", type=int, default=190,
                        help="days after the last line for the 'later' open (older sessions leave the window)")
    args = parser.parse_args()
    book = args.data / "books" / "council-book.jsonl"
    lines = sum(1 for _ in open(book, "rb"))
    load_before = os.getloadavg()
    measure("full", args.data)  # a checkpoint at the head, as after a nightly check
    modes = {
        "checkpoint": "index from the checkpoint",
        "checkpoint-later": f"same, {args.later} days later",
        "full": "index, full verification",
        "old": "old index (of_book, baseline)",
        "league": "whole League from the checkpoint",
    }
    results: dict[str, list[dict[str, object]]] = {}
    for _ in range(args.runs):  # interleaved, so a change of load hits every mode alike
        for mode in modes:
            results.setdefault(mode, []).append(measure(mode, args.data, args.later))
    load_after = os.getloadavg()
    print(f"book: {book} ({lines} lines, {book.stat().st_size / 1e6:.1f} MB)")
    print(f"machine: {platform.machine()} {os.cpu_count()} cores, {platform.python_implementation()} "
          f"{platform.python_version()}; load average before {load_before[0]:.2f} / after {load_after[0]:.2f}")
    print(f"median of {args.runs} runs, each in a fresh process; peak RSS includes imports (shown apart)")
    old = median_of(results["old"], "seconds")
    for mode, label in modes.items():
        runs = results[mode]
        secs = median_of(runs, "seconds")
        print(f"  {label:34s} {secs:6.2f} s  x{old / secs:5.2f} vs old  peak {median_of(runs, 'peak_mb'):6.1f} MB "
              f"(imports {median_of(runs, 'import_mb'):5.1f})  {runs[-1]['in_memory']} lines in memory  "
              f"[{runs[-1]['how']}]")


if __name__ == "__main__":
    main()
