"""The one writer of a track's book, safe to call from the threads that receive its seats' replies.

The contest's book and each evaluation's book are books of their own (same chain formula as the council's,
docs/protocol.md §3), each written by one process (``Book`` holds the OS lock) through one
:class:`TrackBook`, which serialises appends: two replies may arrive at once. A track that reads its past
back (the contest's index by kind) does so in the two hooks, under the same lock as every append, so
nothing is appended behind its back.
"""

from __future__ import annotations

import threading
from collections.abc import Mapping, Sequence
from datetime import datetime
from pathlib import Path
from typing import Any, Self

from league.book import Book, BookLine
from league.clock import Clock


class TrackBook:
    """The single writer of one track's book."""

    def __init__(self, path: Path, clock: Clock) -> None:
        self.path = Path(path)
        self.clock = clock
        self._book = Book(self.path, clock)
        self._lock = threading.Lock()
        try:
            self.opened(self._book.lines)
        except BaseException:
            self._book.close()  # a book that cannot be read must not stay locked by this process
            raise

    def opened(self, count: int) -> None:
        """Called once, when the book is open and locked, with how many lines it holds."""

    def sealed(self, line: BookLine) -> None:
        """Called with each line as it is sealed, under the writer's lock."""

    def append(self, kind: str, content: Mapping[str, Any], at: datetime | None = None) -> BookLine:
        """Seal one line (at the clock's time, or ``at``)."""
        with self._lock:
            line = self._book.append(kind, content, at=at)
            self.sealed(line)
            return line

    def append_all(self, items: Sequence[tuple[str, Mapping[str, object]]],
                   at: datetime | None = None) -> list[BookLine]:
        """Seal several lines in order with one fsync (league.book.Book.append_all: computed lines, not a
        reply sealed on arrival)."""
        with self._lock:
            lines = self._book.append_all(items, at=at)
            for line in lines:
                self.sealed(line)
            return lines

    @property
    def size(self) -> int:
        """How many lines the book holds."""
        return self._book.lines

    def close(self) -> None:
        self._book.close()

    def __enter__(self) -> Self:
        return self

    def __exit__(self, *exc: object) -> None:
        self.close()
