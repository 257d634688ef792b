"""Indexing a book another process is appending to: a last line still being written is left for the next
step (never a torn-line error), and the follower indexes both books exactly as the incremental index does."""

from __future__ import annotations

from collections.abc import Iterator
from datetime import UTC, datetime
from pathlib import Path

import pytest

from league.book import Book
from league.clock import SimulatedClock
from league.errors import ChainBroken
from league.store import index_book
from league.store.follow import IndexFollower
from league.store.sql import SqlStore

T0 = datetime(2026, 6, 1, 13, 0, tzinfo=UTC)


def _append(path: Path, lines: int, start: int = 0) -> None:
    with Book(path, SimulatedClock(T0)) as book:
        for i in range(start, start + lines):
            book.append("note", {"i": i})


def _half_written(path: Path, extra: Path) -> bytes:
    """Append the first half of ``extra``'s next line to ``path`` (a write seen in pieces); return the rest."""
    whole = extra.read_bytes().splitlines(keepends=True)[-1]
    with open(path, "ab") as fh:
        fh.write(whole[: len(whole) // 2])
    return whole[len(whole) // 2:]


def test_a_line_still_being_written_waits_for_the_next_step(store: SqlStore, tmp_path: Path) -> None:
    path, twin = tmp_path / "council-book.jsonl", tmp_path / "twin.jsonl"
    _append(path, 3)
    _append(twin, 4)  # the same first three lines, and the fourth the writer is about to finish
    rest = _half_written(path, twin)
    assert index_book(store, path, "council-book", growing=True) == 3
    with open(path, "ab") as fh:
        fh.write(rest)
    assert index_book(store, path, "council-book", growing=True) == 1
    assert store.last_indexed("council-book")[0] == 4


def test_without_growing_the_same_tail_is_a_torn_line(store: SqlStore, tmp_path: Path) -> None:
    path, twin = tmp_path / "council-book.jsonl", tmp_path / "twin.jsonl"
    _append(path, 2)
    _append(twin, 3)
    _half_written(path, twin)
    with pytest.raises(ChainBroken, match="torn line"):
        index_book(store, path, "council-book")


def test_a_broken_line_is_still_refused_while_growing(store: SqlStore, tmp_path: Path) -> None:
    path = tmp_path / "council-book.jsonl"
    _append(path, 3)
    lines = path.read_bytes().splitlines(keepends=True)
    path.write_bytes(lines[0] + lines[1].replace(b'"i":1,', b'"i":7,') + lines[2])
    with pytest.raises(ChainBroken, match="line 2"):
        index_book(store, path, "council-book", growing=True)


def test_the_follower_indexes_both_books_as_they_grow(store: SqlStore, tmp_path: Path, other_store: SqlStore) -> None:
    books = tmp_path / "books"
    books.mkdir()
    follower = IndexFollower(store, books)
    assert follower.step() == 0  # no book yet
    _append(books / "council-book.jsonl", 5)
    _append(books / "asks.jsonl", 2)
    assert follower.step() == 7
    _append(books / "council-book.jsonl", 3, start=5)
    assert follower.step() == 3
    for name, file in (("council-book", "council-book.jsonl"), ("asks", "asks.jsonl")):
        index_book(other_store, books / file, name)  # the plain incremental index of the finished books
        assert store.book_lines(name) == other_store.book_lines(name)


def test_a_follower_that_fails_stops_and_says_so(store: SqlStore, tmp_path: Path) -> None:
    books = tmp_path / "books"
    books.mkdir()
    _append(books / "council-book.jsonl", 2)
    raw = (books / "council-book.jsonl").read_bytes()
    (books / "council-book.jsonl").write_bytes(raw.replace(b'"i":1,', b'"i":9,'))
    follower = IndexFollower(store, books)
    assert follower.step() == 0
    assert follower.failed
    assert store.last_indexed("council-book")[0] == 0
    assert IndexFollower(None, books).step() == 0  # no database: nothing to do, nothing raised


@pytest.fixture
def other_store(tmp_path: Path) -> Iterator[SqlStore]:
    from league.store import open_store

    opened = open_store(f"sqlite:///{tmp_path / 'other.db'}")
    yield opened
    opened.close()
