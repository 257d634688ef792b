"""Faults on the real broker with real worker processes: a worker SIGKILLed mid-ask, an ask nobody takes
before its deadline, and the broker itself stopped during a batch. Never two answers to one ask.

The outage lasts ``LEAGUE_TEST_BROKER_OUTAGE_S`` seconds (the issue's 30 by default; a shorter one with
the variable for a quick local run): long enough that the running seats finish while the
broker is down and must hold their replies, and that the workers go through their reconnection back-off."""

from __future__ import annotations

import hashlib
import os
import subprocess
import threading
import time
import uuid
from collections.abc import Callable, Iterator
from datetime import timedelta
from pathlib import Path

import pytest
from worker_hosts import Host, Hosts, Lab, WorkerProc, start_worker

from league.clock import SystemClock
from league.workers.broker import BrokerTarget, queue_status
from league.workers.remote import RemoteBatch, RemoteSeatRunner
from league.workers.runner import Arrival, SeatJob
from league_agents.base import Ask, SeatSpec

pytestmark = [pytest.mark.slow, pytest.mark.sandbox]
CLIS = Path(__file__).resolve().parents[2] / "assets" / "clis"
OUTAGE_S = float(os.environ.get("LEAGUE_TEST_BROKER_OUTAGE_S", "30"))


def slow(name: str, seconds: float, timeout_s: float = 60) -> SeatSpec:
    """A seat whose CLI really takes ``seconds`` (the hostile stand-in, through the Claude Code adapter)."""
    return SeatSpec(name=name, adapter="claude_code", model=f"slow-{seconds}", profile="scripted", timeout_s=timeout_s,
                    options={"executable": str(CLIS / "hostile")})


def quick(name: str) -> SeatSpec:
    return SeatSpec(name=name, adapter="scripted", timeout_s=60, options={"seed": 7})


def job(spec: SeatSpec, queue: str) -> SeatJob:
    text = f"ask for {spec.name} {uuid.uuid4().hex}"
    return SeatJob(spec, Ask(text=text, sha256=hashlib.sha256(text.encode()).hexdigest(), session="2026-11-25",
                             context={"markets": {"SPX": {"horizons": ["1d"]}}}), queue)


class Collector:
    """Iterates a batch in a thread, as the day would, keeping every arrival."""

    def __init__(self, batch: RemoteBatch) -> None:
        self.arrivals: list[Arrival] = []
        self.thread = threading.Thread(target=lambda: self.arrivals.extend(batch), daemon=True)
        self.thread.start()

    def join(self, timeout_s: float) -> list[Arrival]:
        self.thread.join(timeout_s)
        assert not self.thread.is_alive(), f"the batch did not end in {timeout_s} s: {self.arrivals}"
        return self.arrivals


def wait_for(what: Callable[[], bool], timeout_s: float, message: str) -> None:
    end = time.monotonic() + timeout_s
    while not what():
        assert time.monotonic() < end, message
        time.sleep(0.1)


@pytest.fixture
def runner(league_account: BrokerTarget) -> Iterator[RemoteSeatRunner]:
    made = RemoteSeatRunner(league_account, SystemClock(), grace_s=2, run_margin_s=1)
    yield made
    made.close()


@pytest.fixture
def workers(tmp_path: Path, hosts: Hosts) -> Iterator[Callable[..., WorkerProc]]:
    started: list[WorkerProc] = []

    def start(host: Host, lab: Lab, name: str, concurrency: int = 1, wait: bool = True) -> WorkerProc:
        proc = start_worker(host, queue=lab.queue, password_file=lab.password_file, ca_file=hosts.ca_file,
                            folder=tmp_path, name=name, concurrency=concurrency, wait=wait)
        started.append(proc)
        return proc

    yield start
    for proc in started:
        proc.stop()


def running(runner: RemoteSeatRunner, seat: str) -> bool:
    return any(r["seat"] == seat and r["state"] == "running" for r in runner.in_flight())


def test_a_worker_killed_mid_ask_is_replaced_and_the_ask_answered_once(
        make_lab: Callable[[], Lab], runner: RemoteSeatRunner, workers: Callable[..., WorkerProc],
        hosts: Hosts) -> None:
    lab = make_lab()
    first = workers(hosts.a, lab, "w1")
    deadline = SystemClock().now() + timedelta(seconds=60)
    collector = Collector(runner.submit([job(slow("killed", 6), lab.queue)], deadline))
    wait_for(lambda: running(runner, "killed"), 30, "the first worker never started the ask")
    first.kill()
    second = workers(hosts.b, lab, "w2")
    arrivals = collector.join(60)
    assert len(arrivals) == 1 and not arrivals[0].duplicate and not arrivals[0].expired
    got = arrivals[0]
    assert got.redelivered and got.worker == f"{lab.queue}@w2" and got.reply.failure is None
    assert "Slow but sure" in got.reply.raw
    time.sleep(1.0)
    assert runner.take_strays() == []  # the killed worker's run never produced a second answer
    assert second.text().count("received") == 1


def test_a_worker_killed_near_the_deadline_leaves_no_answer(
        make_lab: Callable[[], Lab], runner: RemoteSeatRunner, workers: Callable[..., WorkerProc],
        hosts: Hosts, league_account: BrokerTarget) -> None:
    lab = make_lab()
    first = workers(hosts.a, lab, "w1")
    deadline = SystemClock().now() + timedelta(seconds=4)
    collector = Collector(runner.submit([job(slow("late", 4, timeout_s=5), lab.queue)], deadline))
    wait_for(lambda: running(runner, "late"), 4, "the worker never started the ask")
    first.kill()
    while SystemClock().now() <= deadline + timedelta(seconds=1):
        time.sleep(0.2)
    assert queue_status(league_account, lab.queue).asks_waiting == 0  # the broker dropped it at its deadline
    second = workers(hosts.b, lab, "w2")
    arrivals = collector.join(60)
    assert len(arrivals) == 1 and arrivals[0].reply.silent and arrivals[0].worker == ""
    assert "no reply from the worker that started it" in arrivals[0].reply.detail
    time.sleep(1.0)
    assert "received" not in second.text() and runner.take_strays() == []


def test_an_ask_nobody_takes_by_its_deadline_expires(
        make_lab: Callable[[], Lab], runner: RemoteSeatRunner, workers: Callable[..., WorkerProc],
        hosts: Hosts, league_account: BrokerTarget) -> None:
    lab = make_lab()
    deadline = SystemClock().now() + timedelta(seconds=2)
    arrivals = list(runner.submit([job(quick("unserved"), lab.queue)], deadline))
    assert len(arrivals) == 1 and arrivals[0].expired and arrivals[0].reply.silent
    assert arrivals[0].arrived_at >= deadline + timedelta(seconds=runner.grace_s)
    assert queue_status(league_account, lab.queue).asks_waiting == 0
    late = workers(hosts.a, lab, "w1")
    time.sleep(1.0)
    assert "received" not in late.text() and runner.take_strays() == []


def test_an_ask_received_after_its_deadline_is_not_run_and_the_worker_says_so(
        make_lab: Callable[[], Lab], runner: RemoteSeatRunner, workers: Callable[..., WorkerProc],
        hosts: Hosts) -> None:
    """Celery discards a task past its ``expires``; the worker's revoke handler tells the league at once."""
    lab = make_lab()
    worker = workers(hosts.a, lab, "w1")
    late = SystemClock().now() - timedelta(seconds=1)  # TTL 0: delivered only because a worker is idle
    arrivals = list(runner.submit([job(quick("too-late"), lab.queue)], late))
    assert len(arrivals) == 1 and arrivals[0].expired and arrivals[0].reply.silent
    assert arrivals[0].worker == f"{lab.queue}@w1"  # the worker said so, before the league's cut-off
    assert "the worker discarded it (expired)" in arrivals[0].reply.detail
    assert "Discarding revoked task" in worker.text() and "worker.ask_started" not in worker.text()


def test_the_broker_stopped_during_a_batch_loses_and_doubles_nothing(
        make_lab: Callable[[], Lab], league_account: BrokerTarget, workers: Callable[..., WorkerProc],
        hosts: Hosts) -> None:
    labs = make_lab(), make_lab()
    started = [workers(host, lab, f"w-{host.name}", wait=False) for lab, host in zip(labs, (hosts.a, hosts.b),
                                                                                     strict=True)]
    for worker in started:  # started side by side
        worker.wait_ready()
    jobs = [job(spec, lab.queue) for lab in labs
            for spec in (slow(f"{lab.queue}-s1", 3), slow(f"{lab.queue}-s2", 3), quick(f"{lab.queue}-q1"),
                         slow(f"{lab.queue}-s3", 2), quick(f"{lab.queue}-q2"))]
    runner = RemoteSeatRunner(league_account, SystemClock(), grace_s=60)
    try:
        collector = Collector(runner.submit(jobs, SystemClock().now() + timedelta(seconds=150)))
        wait_for(lambda: any(r["state"] == "running" for r in runner.in_flight()), 30, "nothing started")
        pending_at_stop = runner.in_flight()
        stopped = subprocess.run(["rabbitmqctl", "stop_app"], capture_output=True, text=True, timeout=120)
        try:
            assert stopped.returncode == 0, stopped.stderr
            time.sleep(OUTAGE_S)
        finally:
            subprocess.run(["rabbitmqctl", "start_app"], capture_output=True, timeout=120, check=True)
            subprocess.run(["rabbitmqctl", "await_startup"], capture_output=True, timeout=120, check=True)
        restarted = SystemClock().now()
        arrivals = collector.join(240)
        time.sleep(2.0)
        strays = runner.take_strays()
    finally:
        runner.close()
    duplicates, redelivered = sum(a.duplicate for a in arrivals), sum(a.redelivered for a in arrivals)
    print(f"in flight at the stop: {len(pending_at_stop)}; arrivals {len(arrivals)}, duplicates {duplicates}, "
          f"redelivered {redelivered}, strays {len(strays)}")
    assert len(pending_at_stop) >= 4 and any(r["state"] == "queued" for r in pending_at_stop)
    answers = [a for a in arrivals if not a.duplicate]
    assert sum(a.arrived_at > restarted for a in answers) >= 4  # the outage really held asks back
    assert sorted(a.seat for a in answers) == sorted(j.spec.name for j in jobs)  # nothing lost, none twice
    assert all(a.reply.failure is None and not a.reply.silent for a in answers), [a.reply.detail for a in answers]
    assert all(a.duplicate for a in strays)  # a second run's reply is only ever a flagged duplicate
