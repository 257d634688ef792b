"""The season context: what a job of the league day reaches, in a few collaborators with one job each.

A :class:`League` holds the config, the clock and which optional stages run (:class:`Stages`), and:
:class:`league.jobs.books.CouncilBooks` (the single writer of the council book and the ask chain, and
their indexes), :class:`MarketData` (calendar, prices, crowd), :class:`Asking` (the seats, the runner,
the asks in flight) and :class:`SeasonView` (the read-only view the reading stages take). It is built in
one place only, the composition root (:func:`league.compose.build_league`).
"""

from __future__ import annotations

import time
from collections.abc import Callable, Mapping
from concurrent.futures import Future, wait
from dataclasses import dataclass
from typing import Protocol

import structlog

from league.arms.book import ArmsBooks
from league.book.index import BookIndex
from league.calendar import Calendar
from league.clock import Clock, SimulatedClock
from league.config import Config
from league.crowd.interface import CrowdProvider
from league.jobs.books import CouncilBooks
from league.prices.interface import PriceSource
from league.runner import SeatRunner
from league.shutdown import Shutdown
from league.store.interface import Store
from league_agents.base import Seat, SeatReply

log = structlog.get_logger(__name__)
#: What the ask's structured context adds for a session (the climatology table; the demo's hints).
AskContext = Callable[["League", str], Mapping[str, object]]


@dataclass(frozen=True)
class Stages:
    """Which optional stages a league runs beside the day's jobs (the composition root decides).

    ``climatology``: the sealed climatology table in every ask's context (the `_climatology` seat);
    ``stamps``: a stamped list after every batch of seals, the nightly upgrade, per-answer tokens when
    ``[stamps] per_answer``; ``crowd``: resolution lines for sealed crowd quotes; ``portfolio``: both
    paper leagues marked after the score; ``publish``: the nightly open data; ``preflight``: the
    sandbox and seat self-check sealed before each morning run.
    """

    climatology: bool = True
    stamps: bool = True
    crowd: bool = True
    portfolio: bool = True
    publish: bool = True
    preflight: bool = False


#: Every stage but the self-check (the default of the composition root).
EVERY = Stages()
#: No optional stage at all: the day's jobs alone (small test leagues).
BARE = Stages(climatology=False, stamps=False, crowd=False, portfolio=False, publish=False, preflight=False)


@dataclass
class Pending:
    """An ask in flight: sealed in the ask chain, sent, reply not yet sealed."""

    run_id: str
    session: str
    seat: str
    attempt: int
    common_sha256: str
    seat_ask_sha256: str
    markets: dict[str, list[str]]
    future: Future[SeatReply]
    #: Who seals the reply: ``None`` is the council's answer line (league.jobs.seal.seal_reply); an arm's
    #: ask names its own sealer (league.jobs.arms), so one pump seals every reply in arrival order.
    seal: Callable[[League, Pending, SeatReply], None] | None = None

    @property
    def council(self) -> bool:
        """An ask of a council run (not an arm's): what the second wave and the restart look at."""
        return self.seal is None


@dataclass
class MarketData:
    """The market side of a season: the exchange calendar, the price source and the crowd provider (none
    when the league runs without one). What the snapshot, the score and the portfolio read. Not frozen:
    the demo adds its synthetic crowd to a league the composition root built."""

    calendar: Calendar
    prices: PriceSource
    crowd: CrowdProvider | None = None


class Asking:
    """The seats and the asks they owe: who is asked, through which runner, and what has not come back yet.

    The ask job fills it, the seal stage empties it, the resume stage refills it after a crash; a stop
    (``shutdown``) bounds how long :meth:`drain` waits. It owns the runner (closed by :meth:`close`)."""

    def __init__(self, seats: Mapping[str, Seat], runner: SeatRunner, ask_context: AskContext | None) -> None:
        self.seats: dict[str, Seat] = dict(seats)
        self.runner = runner
        self.ask_context = ask_context
        self.pending: list[Pending] = []  # simulated clock: replies waiting for pump() (league.jobs.seal)
        self.inflight: list[Future[SeatReply]] = []  # live asks until sealed; close() waits for them
        self.inflight_by_seat: dict[tuple[str, str], Future[SeatReply]] = {}  # (session, seat) -> latest live ask
        self.seal_failures: list[str] = []  # live replies whose line could not be written (`league run` exits 1)
        self.shutdown: Shutdown | None = None  # set where a stop can be requested (daemon, `league run`)
        self.resumed = False  # asks left in flight by a dead process resumed (league.jobs.resume: once)

    def drain(self, timeout: float | None = None) -> int:
        """Wait for live asks still running, so every reply is sealed before the books close.

        Unbounded by default (each seat has its own timeout); once a stop was requested (SIGTERM),
        at most the rest of its grace period. Returns how many asks were still running."""
        running = [f for f in self.inflight if not f.done()]
        if running:
            log.info("league.draining", asks=len(running))
        end = None if timeout is None else time.monotonic() + timeout
        while running:
            left = self._drain_left(end)
            if left is not None and left <= 0:
                seats = sorted(seat for (_, seat), f in self.inflight_by_seat.items() if not f.done())
                log.warning("league.drain_gave_up", asks_left=len(running), seats=seats)
                break
            wait(running, timeout=0.25 if left is None else min(0.25, left))
            running = [f for f in running if not f.done()]
        count = len([f for f in self.inflight if not f.done()])
        self.inflight = [f for f in self.inflight if not f.done()]
        return count

    def _drain_left(self, end: float | None) -> float | None:
        lefts = [end - time.monotonic()] if end is not None else []
        grace = self.shutdown.remaining() if self.shutdown is not None else None
        if grace is not None:
            lefts.append(grace)
        return min(lefts) if lefts else None

    def close(self) -> None:
        """Wait for the asks in flight, then close the runner (a remote one's broker links)."""
        self.drain()
        try:
            self.runner.close()
        except Exception as exc:  # noqa: BLE001 - the books are closed regardless
            log.warning("runner.close_failed", error=str(exc))


class Reading(Protocol):
    """What a stage that only reads takes: the council book's index, the config, the calendar and the prices
    (a league's :class:`SeasonView`, or a test's stand-in with those four). It satisfies the counting rule's
    :class:`league.counting.Sealed` too."""

    @property
    def index(self) -> BookIndex: ...

    @property
    def config(self) -> Config: ...

    @property
    def calendar(self) -> Calendar: ...

    @property
    def prices(self) -> PriceSource: ...


class SeasonView:
    """A league seen read-only (:class:`Reading`): the council book's index (the window the books keep now),
    the config, the calendar, the prices and the crowd. The same objects as the league's, not copies: the
    counting rule's memo knows a config and a calendar by identity, and the demo may swap a source later."""

    def __init__(self, books: CouncilBooks, config: Config, market: MarketData) -> None:
        self._books = books
        self._config = config
        self._market = market

    @property
    def index(self) -> BookIndex:
        return self._books.index

    @property
    def config(self) -> Config:
        return self._config

    @property
    def calendar(self) -> Calendar:
        return self._market.calendar

    @property
    def prices(self) -> PriceSource:
        return self._market.prices

    @property
    def crowd(self) -> CrowdProvider | None:
        return self._market.crowd


class League:
    """One council league opened for work: its config, clock and stages, and three collaborators with one
    job each: :attr:`books` (the single writer of the council book and the ask chain, and their indexes),
    :attr:`market` (calendar, prices, crowd) and :attr:`asking` (the seats, the runner, the asks in flight).
    A stage reaches what it uses through them: sealing is ``lg.books.seal``, a price ``lg.market.prices``;
    the stages that only read take :attr:`view`."""

    def __init__(self, config: Config, clock: Clock, *, prices: PriceSource, seats: Mapping[str, Seat],
                 runner: SeatRunner, calendar: Calendar, store: Store | None = None,
                 crowd: CrowdProvider | None = None, stages: Stages = BARE,
                 ask_context: AskContext | None = None) -> None:
        self.config = config
        self.clock = clock
        self.data_dir = config.data_dir
        self.stages = stages
        self.market = MarketData(calendar, prices, crowd)
        self.asking = Asking(seats, runner, ask_context)
        self.books = CouncilBooks(config, clock, store)
        self.view = SeasonView(self.books, config, self.market)
        self._arms: ArmsBooks | None = None

    @property
    def arms(self) -> ArmsBooks:
        """The arms' books (league.arms.book), opened at first use: a league without arms never makes them."""
        if self._arms is None:
            self._arms = ArmsBooks(self.books.dir, self.clock)
        return self._arms

    @property
    def simulated(self) -> bool:
        return isinstance(self.clock, SimulatedClock)

    def close(self) -> None:
        """Wait for the asks in flight, close the runner, then the books (and the database index)."""
        try:
            self.asking.close()
        finally:
            try:
                if self._arms is not None:
                    self._arms.close()
            finally:
                self.books.close()

    def __enter__(self) -> League:
        return self

    def __exit__(self, *exc: object) -> None:
        self.close()
