"""Seats of two labs run by two real `league worker` processes on two hosts (network namespaces joined
to the broker over veth, TLS checked against a CA), through the real RabbitMQ, in the real sandbox.

Each reply arrives once, timed by the league's clock, and carries what the day seals: the exact raw
reply (compared with the same seat run on this host), model, version, mode, usage, fetch record and
the worker's start and finish times. The task carries no secret: the asks, as published, are read
back from a tap queue and searched for the worker's and the league's keys."""

from __future__ import annotations

import hashlib
import json
import os
import pickle
import time
import uuid
from collections.abc import Iterator, Mapping
from datetime import timedelta
from pathlib import Path
from typing import Any

import pytest
from kombu.entity import Queue
from worker_hosts import CRED_SECRET, WORKER_KEY, Hosts, Pool

from league.clock import SystemClock
from league.jobs.seal import raw_bytes
from league.workers.broker import BrokerTarget
from league.workers.remote import RemoteSeatRunner
from league.workers.runner import Arrival, SeatJob
from league.workers.topology import ASKS_EXCHANGE, TASK_NAME, vhost_for
from league.workers.wire import identity_of
from league_agents.base import Ask, SeatSpec
from league_agents.registry import build_seat

pytestmark = [pytest.mark.slow, pytest.mark.sandbox]
CLIS = Path(__file__).resolve().parents[2] / "assets" / "clis"
LEAGUE_KEY = "sk-league-" + uuid.uuid4().hex
CONTEXT = {"markets": {"SPX": {"horizons": ["1d", "1w"], "price": 6000.0, "crowd": True},
                       "VIX": {"horizons": ["1d"], "price": 15.5}},
           "hint": {"SPX": {"1d": 80.0}}}


def hostile(name: str, behaviour: str) -> SeatSpec:
    return SeatSpec(name=name, adapter="claude_code", model=behaviour, profile="scripted", timeout_s=60,
                    options={"executable": str(CLIS / "hostile")})


def scripted(name: str, **options: Any) -> SeatSpec:
    return SeatSpec(name=name, adapter="scripted", timeout_s=60, options=options)


CLAUDE = SeatSpec(name="sb-claude", adapter="claude_code", model="claude-fable-5-1", timeout_s=60,
                  credentials=("~/.claude/.credentials.json",), env=("ANTHROPIC_API_KEY",),
                  options={"executable": str(CLIS / "claude"), "bin_files": [str(CLIS / "_standin.py")]})
SEATS_A = [scripted("sa-plain", seed=1), scripted("sa-malformed", mode="malformed"),
           hostile("sa-surrogate", "surrogate"), hostile("sa-bytes", "bytes")]
SEATS_B = [scripted("sb-skilled", seed=2, skill=0.5), CLAUDE]


def ask_for(spec: SeatSpec) -> Ask:
    text = f"# Council ask for {spec.name}\nForecast SPX and VIX. {uuid.uuid4().hex}\n"
    return Ask(text=text, sha256=hashlib.sha256(text.encode()).hexdigest(), session="2026-11-25", context=CONTEXT)


@pytest.fixture
def runner(pool: Pool) -> Iterator[RemoteSeatRunner]:
    made = RemoteSeatRunner(pool.league, SystemClock(), grace_s=20)
    yield made
    made.close()


def tap(league: BrokerTarget, queue: str) -> Queue:
    """A queue of the league's own, bound to the lab's asks: a copy of every ask exactly as published."""
    q = Queue(f"tap-{uuid.uuid4().hex[:6]}", ASKS_EXCHANGE, routing_key=queue, durable=False, auto_delete=False)
    with league.with_vhost(vhost_for(queue)).connection() as conn:
        q(conn.channel()).declare()
    return q


def tapped(league: BrokerTarget, queue: str, q: Queue) -> list[bytes]:
    bodies = []
    with league.with_vhost(vhost_for(queue)).connection() as conn:
        bound = q(conn.channel())
        while (message := bound.get(no_ack=True)) is not None:
            body = message.body
            bodies.append(body if isinstance(body, bytes) else body.encode("utf-8"))
        bound.delete()
    return bodies


def local_reply(spec: SeatSpec, ask: Ask, env: Mapping[str, str]) -> Any:
    """The same seat on the same ask, run on this host (the oracle for what the worker returned)."""
    with pytest.MonkeyPatch.context() as mp:
        for key, value in env.items():
            mp.setenv(key, value)
        return build_seat(spec).ask(ask, SystemClock().now)


def steady(usage: Mapping[str, Any]) -> dict[str, Any]:
    """Usage without what differs from run to run (wall time, memory peak)."""
    out = dict(usage)
    if isinstance(out.get("sandbox"), Mapping):
        out["sandbox"] = {k: v for k, v in out["sandbox"].items() if k not in ("elapsed_s", "memory_peak_bytes")}
    return out


def test_two_labs_on_two_hosts_answer_once_with_the_exact_reply(pool: Pool, runner: RemoteSeatRunner,
                                                                 hosts: Hosts) -> None:
    if hosts.kind == "netns":
        ours = os.readlink("/proc/self/ns/net")
        assert len({ours, pool.worker_a.netns_inode(), pool.worker_b.netns_inode()}) == 3  # three hosts
    taps = {lab.queue: tap(pool.league, lab.queue) for lab in (pool.lab_a, pool.lab_b)}
    jobs = [SeatJob(s, ask_for(s), pool.lab_a.queue) for s in SEATS_A]
    jobs += [SeatJob(s, ask_for(s), pool.lab_b.queue) for s in SEATS_B]
    clock = SystemClock()
    with pytest.MonkeyPatch.context() as mp:  # the league's own key must not travel either
        mp.setenv("ANTHROPIC_API_KEY", LEAGUE_KEY)
        before = clock.now()
        arrivals: list[Arrival] = list(runner.submit(jobs, before + timedelta(seconds=90)))
    after = clock.now()

    assert sorted(a.seat for a in arrivals) == sorted(j.spec.name for j in jobs)  # each exactly once
    assert not any(a.duplicate or a.expired for a in arrivals)
    assert [a.arrived_at for a in arrivals] == sorted(a.arrived_at for a in arrivals)
    assert all(before <= a.arrived_at <= after for a in arrivals)
    by_seat = {a.seat: a for a in arrivals}
    for job in jobs:
        got = by_seat[job.spec.name]
        assert got.worker == f"{job.queue}@{'host-a' if job.queue == pool.lab_a.queue else 'host-b'}"
        env = {"LEAGUE_CREDENTIALS_HOME": str(pool.creds), "ANTHROPIC_API_KEY": WORKER_KEY}
        want = local_reply(job.spec, job.ask, env)
        assert got.reply.raw == want.raw, job.spec.name
        assert raw_bytes(got.reply.raw) == raw_bytes(want.raw)  # the bytes the book's reply file keeps
        assert (got.reply.model, got.reply.version, got.reply.mode) == (want.model, want.version, want.mode)
        assert (got.reply.failure, got.reply.fetches) == (want.failure, want.fetches)
        assert steady(got.reply.usage) == json.loads(json.dumps(steady(want.usage)))
        assert got.reply.started_at <= got.reply.finished_at
    assert '"prob_up": 61' in by_seat["sb-claude"].reply.raw  # logged in with the worker's own key
    seen = json.loads(next(x for x in by_seat["sb-claude"].reply.raw.splitlines() if x.startswith("SEEN "))[5:])
    assert ".claude/.credentials.json" in seen["home"] and "ANTHROPIC_API_KEY" in seen["env"]
    assert "\udfff" in by_seat["sa-surrogate"].reply.raw  # a lone surrogate crossed the wire unchanged

    published = [body for q, t in taps.items() for body in tapped(pool.league, q, t)]
    assert len(published) == len(jobs)
    for body in published:
        for secret in (WORKER_KEY, LEAGUE_KEY, CRED_SECRET):
            assert secret.encode() not in body
    # the labs' replies queues are shared by every test of the session's worker pool: a late reply to an
    # earlier test's ask may arrive here as a stray; none of THIS test's replies may
    ours = {identity_of(j.spec.name, j.ask.sha256) for j in jobs}
    assert runner.in_flight() == [] and [s for s in runner.take_strays() if s.identity in ours] == []


def test_a_pickled_task_is_never_unpickled_by_a_worker(pool: Pool, runner: RemoteSeatRunner,
                                                       tmp_path: Path) -> None:
    """Whoever can publish to a lab's queue must not run code on the lab's machine."""
    marker = tmp_path / "unpickled"

    class Exploit:
        def __reduce__(self) -> tuple[Any, tuple[str, str]]:
            return (open, (str(marker), "w"))

    queue = pool.lab_a.queue
    with pool.league.with_vhost(vhost_for(queue)).connection() as conn:
        producer = conn.Producer()
        producer.publish(pickle.dumps(((Exploit(),), {}, {})), exchange=ASKS_EXCHANGE, routing_key=queue,
                         content_type="application/x-python-serialize", content_encoding="binary",
                         headers={"task": TASK_NAME, "id": "pickled-" + uuid.uuid4().hex, "lang": "py"})
    spec = scripted("sa-after-pickle", seed=5)
    arrivals = list(runner.submit([SeatJob(spec, ask_for(spec), queue)], SystemClock().now() + timedelta(seconds=60)))
    assert [a.seat for a in arrivals] == ["sa-after-pickle"] and arrivals[0].reply.failure is None
    time.sleep(0.5)
    assert not marker.exists()
    assert "Refusing to deserialize untrusted content of type pickle" in pool.worker_a.text()
