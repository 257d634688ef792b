"""What the experiments' arms cost a season: `league demo` with the arms and repeats, against the same season
without them, alternating in one go.

    python3 benchmarks/arms_bench.py [--runs 3] [--sessions 10] [--no-write]

Each run is `league demo --sessions N --out DIR --arms` or `--no-arms` (the arms: the closed-book and price-only
arms on every session, the repeats of three seats on Fridays, every ask a sandboxed scripted seat; see
docs/experiments.md). Reported: the median wall seconds and CPU seconds (user + system, the seats' processes
included) of each, and their ratio; the figures go between the ARMS-BENCH markers of docs/experiments.md and
every run's raw figures into benchmarks/records/arms_bench.json.
"""

from __future__ import annotations

import argparse
import json
import os
import platform
import re
import shutil
import statistics
import subprocess
import sys
import tempfile
import time
from pathlib import Path

ROOT = Path(__file__).resolve().parent.parent
DOC = ROOT / "docs" / "experiments.md"
RECORD = ROOT / "benchmarks" / "records" / "arms_bench.json"
START, END = "<!-- ARMS-BENCH:start -->", "<!-- ARMS-BENCH:end -->"


def timed(cmd: list[str]) -> tuple[float, float]:
    """(wall seconds, CPU seconds of the command and its children) of one command."""
    before = os.times()
    started = time.perf_counter()
    proc = subprocess.run(cmd, capture_output=True, text=True, check=False)
    wall = time.perf_counter() - started
    after = os.times()
    if proc.returncode != 0:
        raise SystemExit(f"{' '.join(cmd)} failed:\n{proc.stdout[-2000:]}\n{proc.stderr[-2000:]}")
    cpu = (after.children_user - before.children_user) + (after.children_system - before.children_system)
    return wall, cpu


def main() -> None:
    parser = argparse.ArgumentParser(description=__doc__.split("\n\n")[0])
    parser.add_argument("--runs", type=int, default=3)
    parser.add_argument("--sessions", type=int, default=10)
    parser.add_argument("--no-write", action="store_true", help="print the figures, leave the docs alone")
    args = parser.parse_args()
    league = shutil.which("league") or str(Path(sys.executable).with_name("league"))
    results: dict[str, list[tuple[float, float]]] = {"--arms": [], "--no-arms": []}
    loads = [os.getloadavg()[0]]
    with tempfile.TemporaryDirectory(prefix="league-arms-bench-") as tmp:
        for i in range(args.runs):
            for flag in ("--no-arms", "--arms"):  # alternate, so both see the same machine
                out = Path(tmp) / f"{flag.strip('-')}-{i}"
                results[flag].append(timed([league, "demo", "--sessions", str(args.sessions), "--out", str(out), flag]))
                shutil.rmtree(out, ignore_errors=True)
                print(f"run {i + 1} {flag}: {results[flag][-1][0]:.1f} s wall, {results[flag][-1][1]:.1f} s CPU",
                      flush=True)
    loads.append(os.getloadavg()[0])
    med = {flag: (statistics.median(w for w, _ in r), statistics.median(c for _, c in r))
           for flag, r in results.items()}
    wall, cpu = med["--arms"][0] / med["--no-arms"][0], med["--arms"][1] / med["--no-arms"][1]
    text = (f"Measured {time.strftime('%Y-%m-%d')} on {platform.machine()}, {os.cpu_count()} cores, Python "
            f"{platform.python_version()}; median of {args.runs} runs each, alternating in one go (1-minute load "
            f"{loads[0]:.1f} before, {loads[1]:.1f} after):\n\n"
            "| `league demo --sessions " + str(args.sessions) + "` | wall time | CPU time |\n|---|---|---|\n"
            f"| `--no-arms` (the council alone) | {med['--no-arms'][0]:.1f} s | {med['--no-arms'][1]:.1f} s |\n"
            f"| `--arms` (closed book, price only, Friday repeats, extra reference runs) | {med['--arms'][0]:.1f} s | "
            f"{med['--arms'][1]:.1f} s |\n"
            f"| ratio | {wall:.2f}× | {cpu:.2f}× |\n")
    print(text)
    if not args.no_write:
        RECORD.write_text(json.dumps({"measured": time.strftime("%Y-%m-%d"), "machine": platform.machine(),
                                      "cores": os.cpu_count(), "python": platform.python_version(),
                                      "sessions": args.sessions, "load": loads,
                                      "runs": {flag: [{"wall_s": round(w, 2), "cpu_s": round(c, 2)} for w, c in r]
                                               for flag, r in results.items()}}, indent=1) + "\n", encoding="utf-8")
        doc = DOC.read_text(encoding="utf-8")
        if START not in doc:
            raise SystemExit(f"{DOC} has no {START} marker")
        doc = re.sub(f"{re.escape(START)}.*?{re.escape(END)}", f"{START}\n{text}{END}", doc, flags=re.S)
        DOC.write_text(doc, encoding="utf-8")


if __name__ == "__main__":
    main()
