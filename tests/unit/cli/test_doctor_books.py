"""`league doctor` flags a data folder without books (a config read from the wrong place, a folder never
initialised) instead of passing every check and failing on the first job."""

from __future__ import annotations

from pathlib import Path

from league.cli.doctor import books_check, config_checks
from league.config import shipped_config_dir


def test_a_data_folder_without_books_fails(tmp_path: Path) -> None:
    check = books_check(tmp_path / "data")
    assert not check.ok and "no book there" in check.detail and "league init" in check.fix


def test_an_empty_book_fails_and_a_book_with_lines_passes(tmp_path: Path) -> None:
    book = tmp_path / "books" / "council-book.jsonl"
    book.parent.mkdir()
    book.touch()
    assert not books_check(tmp_path).ok
    book.write_text('{"n": 1}\n', encoding="utf-8")
    assert books_check(tmp_path).ok


def test_the_example_config_names_a_data_folder_that_is_not_there(tmp_path: Path) -> None:
    """What `league doctor` run bare in the repository's clone reads: config/ with data = "data" beside it."""
    checks = {c.name: c for c in config_checks(shipped_config_dir(), None)}
    assert checks["configuration"].ok
    data = shipped_config_dir().parent / "data" / "books" / "council-book.jsonl"
    assert checks["data: books"].ok == (data.is_file() and data.stat().st_size > 0)
