"""What a lab's worker does with one ask: run the seat in the local sandbox, publish the raw reply.

The task body is one JSON object (:class:`league.workers.wire.AskMessage`). The seat is built from the
roster entry it carries, with the same adapter registry the league uses (``agents.registry``), and
runs in this host's real sandbox with the seat's network policy and THIS host's credentials (the
variables and files the entry names). The reply is published to the lab's replies exchange before
the task returns, and only then is the ask acknowledged (late acknowledgement): a worker that dies
mid-ask leaves the ask to be delivered again, and its reply is never half-sent.

An ask is run only before its deadline. Celery discards one whose ``expires`` passed (the
``task_revoked`` handler below then tells the league so); the body checks again, since a redelivered
ask may reach a worker after its deadline. The broker drops an ask still queued at its deadline
(per-message TTL), so a lab whose worker is down gets no stale asks when it returns.
"""

from __future__ import annotations

import socket
import threading
from collections.abc import Callable, Mapping
from dataclasses import dataclass
from datetime import datetime

import structlog
from celery import Celery, Task
from celery.signals import task_revoked
from celery.worker.request import Request

from league.clock import SystemClock
from league.evals.policy import Policy
from league.evals.seats import policy_seat
from league.jsonvalue import Json
from league.workers import wire
from league.workers.errors import WireError
from league.workers.topology import REPLIES_EXCHANGE, TASK_NAME
from league_agents.base import FailureClass, Seat, SeatReply, SeatSpec
from league_agents.registry import build_seat, spec_problems

log = structlog.get_logger(__name__)
#: A reply is worth waiting for the broker to come back: retried on connection errors without a count
#: (the task's hard time limit, set per ask by the league, ends a wait that never ends).
REPLY_RETRY = {"max_retries": None, "interval_start": 0.5, "interval_step": 1.0, "interval_max": 3.0}
Publish = Callable[[wire.Body], None]


@dataclass(frozen=True)
class TaskContext:
    """What one execution knows besides the ask: its worker, queue, clock and how to reply."""

    queue: str
    worker: str
    redelivered: bool
    publish: Publish
    now: Callable[[], datetime]


def register(app: Celery, queue: str) -> None:
    """Register the seat task on the worker's app, and the expiry notice on Celery's revoke signal."""

    @app.task(name=TASK_NAME, bind=True, acks_late=True, reject_on_worker_lost=True, ignore_result=True)
    def run_seat(task: Task, body: object) -> None:
        request = task.request
        ctx = TaskContext(queue=queue, worker=str(request.hostname or socket.gethostname()),
                          redelivered=bool((request.delivery_info or {}).get("redelivered")),
                          publish=publisher(app, queue), now=SystemClock().now)
        execute(body, ctx)

    def on_revoked(sender: object = None, request: Request | None = None, expired: bool = False,
                   **_: object) -> None:
        if not expired or request is None or getattr(sender, "app", None) is not app:
            return
        try:
            body = wire.unrun_message(str(request.id), queue=queue, worker=str(request.hostname or ""),
                                      outcome="expired", failure=FailureClass.TIMEOUT,
                                      detail="not started by its deadline: the worker discarded it (expired)",
                                      sent_at=SystemClock().now())
            publisher(app, queue)(body)
        except Exception:  # noqa: BLE001 - the league concludes the ask at its own cut-off anyway
            log.exception("worker.expiry_notice_failed", task_id=str(getattr(request, "id", "")))

    task_revoked.connect(on_revoked, weak=False)


def publisher(app: Celery, queue: str) -> Publish:
    """Publish one message to the lab's replies exchange, persistent, confirmed by the broker, retried
    until the broker takes it; nothing is declared (the lab's user may not)."""

    def publish(body: wire.Body) -> None:
        with app.producer_or_acquire() as producer:
            producer.publish(dict(body), exchange=REPLIES_EXCHANGE, routing_key=queue, serializer="json",
                             delivery_mode=2, declare=[], retry=True, retry_policy=REPLY_RETRY)

    return publish


def execute(body: object, ctx: TaskContext) -> None:
    """Run one ask and publish what happened; never raises for anything an ask or a seat can do."""
    try:
        ask = wire.parse(body)
        if not isinstance(ask, wire.AskMessage):
            raise WireError(f"a {ask.kind} message is not an ask", fix="publish asks with league.workers.remote")
    except WireError as exc:
        log.error("worker.ask_refused", error=exc.message)
        _refuse(body, ctx, f"the worker refused the task: {exc.message}")
        return
    if ask.queue != ctx.queue:
        _refuse(body, ctx, f"the ask is for queue {ask.queue!r}, this worker serves {ctx.queue!r}")
        return
    if ctx.now() > ask.deadline:
        ctx.publish(wire.unrun_message(ask.identity, queue=ctx.queue, worker=ctx.worker, outcome="expired",
                                       failure=FailureClass.TIMEOUT, redelivered=ctx.redelivered,
                                       detail=f"not started by its deadline {ask.deadline.isoformat()}",
                                       sent_at=ctx.now()))
        return
    announced = Announcement(ctx.publish, wire.started_message(ask, worker=ctx.worker, started_at=ctx.now(),
                                                               redelivered=ctx.redelivered))
    log.info("worker.ask_started", seat=ask.seat.name, identity=ask.identity, redelivered=ctx.redelivered)
    reply = run_ask(ask, ctx.now)
    announced.wait()
    try:
        message = wire.reply_message(ask, reply, worker=ctx.worker, redelivered=ctx.redelivered, sent_at=ctx.now())
    except WireError as exc:
        log.error("worker.reply_uncarriable", seat=ask.seat.name, error=exc.message)
        _refuse(body, ctx, f"the seat ran but its reply cannot be carried: {exc.message}")
        return
    ctx.publish(message)
    log.info("worker.ask_replied", seat=ask.seat.name, identity=ask.identity, failure=str(reply.failure or ""))


class Announcement:
    """The ``started`` message, published (confirmed, retried like a reply) on a thread of its own while
    the seat starts: the seat does not wait for the broker's confirm. :meth:`wait` returns once the
    broker holds the message, and is called before the reply is published, so the league still gets
    ``started`` first; a publication that failed raises there, as it did before the seat started."""

    def __init__(self, publish: Publish, body: wire.Body) -> None:
        self._error: BaseException | None = None
        self._thread = threading.Thread(target=self._publish, args=(publish, body), name="started", daemon=True)
        self._thread.start()

    def _publish(self, publish: Publish, body: wire.Body) -> None:
        try:
            publish(body)
        except BaseException as exc:  # noqa: BLE001 - handed to wait(), in the task's own thread
            self._error = exc

    def wait(self) -> None:
        self._thread.join()
        if self._error is not None:
            raise self._error


def _refuse(body: object, ctx: TaskContext, detail: str) -> None:
    identity = body.get("identity") if isinstance(body, Mapping) else None
    try:
        message = wire.unrun_message(str(identity), queue=ctx.queue, worker=ctx.worker, outcome="refused",
                                     failure=FailureClass.SEAT_FAULT, detail=detail, sent_at=ctx.now(),
                                     redelivered=ctx.redelivered)
    except WireError:
        return  # not even an identity: nothing the league could match a reply to
    ctx.publish(message)


_SEATS: dict[str, Seat] = {}
_SEATS_LOCK = threading.Lock()


def eval_policy(context: Mapping[str, Json]) -> str | None:
    """The network policy of an evaluation's ask (its context says ``kind = "eval"``), else ``None``."""
    return str(context.get("policy", "none")) if context.get("kind") == "eval" else None


def seat_for(spec: SeatSpec, context: Mapping[str, Json] | None = None) -> Seat:
    """The seat for a roster entry, built once per worker process (its sandbox is reused). An evaluation's
    ask is run as ``league eval questions`` runs it here: built by the evaluations (the eval stand-in
    included, an adapter like any other) on a sandbox that imposes the run's network policy (league.evals.policy)."""
    policy = eval_policy(context or {})
    key = spec.model_dump_json() + ("" if policy is None else f"|eval:{policy}")
    with _SEATS_LOCK:
        if key not in _SEATS:
            _SEATS[key] = _build(spec, policy)
        return _SEATS[key]


def _build(spec: SeatSpec, policy: str | None) -> Seat:
    return build_seat(spec) if policy is None else policy_seat(spec, Policy(policy))


def run_ask(ask: wire.AskMessage, now: Callable[[], datetime]) -> SeatReply:
    """The seat's reply; a roster entry this host cannot run, or an adapter that raises, becomes a
    classified failure reply (as on the league host: one seat never stops the others)."""
    started = now()
    problems = spec_problems(ask.seat, track="council" if eval_policy(ask.context) is None else "eval")
    try:
        if problems:
            raise WireError("this worker cannot run the seat: " + "; ".join(problems))
        return seat_for(ask.seat, ask.context).ask(ask.as_ask(), now)
    except Exception as exc:  # noqa: BLE001 - classified and returned, never raised
        return SeatReply(seat=ask.seat.name, raw="", model=ask.seat.model, version="unreported", mode="",
                         started_at=started, finished_at=now(),
                         failure=getattr(exc, "failure", FailureClass.SEAT_FAULT),
                         detail=str(getattr(exc, "message", exc))[:500])
