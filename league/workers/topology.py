"""Names on the broker: one RabbitMQ virtual host per lab, and what a lab's user may touch in it.

In the vhost ``league-<queue>`` live exactly two durable queues: ``<queue>`` (the asks, bound to the
direct exchange ``league.asks``) and ``league.replies`` (bound to ``league.replies`` with the lab's
queue name). The league's user declares them (``configure``); the lab's user may only read its asks
queue and write to the replies exchange: it can neither declare, delete nor purge anything, nor read
a reply — its own or another lab's — and another lab's vhost refuses its login outright.
"""

from __future__ import annotations

import re

from kombu.entity import Exchange, Queue

from league.workers.errors import WorkerConfigError

TASK_NAME = "league.run_seat"
QUEUE_PATTERN = re.compile(r"^[a-z0-9][a-z0-9-]{0,62}$")
VHOST_PREFIX = "league-"
ASKS_EXCHANGE = Exchange("league.asks", "direct", durable=True)
REPLIES_EXCHANGE = Exchange("league.replies", "direct", durable=True)
REPLIES_QUEUE = "league.replies"


def check_queue_name(queue: str) -> str:
    """A lab's queue name: lower-case letters, digits and dashes (it is also part of a vhost's name)."""
    if not QUEUE_PATTERN.fullmatch(queue or ""):
        raise WorkerConfigError(
            f"worker queue {queue!r} is not a lab queue name (lower-case letters, digits, dashes; at most 63)",
            fix="name the lab's queue like `lab-a` (the roster's `worker = \"lab-a\"`)",
        )
    return queue


def vhost_for(queue: str) -> str:
    """The lab's own virtual host: ``league-<queue>``."""
    return VHOST_PREFIX + check_queue_name(queue)


def queue_for_vhost(vhost: str) -> str | None:
    """The queue a vhost belongs to, or ``None`` when the vhost is not a lab's."""
    if not vhost.startswith(VHOST_PREFIX):
        return None
    queue = vhost[len(VHOST_PREFIX):]
    return queue if QUEUE_PATTERN.fullmatch(queue) else None


def asks_queue(queue: str, *, declare: bool) -> Queue:
    """The lab's asks queue; a worker never declares it (``declare=False``: its user may not)."""
    return Queue(check_queue_name(queue), ASKS_EXCHANGE, routing_key=queue, durable=True, no_declare=not declare)


def replies_queue(queue: str) -> Queue:
    """The league's replies queue in the lab's vhost (declared and read by the league only)."""
    return Queue(REPLIES_QUEUE, REPLIES_EXCHANGE, routing_key=check_queue_name(queue), durable=True)


def lab_permissions(queue: str) -> tuple[str, str, str]:
    """RabbitMQ ``configure``, ``write``, ``read`` patterns of a lab's user in its own vhost."""
    return "^$", f"^{re.escape(REPLIES_EXCHANGE.name)}$", f"^{re.escape(check_queue_name(queue))}$"
