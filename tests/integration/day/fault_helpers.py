"""Shared by the fault tests: where a simulated daemon's books stopped, and the books' raw lines."""

from __future__ import annotations

from datetime import datetime
from pathlib import Path

from league.book.chain import iter_lines
from league.clock import parse_iso


def books_stopped_at(books: Path) -> datetime | None:
    """The latest ``at`` of the two books' last lines: where a killed simulated daemon's clock stood
    when it last sealed (its restart resumes the clock there, not earlier: sealed times only grow)."""
    last = [None, None]
    for i, name in enumerate(("council-book.jsonl", "asks.jsonl")):
        path = books / name
        if path.is_file():
            for line in iter_lines(path):
                last[i] = line.at
    ats = [parse_iso(x) for x in last if x]
    return max(ats) if ats else None


def raw_lines(path: Path) -> list[bytes]:
    return path.read_bytes().splitlines()
