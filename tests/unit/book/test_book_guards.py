"""Book locks and guards: a full disk at open leaves no lock behind, an alias of
the book (symlink or hard link) takes the same lock, and a last line whose ``n`` is not its line
number stops the writer before it appends."""

from __future__ import annotations

import os
import subprocess
from collections.abc import Iterator
from datetime import UTC, datetime
from pathlib import Path

import pytest

from league.book import Book
from league.clock import SimulatedClock
from league.errors import BookError, BookLockedError

CLOCK = SimulatedClock(datetime(2026, 11, 24, 13, 0, tzinfo=UTC))


@pytest.fixture
def full_disk(tmp_path: Path) -> Iterator[Path]:
    """A real, tiny tmpfs (one 4 KiB page) filled to the last byte (root only)."""
    if os.geteuid() != 0:
        pytest.skip("mounting a small tmpfs needs root")
    mount = tmp_path / "small"
    mount.mkdir()
    subprocess.run(["mount", "-t", "tmpfs", "-o", "size=8k", "tmpfs", str(mount)], check=True)
    try:
        fd = os.open(mount / "filler", os.O_WRONLY | os.O_CREAT, 0o644)
        try:
            while os.write(fd, b"x" * 1024):
                pass
        except OSError:
            pass
        finally:
            os.close(fd)
        yield mount
    finally:
        subprocess.run(["umount", "-l", str(mount)], check=False)


def test_full_disk_at_open_is_a_book_error_and_leaves_no_lock(full_disk: Path) -> None:
    book = full_disk / "books" / "council-book.jsonl"
    (full_disk / "books").mkdir()
    for _ in range(2):  # the second attempt must meet the same disk error, not "locked by unknown process"
        with pytest.raises(BookError) as info:
            with Book(book, CLOCK) as b:
                b.append("opening", {"league": "council"})
        assert not isinstance(info.value, BookLockedError)
        assert "No space left on device" in str(info.value) and info.value.fix
    (full_disk / "filler").unlink()
    with Book(book, CLOCK) as b:
        assert b.append("opening", {"league": "council"}).n == 1


def test_symlink_alias_shares_the_lock(tmp_path: Path) -> None:
    real = tmp_path / "council-book.jsonl"
    alias = tmp_path / "alias.jsonl"
    with Book(real, CLOCK) as b:
        b.append("opening", {"league": "council"})
        alias.symlink_to(real)
        with pytest.raises(BookLockedError):
            Book(alias, CLOCK)


def test_hard_link_alias_shares_the_lock(tmp_path: Path) -> None:
    real = tmp_path / "council-book.jsonl"
    with Book(real, CLOCK) as b:
        b.append("opening", {"league": "council"})
        os.link(real, tmp_path / "other-name.jsonl")
        with pytest.raises(BookLockedError, match="another name"):
            Book(tmp_path / "other-name.jsonl", CLOCK)


def test_a_closed_book_is_free_to_reopen_while_a_forked_child_still_holds_its_descriptor(tmp_path: Path) -> None:
    """flock belongs to the open file description, which a forked child shares: a close that only closed the
    descriptor left the book locked for as long as such a child lived (a second open in the same process then
    failed with "under another name"). The writer unlocks before it closes."""
    if not hasattr(os, "fork"):
        pytest.skip("needs os.fork")
    path = tmp_path / "council-book.jsonl"
    book = Book(path, CLOCK)
    book.append("opening", {"league": "council"})
    release_r, release_w = os.pipe()
    pid = os.fork()
    if pid == 0:  # the child holds every descriptor the parent had, the book's included, until told to go
        os.close(release_w)
        os.read(release_r, 1)
        os._exit(0)
    os.close(release_r)
    try:
        book.close()
        with Book(path, CLOCK) as again:
            assert again.append("note", {"text": "reopened"}).n == 2
    finally:
        os.close(release_w)
        os.waitpid(pid, 0)


def test_last_line_number_must_match_the_line_count(tmp_path: Path) -> None:
    path = tmp_path / "council-book.jsonl"
    with Book(path, CLOCK) as b:
        for i in range(3):
            b.append("note", {"i": i})
    rows = path.read_bytes().splitlines(keepends=True)
    path.write_bytes(rows[0] + rows[2])  # line 2 removed: the last line still says n = 3
    with pytest.raises(BookError, match="says n = 3 but it is line 2"):
        Book(path, CLOCK)
    assert path.read_bytes() == rows[0] + rows[2]  # nothing appended
