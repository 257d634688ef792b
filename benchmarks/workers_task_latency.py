"""Benchmark: a worker's latency from an ask taken to its seat's start, inside the task body.

Not a test; run by hand as root on a host with RabbitMQ on 127.0.0.1:5672 and copy the figures into
docs/workers.md:

    python benchmarks/workers_task_latency.py [--asks 20] [--rounds 6] [--against DIR]

The task body (:func:`league.workers.tasks.execute`) runs in this process, one ask after another, with
the worker's real publisher (persistent, confirmed by the broker) to a lab made for the run, and a
stand-in seat (a real child process in the real bubblewrap sandbox). Per ask: from the call of the task
body to the seat's own start (the reply's ``started_at``), i.e. what the worker does before the seat
runs (the ask's checks, the ``started`` message). With ``--against DIR`` the task body of another
checkout (e.g. ``git archive main | tar -x -C /var/tmp/main``) is measured alternately in the same go;
only its ``league/workers/tasks.py`` is loaded from there. Median and 90th percentile in milliseconds,
with the load average. The lab and the user are removed at the end.
"""

from __future__ import annotations

import argparse
import hashlib
import importlib.util
import os
import platform
import shutil
import statistics
import sys
import tempfile
import uuid
from collections.abc import Callable
from datetime import datetime, timedelta
from pathlib import Path
from types import ModuleType

from league.clock import SystemClock
from league.log import configure
from league.workers import broker as b
from league.workers import tasks, wire
from league.workers.celery_app import make_app
from league_agents.base import Ask, SeatSpec

CONTEXT = {"markets": {code: {"horizons": ["1d", "1w", "1m", "6m"], "price": 100.0} for code in ("SPX", "NDX")}}


def load_tasks(checkout: Path) -> ModuleType:
    """Another checkout's task body, under a name of its own (the rest of the package is this one's)."""
    spec = importlib.util.spec_from_file_location("against_tasks", checkout / "league" / "workers" / "tasks.py")
    if spec is None or spec.loader is None:
        raise SystemExit(f"no league/workers/tasks.py under {checkout}")
    module = importlib.util.module_from_spec(spec)
    sys.modules[spec.name] = module
    spec.loader.exec_module(module)
    return module


def one_round(module: ModuleType, publish: Callable[[wire.Body], None], queue: str, asks: int) -> list[float]:
    clock = SystemClock()
    tag = uuid.uuid4().hex
    out = []
    for i in range(asks):
        text = f"latency ask {tag} for seat {i}"
        spec = SeatSpec(name=f"bench-{i:03d}", adapter="scripted", timeout_s=120, options={"seed": i})
        ask = Ask(text=text, sha256=hashlib.sha256(text.encode()).hexdigest(), session="2026-11-25", context=CONTEXT)
        body = wire.ask_message(spec, ask, queue=queue, deadline=clock.now() + timedelta(minutes=5),
                                sent_at=clock.now())
        sent: list[wire.Body] = []

        def keep(message: wire.Body, sent: list[wire.Body] = sent) -> None:
            publish(message)
            sent.append(message)

        ctx = module.TaskContext(queue=queue, worker=f"{queue}@bench", redelivered=False, publish=keep, now=clock.now)
        taken = clock.now()
        module.execute(body, ctx)
        (reply,) = (m for m in sent if m["kind"] == "reply")
        started = reply.get("started_at")
        assert isinstance(started, str) and reply.get("failure") is None, reply
        out.append((datetime.fromisoformat(started) - taken).total_seconds() * 1000)
    return out


def main() -> None:
    parser = argparse.ArgumentParser(description=__doc__.splitlines()[0])
    parser.add_argument("--asks", type=int, default=20)
    parser.add_argument("--rounds", type=int, default=6)
    parser.add_argument("--against", type=Path, default=None)
    args = parser.parse_args()
    configure(json_logs=True, level="WARNING")
    os.environ.setdefault("LEAGUE_SEAT_UIDS", "64000-64999")
    bodies: dict[str, ModuleType] = {"this": tasks} | ({"against": load_tasks(args.against)} if args.against else {})
    folder = Path(tempfile.mkdtemp(prefix="workers-latency-"))
    ctl = b.Rabbitmqctl()
    league_user, queue = f"bench-{uuid.uuid4().hex[:6]}", f"bench-{uuid.uuid4().hex[:6]}"
    results: dict[str, list[float]] = {name: [] for name in bodies}
    loads = []
    try:
        b.add_league_user(ctl, league_user, b.read_or_make_password(folder / "league.password"))
        league = b.parse_target(f"amqp://{league_user}@127.0.0.1:5672/", password_file=folder / "league.password")
        b.add_lab(ctl, queue, b.read_or_make_password(folder / "lab.password"), league=league)
        lab = b.parse_target(f"amqp://{queue}@127.0.0.1:5672/league-{queue}", password_file=folder / "lab.password")
        publish = tasks.publisher(make_app(lab, queue, worker=True), queue)
        one_round(tasks, publish, queue, 2)  # warm: the seat built, the connection open
        for i in range(args.rounds):
            for name in (list(bodies) if i % 2 == 0 else list(bodies)[::-1]):
                results[name] += one_round(bodies[name], publish, queue, args.asks)
            loads.append(os.getloadavg()[0])
    finally:
        b.remove_lab(ctl, queue)
        ctl.run("delete_user", league_user)
        shutil.rmtree(folder, ignore_errors=True)
    print(f"{platform.node()}: {os.cpu_count()} cores, Python {platform.python_version()}, {args.rounds} rounds of "
          f"{args.asks} asks, load average (1 min) {min(loads):.1f}-{max(loads):.1f}"
          + (f"; against: {args.against}" if args.against else ""))
    print(f"{'task body':<10}{'median ms':>12}{'p90 ms':>10}")
    for name, values in results.items():
        ordered = sorted(values)
        print(f"{name:<10}{statistics.median(ordered):>12.2f}{ordered[int(0.9 * len(ordered))]:>10.2f}")


if __name__ == "__main__":
    main()
