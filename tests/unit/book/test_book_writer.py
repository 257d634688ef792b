"""The writer's edges: opening damaged books, torn tails at open, closed books, bad kinds."""

from __future__ import annotations

from datetime import UTC, datetime
from pathlib import Path

import pytest
from book_oracle import ASSETS, oracle

from league.book import Book
from league.clock import SimulatedClock
from league.errors import BookError, InvalidRecord, LeagueError
from league.verify.chain import verify

CLOCK = SimulatedClock(datetime(2026, 11, 30, 13, 30, tzinfo=UTC))


@pytest.mark.parametrize(
    "last", [b"hello\n", b'{"n": 13}\n', b"[1]\n", b"\xff\xfe\n"], ids=["text", "no-fields", "array", "bytes"]
)
def test_a_damaged_last_line_is_a_clear_book_error_and_nothing_changes(tmp_path: Path, last: bytes) -> None:
    path = tmp_path / "book.jsonl"
    data = (ASSETS / "good.jsonl").read_bytes() + last
    path.write_bytes(data)
    for _ in range(2):  # the second try is refused the same way: the lock was released
        with pytest.raises(BookError) as err:
            Book(path, CLOCK)
        assert "line 13" in str(err.value) and "league verify" in (err.value.fix or "")
    assert path.read_bytes() == data
    assert [p.name for p in tmp_path.iterdir() if ".torn-" in p.name] == []


def test_a_file_that_is_one_torn_line_is_moved_aside_whole(tmp_path: Path) -> None:
    path = tmp_path / "book.jsonl"
    path.write_bytes(b'{"kind": "run", "at": "2026')
    with Book(path, CLOCK) as book:
        assert book.lines == 0 and book.recovery is not None
        assert book.recovery.moved_to.read_bytes() == b'{"kind": "run", "at": "2026'
        book.append("run", {"session": "2026-11-30"})
    assert oracle(path.read_bytes()) == (0, "") and verify(path).lines == 1


def test_new_book_in_a_new_folder(tmp_path: Path) -> None:
    path = tmp_path / "daily" / "council" / "book.jsonl"
    with Book(path, CLOCK) as book:
        line = book.append("run", {"x": 1})
    assert (line.n, line.prev) == (1, "")
    assert path.read_bytes().endswith(b"\n") and path.read_bytes().count(b"\n") == 1


def test_append_after_close_and_an_empty_kind_are_refused(tmp_path: Path) -> None:
    path = tmp_path / "book.jsonl"
    book = Book(path, CLOCK)
    with pytest.raises(InvalidRecord):
        book.append("", {"x": 1})
    book.close()
    with pytest.raises(BookError):
        book.append("run", {"x": 1})
    assert path.read_bytes() == b""


def test_errors_are_league_errors_with_diagnostics(tmp_path: Path) -> None:
    path = tmp_path / "book.jsonl"
    with Book(path, CLOCK) as book, pytest.raises(LeagueError) as err:
        book.append("answer", {"x": float("nan")})
    assert "JSON" in err.value.diagnostics()


def test_a_write_the_disk_refuses_seals_nothing_and_leaves_no_fragment(tmp_path: Path) -> None:
    """The disk fills up halfway through a line: append raises, the partial bytes are cut off, and
    the next append continues the chain as if the failed one never happened."""
    import errno
    import os
    from unittest import mock

    path = tmp_path / "book.jsonl"
    real_write = os.write
    calls = {"n": 0}

    def half_then_full(fd: int, data: memoryview) -> int:
        calls["n"] += 1
        if calls["n"] == 1:
            return real_write(fd, data[: len(data) // 2])
        raise OSError(errno.ENOSPC, "No space left on device")

    with Book(path, CLOCK) as book:
        book.append("run", {"i": 1})
        before = path.read_bytes()
        with mock.patch("league.book.chain.os.write", half_then_full), pytest.raises(BookError, match="not sealed"):
            book.append("answer", {"i": 2, "pad": "x" * 1000})
        assert path.read_bytes() == before and book.lines == 1
        book.append("answer", {"i": 3})
    assert oracle(path.read_bytes()) == (0, "") and verify(path).lines == 2
