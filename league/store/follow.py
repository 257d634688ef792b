"""Index a league's books into its database from another process, as they grow.

The database is an index of the books, rebuildable from them (docs/store.md); :func:`index_book` brings it up
to date incrementally, reading and verifying only the lines after the last one indexed. :class:`IndexFollower`
calls it for the council book and the ask chain whenever asked to: the demo's parent process does so after
each session of its forked season (whose League writes no index rows: ``CouncilBooks.index_elsewhere``), so the
season's thread, the demo's critical path, spends nothing on the index while the idle parent does it on the
other core. The writer never waits for it: a line it has not indexed yet is one the next open would index.
"""

from __future__ import annotations

from pathlib import Path

import structlog

from league.errors import LeagueError
from league.store.interface import Store
from league.store.rebuild import index_book

log = structlog.get_logger(__name__)
#: The books a league folder holds, by their names in the index (league.jobs.context).
BOOKS = (("council-book", "council-book.jsonl"), ("asks", "asks.jsonl"))


class IndexFollower:
    """Brings ``store``'s index of the books under ``books_dir`` up to the end of each file, on request."""

    def __init__(self, store: Store | None, books_dir: Path) -> None:
        self.store = store
        self.books_dir = books_dir
        self.failed = store is None  # no database to index into: nothing to do

    def step(self) -> int:
        """Index what the books gained since the last step; returns how many lines. A failure is logged
        once and ends the following (the next open of the league indexes what is missing)."""
        if self.failed or self.store is None:
            return 0
        try:
            return sum(index_book(self.store, self.books_dir / file, name, growing=True) for name, file in BOOKS
                       if (self.books_dir / file).exists())
        except (LeagueError, OSError) as exc:
            self.failed = True
            log.warning("store.follow_failed", error=str(exc), fix="the next open of the league indexes the rest")
            return 0

    def close(self) -> None:
        if self.store is not None:
            self.store.close()
