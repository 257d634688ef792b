"""Fixtures for the stamp tests: a two-line council book sealed at the tests' start time."""

from __future__ import annotations

from datetime import UTC, datetime
from pathlib import Path

import pytest

from league.book import Book
from league.clock import SimulatedClock

START = datetime(2026, 3, 2, 13, 0, tzinfo=UTC)


@pytest.fixture
def book(tmp_path: Path) -> Path:
    path = tmp_path / "books" / "council-book.jsonl"
    with Book(path, SimulatedClock(START)) as b:
        b.append("run", {"run_id": "r1", "session": "2026-03-02"})
        b.append("answer", {"run_id": "r1", "seat": "a"})
    return path
