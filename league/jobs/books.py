"""The council's books: the single writer of the council book and the ask chain, and their indexes.

:class:`CouncilBooks` seals lines through :meth:`CouncilBooks.seal`, which serialises concurrent sealers
(answers arrive on several threads), keeps the in-memory index of what is sealed (the window of recent
sessions), and forwards each line to the database index (best effort: the database is an index,
rebuildable from the book). Opening it creates the books on first use, with the opening line.
"""

from __future__ import annotations

import hashlib
import json
import sys
import threading
from collections.abc import Callable, Iterator, Sequence
from contextlib import contextmanager
from datetime import datetime
from pathlib import Path
from typing import Any, cast

import structlog

from league.asks import ASK_FORMAT_VERSION, AskChain
from league.book import Book, BookLine
from league.book.index import Body, BookIndex, body_of
from league.book.lines import Line, OpeningLine
from league.book.startup import LineStore, Opened, is_line_store, open_index
from league.calendar import ET
from league.clock import Clock
from league.config import Config
from league.errors import ConfigError
from league.jobs.blind import blind_content
from league.jobs.window import cutoff
from league.store import index_book
from league.store.interface import Store, StoreError
from sandbox.identity import reserve_seat_uids
from sandbox.interface import SandboxError

log = structlog.get_logger(__name__)
#: The council book's name in the database index and its checkpoints.
COUNCIL_BOOK = "council-book"


class CouncilBooks:
    """The council book and the ask chain of one league, opened for writing, with their indexes: the
    in-memory window (:attr:`index`) and the database (:attr:`store`, optional)."""

    def __init__(self, config: Config, clock: Clock, store: Store | None = None) -> None:
        self.config = config
        self.clock = clock
        self.store = store
        self._lock = threading.RLock()
        self._index_lock = threading.Lock()  # database index writes, in book order (taken before _lock)
        self._unindexed: list[BookLine] = []  # sealed, not yet in the database index (see indexing_batch)
        self._batching = 0
        self._indexed_elsewhere = False  # another process writes the database index (see index_elsewhere)
        self.book, self.asks, opened = open_books(config, clock, counted=self._checkpointed())
        try:
            self.index, self.opened = self._open_index()
        except BaseException:
            self.asks.close()
            self.book.close()
            raise
        if opened is not None and not self.opened.indexed and self.store is not None:
            self._unindexed.append(opened)
            self.flush_index()

    @contextmanager
    def frozen(self) -> Iterator[None]:
        """No line is sealed while this block runs (the heads read inside it are the heads as sealed)."""
        with self._lock:
            yield

    def _line_store(self) -> LineStore | None:
        """The database as the book's line store (league.book.startup), None without one that can be."""
        return cast(LineStore, self.store) if self.store is not None and is_line_store(self.store) else None

    def _checkpointed(self) -> tuple[int, int] | None:
        """``(offset, lines)`` of the council book's sealed checkpoint, for the writer's line count at open
        (league.book.chain.Book ``counted``); None without a database or when it cannot be read (the writer
        then counts the whole file, as before checkpoints)."""
        store = self._line_store()
        try:
            cp = None if store is None else store.checkpoint(COUNCIL_BOOK)
        except StoreError:
            return None
        return None if cp is None else (cp.offset, cp.lines)

    def window_cutoff(self) -> str:
        """The first session the in-memory index keeps today (league.jobs.window)."""
        return cutoff(self.config, self.clock.now().astimezone(ET).date())

    def _open_index(self) -> tuple[BookIndex, Opened]:
        """The council book's index: from the sealed checkpoint when it matches, else verified in full
        (league.book.startup); with a database, only the window stays in memory."""
        store = self._line_store()
        now, where = self.clock.now(), self.book.path
        try:
            return open_index(where, cutoff=self.window_cutoff(), store=store,
                              book=COUNCIL_BOOK, now=now)
        except StoreError as exc:  # the database is an index: the book alone opens the league
            log.warning("store.open_index_failed", error=exc.message)
            return open_index(where, cutoff=self.window_cutoff(), store=None, book=COUNCIL_BOOK, now=now)

    def refresh_window(self) -> int:
        """Move the in-memory window to today's cutoff (a long-running daemon); returns lines dropped."""
        with self._lock:  # sealers add under this lock; readers keep the object they hold (swapped, not mutated)
            self.index, dropped = self.index.trimmed(self.window_cutoff())
        return dropped

    @property
    def dir(self) -> Path:
        """The folder both books are in (``data/books``)."""
        return self.config.data_dir / "books"

    def seal(self, line: Line, *, at: datetime | None = None) -> BookLine:
        """Seal one typed line (validated when it was built) as the book's next line: on disk and in the
        in-memory index before this returns; in the database index (best effort) before this returns, or,
        inside :meth:`indexing_batch`, when the batch ends."""
        return self._sealed(lambda: [self.book.append(line.kind, line.content(), at=at)])[0]

    def seal_all(self, lines: Sequence[Line], *, at: datetime | None = None) -> list[BookLine]:
        """Seal several typed lines in order with one fsync (:meth:`Book.append_all`: all on disk before this
        returns, none if the disk refuses one); indexed as :meth:`seal` indexes one. For the lines a stage
        computes, never for a reply sealed on arrival."""
        return self._sealed(lambda: self.book.append_all([(line.kind, line.content()) for line in lines], at=at))

    def _sealed(self, write: Callable[[], list[BookLine]]) -> list[BookLine]:
        """Run ``write`` under the league's lock and index what it sealed: the in-memory index at once, the
        database index now or when the enclosing :meth:`indexing_batch` ends."""
        with self._lock:
            sealed = write()
            for one in sealed:
                self.index.add_body(compact(body_of(one)))
            if self.store is None or self._indexed_elsewhere:
                return sealed
            self._unindexed.extend(sealed)
            batching = self._batching > 0
        if not batching:
            self.flush_index()
        return sealed

    @contextmanager
    def indexing_batch(self) -> Iterator[None]:
        """Index the lines sealed inside this block in one database transaction when it ends, instead of
        one transaction per line (a score or portfolio stage seals dozens). The book stays the truth and
        the in-memory index has every line at once; the database index is complete again when the block
        ends, and lines a crash kept from it are indexed at the next open (league.book.startup)."""
        with self._lock:
            self._batching += 1
        try:
            yield
        finally:
            with self._lock:
                self._batching -= 1
            self.flush_index()

    def index_elsewhere(self) -> None:
        """From now on another process brings the database index of both books up to date by reading them
        (:func:`league.store.index_book`, as ``league rebuild`` does): the demo's parent, which idles while its
        forked season runs, so the season's own thread spends nothing on index rows. Only for a League whose
        jobs read no index row back while it runs: the in-memory window covers everything they read (the demo's
        seasons), and the job ledger lives in other tables. Lines the other process has not indexed when this
        one stops are indexed by the next open (league.book.startup), as after a crash."""
        self.flush_index()
        with self._lock:
            self._indexed_elsewhere = True

    def flush_index(self) -> int:
        """Write the sealed lines the database index lacks, in book order, in one transaction; returns how
        many were written. A failure is logged and the lines are left to the next open's catch-up (the
        database is an index, rebuildable from the book: a seal is never lost over it)."""
        if self.store is None:
            return 0
        with self._index_lock:  # one writer at a time, so batches reach the database in book order
            with self._lock:
                lines, self._unindexed = self._unindexed, []
            if not lines:
                return 0
            try:
                self.store.index_lines(COUNCIL_BOOK, lines)
            except Exception as exc:  # noqa: BLE001 - the index is rebuildable; never lose a seal over it
                log.warning("store.index_failed", first=lines[0].n, last=lines[-1].n, lines=len(lines),
                            error=str(exc))
                return 0
            return len(lines)

    def index_asks(self) -> None:
        """Bring the database index of asks.jsonl up to date (incremental; the book is the truth)."""
        if self.store is None or self._indexed_elsewhere:
            return
        try:
            index_book(self.store, self.asks.path, "asks")
        except Exception as exc:  # noqa: BLE001 - the index is rebuildable with `league rebuild`
            log.warning("store.asks_index_failed", error=str(exc))

    def close(self) -> None:
        """Close both books (a sealer running right now finishes its line first; later ones find them
        closed), write what the database index still lacks, and close the database."""
        with self._lock:
            self.asks.close()
            self.book.close()
        self.flush_index()
        if self.store is not None:
            self.store.close()


#: Strings up to this length are interned in the in-memory index: keys, statuses, actions, market codes.
SHORT_TEXT = 32


def compact(body: Body) -> Body:
    """The same body with every key and short string interned: the index keeps a season's lines in memory,
    and each parsed line otherwise carries its own copy of every key ("prob_up", "action", … per cell),
    ~40% of the index's memory in a demo season. Equal values, equal JSON; only duplicates are shared."""
    out = _compact(body)
    assert isinstance(out, dict)
    return out


def _compact(value: Any) -> Any:
    """One value compacted: plain dicts, lists and scalars (all a sealed body holds) in one loop without a
    call per scalar; anything else (a subclass) by :func:`_compact_any`, the general rule. Same result."""
    kind = type(value)
    if kind is dict:
        out = {}
        for k, v in value.items():
            t = type(v)
            if t is str:
                if len(v) <= SHORT_TEXT:
                    v = _intern(v)
            elif t not in _KEPT:
                v = _compact(v)
            out[_intern(k) if type(k) is str else (sys.intern(k) if isinstance(k, str) else k)] = v
        return out
    if kind is list:
        items = []
        for v in value:
            t = type(v)
            if t is str:
                if len(v) <= SHORT_TEXT:
                    v = _intern(v)
            elif t not in _KEPT:
                v = _compact(v)
            items.append(v)
        return items
    return _compact_any(value)


_intern = sys.intern
_KEPT = frozenset({int, float, bool, type(None)})


def _compact_any(value: object) -> Any:
    """The general rule (what :func:`_compact` gives for every value): keys and short strings interned."""
    if isinstance(value, dict):
        return {sys.intern(k) if isinstance(k, str) else k: _compact(v) for k, v in value.items()}
    if isinstance(value, list):
        return [_compact(v) for v in value]
    if isinstance(value, str) and len(value) <= SHORT_TEXT:
        return sys.intern(value)
    return value


def _reserve_seat_uids(config: Config) -> None:
    """Fix each seat's sandbox uid from the whole roster, so every league process agrees (docs/sandbox.md)."""
    try:
        reserve_seat_uids(s.name for s in config.roster.seat)
    except SandboxError as exc:
        raise ConfigError(exc.message, fix=exc.fix) from None


def config_digest(config: Config) -> str:
    body = {"markets": config.markets.model_dump(mode="json"), "methodology": config.settings.methodology.as_json()}
    return hashlib.sha256(json.dumps(body, sort_keys=True).encode()).hexdigest()


def opening_content(config: Config) -> dict[str, Any]:
    """Line 1 of a council book: what league this is and under which rules it starts. The climatology
    table written by ``league init`` is sealed here by its SHA-256, before any ask can see it."""
    content: dict[str, Any] = {
        "league": "council",
        "ask_format": ASK_FORMAT_VERSION,
        "methodology": config.settings.methodology.as_json(),
        "markets": [m.model_dump(mode="json") for m in config.markets.markets],
        "config_sha256": config_digest(config),
    }
    table = config.data_dir / "climatology.json"
    if table.is_file():
        content["climatology_sha256"] = hashlib.sha256(table.read_bytes()).hexdigest()
    return content


def open_books(config: Config, clock: Clock, *, counted: tuple[int, int] | None = None
               ) -> tuple[Book, AskChain, BookLine | None]:
    """Open (and on first use create) the council book and the ask chain; a new book is sealed with
    its opening line (returned, else ``None``). The seats' sandbox uids are fixed from the roster
    first (docs/sandbox.md). ``counted``: the council book's checkpointed prefix (:class:`Book`)."""
    _reserve_seat_uids(config)
    books = config.data_dir / "books"
    books.mkdir(parents=True, exist_ok=True)
    book = Book(books / "council-book.jsonl", clock, counted=counted)
    try:
        asks = AskChain(books / "asks.jsonl", clock, config.roster.counting_rule)
    except BaseException:
        book.close()
        raise
    opened = None
    if book.lines == 0:
        try:
            opened = book.append("opening", OpeningLine.from_content(opening_content(config)).content())
            if config.roster.blind:
                book.append("blind", blind_content(config))
        except BaseException:
            asks.close()
            book.close()
            raise
    return book, asks, opened


def seal_opening(config: Config, clock: Clock) -> None:
    """`league init`: create both books (the council book with its opening line) and close them."""
    book, asks, _ = open_books(config, clock)
    asks.close()
    book.close()
