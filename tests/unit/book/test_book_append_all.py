"""Several lines sealed with one fsync (``Book.append_all``, the portfolio stage's lines): the same bytes as
one append per line, one fsync for the batch, and all-or-nothing when the disk refuses a line."""

from __future__ import annotations

import errno
import os
from datetime import UTC, datetime
from pathlib import Path
from typing import Any

import pytest

import league.book.chain as chain
from league.book import Book
from league.clock import SimulatedClock
from league.errors import BookError, InvalidRecord
from league.verify.chain import MAX_LINE_BYTES

CLOCK = SimulatedClock(datetime(2026, 11, 24, 21, 5, tzinfo=UTC))
ITEMS = [("trade", {"league": "a", "seat": f"s{i}", "qty": i * 1.5, "note": "é ✓"}) for i in range(5)]


def _opened(path: Path) -> Book:
    book = Book(path, CLOCK)
    book.append("opening", {"league": "council"})
    return book


def test_a_batch_writes_the_bytes_one_append_per_line_writes(tmp_path: Path) -> None:
    with _opened(tmp_path / "one.jsonl") as one:
        singles = [one.append(kind, content) for kind, content in ITEMS]
    with _opened(tmp_path / "all.jsonl") as batch:
        together = batch.append_all(ITEMS)
        assert (batch.lines, batch.last_link) == (6, together[-1].link)
    assert [x.to_bytes() for x in together] == [x.to_bytes() for x in singles]
    assert (tmp_path / "all.jsonl").read_bytes() == (tmp_path / "one.jsonl").read_bytes()


def test_a_batch_is_fsynced_once(tmp_path: Path, monkeypatch: pytest.MonkeyPatch) -> None:
    with _opened(tmp_path / "book.jsonl") as book:
        calls: list[int] = []
        real = os.fsync
        monkeypatch.setattr(os, "fsync", lambda fd: calls.append(fd) or real(fd))
        book.append_all(ITEMS)
        assert len(calls) == 1
        book.append(*ITEMS[0])
        assert len(calls) == 2
        assert book.append_all([]) == [] and len(calls) == 2


class _RefusingOs:
    """``os`` as the writer sees it, refusing the ``after``-th write after it is armed (a full disk)."""

    def __init__(self, after: int) -> None:
        self.left = after

    def write(self, fd: int, data: Any) -> int:
        self.left -= 1
        if self.left < 0:
            raise OSError(errno.ENOSPC, os.strerror(errno.ENOSPC))
        return os.write(fd, data)

    def __getattr__(self, name: str) -> Any:
        return getattr(os, name)


def test_a_full_disk_in_the_middle_of_a_batch_seals_none_of_it(tmp_path: Path,
                                                              monkeypatch: pytest.MonkeyPatch) -> None:
    path = tmp_path / "book.jsonl"
    with _opened(path) as book:
        before = path.read_bytes()
        monkeypatch.setattr(chain, "os", _RefusingOs(after=3))
        with pytest.raises(BookError, match=r"lines 2-6 could not be written .*none of them was sealed"):
            book.append_all(ITEMS)
        monkeypatch.setattr(chain, "os", os)
        assert path.read_bytes() == before and book.lines == 1
        assert book.append(*ITEMS[0]).n == 2  # the chain goes on from the last sealed line
    with Book(path, CLOCK) as reopened:
        assert reopened.lines == 2 and reopened.recovery is None


def test_a_line_no_reader_accepts_stops_the_batch_before_any_byte(tmp_path: Path) -> None:
    path = tmp_path / "book.jsonl"
    with _opened(path) as book:
        before = path.read_bytes()
        too_long = ("trade", {"league": "a", "note": "x" * (MAX_LINE_BYTES + 1)})
        with pytest.raises(InvalidRecord, match="longer than a book line may be"):
            book.append_all([ITEMS[0], too_long, ITEMS[1]])
        with pytest.raises(InvalidRecord, match="may not set"):
            book.append_all([ITEMS[0], ("trade", {"kind": "mark"})])
        assert path.read_bytes() == before and book.lines == 1
