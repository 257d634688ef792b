"""Benchmark: the scripted seat's sandboxed runs, as a season makes them, wall and CPU of the whole tree.

Not a test; run by hand (as root for the CPU figure) and copy the figures into docs/costs.md:

    python benchmarks/seat_runs.py [--runs 40] [--rounds 6] [--seats 10]

Each run is ``ScriptedSeat.ask`` as the season calls it (the same request building, child, profile and
sandbox). ``rusage`` misses most of a run's CPU (bubblewrap's namespace init reaps the child, and its own
parent never waits for those), so when it can the benchmark moves itself into a fresh ``cpuacct`` cgroup
(v1) and reads ``cpuacct.usage``: every process a run starts stays in that hierarchy's group, whatever
memory and pids cgroups the sandbox moves it to. Other work on the machine does not count in it; wall
times do feel the load, so compare wall only between runs of similar load.

1. Sequential: RUNS asks one after the other, taking turns over SEATS seats (their own uids and cgroups).
2. Concurrent: SEATS threads ask at once, ROUNDS times (the season's fan-out of one session).
"""

from __future__ import annotations

import argparse
import os
import platform
import statistics
import threading
import time
from pathlib import Path

from league_agents.base import Ask, SeatSpec
from league_agents.scripted import ScriptedSeat
from sandbox.interface import system_now

CPUACCT = Path("/sys/fs/cgroup/cpuacct")
CODES = ("SPX", "NDX", "RUT", "TNX", "DXY", "GLD", "OIL", "BTC", "VIX", "EUR", "JPY", "HYG")


def cpu_meter() -> Path | None:
    """A cpuacct cgroup holding this process (and so everything it starts), or None where there is none."""
    group = CPUACCT / f"seat-runs-{os.getpid()}"
    try:
        group.mkdir()
        (group / "cgroup.procs").write_text(str(os.getpid()), encoding="ascii")
    except OSError:
        return None
    return group


def cpu_seconds(group: Path | None) -> float:
    if group is None:
        import resource

        own, kids = resource.getrusage(resource.RUSAGE_SELF), resource.getrusage(resource.RUSAGE_CHILDREN)
        return own.ru_utime + own.ru_stime + kids.ru_utime + kids.ru_stime
    return int((group / "cpuacct.usage").read_text(encoding="ascii")) / 1e9


def seats(n: int) -> list[ScriptedSeat]:
    return [ScriptedSeat(SeatSpec(name=f"bench{i}", adapter="scripted", options={"seed": i, "skill": 0.3}))
            for i in range(n)]


def ask() -> Ask:
    markets = {c: {"horizons": ["1d", "1w", "1m", "6m"], "price": 100.0 + i, "crowd": i % 3 == 0}
               for i, c in enumerate(CODES)}
    hint = {c: {"1d": 40.0 + i, "1w": 60.0 - i} for i, c in enumerate(CODES)}
    return Ask(text="Forecast the markets.", sha256="a" * 64, session="2026-06-01",
               context={"markets": markets, "hint": hint})


def one(seat: ScriptedSeat, question: Ask) -> None:
    reply = seat.ask(question, system_now)
    if reply.failure is not None:
        raise SystemExit(f"seat {seat.spec.name} failed: {reply.failure} {reply.detail}")


def sequential(pool: list[ScriptedSeat], runs: int, group: Path | None) -> tuple[float, float]:
    question = ask()
    c0, t0 = cpu_seconds(group), time.perf_counter()
    for i in range(runs):
        one(pool[i % len(pool)], question)
    return (time.perf_counter() - t0) / runs, (cpu_seconds(group) - c0) / runs


def concurrent(pool: list[ScriptedSeat], rounds: int, group: Path | None) -> tuple[float, float]:
    question = ask()
    c0, t0 = cpu_seconds(group), time.perf_counter()
    for _ in range(rounds):
        threads = [threading.Thread(target=one, args=(seat, question)) for seat in pool]
        for th in threads:
            th.start()
        for th in threads:
            th.join()
    return (time.perf_counter() - t0) / rounds, (cpu_seconds(group) - c0) / rounds


def main() -> None:
    parser = argparse.ArgumentParser(description=__doc__.splitlines()[0])
    parser.add_argument("--runs", type=int, default=40)
    parser.add_argument("--rounds", type=int, default=6)
    parser.add_argument("--seats", type=int, default=10)
    parser.add_argument("--repeats", type=int, default=3)
    args = parser.parse_args()
    group = cpu_meter()
    pool = seats(args.seats)
    one(pool[0], ask())  # warm the page cache
    seq = [sequential(pool, args.runs, group) for _ in range(args.repeats)]
    con = [concurrent(pool, args.rounds, group) for _ in range(args.repeats)]
    load = ", ".join(f"{x:.1f}" for x in os.getloadavg())
    meter = "cpuacct cgroup, whole tree" if group is not None else "rusage (self + waited children only)"
    print(f"machine: {platform.machine()} {os.cpu_count()} cores, {platform.platform()}, load average {load}")
    print(f"sequential, {args.runs} runs x {args.repeats}: wall {statistics.median(w for w, _ in seq) * 1e3:.1f} "
          f"ms/run, CPU {statistics.median(c for _, c in seq) * 1e3:.1f} ms/run ({meter})")
    print(f"{args.seats} concurrent, {args.rounds} rounds x {args.repeats}: wall "
          f"{statistics.median(w for w, _ in con) * 1e3:.1f} ms/round, CPU "
          f"{statistics.median(c for _, c in con) * 1e3:.1f} ms/round")
    if group is not None:
        (CPUACCT / "cgroup.procs").write_text(str(os.getpid()), encoding="ascii")
        group.rmdir()


if __name__ == "__main__":
    main()
