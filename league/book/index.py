"""What a book holds, indexed by kind and session: rebuilt from the book at open, updated on each append.

Jobs ask it what is already sealed before sealing anything (every job is idempotent by the book
itself); the publisher and the portfolio ask it for marks, runs and answers.
"""

from __future__ import annotations

from collections import defaultdict
from dataclasses import dataclass, field
from pathlib import Path
from typing import Any

from league.book.chain import BookLine, iter_lines


@dataclass
class BookIndex:
    """What is sealed, by kind and session; rebuilt from the book at open, updated on each append."""

    lines: dict[int, dict[str, Any]] = field(default_factory=dict)
    by_kind: dict[str, list[int]] = field(default_factory=lambda: defaultdict(list))
    by_session: dict[str, list[int]] = field(default_factory=lambda: defaultdict(list))

    def add(self, line: BookLine) -> None:
        body = {**line.content, "n": line.n, "seal": line.seal, "link": line.link}
        self.lines[line.n] = body
        self.by_kind[line.kind].append(line.n)
        session = body.get("session")
        if isinstance(session, str):
            self.by_session[session].append(line.n)

    @classmethod
    def of_book(cls, path: Path) -> BookIndex:
        """Index every line of a book (verified line by line as it is read)."""
        index = cls()
        for line in iter_lines(path):
            index.add(line)
        return index

    def of_kind(self, kind: str, session: str | None = None) -> list[dict[str, Any]]:
        ns = self.by_kind.get(kind, [])
        if session is not None:
            ns = [n for n in ns if self.lines[n].get("session") == session]
        return [self.lines[n] for n in ns]

    def runs(self, session: str) -> list[dict[str, Any]]:
        return self.of_kind("run", session)

    def answers(self, run_ids: set[str]) -> list[dict[str, Any]]:
        return [a for a in self.of_kind("answer") if a.get("run_id") in run_ids]
