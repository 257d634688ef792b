"""The stamper's incremental heads equal a full ``head_of`` whatever happened to the file in between."""

from __future__ import annotations

import shutil
from datetime import UTC, datetime
from pathlib import Path

from league.book import Book, head_of
from league.clock import SimulatedClock
from league.stamping.heads import HeadCache

T0 = datetime(2026, 6, 1, 13, 0, tzinfo=UTC)


def _book(path: Path, lines: int, start: int = 0) -> None:
    with Book(path, SimulatedClock(T0)) as book:
        for i in range(start, start + lines):
            book.append("note", {"i": i, "text": "x" * (i % 7)})


def test_each_append_gives_the_full_head(tmp_path: Path) -> None:
    path, cache = tmp_path / "b.jsonl", HeadCache()
    _book(path, 3)
    assert cache.head(path) == head_of(path)
    for k in range(3):
        _book(path, k + 1, start=10 * (k + 1))
        assert cache.head(path) == head_of(path)
    assert cache.head(path) == head_of(path)  # nothing appended: the same head again


def test_a_torn_tail_is_left_out_and_counted_once_complete(tmp_path: Path) -> None:
    path, cache = tmp_path / "b.jsonl", HeadCache()
    _book(path, 4)
    whole = path.read_bytes()
    cut = whole.rfind(b"\n", 0, len(whole) - 1) + 1
    path.write_bytes(whole[: cut + 10])  # the last line torn after 10 bytes
    assert cache.head(path) == head_of(path) and head_of(path).lines == 3
    path.write_bytes(whole)
    assert cache.head(path) == head_of(path) and head_of(path).lines == 4


def test_a_replaced_or_rewritten_file_is_hashed_again(tmp_path: Path) -> None:
    path, other, cache = tmp_path / "b.jsonl", tmp_path / "o.jsonl", HeadCache()
    _book(path, 5)
    _book(other, 7, start=100)
    cache.head(path)
    shutil.copy(other, path)  # same inode, other bytes (longer)
    assert cache.head(path) == head_of(path) and cache.head(path).lines == 7
    _book(tmp_path / "short.jsonl", 2, start=500)
    shutil.copy(tmp_path / "short.jsonl", path)  # shorter
    assert cache.head(path) == head_of(path) and cache.head(path).lines == 2
    (tmp_path / "new.jsonl").write_bytes(other.read_bytes())
    (tmp_path / "new.jsonl").replace(path)  # another inode
    assert cache.head(path) == head_of(path)


def test_an_empty_book_has_the_empty_head(tmp_path: Path) -> None:
    path = tmp_path / "e.jsonl"
    path.write_bytes(b"")
    assert HeadCache().head(path) == head_of(path)
