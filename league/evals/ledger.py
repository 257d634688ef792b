"""The eval book: every run's plan, every reply's hashes and verdict, and its close, in order.

A book of its own (same chain formula as the council's, protocol.md §3), written through the tracks' one book
writer (league.seatcore.ledger), which serialises appends from the worker threads that receive replies. Results
are computed from the book alone, so the book is the only state of an evaluation.
"""

from __future__ import annotations

from pathlib import Path

from league.book import iter_lines
from league.jsonvalue import JsonObject
from league.seatcore.ledger import TrackBook

OPEN = "eval.open"
REPLY = "eval.reply"
CLOSE = "eval.close"
KINDS = (OPEN, REPLY, CLOSE)
BOOK_NAME = "eval-book.jsonl"


class EvalBook(TrackBook):
    """The single writer of one eval book, safe to call from several threads."""

    def runs(self) -> int:
        return sum(1 for _ in run_lines(self.path, OPEN)) if self.size else 0


def run_lines(path: Path, *kinds: str, run_id: str | None = None) -> list[JsonObject]:
    """The content (with its line number ``n``) of every line of the given kinds, optionally of one run."""
    out: list[JsonObject] = []
    for line in iter_lines(path):
        if line.kind in kinds and (run_id is None or line.content.get("run_id") == run_id):
            out.append({**line.content, "n": line.n})
    return out
