"""Prefix digests equal `head -n N | sha256sum`; stamped lists round-trip; corrections name their line."""

from __future__ import annotations

import subprocess
from datetime import UTC, datetime, timedelta
from pathlib import Path

import pytest
from book_oracle import ASSETS
from hypothesis import given, settings
from hypothesis import strategies as st

from league.book import Book, Head, head_of, prefix_digest, stamped_list
from league.clock import SimulatedClock
from league.errors import BookError, InvalidRecord
from league.verify.chain import verify
from league.verify.stamped import parse_stamped_list

T0 = datetime(2026, 11, 30, 13, 30, tzinfo=UTC)
EMPTY_SHA = "e3b0c44298fc1c149afbf4c8996fb92427ae41e4649b934ca495991b7852b855"


def head_sha256sum(path: Path, n: int) -> str:
    """The reader's command, run for real."""
    out = subprocess.run(
        f"head -n {n} '{path}' | sha256sum", shell=True, check=True, capture_output=True, text=True
    ).stdout
    return out.split()[0]


@pytest.fixture
def book_path(tmp_path: Path) -> Path:
    path = tmp_path / "book.jsonl"
    path.write_bytes((ASSETS / "good.jsonl").read_bytes())
    return path


@pytest.mark.parametrize("n", [0, 1, 2, 5, 11, 12])
def test_prefix_digest_equals_head_n_sha256sum(book_path: Path, n: int) -> None:
    expected = head_sha256sum(book_path, n)
    assert prefix_digest(book_path, n) == expected
    assert head_of(book_path, n).sha256 == expected


def test_a_stamp_taken_at_n_lines_verifies_after_the_book_grew(book_path: Path) -> None:
    before = {n: head_sha256sum(book_path, n) for n in (3, 12)}
    with Book(book_path, SimulatedClock(T0)) as book:
        for i in range(5):
            book.append("mark", {"i": i})
        assert book.head().sha256 == head_sha256sum(book_path, 17)
        assert book.head().lines == 17
    for n, digest in before.items():
        assert prefix_digest(book_path, n) == digest == head_sha256sum(book_path, n)


def test_prefix_digest_ignores_a_torn_tail_and_refuses_a_longer_prefix(book_path: Path) -> None:
    with open(book_path, "ab") as fh:
        fh.write(b'{"torn":')
    assert prefix_digest(book_path, 12) == head_sha256sum(book_path, 12)
    with pytest.raises(BookError):
        prefix_digest(book_path, 13)
    assert head_of(book_path).lines == 12


def test_head_of_names_lines_digest_and_last_link(book_path: Path) -> None:
    report = verify(book_path)
    head = head_of(book_path)
    assert (head.lines, head.sha256, head.last_link) == (report.lines, report.sha256, report.last_link)
    assert head.sha256 == subprocess.run(
        ["sha256sum", str(book_path)], check=True, capture_output=True, text=True
    ).stdout.split()[0]


def test_stamped_list_text_has_the_protocol_shape(book_path: Path) -> None:
    head = head_of(book_path)
    text = stamped_list([("daily/council/book.jsonl", head)], taken_at=T0)
    row = f"daily/council/book.jsonl: 12 lines, sha256 {head.sha256}, last link {head.last_link}"
    assert row in text.splitlines()
    assert "head -n N" in text and "sha256sum" in text  # the byte rule is printed with the list
    assert text.endswith("\n")


names = st.text(alphabet=st.characters(blacklist_categories=("Cs",), blacklist_characters="\n\r"), min_size=1)
hexes = st.text(alphabet="0123456789abcdef", min_size=64, max_size=64)


@settings(max_examples=100, deadline=None)
@given(st.lists(st.tuples(names, st.integers(0, 10**9), hexes, hexes | st.just("")), max_size=5), st.text())
def test_stamped_list_round_trips(rows: list[tuple[str, int, str, str]], note: str) -> None:
    heads = [(name, Head("ignored", lines, sha, link)) for name, lines, sha, link in rows]
    text = stamped_list(heads, taken_at=T0 + timedelta(days=1), note=note.replace("\n", " "))
    assert parse_stamped_list(text) == rows


def test_zero_line_book_stamps_the_empty_digest(tmp_path: Path) -> None:
    path = tmp_path / "empty.jsonl"
    with Book(path, SimulatedClock(T0)) as book:
        head = book.head()
    assert (head.lines, head.sha256, head.last_link) == (0, EMPTY_SHA, "")
    text = stamped_list([("empty.jsonl", head)], taken_at=T0)
    assert parse_stamped_list(text) == [("empty.jsonl", 0, EMPTY_SHA, "")]


def test_correction_names_the_corrected_line_and_leaves_it_untouched(book_path: Path) -> None:
    before = book_path.read_bytes()
    with Book(book_path, SimulatedClock(T0)) as book:
        line = book.correct(2, {"field": "target", "value": 6015.0, "source": "exchange print"}, "typo")
        with pytest.raises(InvalidRecord):
            book.correct(0, {}, "no such line")
        with pytest.raises(InvalidRecord):
            book.correct(14, {}, "not written yet")
    data = book_path.read_bytes()
    assert data.startswith(before)
    assert (line.n, line.kind, line.content["of"], line.content["reason"]) == (13, "correction", 2, "typo")
    assert data.count(b"\n") == 13
    assert verify(book_path).ok
