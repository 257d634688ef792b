"""Opening a book's index at startup: from the sealed checkpoint when it still matches, else from scratch.

With a database (docs/book.md, "Startup checkpoint and memory window"):

1. a checkpoint that matches the file (:func:`league.book.checkpoint.mismatch`) means only the lines
   after it are re-hashed (chained from its link); a line tampered after it stops the open;
2. the database index is brought up to the book (lines it lacks are read from the book, chained from
   the index's own last link), then the window is loaded from it;
3. a checkpoint that does not match is reported (``book.checkpoint_mismatch``, an error) and the book
   is verified in full, as on a first open; a full verification ends with a new checkpoint.

Without a database, the book is verified in full once and only the window stays in memory; older
lines are read from the book by a streaming read when a job asks.
"""

from __future__ import annotations

from collections.abc import Callable, Iterable, Iterator
from dataclasses import dataclass
from datetime import datetime
from pathlib import Path
from typing import Protocol

import structlog

from league.book.chain import BookLine
from league.book.checkpoint import Checkpoint, Scan, _raw_lines, full_scan, lines_between, mismatch, verify_after
from league.book.index import Body, BookIndex, BookStream, body_of
from league.errors import ChainBroken

log = structlog.get_logger(__name__)
INDEX_BATCH = 2000


class LineStore(Protocol):
    """What the startup needs of the database (``league.store.SqlStore`` offers it)."""

    def last_indexed(self, book: str) -> tuple[int, str]: ...
    def index_lines(self, book: str, lines: Iterable[BookLine]) -> int: ...
    def book_lines(self, book: str, *, kind: str | None = None, session: str | None = None,
                   run_ids: Iterable[str] | None = None, seat: str | None = None, n: int | None = None
                   ) -> list[Body]: ...
    def book_window(self, book: str, *, cutoff: str, sticky: Iterable[str], upto: int) -> Iterator[Body]: ...
    def book_sessions(self, book: str, kind: str, since: str | None = None) -> list[str]: ...
    def line_link(self, book: str, n: int) -> str | None: ...
    def book_numbers(self, book: str) -> tuple[int, int]: ...
    def book_missing(self, book: str) -> list[int]: ...
    def checkpoint(self, book: str) -> Checkpoint | None: ...
    def save_checkpoint(self, cp: Checkpoint) -> None: ...


def is_line_store(store: object) -> bool:
    names = ("book_lines", "book_window", "book_sessions", "line_link", "checkpoint", "save_checkpoint",
             "book_numbers", "book_missing")
    return all(callable(getattr(store, name, None)) for name in names)


@dataclass
class StoreLines:
    """The database's ``book_lines`` table as the place of a windowed index's older lines."""

    store: LineStore
    book: str

    def find(self, *, kind: str | None = None, session: str | None = None, run_ids: Iterable[str] | None = None,
             seat: str | None = None, n: int | None = None) -> list[Body]:
        return self.store.book_lines(self.book, kind=kind, session=session, run_ids=run_ids, seat=seat, n=n)

    def sessions(self, kind: str, since: str | None = None) -> list[str]:
        return self.store.book_sessions(self.book, kind, since)


@dataclass
class Opened:
    """How the index was opened: ``checkpoint`` (lines after it re-hashed) or ``full``, and why."""

    mode: str
    rehashed: int
    lines: int
    note: str = ""
    checkpoint: Checkpoint | None = None
    indexed: bool = True


def open_index(path: Path, *, cutoff: str | None, store: LineStore | None, book: str, now: datetime
               ) -> tuple[BookIndex, Opened]:
    """The windowed index of the book at ``path`` (``cutoff`` None: keep everything in memory)."""
    if store is None:
        index, scan, _ = _full(path, cutoff, None, book)
        return index, Opened("full", scan.lines, scan.lines, "no database: the book was verified in full",
                             indexed=False)
    cp = store.checkpoint(book)
    why = "no checkpoint yet (first open)" if cp is None else mismatch(path, cp)
    if cp is not None and why is None:
        return _from_checkpoint(path, cp, cutoff, store, book)
    if cp is not None:
        log.error("book.checkpoint_mismatch", book=str(path), reason=why, checkpoint_lines=cp.lines,
                  fix="the book was verified in full instead; if it was not replaced on purpose, "
                      "compare it with a backup and the published stamped lists")
    index, scan, indexed = _full(path, cutoff, store, book)
    fresh = _save(store, book, scan, now, "open (full verification)")
    return index, Opened("full", scan.lines, scan.lines, f"full verification: {why}", fresh, indexed)


def _from_checkpoint(path: Path, cp: Checkpoint, cutoff: str | None, store: LineStore, book: str
                     ) -> tuple[BookIndex, Opened]:
    tail = list(verify_after(path, cp))  # a tampered line after the checkpoint raises ChainBroken here
    total = cp.lines + len(tail)
    if not _store_follows(store, book, cp, total):
        log.error("book.index_disagrees", book=str(path), fix="run `league rebuild` to re-derive the database index")
        index, scan, _ = _full(path, cutoff, None, book)
        return index, Opened("full", scan.lines, scan.lines, "the database index disagrees with the book", cp,
                             indexed=False)
    _catch_up(path, store, book, cp, tail)
    _fill_gaps(path, store, book)
    if cutoff is None:
        bodies: Iterable[Body] = store.book_lines(book)
    else:
        bodies = store.book_window(book, cutoff=cutoff, sticky=BookIndex().sticky, upto=total)
    index = BookIndex.of_bodies(bodies, cutoff=cutoff, older=StoreLines(store, book))
    index.partial = len(index.lines) < total
    log.info("book.opened_from_checkpoint", book=str(path), checkpoint_lines=cp.lines, rehashed=len(tail),
             in_memory=len(index.lines))
    return index, Opened("checkpoint", len(tail), total, f"checkpoint at line {cp.lines}", cp)


def _store_follows(store: LineStore, book: str, cp: Checkpoint, total: int) -> bool:
    """The database index is a prefix of this book: not longer, and its line N has link L."""
    last_n, _ = store.last_indexed(book)
    if last_n > total:
        return False
    if last_n >= cp.lines:
        return store.line_link(book, cp.lines) == cp.last_link
    return True


def _catch_up(path: Path, store: LineStore, book: str, cp: Checkpoint, tail: list[BookLine]) -> None:
    """Index what the database lacks: lines before the checkpoint from the book (chained from the
    index's last link), then the re-hashed lines after it."""
    last_n, last_link = store.last_indexed(book)
    if last_n < cp.lines:
        _index_batched(store, book, lines_between(path, last_n + 1, cp.lines, last_link))
        last_n = cp.lines
    _index_batched(store, book, (ln for ln in tail if ln.n > last_n))


def _fill_gaps(path: Path, store: LineStore, book: str) -> int:
    """Index the lines a failed write left out below the highest indexed one (the league seals first and
    indexes best effort): the window and older lookups read the database, so it must hold every line.
    Each missing line is read from the book and checked on its own (seal and link); returns how many."""
    count, top = store.book_numbers(book)
    if count == top:
        return 0
    missing = set(store.book_missing(book))
    found = []
    for i, raw in _raw_lines(path, upto=top):
        if i in missing:
            line = BookLine.parse(raw)
            if line.n != i:
                raise ChainBroken(f"line {i}: it says n = {line.n}", line=i, reason="wrong line number")
            found.append(line)
    for line in found:  # one by one: index_lines expects lines after the last indexed, gaps are not
        store.index_lines(book, [line])
    log.warning("store.index_gaps_filled", book=book, lines=len(found))
    return len(found)


def _index_batched(store: LineStore, book: str, lines: Iterable[BookLine]) -> int:
    batch: list[BookLine] = []
    count = 0
    for line in lines:
        batch.append(line)
        if len(batch) >= INDEX_BATCH:
            count += store.index_lines(book, batch)
            batch = []
    if batch:
        count += store.index_lines(book, batch)
    return count


def _full(path: Path, cutoff: str | None, store: LineStore | None, book: str) -> tuple[BookIndex, Scan, bool]:
    """Verify every line; keep the window in memory; index into the database what it lacks."""
    older = StoreLines(store, book) if store is not None else BookStream(path)
    index = BookIndex(cutoff=cutoff, older=older if cutoff is not None else None)
    last_n, last_link = store.last_indexed(book) if store is not None else (0, "")
    pending: list[BookLine] = []
    agrees = [True]

    def take(line: BookLine) -> None:
        if index.keeps(body_of(line)):
            index.add(line)
        else:
            index.skip(line.n)
        if store is None or not agrees[0]:
            return
        if line.n == last_n and line.link != last_link:
            agrees[0] = False  # the index is of another book: do not add to it, do not read from it
        elif line.n > last_n:
            pending.append(line)
            if len(pending) >= INDEX_BATCH:
                _flush(store, book, pending)

    scan = full_scan(path, on_line=take)
    if store is not None and last_n > scan.lines:
        agrees[0] = False
    if store is not None and agrees[0]:
        _flush(store, book, pending)
        _fill_gaps(path, store, book)
    elif store is not None:
        log.error("book.index_disagrees", book=str(path), fix="run `league rebuild` to re-derive the database index")
        index.older = BookStream(path) if cutoff is not None else None
    return index, scan, store is not None and agrees[0]


def _flush(store: LineStore, book: str, pending: list[BookLine]) -> None:
    if pending:
        store.index_lines(book, pending)
        pending.clear()


def _save(store: LineStore, book: str, scan: Scan, now: datetime, by: str) -> Checkpoint | None:
    if scan.lines == 0:
        return None
    cp = Checkpoint(book, scan.lines, scan.offset, scan.prefix_sha256, scan.last_link, now, by)
    store.save_checkpoint(cp)
    log.info("book.checkpoint_saved", book=book, lines=cp.lines, by=by)
    return cp


def nightly_check(path: Path, *, upto: int, link: str, store: LineStore, book: str, now: Callable[[], datetime],
                  by: str = "nightly full verification") -> Checkpoint:
    """Verify lines 1..``upto`` in full (the first N against the current checkpoint's digest, line ``upto``
    against ``link``), then move the checkpoint there. Any failure raises and leaves it where it was."""
    current = store.checkpoint(book)
    expect = current if current is not None and current.lines <= upto else None
    scan = full_scan(path, upto=upto, expect=expect)
    if scan.last_link != link:
        raise ChainBroken(f"line {upto}: its link is not the one the writer sealed", line=upto,
                          reason="last link differs from the writer's")
    cp = _save(store, book, scan, now(), by)
    assert cp is not None or upto == 0
    return cp if cp is not None else Checkpoint(book, 0, 0, scan.prefix_sha256, "", now(), by)


def check_book(path: Path, *, store: LineStore | None, book: str, now: datetime, move: bool,
               by: str = "league check-book") -> tuple[Scan, Checkpoint | None]:
    """Verify every complete line of the book from scratch (the first N against the checkpoint's
    digest, when there is one); with ``move``, make the head the new checkpoint. Raises on failure,
    leaving the checkpoint where it was."""
    current = store.checkpoint(book) if store is not None else None
    scan = full_scan(path, expect=current)
    if store is None or not move:
        return scan, current
    return scan, _save(store, book, scan, now, by)
