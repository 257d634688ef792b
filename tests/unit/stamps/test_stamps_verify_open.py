"""Helpers of the reader's verification: session reference times, counted answers, prefix digests."""

from __future__ import annotations

import hashlib
import json
from datetime import UTC, datetime
from pathlib import Path

import pytest

from league.book import Book
from league.clock import SimulatedClock
from league.verify.reader import (
    code_entries,
    first_bad_line,
    prefix_facts,
    prefix_table,
    sealed_at,
    session_needs,
    session_reference,
)


@pytest.mark.parametrize(
    ("session", "expected"),
    [("2026-03-06", datetime(2026, 3, 6, 14, 30, tzinfo=UTC)),   # EST, before the switch
     ("2026-03-09", datetime(2026, 3, 9, 13, 30, tzinfo=UTC))],  # EDT, after 2026-03-08
)
def test_reference_is_0930_new_york(session: str, expected: datetime) -> None:
    assert session_reference(session) == expected


def test_run_line_reference_wins() -> None:
    run = {"reference_at": "2026-03-06T15:00:00Z"}
    assert session_reference("2026-03-06", run) == datetime(2026, 3, 6, 15, tzinfo=UTC)


def test_sealed_at_is_the_later_of_at_and_booked_at() -> None:
    line = {"at": "2026-03-06T14:00:00Z", "booked_at": "2026-03-06T14:31:00Z"}
    assert sealed_at(line) == datetime(2026, 3, 6, 14, 31, tzinfo=UTC)


def test_session_needs_stop_at_the_reference() -> None:
    lines = [
        {"n": 1, "kind": "run", "run_id": "r", "session": "2026-03-06", "at": "2026-03-06T13:30:00Z"},
        {"n": 2, "kind": "answer", "run_id": "r", "at": "2026-03-06T13:35:00Z"},
        {"n": 3, "kind": "answer", "run_id": "r", "at": "2026-03-06T14:29:59Z"},
        {"n": 4, "kind": "answer", "run_id": "r", "at": "2026-03-06T14:30:01Z"},  # late: not counted
        {"n": 5, "kind": "answer", "run_id": "other", "at": "2026-03-06T13:40:00Z"},  # no run line
    ]
    (need,) = session_needs(lines)
    assert (need.session, need.last_line, need.reference) == ("2026-03-06", 3, datetime(2026, 3, 6, 14, 30, tzinfo=UTC))


@pytest.fixture
def book(tmp_path: Path) -> Path:
    path = tmp_path / "b.jsonl"
    with Book(path, SimulatedClock(datetime(2026, 3, 6, 13, tzinfo=UTC))) as b:
        for i in range(6):
            b.append("mark", {"i": i})
    return path


def test_prefix_table_equals_head_n(book: Path) -> None:
    raw = book.read_bytes().splitlines(keepends=True)
    table = prefix_table(book, {1, 4, 6, 9})
    for n in (1, 4, 6):
        assert table[n] == (n, hashlib.sha256(b"".join(raw[:n])).hexdigest(), json.loads(raw[n - 1])["link"])
        assert prefix_facts(book, n) == table[n]
    assert table[9][0] == 6 and table[9][2] is None


def test_first_bad_line_names_the_edited_line(book: Path) -> None:
    data = book.read_bytes().replace(b'"i":3', b'"i":7')
    book.write_bytes(data)
    assert first_bad_line(book, 6).startswith("first bad book line: 4 (bad seal")


def test_code_manifest_formats() -> None:
    doc = {"files": [{"path": "league/x.py", "published_as": "arena-code-x.py.txt", "sha256": "ab"}]}
    assert code_entries(doc) == [("league/x.py", "arena-code-x.py.txt", "ab")]
    assert code_entries({"league/y.py": "cd"}) == [("league/y.py", "", "cd")]
