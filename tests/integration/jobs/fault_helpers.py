"""Shared by the fault tests: where a simulated daemon's books stopped, and the books' raw lines."""

from __future__ import annotations

import json
from datetime import datetime
from pathlib import Path

from league.clock import parse_iso


def books_stopped_at(books: Path) -> datetime | None:
    """The latest ``at`` of the two books' last complete lines: where a killed simulated daemon's clock
    stood when it last sealed (its restart resumes the clock there, not earlier: sealed times only grow).
    A torn tail (bytes after the last LF) is not a line: the writer moves it aside when it opens."""
    ats = []
    for name in ("council-book.jsonl", "asks.jsonl"):
        path = books / name
        if not path.is_file():
            continue
        complete = path.read_bytes().rpartition(b"\n")[0]
        last = complete.rpartition(b"\n")[2]
        if last:
            ats.append(parse_iso(json.loads(last)["at"]))
    return max(ats) if ats else None


def raw_lines(path: Path) -> list[bytes]:
    return path.read_bytes().splitlines()
