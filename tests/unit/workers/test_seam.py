"""The day's one seat-execution seam: :class:`league.runner.SeatRunner` as the remote runner
implements it (futures resolved with each ask's first reply, timed by the league's clock; duplicates
and strays handed to the record sink) and the routed runner that sends `worker = ...` seats to it.

The remote runner is fed real wire messages through its own delivery path, as in test_batch.py; the
publication to the broker is replaced by a recorder (the real one is tested against RabbitMQ)."""

from __future__ import annotations

import hashlib
import time
from collections.abc import Sequence
from concurrent.futures import Future
from datetime import UTC, datetime, timedelta
from typing import Any

import pytest

from league.clock import SimulatedClock
from league.runner import ReplyRecord, RoutedRunner, SeatAsk
from league.workers import wire
from league.workers.broker import parse_target
from league.workers.remote import RemoteSeatRunner
from league_agents.base import Ask, FailureClass, Now, SeatReply, SeatSpec

T0 = datetime(2026, 11, 25, 13, 0, tzinfo=UTC)
CLOSE = T0 + timedelta(hours=1)


class Listener:
    queue = "lab-a"

    def __init__(self) -> None:
        self.acked: list[str] = []

    def request_ack(self, message: Any) -> None:
        self.acked.append(message)


def seat_ask(name: str, worker: str = "lab-a", **spec: Any) -> SeatAsk:
    text = f"ask for {name}"
    return SeatAsk(SeatSpec(name=name, adapter="scripted", worker=worker, **spec),
                   Ask(text=text, sha256=hashlib.sha256(text.encode()).hexdigest(), session="2026-11-25"))


def reply_body(a: SeatAsk, raw: str, started: datetime, finished: datetime) -> dict[str, Any]:
    ask = wire.parse(wire.ask_message(a.spec, a.ask, queue="lab-a", deadline=CLOSE, sent_at=T0))
    assert isinstance(ask, wire.AskMessage)
    reply = SeatReply(seat=a.spec.name, raw=raw, model="m", version="v", mode="", started_at=started,
                      finished_at=finished)
    return wire.reply_message(ask, reply, worker="lab-a@host", redelivered=False, sent_at=finished)


def make_runner(clock: SimulatedClock, *, simulated: bool = False) -> tuple[RemoteSeatRunner, list[dict[str, Any]],
                                                                            list[ReplyRecord]]:
    runner = RemoteSeatRunner(parse_target("amqp://league:pw@127.0.0.1:1/"), clock, grace_s=30, poll_s=0.01,
                              simulated=simulated)
    sent: list[dict[str, Any]] = []
    records: list[ReplyRecord] = []

    def send(queue: str, asks: Sequence[tuple[dict[str, Any], float]], deadline: datetime) -> dict[str, str]:
        sent.extend({**body, "_queue": queue, "_deadline": deadline} for body, _ in asks)
        return {}

    runner._send = send  # type: ignore[method-assign]
    runner.on_record(records.append)
    return runner, sent, records


def test_a_remote_answer_is_booked_at_its_arrival_by_the_leagues_clock() -> None:
    clock = SimulatedClock(T0)
    runner, sent, _ = make_runner(clock)
    a = seat_ask("a")
    [future] = runner.start([a], clock.now, CLOSE)
    assert sent[0]["queue"] == "lab-a" and sent[0]["_deadline"] == CLOSE  # the ingest close, by the broker's clock
    clock.set(T0 + timedelta(seconds=10))
    worker_start = T0 - timedelta(hours=1)  # the worker's clock is an hour behind: never used for booking
    runner._deliver(Listener(), reply_body(a, "the answer", worker_start, worker_start + timedelta(seconds=7)),
                    "m1")  # type: ignore[arg-type]
    got = future.result(timeout=10)
    assert got.raw == "the answer"
    assert got.finished_at == T0 + timedelta(seconds=10)  # arrival
    assert got.started_at == T0 + timedelta(seconds=3)  # the run's 7 s before it
    runner.close()


def test_a_worker_claiming_a_run_longer_than_the_wait_starts_no_earlier_than_the_send() -> None:
    clock = SimulatedClock(T0)
    runner, _, _ = make_runner(clock)
    a = seat_ask("a")
    [future] = runner.start([a], clock.now, CLOSE)
    clock.set(T0 + timedelta(seconds=5))
    runner._deliver(Listener(), reply_body(a, "x", T0, T0 + timedelta(hours=2)), "m1")  # type: ignore[arg-type]
    got = future.result(timeout=10)
    assert (got.started_at, got.finished_at) == (T0, T0 + timedelta(seconds=5))
    runner.close()


def test_under_a_simulated_league_a_reply_arrives_at_the_send_time_plus_its_run() -> None:
    real = SimulatedClock(datetime(2026, 11, 30, 15, 0, tzinfo=UTC))  # the broker's (real) time
    runner, sent, _ = make_runner(real, simulated=True)
    league_time = datetime(2025, 3, 4, 13, 30, tzinfo=UTC)  # the simulated 08:30 ET
    a = seat_ask("a")
    [future] = runner.start([a], lambda: league_time, league_time + timedelta(hours=1))
    assert sent[0]["_deadline"] == real.now() + timedelta(hours=1)  # the hour left, in the broker's time
    real.set(real.now() + timedelta(seconds=2))
    runner._deliver(Listener(), reply_body(a, "x", real.now(), real.now() + timedelta(seconds=120)),
                    "m1")  # type: ignore[arg-type]
    got = future.result(timeout=10)
    assert (got.started_at, got.finished_at) == (league_time, league_time + timedelta(seconds=120))
    runner.close()


def test_an_ask_sent_after_the_close_gets_its_seats_timeout_to_start() -> None:
    clock = SimulatedClock(T0)
    runner, sent, _ = make_runner(clock)
    runner.start([seat_ask("a", timeout_s=300), seat_ask("b", timeout_s=900)], clock.now, T0 - timedelta(minutes=1))
    assert {b["_deadline"] for b in sent} == {T0 + timedelta(seconds=900)}
    runner.close()


def test_a_second_run_is_a_record_never_a_second_answer_and_a_late_reply_is_a_stray() -> None:
    clock = SimulatedClock(T0)
    runner, _, records = make_runner(clock)
    a, b = seat_ask("a"), seat_ask("b")
    fa, fb = runner.start([a, b], clock.now, CLOSE)
    listener = Listener()
    runner._deliver(listener, reply_body(a, "first run", T0, T0), "m1")  # type: ignore[arg-type]
    runner._deliver(listener, reply_body(a, "second run", T0, T0), "m2")  # type: ignore[arg-type]
    runner._deliver(listener, reply_body(b, "b answers", T0, T0), "m3")  # type: ignore[arg-type]
    assert fa.result(timeout=10).raw == "first run" and fb.result(timeout=10).raw == "b answers"
    deadline = datetime.now(UTC) + timedelta(seconds=10)
    while len(listener.acked) < 3 and datetime.now(UTC) < deadline:
        time.sleep(0.01)  # the batch's thread acknowledges each reply once the next is asked for
    [dup] = records
    assert (dup.seat, dup.reason, dup.reply.raw, dup.worker) == ("a", "duplicate", "second run", "lab-a@host")
    assert dup.ask_sha256 == a.ask.sha256
    # after the batch ended: a third run of a's ask (answered: a duplicate), and a reply for nobody's ask
    runner._deliver(listener, reply_body(a, "third run", T0, T0), "m4")  # type: ignore[arg-type]
    c = seat_ask("c")
    runner._deliver(listener, reply_body(c, "unasked", T0, T0), "m5")  # type: ignore[arg-type]
    assert [(r.seat, r.reason, r.reply.raw) for r in records[1:]] == [("a", "duplicate", "third run"),
                                                                      ("c", "stray", "unasked")]
    assert {"m4", "m5"} <= set(listener.acked)  # handed over, then acknowledged
    runner.close()


def test_an_ask_that_cannot_travel_resolves_at_once_as_a_failure_naming_why() -> None:
    clock = SimulatedClock(T0)
    runner, sent, _ = make_runner(clock)
    bad = seat_ask("a", options={"api_key": "sk-live"})
    [future] = runner.start([bad], clock.now, CLOSE)
    got = future.result(timeout=1)
    assert got.silent and got.failure is FailureClass.TRANSIENT and "looks like a secret" in got.detail
    assert sent == []
    runner.close()


class Recorder:
    def __init__(self, tag: str) -> None:
        self.tag = tag
        self.asked: list[str] = []
        self.closed = False

    def start(self, asks: Sequence[SeatAsk], now: Now, deadline: datetime | None = None) -> list[Future[SeatReply]]:
        out = []
        for a in asks:
            self.asked.append(a.spec.name)
            fut: Future[SeatReply] = Future()
            fut.set_result(SeatReply(seat=a.spec.name, raw=self.tag, model="", version="", mode="", started_at=T0,
                                     finished_at=T0))
            out.append(fut)
        return out

    def on_record(self, sink: Any) -> None:
        return None

    def close(self) -> None:
        self.closed = True


def test_the_routed_runner_sends_worker_seats_to_the_queue_and_keeps_the_batch_order() -> None:
    local, remote = Recorder("here"), Recorder("there")
    routed = RoutedRunner(local, remote)
    asks = [seat_ask("a", worker=""), seat_ask("b"), seat_ask("c", worker=""), seat_ask("d", worker="lab-b")]
    got = [(f.result().seat, f.result().raw) for f in routed.start(asks, lambda: T0, CLOSE)]
    assert got == [("a", "here"), ("b", "there"), ("c", "here"), ("d", "there")]
    assert (local.asked, remote.asked) == (["a", "c"], ["b", "d"])
    routed.close()
    assert local.closed and remote.closed


@pytest.mark.parametrize("worker", ["Lab-A", "lab_a", "-lab", "a" * 64, "lab a"])
def test_a_worker_name_that_is_no_queue_name_is_refused(worker: str) -> None:
    with pytest.raises(ValueError, match="worker"):
        SeatSpec(name="a", adapter="scripted", worker=worker)


def test_the_runner_writes_its_asks_in_flight_for_league_status(tmp_path: Any) -> None:
    clock = SimulatedClock(T0)
    runner, _, _ = make_runner(clock)
    runner.state_file = tmp_path / "run" / "remote-in-flight.json"
    a, b = seat_ask("a"), seat_ask("b", worker="lab-b")
    runner.start([a, b], clock.now, CLOSE)
    ask = wire.parse(wire.ask_message(a.spec, a.ask, queue="lab-a", deadline=CLOSE, sent_at=T0))
    assert isinstance(ask, wire.AskMessage)
    runner._deliver(Listener(), wire.started_message(ask, worker="lab-a@host", started_at=T0, redelivered=False),
                    "m1")  # type: ignore[arg-type]
    deadline = time.monotonic() + 10
    while not any(r["state"] == "running" for r in runner.in_flight()) and time.monotonic() < deadline:
        time.sleep(0.01)  # the batch's thread takes the started notice from its inbox
    runner.write_state()
    import json

    state = json.loads(runner.state_file.read_text())
    rows = {r["seat"]: r for r in state["asks"]}
    assert (rows["a"]["state"], rows["a"]["worker"], rows["a"]["queue"]) == ("running", "lab-a@host", "lab-a")
    assert (rows["b"]["state"], rows["b"]["worker"], rows["b"]["queue"]) == ("queued", "", "lab-b")
    assert rows["b"]["cutoff"] == (CLOSE + timedelta(seconds=30)).isoformat()  # deadline + grace
    assert state["written_at"] == T0.isoformat()
    runner.close()
    assert json.loads(runner.state_file.read_text())["asks"] == []  # closed: nothing in flight any more
