"""The worker's task body (league.workers.tasks.execute) with what it publishes captured: it runs only
before the deadline, only for its own queue, says so when it cannot run a seat, and never raises."""

from __future__ import annotations

import hashlib
import threading
from collections.abc import Mapping
from datetime import UTC, datetime, timedelta
from typing import Any

import pytest

from league.workers import wire
from league.workers.tasks import TaskContext, execute
from league_agents.base import Ask, FailureClass, SeatSpec

T0 = datetime(2026, 11, 25, 13, 0, tzinfo=UTC)
COIN = SeatSpec(name="_coin", adapter="coin")
ASK = Ask(text="ask", sha256=hashlib.sha256(b"ask").hexdigest(), session="2026-11-25",
          context={"markets": {"SPX": {"horizons": ["1d"]}}})


def run(body: Any, *, queue: str = "lab-a", now: datetime = T0) -> list[Any]:
    sent: list[Mapping[str, Any]] = []
    execute(body, TaskContext(queue=queue, worker="lab-a@host", redelivered=True, publish=sent.append,
                              now=lambda: now))
    return [wire.parse(m) for m in sent]


def body_for(spec: SeatSpec = COIN, deadline: datetime = T0 + timedelta(minutes=1)) -> dict[str, Any]:
    return wire.ask_message(spec, ASK, queue="lab-a", deadline=deadline, sent_at=T0)


def test_a_run_is_announced_then_replied() -> None:
    started, reply = run(body_for())
    assert isinstance(started, wire.StartedMessage) and started.redelivered and started.worker == "lab-a@host"
    assert isinstance(reply, wire.ReplyMessage) and reply.outcome == "ran" and reply.failure is None
    assert '"prob_up": 50' in reply.raw_text()
    assert reply.identity == started.identity == wire.identity_of("_coin", ASK.sha256)


def test_an_ask_past_its_deadline_is_not_run() -> None:
    (reply,) = run(body_for(), now=T0 + timedelta(minutes=2))
    assert isinstance(reply, wire.ReplyMessage) and reply.outcome == "expired"
    assert reply.failure is FailureClass.TIMEOUT and reply.raw_b64 == ""


def test_an_ask_for_another_queue_is_refused() -> None:
    (reply,) = run(body_for(), queue="lab-b")
    assert reply.outcome == "refused" and "this worker serves 'lab-b'" in reply.detail


def test_a_malformed_ask_is_refused_when_it_can_be_answered_at_all() -> None:
    body = body_for()
    (reply,) = run({**body, "text": "changed"})
    assert reply.outcome == "refused" and "ask_sha256 is not the SHA-256" in reply.detail
    assert run({"v": 1, "kind": "ask"}) == []  # no identity: nothing a reply could be matched to
    assert run("not even an object") == []


def test_a_seat_this_host_cannot_run_is_a_failure_reply() -> None:
    spec = SeatSpec(name="lab-cli", adapter="claude_code", options={"executable": "/nonexistent/claude"})
    started, reply = run(body_for(spec))
    assert reply.outcome == "ran" and reply.failure is FailureClass.SEAT_FAULT
    assert "this worker cannot run the seat" in reply.detail and "/nonexistent/claude" in reply.detail


def test_an_unknown_adapter_is_named() -> None:
    _, reply = run(body_for(SeatSpec(name="odd", adapter="no_such_adapter")))
    assert reply.failure is FailureClass.SEAT_FAULT and "unknown adapter 'no_such_adapter'" in reply.detail


def test_the_seat_starts_while_its_started_message_is_in_flight_and_replies_after_it() -> None:
    in_flight, seat_ran = threading.Event(), threading.Event()
    sent: list[str] = []

    def now() -> datetime:
        if in_flight.is_set():
            seat_ran.set()  # the clock read after the started message left: the ask is being run
        return T0

    def publish(body: Mapping[str, Any]) -> None:
        if body["kind"] == "started":
            in_flight.set()
            assert seat_ran.wait(10), "the seat waited for the started message's confirm"
        sent.append(str(body["kind"]))

    execute(body_for(), TaskContext(queue="lab-a", worker="lab-a@host", redelivered=False, publish=publish, now=now))
    assert sent == ["started", "reply"]


def test_a_started_message_the_broker_refused_fails_the_task_and_no_reply_follows_it() -> None:
    sent: list[str] = []

    def publish(body: Mapping[str, Any]) -> None:
        if body["kind"] == "started":
            raise ConnectionRefusedError("the broker refused the started message")
        sent.append(str(body["kind"]))

    with pytest.raises(ConnectionRefusedError, match="refused the started message"):
        execute(body_for(), TaskContext(queue="lab-a", worker="lab-a@host", redelivered=False, publish=publish,
                                        now=lambda: T0))
    assert sent == []
