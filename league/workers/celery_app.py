"""The Celery application both sides share: one per lab vhost, JSON only, late acknowledgement.

Why each setting (Celery 5 names):

* ``task_serializer``/``accept_content`` = JSON: a worker never unpickles what arrives (pickle would
  let whoever can publish to its queue run code on the lab's machine); a pickled message is refused.
* ``task_acks_late`` + ``task_reject_on_worker_lost``: the ask is acknowledged only once its reply is
  published; a worker (or its pool process) that dies mid-ask leaves it to be delivered again.
* ``worker_prefetch_multiplier`` = 1: a worker reserves only the asks it is running, so the others
  stay in the queue for the next free worker (and redelivery after a death is immediate).
* ``task_ignore_result``, no result backend: the reply is a message of our own wire format on the
  lab's replies queue (:mod:`league.workers.wire`), consumed by the league with its own clock.
* remote control, events, gossip, mingle off: each would declare exchanges or queues a lab's user may
  not (and should not) create, and would broadcast between workers of different labs.
* ``broker_connection_retry*``: a broker restart is survived, not fatal; ``confirm_publish``: a
  publish returns once the broker holds the message (a worker's replies). The league publishes a
  fan-out's asks on a confirm channel of its own instead, all of them before one wait for their
  confirms (:meth:`league.workers.remote._Link.send_all`).
* the asks queue is never declared by the worker (``no_declare``): the league declared it.
"""

from __future__ import annotations

from celery import Celery

from league.workers.broker import BrokerTarget
from league.workers.tasks import register
from league.workers.topology import asks_queue

#: seconds between AMQP heartbeats: a silently dead peer (a cut cable, not a closed socket) is noticed
#: within about two of them, and its unacknowledged asks go back to the queue.
HEARTBEAT_S = 30


def make_app(target: BrokerTarget, queue: str, *, worker: bool) -> Celery:
    """A Celery app bound to one lab's vhost; ``worker=True`` also registers the task that runs seats."""
    app = Celery(f"league-{queue}", broker=target.url(), set_as_current=False)
    app.conf.update(celery_settings(target, queue, worker=worker))
    if worker:
        register(app, queue)
    return app


def celery_settings(target: BrokerTarget, queue: str, *, worker: bool) -> dict[str, object]:
    return {
        "task_serializer": "json",
        "accept_content": ["json"],
        "result_accept_content": ["json"],
        "event_serializer": "json",
        "task_ignore_result": True,
        "task_store_errors_even_if_ignored": False,
        "task_acks_late": True,
        "task_reject_on_worker_lost": True,
        "task_acks_on_failure_or_timeout": True,
        "worker_prefetch_multiplier": 1,
        "worker_enable_remote_control": False,
        "worker_send_task_events": False,
        "task_send_sent_event": False,
        "worker_cancel_long_running_tasks_on_connection_loss": False,
        "task_queues": [asks_queue(queue, declare=not worker)],
        "task_default_queue": queue,
        "task_create_missing_queues": False,
        "broker_connection_retry": True,
        "broker_connection_retry_on_startup": True,
        "broker_connection_max_retries": None,
        "broker_heartbeat": HEARTBEAT_S,
        "broker_transport_options": {"confirm_publish": True},
        "broker_use_ssl": target.ssl_options(),
        "broker_login_method": "PLAIN",
        "worker_hijack_root_logger": False,
        "worker_redirect_stdouts": False,
        "enable_utc": True,
        "timezone": "UTC",
    }
