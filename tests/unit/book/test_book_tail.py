"""A book's last lines read back from the end (league.book.tail): the lines kept are verified in book order,
the ones before them are not read for more than the anchor's number and link."""

from __future__ import annotations

from datetime import UTC, datetime, timedelta
from pathlib import Path

import pytest

import league.book.tail as tail
from league.book import Book
from league.book.tail import raw_lines_back, recent_lines
from league.clock import SimulatedClock
from league.errors import ChainBroken

T0 = datetime(2026, 6, 1, 13, 0, tzinfo=UTC)


def _book(path: Path, count: int) -> None:
    clock = SimulatedClock(T0)
    with Book(path, clock) as book:
        for i in range(count):
            book.append("note", {"i": i})
            clock.advance(timedelta(minutes=1))


def _since(minutes: int):  # type: ignore[no-untyped-def]
    return lambda obj: obj["at"] >= (T0 + timedelta(minutes=minutes)).strftime("%Y-%m-%dT%H:%M:%S")


@pytest.mark.parametrize("block", [7, 64, 1 << 16])
def test_lines_back_are_the_file_lines_reversed_without_a_torn_tail(tmp_path: Path, block: int,
                                                                    monkeypatch: pytest.MonkeyPatch) -> None:
    path = tmp_path / "b.jsonl"
    _book(path, 30)
    whole = path.read_bytes()
    path.write_bytes(whole + b'{"torn')
    monkeypatch.setattr(tail, "BACK_BLOCK", block)
    with path.open("rb") as fh:
        back = list(raw_lines_back(fh))
    lines = whole.splitlines(keepends=True)
    assert [raw for _, raw in back] == lines[::-1]
    assert [start for start, _ in back] == [sum(map(len, lines[:i])) for i in range(len(lines))][::-1]


def test_recent_lines_are_the_last_lines_kept_verified_in_order(tmp_path: Path) -> None:
    path = tmp_path / "b.jsonl"
    _book(path, 20)
    got = recent_lines(path, _since(15))
    assert [line.n for line in got] == [16, 17, 18, 19, 20]
    assert [line.content["i"] for line in got] == [15, 16, 17, 18, 19]
    assert [line.n for line in recent_lines(path, lambda obj: True)] == list(range(1, 21))


def test_a_tampered_line_before_the_kept_ones_is_not_read_one_among_them_is_named(tmp_path: Path) -> None:
    path = tmp_path / "b.jsonl"
    _book(path, 20)
    good = path.read_bytes().split(b"\n")
    older = list(good)
    older[4] = older[4].replace(b'"i":4', b'"i":5')
    path.write_bytes(b"\n".join(older))
    assert [line.n for line in recent_lines(path, _since(15))] == [16, 17, 18, 19, 20]  # line 5: the nightly check's
    newer = list(good)
    newer[17] = newer[17].replace(b'"i":17', b'"i":18')
    path.write_bytes(b"\n".join(newer))
    with pytest.raises(ChainBroken) as info:
        recent_lines(path, _since(15))
    assert info.value.line == 18
    newer = list(good)
    newer[14] = b'{"not": "a book line"}'  # the anchor before the kept lines
    path.write_bytes(b"\n".join(newer))
    with pytest.raises(ChainBroken, match="not a book line"):
        recent_lines(path, _since(15))
