"""The league's side of remote seats: publish each ask to its lab's queue, yield replies as they arrive.

Per lab vhost the runner keeps one Celery app (to build the asks, as the task ``league.run_seat``), one
publishing connection whose channel is in confirm mode (a fan-out's asks are written together, then their
confirms awaited once), and one consumer thread on the lab's replies queue. The consumer stamps every
message with the league's clock the moment it is delivered, and hands it to the batch waiting for that identity.

Delivery semantics (docs/workers.md, "Delivery"):

* identity = the seat's ask hash (:func:`league.workers.wire.identity_of`), used as the Celery task id;
* the first reply for an identity concludes it; a copy of the same reply (same ``reply_id``: the broker
  redelivered the message) is dropped; a reply from another run of the same ask (a redelivery after a
  worker died or lost its connection) is yielded flagged ``duplicate`` — recorded, never an answer;
* an ask nobody started is concluded ``expired`` at ``deadline + grace``; one that started, at
  ``max(deadline, last start + timeout + margin) + grace`` (a redelivery after a death restarts it);
* a reply message is acknowledged only when the caller asks for the next arrival (it has sealed this
  one): a league that dies in between gets the reply again when it comes back.
"""

from __future__ import annotations

import dataclasses
import json
import os
import queue as queue_mod
import threading
import time
from collections import deque
from collections.abc import Callable, Iterable, Iterator, Sequence
from concurrent.futures import Future, ThreadPoolExecutor
from contextlib import contextmanager
from dataclasses import dataclass
from datetime import datetime, timedelta
from pathlib import Path
from typing import Literal, TypedDict

import structlog
from amqp.basic_message import Message as AmqpMessage
from amqp.channel import Channel
from kombu.connection import Connection
from kombu.exceptions import OperationalError
from kombu.message import Message
from kombu.messaging import Consumer, Producer
from kombu.mixins import ConsumerMixin

from league.clock import Clock
from league.runner import RecordSink, ReplyRecord, SeatAsk
from league.workers import wire
from league.workers.broker import BrokerTarget, connect, declare_lab
from league.workers.celery_app import make_app
from league.workers.errors import BrokerError, WireError, WorkerError
from league.workers.runner import Arrival, SeatJob
from league.workers.topology import ASKS_EXCHANGE, TASK_NAME, replies_queue, vhost_for
from league_agents.base import FailureClass, Now, SeatReply

log = structlog.get_logger(__name__)
#: beyond a seat's own timeout: sandbox start, the reply's publication, a clock a little apart.
RUN_MARGIN_S = 30.0
#: the worker's hard time limit beyond the seat's timeout: a backstop for a hung run (the sandbox's own
#: timeout ends the seat; this ends a worker stuck publishing a reply to a broker that never returns).
HARD_LIMIT_MARGIN_S = 300.0
#: How often a runner with a ``state_file`` rewrites it (the daemon's asks in flight, for `league status`).
STATE_EVERY_S = 2.0
#: A fan-out's publication that fails (connection lost, basic.nack, no confirm) is tried again this way.
SEND_RETRY = {"max_retries": 3, "interval_start": 0.5, "interval_step": 1.0, "interval_max": 2.0}
#: How long the league waits for the broker to confirm a fan-out's asks, all of them, once published.
CONFIRM_TIMEOUT_S = 10.0
#: What a listener hands each decoded reply to (in its own thread): the listener, the JSON body, kombu's message.
Deliver = Callable[["_ReplyListener", object, Message], None]


class InFlight(TypedDict):
    """One ask still awaited, as :meth:`RemoteSeatRunner.in_flight` lists it (and the state file keeps it)."""

    seat: str
    queue: str
    identity: str
    state: Literal["running", "queued"]
    worker: str
    since: str | None
    cutoff: str


@dataclass
class _Incoming:
    message: wire.StartedMessage | wire.ReplyMessage
    arrived_at: datetime
    ack: Callable[[], None]


class _ReplyListener(ConsumerMixin):  # type: ignore[misc]
    """Consumes one lab's replies queue in its own thread; acknowledgements are made in that thread."""

    def __init__(self, target: BrokerTarget, queue: str, deliver: Deliver) -> None:
        self.connection: Connection = target.connection(heartbeat=30)
        self.queue = queue
        self._deliver = deliver
        self._acks: deque[Message] = deque()

    def get_consumers(self, consumer: Callable[..., Consumer], channel: object) -> list[Consumer]:
        return [consumer(queues=[replies_queue(self.queue)], callbacks=[self._on_message], accept=["json"],
                         prefetch_count=256)]

    def _on_message(self, body: object, message: Message) -> None:
        self._deliver(self, body, message)

    def request_ack(self, message: Message) -> None:
        """Called from any thread; the ack is made by the consumer thread at its next iteration."""
        self._acks.append(message)

    def on_iteration(self) -> None:
        while self._acks:
            message = self._acks.popleft()
            try:
                message.ack()
            except Exception as exc:  # noqa: BLE001 - a channel lost since: the broker redelivers, we drop the copy
                log.info("replies.ack_lost", queue=self.queue, error=str(exc))

    def on_decode_error(self, message: Message, exc: Exception) -> None:
        """A message that is not JSON (a pickle, say) is never decoded: logged and dropped."""
        log.error("replies.undecodable", queue=self.queue, content_type=message.content_type, error=str(exc))
        message.reject(requeue=False)

    def on_connection_error(self, exc: Exception, interval: float) -> None:
        log.warning("replies.connection_lost", queue=self.queue, error=str(exc), retry_in_s=interval)

    @contextmanager
    def establish_connection(self) -> Iterator[Connection]:
        """As kombu's, but retrying every second or two rather than backing off to 30 s."""
        with self.create_connection() as conn:
            conn.ensure_connection(self.on_connection_error, self.connect_max_retries, interval_start=0.5,
                                   interval_step=0.5, interval_max=2.0)
            yield conn


class _Confirms:
    """The broker's answers on a publishing channel in confirm mode. RabbitMQ numbers the channel's
    publishes 1, 2, 3… (the delivery tags of its ``basic.ack``/``basic.nack``, ``multiple`` settling every
    tag up to one); a ``basic.return`` (mandatory, unroutable) comes before the ack of the same message."""

    def __init__(self) -> None:
        self._count = 0
        self._tags: dict[int, str] = {}
        self.acked: set[str] = set()
        self.nacked: set[str] = set()
        self.returned: dict[str, str] = {}

    def begin(self) -> None:
        """A new round on the same channel: the count of publishes goes on, the answers start afresh."""
        self._tags, self.acked, self.nacked, self.returned = {}, set(), set(), {}

    def published(self, identity: str) -> None:
        self._count += 1
        self._tags[self._count] = identity

    def pending(self) -> bool:
        return bool(self._tags)

    def unsettled(self, asks: Iterable[str]) -> list[str]:
        """The asks the broker is not known to hold (not acked, or returned, or nacked)."""
        return [i for i in asks if i not in self.acked or i in self.returned or i in self.nacked]

    def _settle(self, tag: int, multiple: bool, into: set[str]) -> None:
        for settled in ([t for t in self._tags if t <= tag] if multiple else [tag]):
            identity = self._tags.pop(settled, None)
            if identity is not None:
                into.add(identity)

    def on_ack(self, delivery_tag: int, multiple: bool) -> None:
        self._settle(delivery_tag, multiple, self.acked)

    def on_nack(self, delivery_tag: int, multiple: bool) -> None:
        self._settle(delivery_tag, multiple, self.nacked)

    def on_return(self, exc: Exception, exchange: str, routing_key: str, message: AmqpMessage) -> None:
        props = message.properties or {}
        identity = props.get("correlation_id") or (props.get("application_headers") or {}).get("id")
        if identity:
            self.returned[str(identity)] = f"{exc} (exchange {exchange!r}, routing key {routing_key!r})"


class _Link:
    """One lab's vhost as the league uses it: its Celery app and its replies listener."""

    def __init__(self, target: BrokerTarget, queue: str, deliver: Deliver) -> None:
        self.queue = queue
        self.target = target.with_vhost(vhost_for(queue))
        declare_lab(self.target, queue)
        self.app = make_app(self.target, queue, worker=False)
        self._publish_lock = threading.Lock()
        self._publisher: tuple[Connection, Channel] | None = None
        self._confirms = _Confirms()
        self._producer: Producer | None = None
        self.listener = _ReplyListener(self.target, queue, deliver)
        self.thread = threading.Thread(target=self._serve, daemon=True, name=f"replies-{queue}")
        self.thread.start()

    def _serve(self) -> None:
        """Consume until closed; whatever breaks the consumer (kombu reconnects by itself, but a bug or a
        broken log stream would end the thread) restarts it, so replies are never left unread."""
        while not self.listener.should_stop:
            try:
                self.listener.run(safety_interval=0.25)
            except Exception:  # noqa: BLE001 - reported, then consumed again
                try:
                    log.exception("replies.consumer_failed", queue=self.queue)
                except Exception:  # noqa: BLE001 - not even the log works: carry on consuming
                    pass
                time.sleep(1.0)

    def send_all(self, asks: Sequence[tuple[wire.AskBody, float]], deadline: datetime) -> dict[str, str]:
        """Publish every ask (body, seat timeout) through ``league.asks``, persistent, then wait ONCE for the
        broker's confirms of them all; identity → the problem, for each ask the broker does not hold.

        An ask counts as sent only when the broker confirmed it (``basic.ack``) and did not return it
        (``mandatory``: a missing asks queue is an unroutable ask, returned, never silently dropped). A
        connection lost or a ``basic.nack`` is retried by :data:`SEND_RETRY` (a fresh connection; an ask
        the broker took whose confirm was lost is then queued twice: the second run's reply is a flagged
        duplicate); a return or a channel refusal is not."""
        with self._publish_lock:
            left = {body["identity"]: (body, timeout_s) for body, timeout_s in asks}
            problems: dict[str, str] = {}
            wait = float(SEND_RETRY["interval_start"])
            for attempt in range(int(SEND_RETRY["max_retries"]) + 1):
                failed = self._publish_round(left, deadline)
                for identity, (problem, retry) in failed.items():
                    if not retry or attempt == int(SEND_RETRY["max_retries"]):
                        problems[identity] = problem
                left = {i: left[i] for i, (_, retry) in failed.items() if retry and i not in problems}
                if not left:
                    break
                log.warning("remote.send_retry", queue=self.queue, asks=len(left), retry_in_s=wait)
                time.sleep(wait)
                wait = min(wait + float(SEND_RETRY["interval_step"]), float(SEND_RETRY["interval_max"]))
            return problems

    def _publish_round(self, asks: dict[str, tuple[wire.AskBody, float]],
                       deadline: datetime) -> dict[str, tuple[str, bool]]:
        """One try: publish ``asks`` on the confirm channel, wait for their confirms; the ones not confirmed
        with (problem, worth retrying)."""
        try:
            conn, channel = self._confirm_channel()
        except Exception as exc:  # noqa: BLE001 - an unreachable broker: every ask left is retried
            self._drop_publisher()
            return dict.fromkeys(asks, (str(getattr(exc, "message", exc)), True))
        confirms = self._confirms
        confirms.begin()
        lost = (OperationalError, *conn.connection_errors)  # Celery re-raises a lost socket as OperationalError
        try:
            for identity, (body, timeout_s) in asks.items():
                self.app.send_task(TASK_NAME, args=[body], task_id=identity, queue=self.queue,
                                   exchange=ASKS_EXCHANGE.name, routing_key=self.queue, expires=deadline,
                                   time_limit=timeout_s + HARD_LIMIT_MARGIN_S, producer=self._producer,
                                   retry=False, declare=[], mandatory=True, argsrepr=f"[ask {identity}]",
                                   kwargsrepr="{}")
                confirms.published(identity)
            end = time.monotonic() + CONFIRM_TIMEOUT_S
            while confirms.pending() and time.monotonic() < end:
                try:
                    conn.drain_events(timeout=max(end - time.monotonic(), 0.01))
                except TimeoutError:
                    break
        except lost as exc:
            self._drop_publisher()
            return {i: (f"the connection to the broker was lost before it confirmed the ask: {exc}", True)
                    for i in confirms.unsettled(asks)}
        except conn.channel_errors as exc:
            self._drop_publisher()
            return {i: (f"the broker refused the ask: {exc}", False) for i in confirms.unsettled(asks)}
        out: dict[str, tuple[str, bool]] = {}
        for identity in asks:
            if identity in confirms.returned:
                out[identity] = (f"the broker has no queue {self.queue!r} to route it to "
                                 f"({confirms.returned[identity]})", False)
            elif identity in confirms.nacked:
                out[identity] = ("the broker refused to take it (basic.nack)", True)
            elif identity not in confirms.acked:
                out[identity] = (f"the broker did not confirm it within {CONFIRM_TIMEOUT_S:.0f} s", True)
        if any(retry for _, retry in out.values()):
            self._drop_publisher()  # a late confirm must not be counted for the next round's asks
        return out

    def _confirm_channel(self) -> tuple[Connection, Channel]:
        """The publishing connection of this lab (its own, not Celery's pool, whose channels confirm each
        publish before the next) and its channel in confirm mode, made on first use."""
        if self._publisher is None:
            conn = self.target.connection()
            connect(conn, self.target)
            channel = conn.channel()
            channel.confirm_select()
            confirms = _Confirms()
            channel.events["basic_ack"].add(confirms.on_ack)
            channel.events["basic_nack"].add(confirms.on_nack)
            channel.events["basic_return"].add(confirms.on_return)
            self._publisher, self._confirms = (conn, channel), confirms
            self._producer = Producer(channel, auto_declare=False)
        return self._publisher

    def _drop_publisher(self) -> None:
        conn = self._publisher[0] if self._publisher else None
        self._publisher = None
        if conn is not None:
            try:
                conn.release()
            except Exception:  # noqa: BLE001 - a dead connection is being thrown away anyway
                pass

    def close(self) -> None:
        self.listener.should_stop = True
        self.thread.join(timeout=5.0)
        with self._publish_lock:
            self._drop_publisher()
        self.app.close()


class RemoteSeatRunner:
    """Runs seats on lab workers through the broker; the league user reaches every lab's vhost.

    ``clock`` is the time the broker and the workers live in (deadlines, cut-offs, the arrival stamp):
    the league's own clock when it follows the system clock. A league on a SIMULATED clock passes a
    system clock and ``simulated=True``: its replies then arrive at the ask's (simulated) send time plus
    the run's reported duration, as a local seat's reply does, so a simulated day books the same times
    whether its seats ran here or on a worker."""

    def __init__(self, league: BrokerTarget, clock: Clock, *, grace_s: float = 30.0,
                 run_margin_s: float = RUN_MARGIN_S, poll_s: float = 0.2, simulated: bool = False,
                 state_file: Path | None = None) -> None:
        self.league = league
        self.clock = clock
        self.grace_s = grace_s
        self.run_margin_s = run_margin_s
        self.poll_s = poll_s
        self.simulated = simulated
        self.state_file = state_file
        self._sink: RecordSink | None = None
        self._closed = threading.Event()
        self._state_thread: threading.Thread | None = None
        self._links: dict[str, _Link] = {}
        self._lock = threading.Lock()
        self._waiting: dict[str, RemoteBatch] = {}
        self._answered: set[str] = set()
        self._strays: list[Arrival] = []
        self._stray_acks: list[Callable[[], None]] = []

    # --------------------------------------------------------------------------- the day's seam
    def start(self, asks: Sequence[SeatAsk], now: Now, deadline: datetime | None = None) -> list[Future[SeatReply]]:
        """:class:`league.runner.SeatRunner`: publish each ask to its seat's ``worker`` queue and resolve
        its future with its first reply, timed by the league's clock at arrival (``booked_at``); further
        replies go to the record sink. Never raises: an ask that cannot be published (a secret in its
        roster entry, an unreachable broker) resolves at once as a failure reply naming why."""
        sent = now()
        futures: dict[str, Future[SeatReply]] = {
            wire.identity_of(a.spec.name, a.ask.sha256, a.ask.attempt): Future() for a in asks}
        if len(futures) != len(asks):
            return [_failed(a, sent, "the same ask twice in one batch") for a in asks]
        jobs = [SeatJob(a.spec, a.ask, queue=a.spec.worker) for a in asks]
        try:
            batch = self.submit(jobs, self.queue_deadline(asks, sent, deadline))
        except WorkerError as exc:
            return [_failed(a, sent, exc.message) for a in asks]
        threading.Thread(target=self._resolve, args=(batch, futures, sent), daemon=True,
                         name=f"remote-batch-{len(futures)}").start()
        return list(futures.values())

    def queue_deadline(self, asks: Sequence[SeatAsk], sent: datetime, deadline: datetime | None) -> datetime:
        """When, by the broker's clock, an ask not yet started expires: the league's ``deadline`` (ingest
        close), or for an ask sent later than that — a second wave, a re-run — the seat's timeout from now."""
        longest = timedelta(seconds=max(a.spec.timeout_s for a in asks))
        wait = max(deadline - sent, longest) if deadline is not None else longest
        return self.clock.now() + wait

    def _resolve(self, batch: RemoteBatch, futures: dict[str, Future[SeatReply]], sent: datetime) -> None:
        """In the batch's own thread: each ask's first reply resolves its future (the day's seal runs in
        this thread when its callback is attached); a duplicate goes to the record sink."""
        try:
            for arrival in batch:
                future = futures.get(arrival.identity)
                if future is None or future.done() or arrival.duplicate:
                    self._hand_record(arrival, "duplicate")
                    continue
                future.set_result(self.league_reply(arrival, sent))
        except Exception:  # noqa: BLE001 - a bug here must not leave the day waiting forever
            log.exception("remote.batch_failed")
        self._conclude_left(batch, futures, sent)

    def _conclude_left(self, batch: RemoteBatch, futures: dict[str, Future[SeatReply]], sent: datetime) -> None:
        """Asks the batch ended without a reply for: a timeout reply each — unless the league is stopping
        (the runner closed), when they are abandoned, never sealed as a seat's silence."""
        left = [i for i, f in futures.items() if not f.done()]
        if left and self._closed.is_set():
            log.warning("remote.asks_abandoned", asks=len(left))
            return
        at = sent if self.simulated else self.clock.now()
        for identity in left:
            job = batch.jobs[identity]
            futures[identity].set_result(_failure(SeatAsk(job.spec, job.ask), at,
                                                  "the league stopped waiting for this ask", FailureClass.TIMEOUT))

    def league_reply(self, arrival: Arrival, sent: datetime) -> SeatReply:
        """The reply as the day seals it: finished (booked) at its arrival by the league's clock, started
        the run's reported duration before (bounded by the send time); the worker's own clock is not used."""
        reply = arrival.reply
        ran = max(reply.finished_at - reply.started_at, timedelta(0))
        if self.simulated:
            arrived = sent + ran
        else:
            arrived = arrival.arrived_at
            ran = min(ran, max(arrived - sent, timedelta(0)))
        return dataclasses.replace(reply, started_at=arrived - ran, finished_at=arrived)

    def on_record(self, sink: RecordSink) -> None:
        """Replies that are not answers go to ``sink`` from now on (strays kept so far first)."""
        with self._lock:
            self._sink = sink
        self.take_strays()

    def _hand_record(self, arrival: Arrival, kind: Literal["duplicate", "stray"]) -> bool:
        """Give one non-answer to the record sink; False when there is none yet (kept as a stray)."""
        sink = self._sink
        if sink is None:
            return False
        record = ReplyRecord(seat=arrival.seat, ask_sha256=arrival.identity.partition(".")[0], reply=arrival.reply,
                             arrived_at=arrival.arrived_at, reason=kind, worker=arrival.worker,
                             redelivered=arrival.redelivered)
        try:
            sink(record)
        except Exception:  # noqa: BLE001 - a record that cannot be sealed is logged, never blocks the replies
            log.exception("remote.record_failed", identity=arrival.identity, reason=kind)
        return True

    # ---------------------------------------------------------------------------------------- submit
    def submit(self, jobs: Sequence[SeatJob], deadline: datetime) -> RemoteBatch:
        """Publish every job's ask to its lab's queue now; the returned batch yields the arrivals.

        Every ask is validated first (a secret in a roster entry raises :class:`WireError` before anything
        is sent); a lab whose broker cannot be reached gets its asks concluded as failed arrivals."""
        now = self.clock.now()
        self._start_state()
        bodies = [wire.ask_message(j.spec, j.ask, queue=j.queue, deadline=deadline, sent_at=now) for j in jobs]
        batch = RemoteBatch(self, jobs, deadline)
        with self._lock:
            clash = [i for i in batch.jobs if i in self._waiting]
            if clash or len(batch.jobs) != len(jobs):
                raise WorkerError(f"asks already in flight or repeated in the batch: {sorted(clash)[:3]}",
                                  fix="each seat's ask is submitted once; wait for its arrival or cancel it")
            self._waiting.update(dict.fromkeys(batch.jobs, batch))
        by_queue: dict[str, list[tuple[wire.AskBody, float]]] = {}
        for job, body in zip(jobs, bodies, strict=True):
            by_queue.setdefault(job.queue, []).append((body, job.spec.timeout_s))

        def send(queue: str) -> None:
            for identity, problem in self._send(queue, by_queue[queue], deadline).items():
                batch.conclude_unsent(identity, f"the ask could not be queued for {queue!r}: {problem}")

        if len(by_queue) == 1:
            send(next(iter(by_queue)))
        else:  # each lab's fan-out on its own connection: one lab's confirms do not hold back the next's
            with ThreadPoolExecutor(max_workers=min(len(by_queue), 8), thread_name_prefix="publish") as pool:
                list(pool.map(send, by_queue))
        return batch

    def _send(self, queue: str, asks: Sequence[tuple[wire.AskBody, float]], deadline: datetime) -> dict[str, str]:
        """Publish one lab's asks, confirmed by the broker; identity → the problem, for each not queued."""
        try:
            problems = self._link(queue).send_all(asks, deadline)
        except Exception as exc:  # noqa: BLE001 - one lab's broker trouble concludes its asks, not the batch
            problem = str(getattr(exc, "message", exc))
            problems = {body["identity"]: problem for body, _ in asks}
        for identity, problem in problems.items():
            log.error("remote.send_failed", queue=queue, identity=identity, error=problem)
        return problems

    def _link(self, queue: str) -> _Link:
        with self._lock:
            link = self._links.get(queue)
        if link is not None:
            return link
        try:
            link = _Link(self.league, queue, self._deliver)
        except WorkerError:
            raise
        except Exception as exc:
            raise BrokerError(f"cannot reach the vhost of queue {queue!r} at {self.league.display()}: {exc}",
                              fix=f"check the broker runs and `league broker add-lab {queue}` was done") from exc
        with self._lock:
            if queue in self._links:  # another thread was faster: keep one link per lab
                link.close()
                return self._links[queue]
            self._links[queue] = link
        return link

    # ---------------------------------------------------------------------------- consumer threads
    def _deliver(self, listener: _ReplyListener, body: object, message: Message) -> None:
        """In a listener thread: stamp the arrival, route it to its batch (or keep it as a stray)."""
        arrived_at = self.clock.now()
        ack = _acker(listener, message)
        try:
            msg = wire.parse(body)
            if isinstance(msg, wire.AskMessage):
                raise WireError("an ask on the replies queue", fix="")
        except WireError as exc:
            log.error("remote.bad_reply", queue=listener.queue, error=exc.message)
            ack()
            return
        with self._lock:
            batch = self._waiting.get(msg.identity)
        if batch is not None:
            batch.inbox.put(_Incoming(msg, arrived_at, ack))
            return
        if isinstance(msg, wire.StartedMessage):
            ack()
            return
        self._keep_stray(msg, arrived_at, ack)

    def _keep_stray(self, msg: wire.ReplyMessage, arrived_at: datetime, ack: Callable[[], None]) -> None:
        """A reply for no batch waiting now (late past its cut-off, after a cancel, or from before a restart):
        handed to the record sink (then acknowledged), or kept until :meth:`take_strays`."""
        with self._lock:
            duplicate = msg.identity in self._answered
        arrival = _arrival(msg, arrived_at, duplicate=duplicate)
        log.warning("remote.stray_reply", identity=msg.identity, worker=msg.worker, duplicate=duplicate)
        if self._hand_record(arrival, "duplicate" if duplicate else "stray"):
            ack()
            return
        with self._lock:
            self._strays.append(arrival)
            self._stray_acks.append(ack)

    def take_strays(self) -> list[Arrival]:
        """Replies that arrived for no waiting batch, oldest first; acknowledged as they are handed over
        (to the record sink too, when there is one)."""
        with self._lock:
            strays, acks = self._strays, self._stray_acks
            self._strays, self._stray_acks = [], []
        for arrival, ack in zip(strays, acks, strict=True):
            self._hand_record(arrival, "duplicate" if arrival.duplicate else "stray")
            ack()
        return strays

    def _release(self, identities: Sequence[str], answered: Sequence[str]) -> None:
        with self._lock:
            for identity in identities:
                self._waiting.pop(identity, None)
            self._answered.update(answered)

    def in_flight(self) -> list[InFlight]:
        """Every ask still awaited: seat, queue, and whether (and where) it is running."""
        with self._lock:
            batches = set(self._waiting.values())
        return [row for b in batches for row in b.in_flight()]

    def write_state(self, *, closed: bool = False) -> None:
        """Write :meth:`in_flight` to ``state_file`` (atomically), for `league status` in another process;
        a closed runner awaits nothing."""
        if self.state_file is None:
            return
        asks = [] if closed else self.in_flight()
        body = {"written_at": self.clock.now().isoformat(), "closed": closed, "asks": asks}
        try:
            self.state_file.parent.mkdir(parents=True, exist_ok=True)
            tmp = self.state_file.with_name(f".{self.state_file.name}.{os.getpid()}.tmp")
            tmp.write_text(json.dumps(body, indent=1), encoding="utf-8")
            tmp.replace(self.state_file)
        except OSError as exc:
            log.warning("remote.state_unwritten", path=str(self.state_file), error=str(exc))

    def _keep_state(self) -> None:
        """Every :data:`STATE_EVERY_S` while the runner is open: the asks in flight, as this process sees them."""
        while not self._closed.wait(STATE_EVERY_S):
            self.write_state()

    def _start_state(self) -> None:
        with self._lock:
            if self.state_file is None or self._state_thread is not None:
                return
            self._state_thread = threading.Thread(target=self._keep_state, daemon=True, name="remote-state")
        self._state_thread.start()

    def close(self) -> None:
        """Stop waiting for every batch (nothing can arrive once the links are closed), close the links."""
        self._closed.set()
        with self._lock:
            links, self._links = list(self._links.values()), {}
            batches = set(self._waiting.values())
        for batch in batches:
            batch.cancel()
        for link in links:
            link.close()
        self.write_state(closed=True)


def _failure(ask: SeatAsk, now: datetime, detail: str, failure: FailureClass = FailureClass.TRANSIENT) -> SeatReply:
    """A silent failure reply for an ask that got no reply from a worker, dated ``now``."""
    return SeatReply(seat=ask.spec.name, raw="", model=ask.spec.model, version="unreported", mode="",
                     started_at=now, finished_at=now, failure=failure,
                     detail=f"{detail} (queue {ask.spec.worker or '?'})"[:500])


def _failed(ask: SeatAsk, now: datetime, detail: str) -> Future[SeatReply]:
    """A future already resolved with a transient failure reply (an ask that could not be published)."""
    future: Future[SeatReply] = Future()
    future.set_result(_failure(ask, now, detail))
    return future


def _acker(listener: _ReplyListener, message: Message) -> Callable[[], None]:
    done = threading.Event()

    def ack() -> None:
        if not done.is_set():
            done.set()
            listener.request_ack(message)

    return ack


def _arrival(msg: wire.ReplyMessage, arrived_at: datetime, *, duplicate: bool) -> Arrival:
    return Arrival(seat=msg.seat, identity=msg.identity, reply=wire.seat_reply(msg, received_at=arrived_at),
                   arrived_at=arrived_at, duplicate=duplicate, expired=msg.outcome == "expired",
                   worker=msg.worker, redelivered=msg.redelivered)


class RemoteBatch:
    """The arrivals of one :meth:`RemoteSeatRunner.submit`; iterate it (in one thread) to receive them."""

    def __init__(self, runner: RemoteSeatRunner, jobs: Sequence[SeatJob], deadline: datetime) -> None:
        self.runner = runner
        self.deadline = deadline
        self.jobs = {wire.identity_of(j.spec.name, j.ask.sha256, j.ask.attempt): j for j in jobs}
        self.inbox: queue_mod.Queue[_Incoming] = queue_mod.Queue()
        self._pending = set(self.jobs)
        self._concluded: set[str] = set()
        self._started: dict[str, tuple[datetime, str]] = {}
        self._reply_ids: set[str] = set()
        self._ready: deque[Arrival] = deque()
        self._unacked: Callable[[], None] | None = None
        self._stopped = False
        self._state = threading.Lock()

    def __iter__(self) -> RemoteBatch:
        return self

    def __next__(self) -> Arrival:
        self._ack_previous()
        while True:
            with self._state:
                if self._ready:
                    return self._ready.popleft()
                if self._stopped or not self._pending:
                    self._finish()
                    raise StopIteration
                self._expire_due(self.runner.clock.now())
                if self._ready:
                    continue
            try:
                item = self.inbox.get(timeout=self.runner.poll_s)
            except queue_mod.Empty:
                continue
            arrival = self._take(item)
            if arrival is not None:
                self._unacked = item.ack
                return arrival
            item.ack()

    def _ack_previous(self) -> None:
        if self._unacked is not None:
            self._unacked()
            self._unacked = None

    def _take(self, item: _Incoming) -> Arrival | None:
        msg = item.message
        with self._state:
            if isinstance(msg, wire.StartedMessage):
                self._started[msg.identity] = (item.arrived_at, msg.worker)
                return None
            if msg.reply_id in self._reply_ids:
                log.info("remote.reply_copy_dropped", identity=msg.identity, reply_id=msg.reply_id)
                return None
            self._reply_ids.add(msg.reply_id)
            duplicate = msg.identity in self._concluded
            self._conclude(msg.identity)
        if duplicate:
            log.warning("remote.duplicate_reply", identity=msg.identity, worker=msg.worker)
        return _arrival(msg, item.arrived_at, duplicate=duplicate)

    def _conclude(self, identity: str) -> None:
        self._pending.discard(identity)
        self._concluded.add(identity)

    def cutoff(self, identity: str) -> datetime:
        """When the league stops waiting for this ask (see the module docstring)."""
        grace = timedelta(seconds=self.runner.grace_s)
        started = self._started.get(identity)
        if started is None:
            return self.deadline + grace
        run = timedelta(seconds=self.jobs[identity].spec.timeout_s + self.runner.run_margin_s)
        return max(self.deadline, started[0] + run) + grace

    def _expire_due(self, now: datetime) -> None:
        for identity in sorted(self._pending):
            if now >= self.cutoff(identity):
                started = identity in self._started
                detail = ("no reply from the worker that started it within its timeout" if started
                          else "no worker started it by its deadline")
                self._ready.append(self._unanswered(identity, now, detail, expired=not started))

    def _unanswered(self, identity: str, now: datetime, detail: str, *, expired: bool,
                    failure: FailureClass = FailureClass.TIMEOUT) -> Arrival:
        """An arrival the league concludes itself: a silent reply dated now (no worker said anything)."""
        job = self.jobs[identity]
        self._conclude(identity)
        reply = SeatReply(seat=job.spec.name, raw="", model=job.spec.model, version="unreported", mode="",
                          started_at=now, finished_at=now, failure=failure, detail=f"{detail} (queue {job.queue})")
        return Arrival(seat=job.spec.name, identity=identity, reply=reply, arrived_at=now, expired=expired)

    def conclude_unsent(self, identity: str, detail: str) -> None:
        """The ask never reached the broker: concluded at once as a transient failure (the league's side)."""
        with self._state:
            if identity in self._pending:
                self._ready.append(self._unanswered(identity, self.runner.clock.now(), detail, expired=False,
                                                    failure=FailureClass.TRANSIENT))

    def cancel(self) -> None:
        """Stop waiting: iteration ends; replies that still come are kept by the runner as strays."""
        with self._state:
            self._stopped = True
            self._ready.clear()

    def expire(self) -> None:
        """Conclude every pending ask now as not answered (they are yielded next)."""
        with self._state:
            now = self.runner.clock.now()
            for identity in sorted(self._pending):
                self._ready.append(self._unanswered(identity, now, "expired by the league", expired=True))

    def in_flight(self) -> list[InFlight]:
        with self._state:
            rows: list[InFlight] = []
            for identity in sorted(self._pending):
                job, started = self.jobs[identity], self._started.get(identity)
                rows.append({"seat": job.spec.name, "queue": job.queue, "identity": identity,
                             "state": "running" if started else "queued",
                             "worker": started[1] if started else "",
                             "since": started[0].isoformat() if started else None,
                             "cutoff": self.cutoff(identity).isoformat()})
            return rows

    def _finish(self) -> None:
        """Hand the identities back to the runner; replies still queued in the inbox become strays."""
        self.runner._release(list(self.jobs), sorted(self._concluded))
        while True:
            try:
                item = self.inbox.get_nowait()
            except queue_mod.Empty:
                return
            if isinstance(item.message, wire.ReplyMessage) and item.message.reply_id not in self._reply_ids:
                self.runner._keep_stray(item.message, item.arrived_at, item.ack)
            else:
                item.ack()
