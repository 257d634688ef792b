"""Benchmark: fan-out of 100 stand-in seats over 2 remote workers, against local threads.

Not a test; run by hand as root on a host with RabbitMQ on 127.0.0.1:5672 and copy the figures into
docs/workers.md:

    python benchmarks/workers_fanout.py [--seats 100] [--runs 3] [--threads 16] [--concurrency 8] [--against DIR]

Every seat is a scripted seat (a real child process in the real bubblewrap sandbox, its own uid).

* local: the day's way today, ``--threads`` threads each calling ``seat.ask`` (league/day.py's pool
  has max(8, 8 × cores) = 16 threads on this 2-core machine);
* remote: :class:`RemoteSeatRunner` publishes the same asks to two labs' queues (half each), served by
  two real ``league worker`` processes with ``--concurrency`` pool processes each (2 × 8 = 16 by default),
  over plain AMQP on loopback.

* against (``--against DIR``): a second pair of workers running the code of another checkout (e.g.
  ``git archive main | tar -x -C /var/tmp/main``, put first on their ``PYTHONPATH``), so that a change of the
  workers' side is measured before and after in the same go, the runs alternating.

Per run: the start spread (last seat start − first, from each reply's ``started_at``), the time from
the first ask sent to the last seat's start (last_start) and to the last reply received (makespan), the
median time to a reply, for remote the time ``submit`` took to publish every ask (all confirmed by the
broker: published together, then one wait for the confirms), and the CPU seconds spent (local: this
process and the seats' processes; remote: the workers' processes, their seats' included, and this
process; the broker's own are not counted, it is shared). The load average is printed before and after.
Medians over ``--runs`` are printed with the ratio to local. The labs, users, workers and the scratch
folder are removed at the end.
"""

from __future__ import annotations

import argparse
import hashlib
import os
import platform
import resource
import shutil
import statistics
import subprocess
import sys
import tempfile
import time
import uuid
from collections.abc import Callable
from concurrent.futures import ThreadPoolExecutor
from datetime import datetime, timedelta
from functools import partial
from pathlib import Path

from league.clock import SystemClock
from league.workers import broker as b
from league.workers.remote import RemoteSeatRunner
from league.workers.runner import SeatJob
from league_agents.base import Ask, SeatReply, SeatSpec
from league_agents.registry import build_seat

LEAGUE = str(Path(sys.executable).with_name("league"))
CODES = ("SPX", "NDX", "RUT", "VIX", "TNX", "DXY", "GLD", "OIL", "BTC", "EUR", "JPY", "HSI")
CONTEXT = {"markets": {code: {"horizons": ["1d", "1w", "1m", "6m"], "price": 100.0} for code in CODES}}
TICK = os.sysconf("SC_CLK_TCK")


def asks(seats: int, tag: str) -> list[tuple[SeatSpec, Ask]]:
    out = []
    for i in range(seats):
        spec = SeatSpec(name=f"bench-{i:03d}", adapter="scripted", timeout_s=120, options={"seed": i})
        text = f"benchmark ask {tag} for seat {i}"
        out.append((spec, Ask(text=text, sha256=hashlib.sha256(text.encode()).hexdigest(), session="2026-11-25",
                              context=CONTEXT)))
    return out


def figures(sent: datetime, started: list[datetime], arrived: list[datetime]) -> dict[str, float]:
    return {"spread_s": (max(started) - min(started)).total_seconds(),
            "last_start_s": (max(started) - sent).total_seconds(),
            "makespan_s": (max(arrived) - sent).total_seconds(),
            "median_reply_s": statistics.median((a - sent).total_seconds() for a in arrived)}


def run_local(seats: int, threads: int) -> dict[str, float]:
    clock = SystemClock()
    jobs = [(build_seat(spec), ask) for spec, ask in asks(seats, uuid.uuid4().hex)]
    arrived: list[datetime] = []
    replies: list[SeatReply] = []

    def one(seat: object, ask: Ask) -> None:
        reply = seat.ask(ask, clock.now)  # type: ignore[attr-defined]
        arrived.append(clock.now())
        replies.append(reply)

    with ThreadPoolExecutor(max_workers=threads) as pool:
        sent = clock.now()
        for seat, ask in jobs:
            pool.submit(one, seat, ask)
    assert all(r.failure is None for r in replies) and len(replies) == seats
    return figures(sent, [r.started_at for r in replies], arrived)


def run_remote(runner: RemoteSeatRunner, queues: list[str], seats: int) -> dict[str, float]:
    jobs = [SeatJob(spec, ask, queues[i % len(queues)]) for i, (spec, ask) in enumerate(asks(seats, uuid.uuid4().hex))]
    sent = runner.clock.now()
    batch = runner.submit(jobs, sent + timedelta(minutes=10))
    published = (runner.clock.now() - sent).total_seconds()
    arrivals = list(batch)
    assert len(arrivals) == seats and all(a.reply.failure is None and not a.duplicate for a in arrivals)
    return {**figures(sent, [a.reply.started_at for a in arrivals], [a.arrived_at for a in arrivals]),
            "publish_s": published}


def start_worker(queue: str, password: Path, concurrency: int, log: Path,
                 code: Path | None = None) -> subprocess.Popen[bytes]:
    env = {k: v for k, v in os.environ.items() if k != "PYTHONPATH"} | ({"PYTHONPATH": str(code)} if code else {})
    with open(log, "wb") as out:
        proc = subprocess.Popen([LEAGUE, "worker", "--queue", queue, "--broker",
                                 f"amqp://{queue}@127.0.0.1:5672/league-{queue}", "--password-file", str(password),
                                 "--concurrency", str(concurrency), "--log-level", "INFO"],
                                stdout=out, stderr=subprocess.STDOUT, start_new_session=True, env=env,
                                cwd=log.parent)
    end = time.monotonic() + 120
    while " ready." not in log.read_text(errors="replace"):
        if proc.poll() is not None or time.monotonic() > end:
            raise RuntimeError(f"worker {queue} did not start:\n{log.read_text(errors='replace')[-2000:]}")
        time.sleep(0.1)
    return proc


def own_cpu(*, seats: bool) -> float:
    """CPU seconds of this process, and with ``seats`` of its children waited for (the local seats' processes)."""
    who = (resource.RUSAGE_SELF, resource.RUSAGE_CHILDREN) if seats else (resource.RUSAGE_SELF,)
    return sum(u.ru_utime + u.ru_stime for u in map(resource.getrusage, who))


def remote_cpu(groups: set[int]) -> float:
    """CPU seconds of this process and of every live process in these process groups (a worker, its pool
    processes) with the children they waited for (the seats' processes)."""
    total = own_cpu(seats=False)
    for entry in Path("/proc").iterdir():
        if entry.name.isdigit():
            try:
                fields = (entry / "stat").read_text().rsplit(")", 1)[1].split()
            except OSError:
                continue
            if int(fields[2]) in groups:
                total += sum(int(x) for x in fields[11:15]) / TICK
    return total


def timed(measure: Callable[[], dict[str, float]], cpu: Callable[[], float]) -> dict[str, float]:
    before = cpu()
    result = measure()
    time.sleep(0.3)  # the pool processes account their last seats
    return {**result, "cpu_s": cpu() - before}


def main() -> None:
    parser = argparse.ArgumentParser(description=__doc__.splitlines()[0])
    parser.add_argument("--seats", type=int, default=100)
    parser.add_argument("--runs", type=int, default=3)
    parser.add_argument("--threads", type=int, default=16)
    parser.add_argument("--concurrency", type=int, default=8)
    parser.add_argument("--against", type=Path, default=None,
                        help="another checkout whose workers are measured alternately with this one's")
    args = parser.parse_args()
    load_before = " ".join(f"{x:.1f}" for x in os.getloadavg())
    os.environ.setdefault("LEAGUE_SEAT_UIDS", "64000-64999")
    folder = Path(tempfile.mkdtemp(prefix="workers-bench-"))
    ctl = b.Rabbitmqctl()
    league_user = f"bench-{uuid.uuid4().hex[:6]}"
    b.add_league_user(ctl, league_user, b.read_or_make_password(folder / "league.password"))
    league = b.parse_target(f"amqp://{league_user}@127.0.0.1:5672/", password_file=folder / "league.password")
    sides: dict[str, Path | None] = {"remote": None} | ({"against": args.against.resolve()} if args.against else {})
    queues = {side: [f"bench-{uuid.uuid4().hex[:6]}" for _ in range(2)] for side in sides}
    procs: dict[str, list[subprocess.Popen[bytes]]] = {side: [] for side in sides}
    results: dict[str, list[dict[str, float]]] = {"local": []} | {side: [] for side in sides}
    try:
        for side, code in sides.items():
            for q in queues[side]:
                b.add_lab(ctl, q, b.read_or_make_password(folder / f"{q}.password"), league=league)
                procs[side].append(start_worker(q, folder / f"{q}.password", args.concurrency, folder / f"{q}.log",
                                                code))
        runner = RemoteSeatRunner(league, SystemClock())
        for side in sides:  # warm: every pool process imports the seat
            run_remote(runner, queues[side], len(queues[side]) * args.concurrency)
        for i in range(args.runs):
            results["local"].append(timed(partial(run_local, args.seats, args.threads), partial(own_cpu, seats=True)))
            for side in (list(sides) if i % 2 == 0 else list(sides)[::-1]):
                results[side].append(timed(partial(run_remote, runner, queues[side], args.seats),
                                           partial(remote_cpu, {proc.pid for proc in procs[side]})))
            print(f"run {i + 1}: " + "  ".join(f"{k} {v[-1]}" for k, v in results.items()), flush=True)
        runner.close()
    finally:
        for proc in (p for side in procs.values() for p in side):
            os.killpg(proc.pid, 15)
            proc.wait(60)
        for q in (q for side in queues.values() for q in side):
            b.remove_lab(ctl, q)
        ctl.run("delete_user", league_user)
        shutil.rmtree(folder, ignore_errors=True)
    print(f"\nload average before {load_before}, after {' '.join(f'{x:.1f}' for x in os.getloadavg())}")
    print(f"{platform.node()}: {os.cpu_count()} cores, Python {platform.python_version()}, {args.seats} seats, "
          f"{args.threads} local threads vs 2 workers x {args.concurrency} processes, median of {args.runs} runs"
          + (f"; against: workers from {args.against}" if args.against else ""))
    print(f"{'figure':<16}" + "".join(f"{k:>10}" for k in results) + "".join(f"{k + '/local':>16}" for k in sides))
    for key in ("spread_s", "last_start_s", "makespan_s", "median_reply_s", "cpu_s"):
        med = {k: statistics.median(r[key] for r in v) for k, v in results.items()}
        print(f"{key:<16}" + "".join(f"{m:>10.3f}" for m in med.values())
              + "".join(f"{med[k] / med['local']:>16.2f}" for k in sides))
    print(f"{'publish_s':<16}{'':>10}" + "".join(f"{statistics.median(r['publish_s'] for r in results[k]):>10.3f}"
                                             for k in sides))


if __name__ == "__main__":
    main()
