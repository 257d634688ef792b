"""The league's bookkeeping of a remote batch, fed with real wire messages through the runner's own
delivery path (as its consumer thread calls it), under a simulated clock: first reply wins, a copy of
it is dropped, another run's reply is a flagged duplicate, acknowledgement waits for the next request,
and an ask nobody answers is concluded at its cut-off."""

from __future__ import annotations

import hashlib
import threading
import time
from datetime import UTC, datetime, timedelta
from typing import Any

import pytest

from league.clock import SimulatedClock
from league.workers import wire
from league.workers.broker import parse_target
from league.workers.errors import WireError, WorkerError
from league.workers.remote import RemoteBatch, RemoteSeatRunner
from league.workers.runner import SeatJob
from league_agents.base import Ask, FailureClass, SeatReply, SeatSpec

T0 = datetime(2026, 11, 25, 13, 0, tzinfo=UTC)
DEADLINE = T0 + timedelta(minutes=5)


class Listener:
    """Stands where the kombu consumer thread stands: it is asked to acknowledge messages."""

    queue = "lab-a"

    def __init__(self) -> None:
        self.acked: list[str] = []

    def request_ack(self, message: Any) -> None:
        self.acked.append(message)


def job(name: str, timeout_s: float = 600) -> SeatJob:
    text = f"ask for {name}"
    return SeatJob(SeatSpec(name=name, adapter="scripted", timeout_s=timeout_s),
                   Ask(text=text, sha256=hashlib.sha256(text.encode()).hexdigest(), session="2026-11-25"), "lab-a")


def ask_of(j: SeatJob) -> wire.AskMessage:
    msg = wire.parse(wire.ask_message(j.spec, j.ask, queue="lab-a", deadline=DEADLINE, sent_at=T0))
    assert isinstance(msg, wire.AskMessage)
    return msg


def answer(j: SeatJob, raw: str = "answer") -> dict[str, Any]:
    reply = SeatReply(seat=j.spec.name, raw=raw, model="m", version="v", mode="", started_at=T0, finished_at=T0)
    return wire.reply_message(ask_of(j), reply, worker="lab-a@host", redelivered=False, sent_at=T0)


def started(j: SeatJob) -> dict[str, Any]:
    return wire.started_message(ask_of(j), worker="lab-a@host", started_at=T0, redelivered=False)


@pytest.fixture
def clock() -> SimulatedClock:
    return SimulatedClock(T0)


@pytest.fixture
def runner(clock: SimulatedClock) -> RemoteSeatRunner:
    league = parse_target("amqp://league:pw@127.0.0.1:1/")  # never contacted by these tests
    return RemoteSeatRunner(league, clock, grace_s=30, run_margin_s=30, poll_s=0.01)


def batch_of(runner: RemoteSeatRunner, *jobs: SeatJob) -> RemoteBatch:
    made = RemoteBatch(runner, jobs, DEADLINE)
    runner._waiting.update(dict.fromkeys(made.jobs, made))
    return made


def test_first_reply_wins_a_copy_is_dropped_another_run_is_a_flagged_duplicate(runner: RemoteSeatRunner) -> None:
    a, b = job("a"), job("b")
    batch, listener = batch_of(runner, a, b), Listener()
    first = answer(a, "first run")
    for i, body in enumerate([started(a), first, dict(first), answer(a, "second run"), answer(b)]):
        runner._deliver(listener, body, f"m{i}")  # type: ignore[arg-type]

    got = next(batch)
    assert (got.seat, got.reply.raw, got.duplicate) == ("a", "first run", False)
    assert listener.acked == ["m0"]  # the started notice at once; the reply only once it is sealed
    again = next(batch)
    assert (again.seat, again.reply.raw, again.duplicate) == ("a", "second run", True)
    assert listener.acked == ["m0", "m1", "m2"]  # m2 (a copy of m1) was dropped, never yielded
    assert next(batch).seat == "b"
    with pytest.raises(StopIteration):
        next(batch)
    assert sorted(listener.acked) == ["m0", "m1", "m2", "m3", "m4"]
    assert runner._waiting == {} and runner.in_flight() == []


def test_an_ask_nobody_starts_is_concluded_at_deadline_plus_grace(runner: RemoteSeatRunner,
                                                                  clock: SimulatedClock) -> None:
    a = job("a")
    batch = batch_of(runner, a)
    assert batch.cutoff(next(iter(batch.jobs))) == DEADLINE + timedelta(seconds=30)
    clock.set(DEADLINE + timedelta(seconds=30))
    got = next(batch)
    assert got.expired and got.reply.silent and got.reply.failure is FailureClass.TIMEOUT and got.worker == ""
    assert got.arrived_at == DEADLINE + timedelta(seconds=30) and "no worker started it" in got.reply.detail


def test_a_started_ask_is_awaited_for_its_timeout(runner: RemoteSeatRunner, clock: SimulatedClock) -> None:
    a = job("a", timeout_s=600)
    batch, listener = batch_of(runner, a), Listener()
    runner._deliver(listener, started(a), "m0")  # type: ignore[arg-type]
    box: list[Any] = []
    waiter = threading.Thread(target=lambda: box.append(next(batch)), daemon=True)
    waiter.start()
    clock.set(DEADLINE + timedelta(minutes=5))  # past deadline + grace, but the run may still be going
    time.sleep(0.3)
    assert box == []
    rows = runner.in_flight()
    assert rows[0]["state"] == "running" and rows[0]["worker"] == "lab-a@host"
    clock.set(T0 + timedelta(seconds=600 + 30 + 30))
    waiter.join(5)
    assert len(box) == 1 and not box[0].expired and box[0].reply.silent
    assert "no reply from the worker that started it" in box[0].reply.detail


def test_replies_after_a_cancel_or_the_end_are_kept_as_strays(runner: RemoteSeatRunner) -> None:
    a, b = job("a"), job("b")
    batch, listener = batch_of(runner, a, b), Listener()
    runner._deliver(listener, answer(a), "m0")  # type: ignore[arg-type]
    assert next(batch).seat == "a"
    batch.cancel()
    with pytest.raises(StopIteration):
        next(batch)
    runner._deliver(listener, answer(b), "m1")  # type: ignore[arg-type]
    runner._deliver(listener, answer(a, "again"), "m2")  # type: ignore[arg-type]
    assert "m1" not in listener.acked
    strays = runner.take_strays()
    assert [(s.seat, s.duplicate) for s in strays] == [("b", False), ("a", True)]
    assert {"m1", "m2"} <= set(listener.acked)


def test_expire_concludes_every_pending_ask_now(runner: RemoteSeatRunner) -> None:
    batch = batch_of(runner, job("a"), job("b"))
    batch.expire()
    got = list(batch)
    assert sorted(g.seat for g in got) == ["a", "b"] and all(g.expired and g.reply.silent for g in got)


def test_a_malformed_reply_is_dropped_and_acknowledged(runner: RemoteSeatRunner) -> None:
    a = job("a")
    batch, listener = batch_of(runner, a), Listener()
    runner._deliver(listener, {**answer(a), "raw_b64": "!!"}, "bad")  # type: ignore[arg-type]
    runner._deliver(listener, answer(a), "good")  # type: ignore[arg-type]
    assert next(batch).reply.raw == "answer" and listener.acked == ["bad"]


def test_submit_refuses_a_repeated_ask_and_a_secret_before_sending(runner: RemoteSeatRunner) -> None:
    a = job("a")
    with pytest.raises(WorkerError, match="repeated in the batch"):
        runner.submit([a, a], DEADLINE)
    leaky = SeatJob(a.spec.model_copy(update={"options": {"token": "x"}}), a.ask, "lab-a")
    with pytest.raises(WireError, match="looks like a secret"):
        runner.submit([leaky], DEADLINE)


def test_an_unreachable_broker_concludes_the_labs_asks_at_once(runner: RemoteSeatRunner) -> None:
    got = list(runner.submit([job("a"), job("b")], DEADLINE))  # 127.0.0.1:1 refuses the connection
    assert sorted(g.seat for g in got) == ["a", "b"]
    assert all(g.reply.failure is FailureClass.TRANSIENT and not g.expired for g in got)
    assert all("could not be queued for 'lab-a'" in g.reply.detail for g in got)
