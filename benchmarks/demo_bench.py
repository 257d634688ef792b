"""Benchmark the demo season: wall time and peak memory (median of runs), plus the idle daemon.

    python3 benchmarks/demo_bench.py [--runs 3] [--long] [--before SRC] [--long-only]

Runs `league demo --sessions 10` RUNS times, and a baseline in the same go: the same season with only
the in-process baseline seats (no sandboxed child processes), to show what the sandboxed seats cost.
`--long` adds one 126-session season. The idle daemon's memory is the resident size of a process that
has opened a league exactly as `league daemon` does (seats, calendar, price provider, store) and waits.
Figures are written between the BENCH markers of docs/league-day.md.

`--long-only` runs only 126-session seasons, RUNS of them, and prints their figures without touching the
docs; with `--before SRC` each is preceded by the same season from another source tree on PYTHONPATH (e.g.
`git archive` of the commit before a change, unpacked into SRC), so before and after alternate in one go.
Every figure has wall seconds, CPU seconds (user + system, the sandboxed seats' processes included), peak
RSS of the largest process, the process tree's memory sampled every 0.5 s (largest process / sum of resident
sizes / sum of proportional sizes: a forked child's pages shared with its parent count twice in the second,
once in the third) and the 1-minute load average before and after it: on a shared machine compare CPU
seconds, and wall times only at similar loads.
"""

from __future__ import annotations

import argparse
import os
import platform
import shutil
import statistics
import subprocess
import sys
import tempfile
import time
from pathlib import Path
from typing import Any

ROOT = Path(__file__).resolve().parent.parent
DOC = ROOT / "docs" / "league-day.md"
BASELINE_ROSTER = """counting_rule = "The scheduled 08:30 ET morning run counts."
[[seat]]
name = "_coin"
adapter = "coin"
[[seat]]
name = "_momentum"
adapter = "momentum"
[[seat]]
name = "_climatology"
adapter = "climatology"
"""


def load() -> float:
    return os.getloadavg()[0]


def timed(cmd: list[str], cwd: Path | None = None, env: dict[str, str] | None = None) -> tuple[float, int]:
    """(seconds, peak RSS in MiB) of one command, read by GNU time; the CPU seconds, the load around it and the
    process tree's memory (:class:`TreeMemory`, sampled every 0.5 s) go to LAST (read by the long runs)."""
    before = load()
    with tempfile.TemporaryFile("w+") as out, tempfile.TemporaryFile("w+") as err:
        proc = subprocess.Popen(["/usr/bin/time", "-f", "%e %M %U %S", *cmd], cwd=cwd, stdout=out, stderr=err,
                                text=True, env=env)
        tree = TreeMemory(proc.pid)
        while proc.poll() is None:
            tree.sample()
            time.sleep(0.5)
        err.seek(0)
        out.seek(0)
        stderr, stdout = err.read(), out.read()
    if proc.returncode != 0:
        raise SystemExit(f"{' '.join(cmd)} failed:\n{stdout[-2000:]}\n{stderr[-2000:]}")
    seconds, kib, user, system = stderr.strip().splitlines()[-1].split()
    LAST.update(cpu=float(user) + float(system), load=(before, load()), tree=tree)
    return float(seconds), int(kib) // 1024


class TreeMemory:
    """The memory of a process tree, sampled from /proc: the largest single process's resident size, and the
    sums over the tree of resident sizes (pages shared between processes, a forked child's included, counted
    in each) and of proportional sizes (PSS: each shared page split between its sharers), in MiB."""

    def __init__(self, root: int) -> None:
        self.root = root
        self.largest = self.rss_sum = self.pss_sum = 0

    def sample(self) -> None:
        pids = self._tree()
        rss = [_status_kib(p, "VmRSS:") for p in pids]
        self.largest = max(self.largest, max(rss, default=0) // 1024)
        self.rss_sum = max(self.rss_sum, sum(rss) // 1024)
        self.pss_sum = max(self.pss_sum, sum(_pss_kib(p) for p in pids) // 1024)

    def _tree(self) -> list[int]:
        children: dict[int, list[int]] = {}
        for entry in os.listdir("/proc"):
            if entry.isdigit():
                try:
                    with open(f"/proc/{entry}/stat", encoding="ascii", errors="replace") as fh:
                        ppid = int(fh.read().rsplit(")", 1)[1].split()[1])
                except (OSError, ValueError, IndexError):
                    continue
                children.setdefault(ppid, []).append(int(entry))
        out = [self.root]
        for pid in out:
            out += children.get(pid, [])
        return out


def _status_kib(pid: int, key: str) -> int:
    try:
        with open(f"/proc/{pid}/status", encoding="ascii", errors="replace") as fh:
            return next((int(line.split()[1]) for line in fh if line.startswith(key)), 0)
    except OSError:
        return 0


def _pss_kib(pid: int) -> int:
    try:
        with open(f"/proc/{pid}/smaps_rollup", encoding="ascii", errors="replace") as fh:
            return next((int(line.split()[1]) for line in fh if line.startswith("Pss:")), 0)
    except OSError:
        return 0


LAST: dict[str, Any] = {}


def demo(sessions: int, out: Path, src: Path | None = None) -> tuple[float, int]:
    env = None if src is None else {**os.environ, "PYTHONPATH": str(src)}
    return timed(["league", "demo", "--sessions", str(sessions), "--out", str(out)], env=env)


def long_only(runs: int, before: Path | None) -> None:
    """RUNS 126-session seasons of this tree (and of BEFORE, alternating, before first), one line each."""
    tmp = Path(tempfile.mkdtemp(prefix="league-bench-long-"))
    try:
        for i in range(runs):
            for name, src in ((("before", before),) if before else ()) + (("after", None),):
                wall, rss = demo(126, tmp / f"{name}{i}", src)
                lo, hi = LAST["load"]
                tree = LAST["tree"]
                print(f"| 126 sessions, {name} | {wall:.1f} s | {LAST['cpu']:.1f} s | {rss} MiB | {tree.largest} / "
                      f"{tree.rss_sum} / {tree.pss_sum} MiB | {lo:.1f}–{hi:.1f} |", flush=True)
                shutil.rmtree(tmp / f"{name}{i}", ignore_errors=True)
    finally:
        shutil.rmtree(tmp, ignore_errors=True)


BASELINE_SCRIPT = """
import sys
from datetime import date
from pathlib import Path
from typing import Any
from league.calendar import default_calendar
from league.clock import SimulatedClock
from league.cli.init import init_folder
from league.config import load_config
from league.jobs.seal import pump
from league.compose import build_league
from league.jobs.context import BARE
from league.demo import demo_sessions
from league.jobs.publish import publish_now
from league.jobs.scheduler import run_session, session_start
out, sessions, roster = Path(sys.argv[1]), int(sys.argv[2]), sys.argv[3]
days = demo_sessions(default_calendar(), date(2026, 6, 1), sessions)
clock = SimulatedClock(session_start(days[0]))
cfg_dir, _ = init_folder(out, demo=True, clock=clock)
(cfg_dir / "roster.toml").write_text(roster)
with build_league(load_config(cfg_dir), clock, stages=BARE) as lg:
    for d in days:
        run_session(lg, d)
    publish_now(lg).out_dir
"""

IDLE_SCRIPT = """
import os, sys, time
from pathlib import Path
from typing import Any
from league.compose import open_live
lg = open_live(Path(sys.argv[1]))
time.sleep(1.0)
rss = [l for l in open(f"/proc/{os.getpid()}/status") if l.startswith("VmRSS")][0].split()[1]
print(int(rss) // 1024)
"""


def baseline(sessions: int, out: Path) -> tuple[float, int]:
    return timed([sys.executable, "-c", BASELINE_SCRIPT, str(out), str(sessions), BASELINE_ROSTER])


def idle_daemon(tmp: Path) -> int:
    subprocess.run(["league", "init", "--demo", str(tmp / "idle")], check=True, capture_output=True)
    toml = tmp / "idle" / "config" / "league.toml"  # the daemon follows the system clock (open_live refuses others)
    toml.write_text(toml.read_text(encoding="utf-8").replace('mode = "simulated"', 'mode = "system"'), encoding="utf-8")
    out = subprocess.run(
        [sys.executable, "-c", IDLE_SCRIPT, str(tmp / "idle" / "config")], capture_output=True, text=True, check=True
    )
    return int(out.stdout.strip().splitlines()[-1])


def main() -> None:
    parser = argparse.ArgumentParser()
    parser.add_argument("--runs", type=int, default=3)
    parser.add_argument("--long", action="store_true", help="also run a 126-session season")
    parser.add_argument("--before", type=Path, help="source tree of the code before, for the long season too")
    parser.add_argument("--long-only", action="store_true", help="only the 126-session seasons; print, no docs")
    args = parser.parse_args()
    if args.long_only:
        long_only(args.runs, args.before)
        return
    tmp = Path(tempfile.mkdtemp(prefix="league-bench-"))
    try:
        full = [demo(10, tmp / f"demo{i}") for i in range(args.runs)]
        base = [baseline(10, tmp / f"base{i}") for i in range(args.runs)]
        long = demo(126, tmp / "season") if args.long else None
        idle = idle_daemon(tmp)
    finally:
        shutil.rmtree(tmp, ignore_errors=True)
    write(full, base, long, idle, args.runs)


def write(
    full: list[tuple[float, int]], base: list[tuple[float, int]], long: tuple[float, int] | None, idle: int, runs: int
) -> None:
    t_full, t_base = statistics.median(x[0] for x in full), statistics.median(x[0] for x in base)
    lines = [
        "<!-- BENCH:start -->",
        f"Measured {time.strftime('%Y-%m-%d')} on {platform.machine()}, {os.cpu_count()} cores, "
        f"Python {platform.python_version()} (median of {runs} runs each, same go):",
        "",
        "| run | wall time | peak RSS |",
        "|---|---|---|",
        f"| `league demo --sessions 10` (10 sandboxed scripted seats + baselines) | {t_full:.1f} s | "
        f"{statistics.median(x[1] for x in full)} MiB |",
        "| baseline: same 10 sessions, the 3 in-process baseline seats only, no stamp or portfolio stage | "
        f"{t_base:.1f} s | "
        f"{statistics.median(x[1] for x in base)} MiB |",
    ]
    if long:
        lines.append(f"| `league demo --sessions 126` (one run) | {long[0]:.1f} s | {long[1]} MiB |")
    lines += [
        "",
        f"Ratio demo / baseline: {t_full / t_base:.2f}. Idle daemon (league opened as `league daemon` "
        f"opens it, waiting): {idle} MiB resident.",
        "<!-- BENCH:end -->",
    ]
    text = DOC.read_text(encoding="utf-8")
    block = "\n".join(lines)
    if "<!-- BENCH:start -->" in text:
        head, rest = text.split("<!-- BENCH:start -->", 1)
        text = head + block + rest.split("<!-- BENCH:end -->", 1)[1]
    else:
        text = text.rstrip() + "\n\n" + block + "\n"
    DOC.write_text(text, encoding="utf-8")
    print(block)


if __name__ == "__main__":
    main()
