"""The one seam through which seats are run: given seat asks, hand back each reply as it arrives.

The ask job prepares every seat's exact text (hashed into the ask chain first), then gives the batch
to a :class:`SeatRunner` and gets one future per ask back; whoever holds a future learns the reply
the moment it arrives (``Future.add_done_callback`` for a live seal, ``as_completed`` to iterate).
A runner never raises for a seat: an adapter that fails becomes a fault reply, so one seat cannot
stop a run.

:class:`ThreadRunner` is today's runner: each seat in a thread of this process, from the seats the
composition root built. A runner on remote workers (a queue) implements the same protocol from the
seat specs alone — the specs travel, the built seats do not — and plugs in through
``league.compose.build_league(runner=...)``.
"""

from __future__ import annotations

import os
from collections.abc import Iterator, Mapping, Sequence
from concurrent.futures import Future, ThreadPoolExecutor, as_completed
from dataclasses import dataclass
from typing import Protocol, runtime_checkable

from league_agents.base import Ask, FailureClass, Now, Seat, SeatReply, SeatSpec

#: One pool for every league of the process (threads are made on demand and reused).
_POOL = ThreadPoolExecutor(max_workers=max(8, (os.cpu_count() or 2) * 8), thread_name_prefix="seat")


@dataclass(frozen=True)
class SeatAsk:
    """One seat's ask: the roster entry it is sent to and the exact text (with its hash)."""

    spec: SeatSpec
    ask: Ask


@runtime_checkable
class SeatRunner(Protocol):
    """Runs a batch of seat asks somewhere and returns one future per ask, in the batch's order.

    Each future resolves with the seat's :class:`SeatReply` (its times read from ``now``), never with
    an exception."""

    def start(self, asks: Sequence[SeatAsk], now: Now) -> list[Future[SeatReply]]: ...


class ThreadRunner:
    """Each ask in a thread of this process, with the seats built by the composition root."""

    def __init__(self, seats: Mapping[str, Seat], pool: ThreadPoolExecutor | None = None) -> None:
        self.seats = seats
        self._pool = pool or _POOL

    def start(self, asks: Sequence[SeatAsk], now: Now) -> list[Future[SeatReply]]:
        return [self._pool.submit(ask_one, self.seats[a.spec.name], a.ask, now) for a in asks]


def ask_one(seat: Seat, ask: Ask, now: Now) -> SeatReply:
    """Never raises: an adapter bug becomes a seat fault reply, so one seat cannot stop the run."""
    started = now()
    try:
        return seat.ask(ask, now)
    except Exception as exc:  # noqa: BLE001 - classified and sealed as an incident/fault
        failure = getattr(exc, "failure", FailureClass.SEAT_FAULT)
        return SeatReply(seat=seat.spec.name, raw="", model=seat.spec.model, version="unreported", mode="",
                         started_at=started, finished_at=now(), failure=failure, detail=str(exc)[:500])


def arrivals(futures: Sequence[Future[SeatReply]]) -> Iterator[SeatReply]:
    """The replies of a batch in the order they arrive."""
    for fut in as_completed(futures):
        yield fut.result()
