"""The one seam through which seats are run: given seat asks, hand back each reply as it arrives.

The ask job prepares every seat's exact text (hashed into the ask chain first), then gives the batch
to a :class:`SeatRunner` and gets one future per ask back; whoever holds a future learns the reply
the moment it arrives (``Future.add_done_callback`` for a live seal, ``as_completed`` to iterate).
A runner never raises for a seat: an adapter that fails becomes a fault reply, so one seat cannot
stop a run.

There is ONE runner protocol, :class:`SeatRunner`, with three implementations:

* :class:`ThreadRunner`: each seat in a thread of this process, from the seats the composition root
  built (the default; the demo and a one-machine league need no broker);
* ``league.workers.remote.RemoteSeatRunner``: each seat on its lab's worker, through the broker, from
  the seat specs alone (the specs travel, the built seats do not); its replies are timed by the
  league's clock at arrival;
* :class:`RoutedRunner`: a roster entry with ``worker = "lab-a"`` goes to the remote runner, every
  other seat to local threads (what the composition root builds when the roster names a worker).

A runner may also see replies that are not answers — a second reply to an ask already answered (a
redelivered task run twice), a reply for an ask nobody waits for any more (a stray): it hands them
to the sink given by :meth:`SeatRunner.on_record`, and the day seals them as ``reply_record`` lines,
never as answers.
"""

from __future__ import annotations

import os
from collections.abc import Callable, Iterator, Mapping, Sequence
from concurrent.futures import Future, ThreadPoolExecutor, as_completed
from dataclasses import dataclass
from datetime import datetime
from typing import TYPE_CHECKING, Literal, Protocol, cast, runtime_checkable

from league.registry import REMOTE_RUNNER, RUNNERS, load
from league_agents.base import Ask, Now, Seat, SeatReply, SeatSpec, ask_one, close_seat
from league_agents.registry import build_seat

if TYPE_CHECKING:
    from league.clock import Clock

#: One pool for every league of the process (threads are made on demand and reused).
_POOL = ThreadPoolExecutor(max_workers=max(8, (os.cpu_count() or 2) * 8), thread_name_prefix="seat")


@dataclass(frozen=True)
class SeatAsk:
    """One seat's ask: the roster entry it is sent to and the exact text (with its hash)."""

    spec: SeatSpec
    ask: Ask


@dataclass(frozen=True)
class ReplyRecord:
    """A reply that is NOT an answer, kept as a record: ``duplicate`` (another run of an ask already
    answered: the first reply stays the answer) or ``stray`` (a reply for an ask no batch waits for:
    past its cut-off, or from before the league restarted). ``arrived_at`` is the league's clock."""

    seat: str
    ask_sha256: str
    reply: SeatReply
    arrived_at: datetime
    reason: Literal["duplicate", "stray"]
    worker: str = ""
    redelivered: bool = False


RecordSink = Callable[[ReplyRecord], None]


@runtime_checkable
class SeatRunner(Protocol):
    """Runs a batch of seat asks somewhere and returns one future per ask, in the batch's order.

    Each future resolves with the seat's :class:`SeatReply` (its times read from ``now``, the
    league's clock), never with an exception. ``deadline`` (the league's clock) is when an ask not
    yet started stops being worth starting (ingest close); a local thread starts at once and ignores
    it, a queue expires the ask."""

    def start(self, asks: Sequence[SeatAsk], now: Now, deadline: datetime | None = None) -> list[Future[SeatReply]]: ...

    def on_record(self, sink: RecordSink) -> None:
        """Where replies that are not answers go (duplicates, strays), from whichever thread sees them."""

    def close(self) -> None: ...


class ThreadRunner:
    """Each ask in a thread of this process, with the seats built by the composition root. A thread
    runs each ask exactly once, so it never has a record to hand over."""

    def __init__(self, seats: Mapping[str, Seat], pool: ThreadPoolExecutor | None = None) -> None:
        self.seats = seats
        self._pool = pool or _POOL
        self._variants: dict[str, Seat] = {}  # seats built for an ask whose roster entry differs (an arm's)

    def start(self, asks: Sequence[SeatAsk], now: Now, deadline: datetime | None = None) -> list[Future[SeatReply]]:
        return [self._pool.submit(ask_one, self.seat_for(a.spec), a.ask, now) for a in asks]

    def seat_for(self, spec: SeatSpec) -> Seat:
        """The seat that runs ``spec``: the one built for the roster entry, or, when the ask carries another
        entry for that seat (an arm runs a ``web`` seat on policy ``api``), a seat built for exactly that entry,
        as a remote worker builds each seat from the entry its task carries."""
        seat = self.seats[spec.name]
        if getattr(seat, "spec", spec) == spec:
            return seat
        key = spec.model_dump_json()
        if key not in self._variants:
            self._variants[key] = build_seat(spec)
        return self._variants[key]

    def on_record(self, sink: RecordSink) -> None:
        return None

    def close(self) -> None:
        """Close the seats that hold something of their own (the `_ets` seat's fit worker process)."""
        for seat in (*self.seats.values(), *self._variants.values()):
            close_seat(seat)


class RoutedRunner:
    """Seats whose roster entry names a ``worker`` go to ``remote``, the others to ``local``; the futures
    come back in the batch's order whoever ran them."""

    def __init__(self, local: SeatRunner, remote: SeatRunner) -> None:
        self.local = local
        self.remote = remote

    def start(self, asks: Sequence[SeatAsk], now: Now, deadline: datetime | None = None) -> list[Future[SeatReply]]:
        out: dict[int, Future[SeatReply]] = {}
        for runner, remote in ((self.local, False), (self.remote, True)):
            picked = [i for i, a in enumerate(asks) if bool(a.spec.worker) is remote]
            if picked:
                out.update(zip(picked, runner.start([asks[i] for i in picked], now, deadline), strict=True))
        return [out[i] for i in range(len(asks))]

    def on_record(self, sink: RecordSink) -> None:
        self.local.on_record(sink)
        self.remote.on_record(sink)

    def close(self) -> None:
        self.remote.close()
        self.local.close()


def arrivals(futures: Sequence[Future[SeatReply]]) -> Iterator[SeatReply]:
    """The replies of a batch in the order they arrive."""
    for fut in as_completed(futures):
        yield fut.result()


#: What the ``remote`` runner of ``forecast_league.runners`` is built from: a broker target, a clock, settings.
RemoteRunnerFactory = Callable[..., SeatRunner]


def runner_factory(name: str) -> object:
    """The seat runner registered as ``name`` (``thread``, ``remote``, ``routed``).

    Here rather than in the composition root so that `league eval --broker`, which needs only the remote
    runner, does not import the daemon's stack the composition root reaches."""
    return load(RUNNERS, name, "seat runner")


def remote_runner(target: object, clock: Clock, **settings: object) -> SeatRunner:
    """The ``remote`` seat runner on the broker ``target`` (a ``league.workers.broker.BrokerTarget``: the
    league's, or ``league eval``'s ``--broker``; typed loosely because the runner sits below the workers)."""
    return cast(RemoteRunnerFactory, runner_factory(REMOTE_RUNNER))(target, clock, **settings)
