"""The writer's line count at open from a checkpointed prefix (Book ``counted``): the same book state and the
same next line as a count of the whole file, and a hint that does not fit changes nothing but the time."""

from __future__ import annotations

from datetime import UTC, datetime
from pathlib import Path

import pytest

from league.book import Book
from league.clock import SimulatedClock
from league.errors import BookError
from league.verify.chain import verify

CLOCK = SimulatedClock(datetime(2026, 11, 30, 13, 30, tzinfo=UTC))


def _book(tmp_path: Path, lines: int = 6) -> tuple[Path, list[bytes]]:
    path = tmp_path / "council-book.jsonl"
    with Book(path, CLOCK) as b:
        for i in range(lines):
            b.append("note", {"i": i})
    return path, path.read_bytes().splitlines(keepends=True)


def _next_line(path: Path, counted: tuple[int, int] | None) -> bytes:
    """Open with ``counted``, seal one line, give its bytes back and leave the file as it was."""
    before = path.read_bytes()
    with Book(path, CLOCK, counted=counted) as b:
        b.append("note", {"i": "next"})
    sealed = path.read_bytes()[len(before):]
    path.write_bytes(before)
    return sealed


def test_a_fitting_prefix_seals_the_same_next_line_as_a_whole_count(tmp_path: Path) -> None:
    path, rows = _book(tmp_path)
    offset = sum(len(r) for r in rows[:4])
    whole = _next_line(path, None)
    assert _next_line(path, (offset, 4)) == whole
    assert _next_line(path, (len(path.read_bytes()), 6)) == whole  # the checkpoint at the last line
    assert b'"n": 7' in whole or b'"n":7' in whole


@pytest.mark.parametrize("hint", [(10, 4), (0, 0), (10**9, 6), (None, 3)],
                         ids=["not-after-an-lf", "empty", "beyond-the-file", "wrong-count"])
def test_a_hint_that_does_not_fit_is_ignored(tmp_path: Path, hint: tuple[int | None, int]) -> None:
    path, rows = _book(tmp_path)
    offset = sum(len(r) for r in rows[:4]) if hint[0] is None else hint[0]
    assert _next_line(path, (offset, hint[1])) == _next_line(path, None)
    with Book(path, CLOCK) as b:
        b.append("note", {"i": "after"})
    assert verify(path).ok and verify(path).lines == 7


def test_a_removed_line_is_refused_unless_the_hint_overclaims_the_prefix(tmp_path: Path) -> None:
    """Line 2 removed: the last line says n = 6 in a file of 5 lines. Counted in full, or from a prefix whose
    count is right (or too low), the writer refuses as before. A prefix said to hold one line more than it
    does makes the count fit: the prefix is trusted at open, as the startup checkpoint trusts it
    (docs/book.md); finding a line removed or changed before the checkpoint is the nightly full check's and
    `league verify`'s, and `verify` does find it."""
    path, rows = _book(tmp_path)
    kept = rows[:1] + rows[2:]
    path.write_bytes(b"".join(kept))
    offset = sum(len(r) for r in kept[:3])  # three lines of the file end here
    for hint in (None, (offset, 3), (offset, 2)):
        with pytest.raises(BookError, match="says n = 6 but it is line 5"):
            Book(path, CLOCK, counted=hint)
    with Book(path, CLOCK, counted=(offset, 4)) as b:
        assert b.lines == 6
    assert not verify(path).ok
