"""The remote runner's own vocabulary: a job on a lab's queue, an arrival, a batch of arrivals.

The day's seam is ONE protocol, :class:`league.runner.SeatRunner` (futures, one per ask);
:class:`league.workers.remote.RemoteSeatRunner` implements it on top of these: it submits a batch of
jobs with a deadline and iterates its arrivals, each timed by the LEAGUE's clock at receipt, resolving
each ask's future with its first reply and handing duplicates and strays to the day's record sink.
"""

from __future__ import annotations

from collections.abc import Iterator
from dataclasses import dataclass
from datetime import datetime
from typing import Protocol

from league_agents.base import Ask, SeatReply, SeatSpec


@dataclass(frozen=True)
class SeatJob:
    """One seat on one ask; ``queue`` names the lab's worker queue (the roster's ``worker``)."""

    spec: SeatSpec
    ask: Ask
    queue: str = ""


@dataclass(frozen=True)
class Arrival:
    """A reply as the league received it.

    ``arrived_at`` is the league's clock at receipt (the reply's own ``started_at``/``finished_at`` are
    the worker's). ``duplicate``: a further reply to an ask already concluded — record it, never seal
    it as an answer. ``expired``: the ask was not run (not started by its deadline, or nobody took it);
    its reply is silent. ``worker`` is empty when the league itself concluded the ask."""

    seat: str
    identity: str
    reply: SeatReply
    arrived_at: datetime
    duplicate: bool = False
    expired: bool = False
    worker: str = ""
    redelivered: bool = False


class Batch(Protocol):
    """The arrivals of one submitted batch; :meth:`cancel` stops waiting, :meth:`expire` concludes every
    ask still pending now as not answered."""

    def __iter__(self) -> Iterator[Arrival]: ...

    def __next__(self) -> Arrival: ...

    def cancel(self) -> None: ...

    def expire(self) -> None: ...

