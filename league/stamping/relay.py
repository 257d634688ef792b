"""Stamps read in one process and taken in another: a simulated season's stamps, relayed to its parent.

The demo's season runs in a forked child whose main thread is its critical path, while the parent only
indexes the books the child writes (league.demo). A stamp is mostly waiting: round trips to the calendar
and the log, a token signed and checked, six fsyncs — ~15 ms of wall for ~2 ms of the main thread, about a
fifth of the season's wall in all — and nothing the season seals depends on it. What must happen at the
stamp's moment is only reading the books' heads and the simulated time; the list, its proofs and its status
file are a function of those two and the services.

So the child's League stamps through a :class:`RelayStamper`: it reads the heads (its own
:class:`~league.stamping.heads.HeadCache`, as the Stamper would) and sends them with the time as a
:class:`StampRequest`. The parent's :class:`StampDesk` takes the requests in the order they were sent, each
with its clock set to the request's time, through the same Stamper, services and folder as a season that
stamps its own: the same lists, the same signed and integrated times, the same proofs (league verify reads
no difference). The nightly upgrade is relayed the same way, after the stamps before it.

The relay never raises into sealing, as the Stamper does not: a request that cannot be sent (the parent
gone) is logged (``stamp.relay_failed``) and the season goes on without that stamp.
"""

from __future__ import annotations

from collections.abc import Callable, Collection, Sequence
from dataclasses import dataclass
from datetime import datetime
from pathlib import Path

import structlog

from league.book import Head
from league.clock import Clock, SimulatedClock
from league.errors import LeagueError
from league.stamping.heads import HeadCache
from league.stamping.stamper import Stamper, StampResult
from league.stamps.interface import BackendKind

log = structlog.get_logger(__name__)


@dataclass(frozen=True)
class StampRequest:
    """One stamp (the books' heads, read at ``at``) or, with ``upgrade``, one upgrade of pending proofs."""

    at: datetime
    heads: tuple[tuple[str, Head], ...] = ()
    note: str = ""
    only: frozenset[BackendKind] | None = None
    upgrade: bool = False
    backoff: bool = False

    def __post_init__(self) -> None:
        if self.at.tzinfo is None:
            raise ValueError("a stamp request's time must be timezone-aware")
        if self.upgrade and self.heads:
            raise ValueError("an upgrade request names no heads: it is a stamp or an upgrade, not both")


class RelayStamper:
    """The stamper of a League whose stamps another process takes (:class:`StampDesk`).

    Its methods return what a Stamper returns when it took nothing here: ``None`` and ``[]``; the day's
    stages do not read them (the results are the desk's, in its log and in the stamps folder)."""

    def __init__(self, clock: Clock, send: Callable[[StampRequest], object]) -> None:
        self.clock = clock
        self._send = send
        self._heads = HeadCache()

    def stamp_books(self, books: Sequence[tuple[str, Path]], *, note: str = "",
                    only: Collection[BackendKind] | None = None) -> StampResult | None:
        now = self.clock.now()
        try:
            heads = tuple((name, self._heads.head(path)) for name, path in books)
        except (LeagueError, OSError, ValueError) as exc:
            log.error("stamp.list_failed", error=str(exc))
            return None
        self._relay(StampRequest(now, heads, note, frozenset(only) if only is not None else None))
        return None

    def upgrade(self, *, backoff: bool = False) -> list[tuple[Path, bool]]:
        self._relay(StampRequest(self.clock.now(), upgrade=True, backoff=backoff))
        return []

    def _relay(self, request: StampRequest) -> None:
        try:
            self._send(request)
        except (OSError, ValueError) as exc:  # a closed pipe: the season goes on, this stamp is missing
            log.error("stamp.relay_failed", at=request.at.isoformat(), upgrade=request.upgrade, error=str(exc))


class StampDesk:
    """Takes relayed requests in order, each at its own time, through one Stamper made at the first request
    (``make``, given this desk's clock: the league's folder and configuration may not exist before)."""

    def __init__(self, clock: SimulatedClock, make: Callable[[Clock], Stamper]) -> None:
        self.clock = clock
        self._make = make
        self._stamper: Stamper | None = None
        self.taken = 0

    def take(self, request: StampRequest) -> None:
        """Never raises (a Stamper does not, and neither does a desk that cannot build one)."""
        try:
            if request.at > self.clock.now():
                self.clock.set(request.at)
            stamper = self._stamper or self._build()
            if request.upgrade:
                stamper.upgrade(backoff=request.backoff)
            else:
                stamper.stamp_heads(request.heads, note=request.note, only=request.only)
            self.taken += 1
        except Exception:  # noqa: BLE001 - a stamp is never worth the season: logged, the next one is tried
            log.exception("stamp.desk_failed", at=request.at.isoformat(), upgrade=request.upgrade)

    def _build(self) -> Stamper:
        self._stamper = self._make(self.clock)
        return self._stamper
