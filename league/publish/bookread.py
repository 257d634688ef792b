"""One verified read of a book per publish run, shared by every producer that reads it.

The producers of the open-data folder are independent functions of the data folder (each can run
alone: ``league stats``, ``league eval points``, the tests), and each used to read and chain-check
the whole council book itself: the CSV writer, the crowd comparison, both portfolio steps and the
point-forecast track — five verified reads of the same bytes per publish, the largest part of a
season's publish time. Inside :func:`shared_reads` (the publisher and ``league stats`` open one), the
first reader's verified lines are kept and the others get them from here; outside it, each call
reads the book as before. The four readers after the statistics (points, crowd, both portfolio
steps) share one read; the CSV writer before them builds its own index as before (keeping the lines
beside that index would only raise the publish step's memory peak, measured: +85 MiB at 126
sessions), and the publisher lets any kept read go before the statistics: two reads instead of five.

A kept read is reused only while the file is unchanged (inode, size and modification time): a book
appended to during a publish (a live daemon sealing meanwhile) is read again, so every producer
still sees the book as it was when it asked, exactly as before. Readers get the same ``BookLine``
objects and must not modify their content (none does: they build their own rows from it).
"""

from __future__ import annotations

import os
from collections.abc import Iterator
from contextlib import contextmanager
from contextvars import ContextVar
from dataclasses import dataclass
from pathlib import Path

from league.book import BookLine, iter_lines
from league.book.index import BookIndex


@dataclass
class _Read:
    """A book's verified lines at one file state."""

    state: tuple[int, int, int]
    lines: list[BookLine]


_READS: ContextVar[dict[str, _Read] | None] = ContextVar("league_publish_book_reads", default=None)


@contextmanager
def shared_reads() -> Iterator[None]:
    """Within this block, each book is read and verified once (per file state), then shared."""
    token = _READS.set({})
    try:
        yield
    finally:
        _READS.reset(token)


def forget_reads() -> None:
    """Let the kept reads go (the next reader reads again): the publisher calls it before the statistics,
    whose frames of the whole table would otherwise sit in memory beside a whole parsed book."""
    reads = _READS.get()
    if reads is not None:
        reads.clear()


def _kept(path: Path) -> _Read | None:
    """The kept read of ``path`` for its current state (reading it now if needed); None outside a block."""
    reads = _READS.get()
    if reads is None:
        return None
    st = os.stat(path)
    state = (st.st_ino, st.st_size, st.st_mtime_ns)
    key = os.path.abspath(path)
    kept = reads.get(key)
    if kept is None or kept.state != state:
        kept = reads[key] = _Read(state, list(iter_lines(path)))
    return kept


def book_lines(path: Path) -> list[BookLine] | Iterator[BookLine]:
    """Every line of the book, verified (raises ``ChainBroken`` at the first bad one, as ``iter_lines``)."""
    kept = _kept(path)
    return iter_lines(path) if kept is None else kept.lines


def book_index(path: Path) -> BookIndex:
    """The book's index by kind and session (as ``BookIndex.of_book``), built over the kept lines. It is
    not kept itself: its per-line dictionaries would sit beside the lines for the rest of the run."""
    kept = _kept(path)
    if kept is None:
        return BookIndex.of_book(path)
    index = BookIndex()
    for line in kept.lines:
        index.add(line)
    return index
