"""A fan-out's asks are published together and confirmed together, on the real broker: an ask counts as
sent only once the broker holds it. An ask the broker does not confirm — its lab's queue is gone, or the
broker is stopped — is concluded at once as a transient failure naming why, never left to time out as a
seat's silence, and the next fan-out after the broker is back is published again."""

from __future__ import annotations

import hashlib
import subprocess
import uuid
from collections.abc import Callable, Iterator
from datetime import timedelta

import pytest
from worker_hosts import Lab

from league.clock import SystemClock
from league.workers.broker import BrokerTarget, connect, queue_status
from league.workers.remote import RemoteSeatRunner
from league.workers.runner import Arrival, SeatJob
from league.workers.topology import vhost_for
from league_agents.base import Ask, FailureClass, SeatSpec

pytestmark = pytest.mark.slow


def job(name: str, queue: str) -> SeatJob:
    text = f"ask for {name} {uuid.uuid4().hex}"
    return SeatJob(SeatSpec(name=name, adapter="scripted", timeout_s=60, options={"seed": 7}),
                   Ask(text=text, sha256=hashlib.sha256(text.encode()).hexdigest(), session="2026-11-25",
                       context={"markets": {"SPX": {"horizons": ["1d"]}}}), queue)


@pytest.fixture
def runner(league_account: BrokerTarget) -> Iterator[RemoteSeatRunner]:
    made = RemoteSeatRunner(league_account, SystemClock(), grace_s=1, run_margin_s=1)
    yield made
    made.close()


def unsent(arrivals: list[Arrival]) -> list[Arrival]:
    return [a for a in arrivals if a.reply.failure is FailureClass.TRANSIENT and not a.expired]


def test_every_ask_of_a_fanout_is_on_the_queue_when_submit_returns(
        make_lab: Callable[[], Lab], runner: RemoteSeatRunner, league_account: BrokerTarget) -> None:
    labs = make_lab(), make_lab()
    jobs = [job(f"s{i:02d}", labs[i % 2].queue) for i in range(40)]
    batch = runner.submit(jobs, SystemClock().now() + timedelta(seconds=30))
    waiting = [queue_status(league_account, lab.queue).asks_waiting for lab in labs]  # no worker consumes
    batch.expire()
    assert waiting == [20, 20]
    assert unsent(list(batch)) == []


def test_an_ask_for_a_queue_that_is_gone_is_reported_not_counted_sent(
        make_lab: Callable[[], Lab], runner: RemoteSeatRunner, league_account: BrokerTarget) -> None:
    lab, other = make_lab(), make_lab()
    first = runner.submit([job("before", lab.queue)], SystemClock().now() + timedelta(seconds=30))
    first.expire()
    list(first)  # the lab's link (and its publishing channel) exists from here on
    with league_account.with_vhost(vhost_for(lab.queue)).connection() as conn:
        connect(conn, league_account)
        conn.channel().queue_delete(lab.queue)
    jobs = [job("gone-1", lab.queue), job("gone-2", lab.queue), job("kept", other.queue)]
    batch = runner.submit(jobs, SystemClock().now() + timedelta(seconds=30))
    left = queue_status(league_account, other.queue).asks_waiting
    batch.expire()
    arrivals = list(batch)
    reported = unsent(arrivals)
    assert sorted(a.seat for a in reported) == ["gone-1", "gone-2"]
    assert all(f"no queue {lab.queue!r}" in a.reply.detail and "NO_ROUTE" in a.reply.detail for a in reported)
    assert left == 1  # the other lab's ask went out, confirmed


def test_asks_published_while_the_broker_is_stopped_are_reported_and_the_next_fanout_goes_out(
        make_lab: Callable[[], Lab], runner: RemoteSeatRunner, league_account: BrokerTarget) -> None:
    lab = make_lab()
    warm = runner.submit([job("warm", lab.queue)], SystemClock().now() + timedelta(seconds=30))
    warm.expire()
    list(warm)
    stopped = subprocess.run(["rabbitmqctl", "stop_app"], capture_output=True, text=True, timeout=120)
    try:
        assert stopped.returncode == 0, stopped.stderr
        arrivals = list(runner.submit([job("down-1", lab.queue), job("down-2", lab.queue)],
                                      SystemClock().now() + timedelta(seconds=30)))
    finally:
        subprocess.run(["rabbitmqctl", "start_app"], capture_output=True, timeout=120, check=True)
        subprocess.run(["rabbitmqctl", "await_startup"], capture_output=True, timeout=120, check=True)
    assert sorted(a.seat for a in unsent(arrivals)) == ["down-1", "down-2"]
    assert all("could not be queued" in a.reply.detail for a in arrivals)
    after = runner.submit([job("back", lab.queue)], SystemClock().now() + timedelta(seconds=30))
    waiting = queue_status(league_account, lab.queue).asks_waiting
    after.expire()
    assert unsent(list(after)) == [] and waiting >= 1
