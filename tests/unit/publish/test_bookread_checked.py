"""The publisher's checked bytes stand in for a second verified read (league.book.shared.checked_copy):
the readers get the very lines a verified read gives while the live book is at the noted state and the copy
hashes to the noted digest; otherwise they read and verify the live book, as before."""

from __future__ import annotations

import hashlib
import json
from datetime import UTC, datetime
from pathlib import Path

from league.book import Book, iter_lines
from league.book.index import BookIndex
from league.book.shared import CheckedLine, book_index, book_lines, checked_copy, file_state, shared_reads
from league.clock import SimulatedClock
from league.publish.writing import complete_lines

CLOCK = SimulatedClock(datetime(2026, 3, 2, 14, 0, tzinfo=UTC))


def _book(tmp_path: Path, lines: int = 5) -> Path:
    path = tmp_path / "books" / "council-book.jsonl"
    path.parent.mkdir(parents=True)
    with Book(path, CLOCK) as book:
        for i in range(lines):
            book.append("note", {"session": "2026-03-02", "i": i, "text": f"line {i} ü"})
    return path


def _noted(book: Path, copy: Path, data: bytes | None = None) -> None:
    checked = complete_lines(book)
    copy.write_bytes(checked if data is None else data)
    checked_copy(book, file_state(book), copy, hashlib.sha256(checked).hexdigest())


def _seen(lines: object) -> list[tuple[int, str, str, str, dict[str, object]]]:
    return [(x.n, x.prev, x.seal, x.link, x.content) for x in lines]  # type: ignore[attr-defined]


def test_the_checked_copy_gives_the_lines_a_verified_read_gives(tmp_path: Path) -> None:
    book = _book(tmp_path)
    with shared_reads():
        _noted(book, tmp_path / "copy.jsonl")
        lines = book_lines(book)
        assert all(isinstance(x, CheckedLine) for x in lines)
        assert _seen(lines) == _seen(iter_lines(book))
        assert book_index(book).lines == BookIndex.of_book(book).lines


def test_a_changed_copy_or_a_grown_book_is_read_and_verified_again(tmp_path: Path) -> None:
    book = _book(tmp_path)
    with shared_reads():
        good = complete_lines(book)
        _noted(book, tmp_path / "copy.jsonl", good.replace(b"line 1", b"line 9"))  # not the checked bytes
        lines = book_lines(book)
        assert not any(isinstance(x, CheckedLine) for x in lines)
        assert _seen(lines) == _seen(iter_lines(book))
    with shared_reads():
        _noted(book, tmp_path / "copy.jsonl")
        with Book(book, CLOCK) as b:  # a line sealed after the publisher's read
            b.append("note", {"session": "2026-03-02", "i": 5, "text": "sealed meanwhile"})
        lines = book_lines(book)
        assert len(lines) == 6 and not any(isinstance(x, CheckedLine) for x in lines)  # type: ignore[arg-type]


def _mixed_book(tmp_path: Path) -> Path:
    """A book of several kinds, one of them also named inside another line's content (not its kind)."""
    path = tmp_path / "books" / "council-book.jsonl"
    path.parent.mkdir(parents=True)
    with Book(path, CLOCK) as book:
        for i in range(4):
            book.append("score", {"session": "2026-03-02", "i": i})
            book.append("mark", {"session": "2026-03-02", "i": i, "note": "score"})  # "score" as a value only
            book.append("note", {"session": "2026-03-02", "i": i})
    return path


def test_a_reader_gets_exactly_the_lines_of_its_kinds(tmp_path: Path) -> None:
    book = _mixed_book(tmp_path)
    every = list(iter_lines(book))
    for kinds in (("score",), ("mark",), ("score", "note"), ()):
        wanted = [x for x in every if x.kind in kinds]
        with shared_reads():
            _noted(book, tmp_path / "copy.jsonl")
            assert _seen(book_lines(book, kinds)) == _seen(wanted)
        with shared_reads():  # no note: verified, then parsed from the live book's noted digest
            assert _seen(book_lines(book, kinds)) == _seen(wanted)
            again = book_lines(book, kinds)
            assert _seen(again) == _seen(wanted) and all(isinstance(x, CheckedLine) for x in again)
        assert _seen(book_lines(book, kinds)) == _seen(wanted)  # outside a block: a verified read, filtered
    with shared_reads():
        index = book_index(book, ("score",))
        scored = [json.loads(x)["n"] for x in book.read_text(encoding="utf-8").splitlines() if '"kind":"score"' in x]
        assert [x.n for x in index.of_kind("score")] == scored and len(scored) == 4 and not index.of_kind("mark")


def test_a_tampered_book_is_not_parsed_on_a_note_of_another_state(tmp_path: Path) -> None:
    """The first reader's verified read notes the digest it saw; a book rewritten since is verified again
    (and its broken line caught), never parsed on the strength of the note."""
    import pytest

    from league.errors import ChainBroken

    book = _mixed_book(tmp_path)
    with shared_reads():
        assert len(book_lines(book, ("score",))) == 4  # type: ignore[arg-type]
        data = book.read_bytes()
        book.write_bytes(data.replace(b'"i":2', b'"i":7', 1))  # same size, one sealed value changed
        with pytest.raises(ChainBroken):
            book_lines(book, ("score",))
