"""The stamped list names the contest's book beside the council's once it exists (published under contest/)."""

from __future__ import annotations

from pathlib import Path

from league.jobs.stamp import stamped_books


def test_the_contest_book_joins_the_stamped_list_once_it_exists(tmp_path: Path) -> None:
    assert [name for name, _ in stamped_books(tmp_path)] == ["council-book.jsonl", "asks.jsonl"]
    (tmp_path / "contest-book.jsonl").write_bytes(b"")
    assert stamped_books(tmp_path)[-1] == ("contest/contest-book.jsonl", tmp_path / "contest-book.jsonl")
