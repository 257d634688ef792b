"""Benchmark: 14 sandboxed seats launched concurrently, and the sandbox's start-up overhead.

Not a test (no timing assertions anywhere in the suite); run by hand and copy the figures into
docs/sandbox.md:

    python benchmarks/sandbox_launch.py [--rounds 9] [--seats 14] [--runs 40]

1. Spread: SEATS threads wait at a barrier, then each starts ``date +%s%N`` in its own sandbox;
   the command prints the wall-clock time at which it really started inside the sandbox. The spread
   is last start minus first start, per round; the median over rounds is reported. The same is done
   with plain subprocesses as the baseline of the same run.
2. Overhead: ``/bin/true`` run RUNS times sequentially through the sandbox and through a plain
   ``subprocess.run`` with the same pipes; the median difference of the medians is the overhead.
"""

from __future__ import annotations

import argparse
import os
import platform
import statistics
import subprocess
import threading
import time
from collections.abc import Callable

from sandbox.bwrap import BwrapSandbox

DATE = ["/bin/date", "+%s%N"]


def sandboxed(box: BwrapSandbox) -> Callable[[list[str]], bytes]:
    """Each thread is its own seat (its own uid and cgroup), as in the league's fan-out."""
    return lambda argv: box.exec(argv, timeout=30, profile="scripted",
                                 owner=threading.current_thread().name).stdout


def plain(argv: list[str]) -> bytes:
    return subprocess.run(argv, capture_output=True, check=True, env={"PATH": "/usr/bin:/bin"}).stdout


def spread_once(run: Callable[[list[str]], bytes], seats: int) -> float:
    """Seconds between the first and the last command start among ``seats`` concurrent launches."""
    barrier = threading.Barrier(seats)
    starts: list[int] = []
    lock = threading.Lock()

    def seat() -> None:
        barrier.wait()
        ns = int(run(DATE).strip())
        with lock:
            starts.append(ns)

    threads = [threading.Thread(target=seat, name=f"seat{i}") for i in range(seats)]
    for t in threads:
        t.start()
    for t in threads:
        t.join()
    return (max(starts) - min(starts)) / 1e9


def median_run(run: Callable[[list[str]], bytes], runs: int, seats: int = 14) -> float:
    """Sequential runs taking turns over ``seats`` seats (each seat its own uid, as in the league: on a
    host whose PID 1 reaps slowly, bubblewrap's exited namespace init lingers a moment as a zombie
    counted against its seat's process limit, so one seat started 30 times back to back would hit it)."""
    times = []
    for i in range(runs):
        threading.current_thread().name = f"seat{i % seats}"
        t0 = time.perf_counter()
        run(["/bin/true"])
        times.append(time.perf_counter() - t0)
    threading.current_thread().name = "MainThread"
    return statistics.median(times)


def main() -> None:
    parser = argparse.ArgumentParser(description=__doc__.splitlines()[0])
    parser.add_argument("--rounds", type=int, default=9)
    parser.add_argument("--seats", type=int, default=14)
    parser.add_argument("--runs", type=int, default=40)
    args = parser.parse_args()
    boxes = {"per-run cgroup": BwrapSandbox(), "no cgroup (LEAGUE_SANDBOX_CGROUP=off)": BwrapSandbox(cgroup="off")}
    runs = {name: sandboxed(box) for name, box in boxes.items()}
    for run in runs.values():
        run(["/bin/true"])  # warm the page cache
    spreads: dict[str, list[float]] = {name: [] for name in runs}
    overheads: dict[str, list[float]] = {name: [] for name in runs}
    for _ in range(args.rounds):  # interleaved, so load changes hit both variants alike
        for name, run in runs.items():
            spreads[name].append(spread_once(run, args.seats))
    plain_spreads = [spread_once(plain, args.seats) for _ in range(args.rounds)]
    for _ in range(3):
        for name, run in runs.items():
            overheads[name].append(median_run(run, args.runs) - median_run(plain, args.runs))
    base = median_run(plain, args.runs)
    load = ", ".join(f"{x:.1f}" for x in os.getloadavg())
    print(f"machine: {platform.machine()} {os.cpu_count()} cores, {platform.platform()}, load average {load}")
    for name in runs:
        med, lo, hi = (f(spreads[name]) * 1000 for f in (statistics.median, min, max))
        print(f"[{name}] {args.seats} concurrent sandboxed seats, first-to-last start, median of {args.rounds} "
              f"rounds: {med:.1f} ms (min {lo:.1f}, max {hi:.1f})")
        print(f"[{name}] start-up overhead (sandboxed minus plain, median of {args.runs} runs, 3 repeats): "
              f"{statistics.median(overheads[name]) * 1000:.1f} ms "
              f"(repeats: {', '.join(f'{o * 1000:.1f}' for o in overheads[name])})")
    print(
        f"{args.seats} concurrent plain subprocesses (baseline), same measure: "
        f"{statistics.median(plain_spreads) * 1000:.1f} ms"
    )
    print(f"plain subprocess /bin/true: median {base * 1000:.2f} ms")


if __name__ == "__main__":
    main()
