"""The contest's own book: every ask, reply, bet, forfeit, void, seal and resolution, in order.

The contest appends to a separate book file (same chain formula as the council's, docs/protocol.md §3)
through the tracks' one book writer (league.seatcore.ledger), which serialises appends from the agents'
threads (a bet and a forfeit of different agents may arrive at once). What the contest needs to know about its past
(markets already seen or swept, rounds of the week, an agent's own results) is read back from the
book, so the book is the only state.

The wrapper keeps an in-memory index of the book, by kind, in book order (as the council's
``BookIndex`` does for the API): the file is read and validated once, when the ledger opens, and
every line appended afterwards is added as it is sealed. A job therefore reads only what it needs
and never re-validates the whole book; before the index, a 90-day season slowed down with every day
(docs/contest.md, Benchmark). The ledger is the one writer of its book (``Book`` holds the OS lock),
so nothing can be appended behind the index's back. The index hands out the sealed contents
themselves: callers read them and never mutate them.
"""

from __future__ import annotations

import heapq
from collections.abc import Iterator
from pathlib import Path
from typing import Any

from league.book import BookLine, iter_lines
from league.clock import Clock
from league.seatcore.ledger import TrackBook

SWEEP_OPEN = "contest.sweep.open"
SWEEP_REPLY = "contest.sweep.reply"
SWEEP_SEALED = "contest.sweep.sealed"
SWEEP_VOID = "contest.sweep.void"
SEEN = "contest.seen"
REFUSED = "contest.refused"
ROUND_OPEN = "contest.round.open"
BET = "contest.bet"
FORFEIT = "contest.forfeit"
ROUND_CLOSED = "contest.round.closed"
ROUND_VOID = "contest.round.void"
RESOLUTION = "contest.resolution"
KINDS = (SWEEP_OPEN, SWEEP_REPLY, SWEEP_SEALED, SWEEP_VOID, SEEN, REFUSED, ROUND_OPEN, BET, FORFEIT, ROUND_CLOSED,
         ROUND_VOID, RESOLUTION)


class Ledger(TrackBook):
    """The single writer of the contest book, safe to call from several threads, with its index."""

    def __init__(self, path: Path, clock: Clock) -> None:
        self._all: list[BookLine] = []
        self._by_kind: dict[str, list[BookLine]] = {}
        super().__init__(path, clock)

    def opened(self, count: int) -> None:
        """Read and validate the book once; from now on the index grows with each append."""
        if not count:
            return
        for i, line in enumerate(iter_lines(self.path), 1):
            if i > count:
                break
            self.sealed(line)

    def sealed(self, line: BookLine) -> None:
        self._all.append(line)
        self._by_kind.setdefault(line.kind, []).append(line)

    def lines(self, *kinds: str) -> Iterator[BookLine]:
        """Every line of the given kinds (all when none named), validated, in book order.

        A snapshot: lines appended while the caller iterates are not part of it.
        """
        with self._lock:
            if not kinds:
                snapshot = list(self._all)
            else:
                snapshot = list(heapq.merge(*(list(self._by_kind.get(k, ())) for k in dict.fromkeys(kinds)),
                                            key=lambda line: line.n))
        yield from snapshot

    def contents(self, *kinds: str) -> list[dict[str, Any]]:
        return [line.content for line in self.lines(*kinds)]

    def count(self, kind: str) -> int:
        """How many lines of ``kind`` the book holds (no list is built)."""
        with self._lock:
            return len(self._by_kind.get(kind, ()))
