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

Beside the cgroup's figure, two that no cgroup is charged with: the CPU of the kernel's own threads (the
kworkers that tear a network namespace down, RCU, softirq threads: the children of kthreadd, summed from
/proc/PID/stat over the phase, after a settling pause) and the machine-wide busy time from /proc/stat
(everything on the machine, other users' work included: meaningful on an idle machine only).
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
HZ = os.sysconf("SC_CLK_TCK")
SETTLE_S = 1.0  # deferred kernel work (a network namespace's cleanup) finishes within this after a phase
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


def kernel_threads() -> dict[int, float]:
    """CPU seconds of every kernel thread (a child of kthreadd, pid 2) by pid."""
    out: dict[int, float] = {}
    for pid in filter(str.isdigit, os.listdir("/proc")):
        try:
            stat = Path(f"/proc/{pid}/stat").read_text(encoding="ascii", errors="replace")
        except OSError:
            continue
        fields = stat[stat.rindex(")") + 2:].split()
        if fields[1] == "2":
            out[int(pid)] = (int(fields[11]) + int(fields[12])) / HZ
    return out


def machine_busy() -> float:
    """Busy CPU seconds of the whole machine since boot (/proc/stat: all but idle and iowait)."""
    values = [int(v) for v in Path("/proc/stat").read_text(encoding="ascii").split("\n", 1)[0].split()[1:9]]
    return (sum(values) - values[3] - values[4]) / HZ


class Meter:
    """The three CPU figures of one phase: the tree's cgroup, the kernel threads, the machine."""

    def __init__(self, group: Path | None) -> None:
        self.group = group
        self.cpu0, self.k0, self.m0 = cpu_seconds(group), kernel_threads(), machine_busy()

    def stop(self, n: int) -> tuple[float, float, float]:
        """(tree, kernel threads, machine) CPU seconds per unit over ``n`` units."""
        cpu = cpu_seconds(self.group) - self.cpu0
        time.sleep(SETTLE_S)
        k1, m1 = kernel_threads(), machine_busy()
        kernel = sum(v - self.k0.get(pid, 0.0) for pid, v in k1.items())
        return cpu / n, kernel / n, (m1 - self.m0) / n


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


def sequential(pool: list[ScriptedSeat], runs: int, group: Path | None) -> tuple[float, float, float, float]:
    """(wall, tree CPU, kernel-thread CPU, machine CPU) per run."""
    question = ask()
    meter, t0 = Meter(group), time.perf_counter()
    for i in range(runs):
        one(pool[i % len(pool)], question)
    wall = (time.perf_counter() - t0) / runs
    return (wall, *meter.stop(runs))


def concurrent(pool: list[ScriptedSeat], rounds: int, group: Path | None) -> tuple[float, float, float, float]:
    """(wall, tree CPU, kernel-thread CPU, machine CPU) per round of one run per seat at once."""
    question = ask()
    meter, t0 = Meter(group), time.perf_counter()
    for _ in range(rounds):
        threads = [threading.Thread(target=one, args=(seat, question)) for seat in pool]
        for th in threads:
            th.start()
        for th in threads:
            th.join()
    wall = (time.perf_counter() - t0) / rounds
    return (wall, *meter.stop(rounds))


def _ms(rows: list[tuple[float, float, float, float]], i: int) -> str:
    return f"{statistics.median(r[i] for r in rows) * 1e3:.1f}"


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
    print(f"sequential, {args.runs} runs x {args.repeats}: wall {_ms(seq, 0)} ms/run, CPU {_ms(seq, 1)} ms/run "
          f"({meter}); kernel threads {_ms(seq, 2)} ms/run; machine {_ms(seq, 3)} ms/run")
    print(f"{args.seats} concurrent, {args.rounds} rounds x {args.repeats}: wall {_ms(con, 0)} ms/round, CPU "
          f"{_ms(con, 1)} ms/round; kernel threads {_ms(con, 2)} ms/round; machine {_ms(con, 3)} ms/round")
    if group is not None:
        (CPUACCT / "cgroup.procs").write_text(str(os.getpid()), encoding="ascii")
        group.rmdir()


if __name__ == "__main__":
    main()
