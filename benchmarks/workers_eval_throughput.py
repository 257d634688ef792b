"""Benchmark: question-set throughput of `league eval questions` on one and on two lab workers.

Not a test; run by hand as root on a host with RabbitMQ on 127.0.0.1:5672 and copy the figures into
docs/workers.md:

    python benchmarks/workers_eval_throughput.py [--questions 12] [--trials 4] [--runs 3] [--concurrency 4]
                                                 [--think 1.0]

The seat is the eval stand-in (a real child process in the real bubblewrap sandbox) told to wait
``--think`` seconds before it answers, as a vendor's API does: a real seat's run is spent waiting on the
vendor, not on the worker's CPU, which is what more workers multiply. Three set-ups run the same
question set (``--questions`` admitted questions × ``--trials``), each ``--runs`` times, alternating:

* local: ``run_questions`` on this host, ``--concurrency`` threads (the seat's limit raised to match);
* 1 worker: one ``league worker --concurrency N`` serving the lab's queue;
* 2 workers: two such workers on the same queue (a lab with two machines).

Per run: replies per second (every trial sealed, from the first ask to the last seal) and the run's
wall time. Medians are printed with the ratio to the one-worker figure. The lab, the users and the
workers are removed at the end.
"""

from __future__ import annotations

import argparse
import os
import platform
import statistics
import subprocess
import sys
import tempfile
import time
import uuid
from pathlib import Path

from league.clock import SystemClock
from league.evals.config import EvalSeat, find_seat, load_config
from league.evals.questions import read_question_file, shipped_question_file
from league.evals.run import RunOptions, run_questions
from league.workers import broker as b
from league.workers.remote import RemoteSeatRunner

LEAGUE = str(Path(sys.executable).with_name("league"))


def seat(think_s: float, concurrency: int, queue: str = "") -> EvalSeat:
    found = find_seat(load_config(), "standin-sharp")
    spec = {**found.seat.model_dump(), "worker": queue, "options": {**found.seat.options, "think_s": think_s}}
    return EvalSeat.model_validate({**found.model_dump(), "max_concurrency": concurrency, "seat": spec})


def one_run(folder: Path, chosen: EvalSeat, opts: RunOptions, runner: RemoteSeatRunner | None) -> dict[str, float]:
    qset = read_question_file(shipped_question_file())
    out = folder / uuid.uuid4().hex[:8]
    start = time.monotonic()
    result = run_questions(qset, chosen, out, SystemClock(), opts, runner=runner)
    wall = time.monotonic() - start
    overall = result.results["scores"]["overall"]
    replies = int(overall["answered"]) + int(overall["no_reply"])
    assert int(overall["no_reply"]) == 0, overall
    return {"replies_per_s": replies / wall, "wall_s": wall}


def start_worker(queue: str, password: Path, concurrency: int, log: Path) -> subprocess.Popen[bytes]:
    with open(log, "wb") as out:
        proc = subprocess.Popen([LEAGUE, "worker", "--queue", queue, "--broker",
                                 f"amqp://{queue}@127.0.0.1:5672/league-{queue}", "--password-file", str(password),
                                 "--concurrency", str(concurrency), "--name", log.stem],
                                stdout=out, stderr=subprocess.STDOUT, start_new_session=True)
    end = time.monotonic() + 60
    while " ready." not in log.read_text(errors="replace"):
        if proc.poll() is not None or time.monotonic() > end:
            raise RuntimeError(f"worker {log.stem} did not start:\n{log.read_text(errors='replace')[-2000:]}")
        time.sleep(0.1)
    return proc


def stop(proc: subprocess.Popen[bytes]) -> None:
    os.killpg(proc.pid, 15)
    proc.wait(60)


def main() -> None:
    parser = argparse.ArgumentParser(description=__doc__.splitlines()[0])
    parser.add_argument("--questions", type=int, default=12)
    parser.add_argument("--trials", type=int, default=4)
    parser.add_argument("--runs", type=int, default=3)
    parser.add_argument("--concurrency", type=int, default=4)
    parser.add_argument("--think", type=float, default=1.0)
    args = parser.parse_args()
    folder = Path(tempfile.mkdtemp(prefix="eval-throughput-"))
    ctl = b.Rabbitmqctl()
    league_user = f"bench-{uuid.uuid4().hex[:6]}"
    b.add_league_user(ctl, league_user, b.read_or_make_password(folder / "league.password"))
    league = b.parse_target(f"amqp://{league_user}@127.0.0.1:5672/", password_file=folder / "league.password")
    queue = f"bench-{uuid.uuid4().hex[:6]}"
    b.add_lab(ctl, queue, b.read_or_make_password(folder / f"{queue}.password"), league=league)
    opts = RunOptions(trials=args.trials, concurrency=args.concurrency, limit=args.questions)
    local, remote = seat(args.think, args.concurrency), seat(args.think, args.concurrency, queue)
    results: dict[str, list[dict[str, float]]] = {"local": [], "1 worker": [], "2 workers": []}
    workers: list[subprocess.Popen[bytes]] = []
    runner = RemoteSeatRunner(league, SystemClock(), grace_s=10)
    try:
        workers.append(start_worker(queue, folder / f"{queue}.password", args.concurrency, folder / "w1.log"))
        one_run(folder, remote, opts, runner)  # warm: every pool process imports the seat
        for i in range(args.runs):
            results["local"].append(one_run(folder, local, opts, None))
            results["1 worker"].append(one_run(folder, remote, opts, runner))
            workers.append(start_worker(queue, folder / f"{queue}.password", args.concurrency, folder / "w2.log"))
            results["2 workers"].append(one_run(folder, remote, opts, runner))
            stop(workers.pop())
            print(f"run {i + 1}: " + "  ".join(f"{k} {v[-1]['replies_per_s']:.2f}/s" for k, v in results.items()),
                  flush=True)
    finally:
        runner.close()
        for proc in workers:
            stop(proc)
        b.remove_lab(ctl, queue)
        ctl.run("delete_user", league_user)
    print(f"\n{platform.node()}: {os.cpu_count()} cores, Python {platform.python_version()}; "
          f"{args.questions} questions x {args.trials} trials, stand-in thinking {args.think} s, "
          f"concurrency {args.concurrency} per worker (and locally), median of {args.runs} runs")
    base = statistics.median(r["replies_per_s"] for r in results["1 worker"])
    print(f"{'set-up':<12}{'replies/s':>12}{'wall s':>10}{'vs 1 worker':>14}")
    for key, rows in results.items():
        rate = statistics.median(r["replies_per_s"] for r in rows)
        wall = statistics.median(r["wall_s"] for r in rows)
        print(f"{key:<12}{rate:>12.2f}{wall:>10.2f}{rate / base:>14.2f}")


if __name__ == "__main__":
    main()
