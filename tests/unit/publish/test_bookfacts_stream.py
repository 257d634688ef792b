"""``read_facts`` of a path reads the book a line at a time, with the same facts as from its bytes."""

from __future__ import annotations

import json
from pathlib import Path

import pytest

from league.errors import ChainBroken
from league.publish.bookfacts import BookFacts, read_facts


def _facts(facts: BookFacts) -> tuple[object, ...]:
    return (facts.lines, dict(facts.kinds), facts.kind_keys, facts.runs, facts.methodology, facts.versions,
            facts.corrections, facts.shadow)


def test_path_and_bytes_give_the_same_facts(synth: Path) -> None:
    book = synth / "data" / "books" / "council-book.jsonl"
    got, want = read_facts(book), read_facts(book, book.read_bytes())
    assert got.lines > 50 and got.runs and got.versions
    assert _facts(got) == _facts(want)


def test_a_line_still_being_written_is_not_read(synth: Path, tmp_path: Path) -> None:
    data = (synth / "data" / "books" / "council-book.jsonl").read_bytes()
    torn = tmp_path / "council-book.jsonl"
    cut = data.rindex(b"\n", 0, len(data) - 1) + 1  # the last line without its LF, half of it written
    torn.write_bytes(data[: cut + (len(data) - cut) // 2])
    facts = read_facts(torn)
    assert facts.lines == data.count(b"\n") - 1
    assert _facts(facts) == _facts(read_facts(torn, data[:cut]))


def test_a_missing_book_has_no_lines(tmp_path: Path) -> None:
    assert read_facts(tmp_path / "none.jsonl").lines == 0


def test_a_broken_line_is_still_refused(synth: Path, tmp_path: Path) -> None:
    lines = (synth / "data" / "books" / "council-book.jsonl").read_bytes().split(b"\n")
    line = json.loads(lines[3])
    line["note"] = "added after sealing"
    lines[3] = json.dumps(line).encode()
    broken = tmp_path / "council-book.jsonl"
    broken.write_bytes(b"\n".join(lines))
    with pytest.raises(ChainBroken) as caught:
        read_facts(broken)
    assert caught.value.line == 4
