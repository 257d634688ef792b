"""The eval book: every run's plan, every reply's hashes and verdict, and its close, in order.

A book of its own (same chain formula as the council's, protocol.md §3), written through this thin wrapper
that serialises appends from the worker threads that receive replies. Results are computed from the book
alone, so the book is the only state of an evaluation.
"""

from __future__ import annotations

import threading
from collections.abc import Mapping
from pathlib import Path
from typing import Any

from league.book import Book, iter_lines
from league.clock import Clock

OPEN = "eval.open"
REPLY = "eval.reply"
CLOSE = "eval.close"
KINDS = (OPEN, REPLY, CLOSE)
BOOK_NAME = "eval-book.jsonl"


class EvalBook:
    """The single writer of one eval book, safe to call from several threads."""

    def __init__(self, path: Path, clock: Clock) -> None:
        self.path = Path(path)
        self._book = Book(self.path, clock)
        self._lock = threading.Lock()

    def append(self, kind: str, content: Mapping[str, Any]) -> int:
        """Seal one line; returns its number."""
        with self._lock:
            return self._book.append(kind, content).n

    def runs(self) -> int:
        return sum(1 for _ in run_lines(self.path, OPEN)) if self._book.lines else 0

    @property
    def lines(self) -> int:
        return self._book.lines

    def close(self) -> None:
        self._book.close()

    def __enter__(self) -> EvalBook:
        return self

    def __exit__(self, *exc: object) -> None:
        self.close()


def run_lines(path: Path, *kinds: str, run_id: str | None = None) -> list[dict[str, Any]]:
    """The content (with its line number ``n``) of every line of the given kinds, optionally of one run."""
    out = []
    for line in iter_lines(path):
        if line.kind in kinds and (run_id is None or line.content.get("run_id") == run_id):
            out.append({**line.content, "n": line.n})
    return out
