"""The league context: config, clock, the two books, calendar, prices, seats and store together.

Everything a job needs is reached from one :class:`League`. Appends to the council book go through
:meth:`League.append`, which serialises concurrent sealers (answers arrive on several threads),
keeps an in-memory index of what is sealed, and forwards each line to the database index.
"""

from __future__ import annotations

import hashlib
import json
import threading
import time
from collections.abc import Mapping
from datetime import datetime
from pathlib import Path
from typing import Any

import structlog

from agents.base import Seat
from league.asks import ASK_FORMAT_VERSION, AskChain
from league.book import Book, BookLine
from league.book.index import BookIndex
from league.clock import Clock, SimulatedClock, SystemClock
from league.config import Config
from league.errors import ConfigError
from league.shutdown import Shutdown

log = structlog.get_logger(__name__)


class League:
    """One council league opened for work (the single writer of its books)."""

    def __init__(self, config: Config, clock: Clock, *, prices: Any = None, seats: Mapping[str, Seat] | None = None,
                 store: Any = None, calendar: Any = None) -> None:
        self.config = config
        self.clock = clock
        self.data_dir = config.data_dir
        _reserve_seat_uids(config)
        self.books_dir.mkdir(parents=True, exist_ok=True)
        self._lock = threading.RLock()
        self.book = Book(self.books_dir / "council-book.jsonl", clock)
        try:
            self.asks = AskChain(self.books_dir / "asks.jsonl", clock, config.roster.counting_rule)
        except BaseException:
            self.book.close()
            raise
        self.index = BookIndex.of_book(self.book.path)
        self.prices = prices
        self.calendar = calendar
        self.crowd: Any = None  # a league.crowd provider, when the league records prediction markets
        self.seats: dict[str, Seat] = dict(seats or {})
        self.store = store
        self.pending: list[Any] = []
        self.inflight: list[Any] = []  # live asks still running (futures); close() waits for them
        self.inflight_by_seat: dict[tuple[str, str], Any] = {}  # (session, seat) -> its latest live ask
        self.seal_failures: list[str] = []  # live replies whose line could not be written (`league run` exits 1)
        self.shutdown: Shutdown | None = None  # set where a stop can be requested (daemon, `league run`)
        # Optional stages wired by the integration layer: name -> fn(league, session)
        # ("stamp", "portfolio", "publish", "stamp_upgrade", "ask_context").
        self.hooks: dict[str, Any] = {}
        if self.book.lines == 0:
            self.append("opening", opening_content(config))

    @property
    def books_dir(self) -> Path:
        return self.data_dir / "books"

    @property
    def simulated(self) -> bool:
        return isinstance(self.clock, SimulatedClock)

    def append(self, kind: str, content: Mapping[str, Any], *, at: datetime | None = None) -> BookLine:
        with self._lock:
            line = self.book.append(kind, content, at=at)
            self.index.add(line)
        if self.store is not None:
            try:
                self.store.index_lines("council-book", [line])
            except Exception as exc:  # the index is rebuildable; never lose a seal over it
                log.warning("store.index_failed", n=line.n, kind=kind, error=str(exc))
        return line

    def index_asks(self) -> None:
        """Bring the database index of asks.jsonl up to date (incremental; the book is the truth)."""
        if self.store is None:
            return
        from league.store import index_book

        try:
            index_book(self.store, self.asks.path, "asks")
        except Exception as exc:  # noqa: BLE001 - the index is rebuildable with `league rebuild`
            log.warning("store.asks_index_failed", error=str(exc))

    def drain(self, timeout: float | None = None) -> int:
        """Wait for live asks still running, so every reply is sealed before the books close.

        Unbounded by default (each seat has its own timeout); once a stop was requested (SIGTERM),
        at most the rest of its grace period. Returns how many asks were still running."""
        from concurrent.futures import wait

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
        self.drain()
        with self._lock:  # an abandoned ask sealing right now finishes its line first; later ones find it closed
            self.asks.close()
            self.book.close()
        if self.store is not None and hasattr(self.store, "close"):
            self.store.close()

    def __enter__(self) -> League:
        return self

    def __exit__(self, *exc: object) -> None:
        self.close()


def _reserve_seat_uids(config: Config) -> None:
    """Fix each seat's sandbox uid from the whole roster, so every league process agrees (docs/sandbox.md)."""
    from sandbox.identity import reserve_seat_uids
    from sandbox.interface import SandboxError

    try:
        reserve_seat_uids(s.name for s in config.roster.seat)
    except SandboxError as exc:
        raise ConfigError(exc.message, fix=exc.fix) from None


def config_digest(config: Config) -> str:
    body = {"markets": config.markets.model_dump(mode="json"), "methodology": config.settings.methodology.as_json()}
    return hashlib.sha256(json.dumps(body, sort_keys=True).encode()).hexdigest()


def opening_content(config: Config) -> dict[str, Any]:
    """Line 1 of a council book: what league this is and under which rules it starts."""
    return {
        "league": "council",
        "ask_format": ASK_FORMAT_VERSION,
        "methodology": config.settings.methodology.as_json(),
        "markets": [m.model_dump(mode="json") for m in config.markets.markets],
        "config_sha256": config_digest(config),
    }


def open_league(config: Config, clock: Clock | None = None, **kwargs: Any) -> League:
    return League(config, clock or SystemClock(), **kwargs)


class BookView:
    """A read-only view of a league's books for publishing and exporting (takes no writer lock)."""

    def __init__(self, config: Config, calendar: Any = None) -> None:
        self.config = config
        self.data_dir = config.data_dir
        self.calendar = calendar
        self.index = BookIndex.of_book(self.data_dir / "books" / "council-book.jsonl")

    @classmethod
    def open(cls, data_dir: Path) -> BookView:
        """The view of DATA, with its config from the sibling ``config/`` folder that `league init` made."""
        from league.calendar import default_calendar
        from league.config import load_config

        return cls(load_config(Path(data_dir).parent / "config"), default_calendar())
