"""The stamped list names the contest's book beside the council's once it exists (published under contest/)."""

from __future__ import annotations

from pathlib import Path

from league.jobs.stamp import stamped_books


class _League:
    def __init__(self, books_dir: Path) -> None:
        self.books_dir = books_dir


def test_the_contest_book_joins_the_stamped_list_once_it_exists(tmp_path: Path) -> None:
    lg = _League(tmp_path)
    assert [name for name, _ in stamped_books(lg)] == ["council-book.jsonl", "asks.jsonl"]  # type: ignore[arg-type]
    (tmp_path / "contest-book.jsonl").write_bytes(b"")
    assert stamped_books(lg)[-1] == ("contest/contest-book.jsonl", tmp_path / "contest-book.jsonl")  # type: ignore[arg-type]
