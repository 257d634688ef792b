"""The league's own index over lines a test writes by hand (bodies without ``n`` are numbered in order)."""

from __future__ import annotations

from typing import Any

from league.book.index import BookIndex


def index_of(lines: list[dict[str, Any]]) -> BookIndex:
    index = BookIndex()
    for i, body in enumerate(lines, 1):
        index.add_body({"n": i, **body})
    return index


class LinesIndex:
    """A list of hand-written lines (``self.lines``, appended to by the test) read through the real index."""

    def __init__(self, lines: list[dict[str, Any]] | None = None) -> None:
        self.lines: list[dict[str, Any]] = [] if lines is None else lines

    def __getattr__(self, name: str) -> Any:
        return getattr(index_of(self.lines), name)
