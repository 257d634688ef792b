"""The contest's own book: every ask, reply, bet, forfeit, void, seal and resolution, in order.

The contest appends to a separate book file (same chain formula as the council's, docs/protocol.md §3)
through this thin wrapper, which serialises appends from the agents' threads (a bet and a
forfeit of different agents may arrive at once). What the contest needs to know about its past
(markets already seen or swept, rounds of the week, an agent's own results) is read back from the
book, so the book is the only state.
"""

from __future__ import annotations

import threading
from collections.abc import Iterator, Mapping
from datetime import datetime
from pathlib import Path
from typing import Any

from league.book import Book, BookLine, iter_lines
from league.clock import Clock

SWEEP_OPEN = "contest.sweep.open"
SWEEP_REPLY = "contest.sweep.reply"
SWEEP_SEALED = "contest.sweep.sealed"
SEEN = "contest.seen"
REFUSED = "contest.refused"
ROUND_OPEN = "contest.round.open"
BET = "contest.bet"
FORFEIT = "contest.forfeit"
ROUND_CLOSED = "contest.round.closed"
ROUND_VOID = "contest.round.void"
RESOLUTION = "contest.resolution"
KINDS = (SWEEP_OPEN, SWEEP_REPLY, SWEEP_SEALED, SEEN, REFUSED, ROUND_OPEN, BET, FORFEIT, ROUND_CLOSED,
         ROUND_VOID, RESOLUTION)


class Ledger:
    """The single writer of the contest book, safe to call from several threads."""

    def __init__(self, path: Path, clock: Clock) -> None:
        self.path = Path(path)
        self.clock = clock
        self._book = Book(self.path, clock)
        self._lock = threading.Lock()

    def append(self, kind: str, content: Mapping[str, Any], at: datetime | None = None) -> BookLine:
        with self._lock:
            return self._book.append(kind, content, at=at)

    def lines(self, *kinds: str) -> Iterator[BookLine]:
        """Every line of the given kinds (all when none named), validated, in book order."""
        with self._lock:
            count = self._book.lines
        if count == 0:
            return
        for i, line in enumerate(iter_lines(self.path), 1):
            if i > count:
                break
            if not kinds or line.kind in kinds:
                yield line

    def contents(self, *kinds: str) -> list[dict[str, Any]]:
        return [line.content for line in self.lines(*kinds)]

    def close(self) -> None:
        self._book.close()

    def __enter__(self) -> Ledger:
        return self

    def __exit__(self, *exc: object) -> None:
        self.close()
