"""The startup checkpoint and the memory window at the level of the book, its index and the database.

A small book of many sessions is written through the real writer; the index opened from a checkpoint
must answer every question exactly as the whole in-memory index does, re-hash only the lines after
the checkpoint, fail on a tampered line after it, and fall back to a full verification (saying so)
when the book was truncated or replaced.
"""

from __future__ import annotations

import tempfile
from datetime import UTC, date, datetime, timedelta
from pathlib import Path

import pytest
from sqlalchemy import delete
from structlog.testing import capture_logs

from league import records
from league.book import Book
from league.book.checkpoint import full_scan
from league.book.index import BookIndex, BookStream
from league.book.startup import check_book, open_index
from league.clock import SimulatedClock
from league.errors import ChainBroken
from league.store import SqlStore, testing
from league.store.models import metadata

# every test runs against SQLite and PostgreSQL (the storage contract's fixtures)
pg_database, store_url, store = testing.pg_database, testing.store_url, testing.store

T0 = datetime(2026, 1, 5, 14, 0, tzinfo=UTC)
SESSIONS = [(date(2026, 1, 5) + timedelta(days=7 * i)).isoformat() for i in range(40)]  # ~9 months
CUTOFF = SESSIONS[30]


_WRITTEN: dict[tuple[str, ...], bytes] = {}


def write_book(path: Path, sessions: list[str] = SESSIONS) -> None:
    """The book of ``sessions`` at ``path``: sealed through the real writer once per process, then copied
    (the simulated clock makes every write of it the same bytes; each of 162 appends is an fsync)."""
    key = tuple(sessions)
    if key not in _WRITTEN:
        with tempfile.TemporaryDirectory() as tmp:
            fresh = Path(tmp) / path.name
            _seal_book(fresh, sessions)
            _WRITTEN[key] = fresh.read_bytes()
    path.write_bytes(_WRITTEN[key])


def _seal_book(path: Path, sessions: list[str]) -> None:
    with Book(path, SimulatedClock(T0)) as book:
        book.append("opening", {"league": "council"})
        book.append("rules", {"rules": "r1"})
        for s in sessions:
            run_id = f"{s}-r1"
            book.append("run", {"session": s, "run_id": run_id, "role": "counted"})
            for seat in ("a", "b"):
                book.append("answer", {"session": s, "run_id": run_id, "seat": seat, "status": "answered",
                                       "items": {"SPX": {"1d": {"prob_up": 55.0}}}})
            book.append("score", {"session": s, "horizon": "1d", "markets": [{"market": "SPX", "reference": 1.0}]})


def append_more(path: Path, count: int) -> None:
    with Book(path, SimulatedClock(T0)) as book:
        for i in range(count):
            book.append("incident", {"session": SESSIONS[-1], "seat": "a", "attempt": i})


def same_answers(a: BookIndex, b: BookIndex) -> None:
    """Every question the jobs ask gets the same answer from both indexes."""
    for s in (SESSIONS[0], SESSIONS[10], SESSIONS[35], "2030-01-01"):
        for kind in ("run", "answer", "score", "incident"):
            assert a.of_kind(kind, s) == b.of_kind(kind, s), (kind, s)
        assert a.runs(s) == b.runs(s)
        assert a.answers({f"{s}-r1"}) == b.answers({f"{s}-r1"})
    for kind in ("opening", "rules", "run", "score"):
        assert a.of_kind(kind) == b.of_kind(kind)
    assert a.answers({f"{SESSIONS[0]}-r1", f"{SESSIONS[39]}-r1"}) == b.answers({f"{SESSIONS[0]}-r1",
                                                                                f"{SESSIONS[39]}-r1"})
    assert a.line(3) == b.line(3) and a.line(10_000) is None and b.line(10_000) is None
    assert a.run(f"{SESSIONS[1]}-r1") == b.run(f"{SESSIONS[1]}-r1")
    assert a.of_seat(records.Answer, "b") == b.of_seat(records.Answer, "b")
    assert a.sessions("score") == b.sessions("score") == SESSIONS
    assert a.sessions("run", since=SESSIONS[5]) == b.sessions("run", since=SESSIONS[5])


def test_windowed_index_answers_like_the_whole_one(tmp_path: Path, store: SqlStore) -> None:
    path = tmp_path / "council-book.jsonl"
    write_book(path)
    whole = BookIndex.of_book(path)
    first, opened = open_index(path, cutoff=CUTOFF, store=store, book="council-book", now=T0)
    assert opened.mode == "full" and opened.checkpoint is not None
    again, reopened = open_index(path, cutoff=CUTOFF, store=store, book="council-book", now=T0)
    assert reopened.mode == "checkpoint" and reopened.rehashed == 0
    bare, _ = open_index(path, cutoff=CUTOFF, store=None, book="council-book", now=T0)
    assert isinstance(bare.older, BookStream)
    for windowed in (first, again, bare):
        # the window keeps recent sessions and the sticky kinds only ...
        assert all(getattr(b, "session", CUTOFF) >= CUTOFF or b.kind in ("opening", "rules")
                   for b in windowed.lines.values())
        assert len(windowed.lines) < len(whole.lines) / 3
        # ... and still answers every question exactly as the whole index does
        same_answers(windowed, whole)


def test_only_the_lines_after_the_checkpoint_are_rehashed(tmp_path: Path, store: SqlStore) -> None:
    path = tmp_path / "council-book.jsonl"
    write_book(path)
    open_index(path, cutoff=CUTOFF, store=store, book="council-book", now=T0)
    append_more(path, 5)
    index, opened = open_index(path, cutoff=CUTOFF, store=store, book="council-book", now=T0)
    assert (opened.mode, opened.rehashed) == ("checkpoint", 5)
    assert store.last_indexed("council-book")[0] == full_scan(path).lines  # the database caught up
    assert len(index.of_kind("incident", SESSIONS[-1])) == 5


def tamper(path: Path, n: int) -> None:
    """Change one byte inside line ``n``'s content (same length, still valid JSON)."""
    lines = path.read_bytes().split(b"\n")
    target = lines[n - 1]
    i = target.index(b'"at":"2026') + len(b'"at":"202')
    lines[n - 1] = target[:i] + (b"7" if target[i:i + 1] != b"7" else b"8") + target[i + 1:]
    path.write_bytes(b"\n".join(lines))


def test_a_line_tampered_after_the_checkpoint_stops_the_open(tmp_path: Path, store: SqlStore) -> None:
    path = tmp_path / "council-book.jsonl"
    write_book(path)
    open_index(path, cutoff=CUTOFF, store=store, book="council-book", now=T0)
    cp = store.checkpoint("council-book")
    assert cp is not None
    append_more(path, 3)
    tamper(path, cp.lines + 2)
    with pytest.raises(ChainBroken) as err:
        open_index(path, cutoff=CUTOFF, store=store, book="council-book", now=T0)
    assert err.value.line == cp.lines + 2


def test_a_line_tampered_before_the_checkpoint_is_not_rehashed_at_open_but_caught_in_full(
        tmp_path: Path, store: SqlStore) -> None:
    path = tmp_path / "council-book.jsonl"
    write_book(path)
    open_index(path, cutoff=CUTOFF, store=store, book="council-book", now=T0)
    cp = store.checkpoint("council-book")
    assert cp is not None
    tamper(path, 7)
    _, opened = open_index(path, cutoff=CUTOFF, store=store, book="council-book", now=T0)
    assert opened.mode == "checkpoint"  # by design: lines 1..N are the nightly check's
    with pytest.raises(ChainBroken) as err:
        check_book(path, store=store, book="council-book", now=T0 + timedelta(days=1), move=True)
    assert err.value.line == 7
    assert store.checkpoint("council-book") == cp  # not moved


def test_a_truncated_book_falls_back_to_a_full_verification_and_says_so(tmp_path: Path, store: SqlStore) -> None:
    path = tmp_path / "council-book.jsonl"
    write_book(path)
    open_index(path, cutoff=CUTOFF, store=store, book="council-book", now=T0)
    lines = path.read_bytes().splitlines(keepends=True)
    path.write_bytes(b"".join(lines[:20]))
    with capture_logs() as logs:
        index, opened = open_index(path, cutoff=CUTOFF, store=store, book="council-book", now=T0)
    assert opened.mode == "full" and "shorter than the checkpoint" in opened.note
    mismatch = [e for e in logs if e["event"] == "book.checkpoint_mismatch"]
    assert mismatch and mismatch[0]["log_level"] == "error" and "truncated" in mismatch[0]["reason"]
    assert [e for e in logs if e["event"] == "book.index_disagrees"]  # the database indexed the longer book
    assert max(index.lines) <= 20 and index.line(25) is None  # nothing of the old book is read back


def test_a_replaced_book_of_the_same_length_is_noticed(tmp_path: Path, store: SqlStore) -> None:
    path = tmp_path / "council-book.jsonl"
    write_book(path)
    open_index(path, cutoff=CUTOFF, store=store, book="council-book", now=T0)
    path.unlink()
    write_book(path, [s.replace("2026-", "2027-") for s in SESSIONS])  # another book, same shape
    with capture_logs() as logs:
        _, opened = open_index(path, cutoff=CUTOFF, store=store, book="council-book", now=T0)
    assert opened.mode == "full"
    assert [e for e in logs if e["event"] == "book.checkpoint_mismatch"]


def test_moving_the_window_drops_old_sessions_and_still_answers(tmp_path: Path, store: SqlStore) -> None:
    path = tmp_path / "council-book.jsonl"
    write_book(path)
    whole = BookIndex.of_book(path)
    index, _ = open_index(path, cutoff=SESSIONS[5], store=store, book="council-book", now=T0)
    held = len(index.lines)
    assert index.trim(SESSIONS[5]) == 0  # the same cutoff: nothing moves
    assert index.trim(CUTOFF) > 0 and len(index.lines) < held
    assert not any(getattr(b, "session", CUTOFF) < CUTOFF for b in index.lines.values())
    same_answers(index, whole)
    assert whole.trim(CUTOFF) == 0 and len(whole.lines) == len(BookIndex.of_book(path).lines)  # whole stays whole


def test_a_line_the_database_missed_is_indexed_again_at_open(tmp_path: Path, store: SqlStore) -> None:
    """A seal whose index write failed leaves a gap under the highest indexed line; the window reads the
    database, so the next open fills it from the book."""
    path = tmp_path / "council-book.jsonl"
    write_book(path)
    whole = BookIndex.of_book(path)
    open_index(path, cutoff=CUTOFF, store=store, book="council-book", now=T0)
    gap = whole.of_kind("score", SESSIONS[2])[0].n
    with store.engine.begin() as conn:  # as if that line's index transaction had rolled back
        for table in metadata.sorted_tables:
            if "book" in table.c and ("line" in table.c or "n" in table.c):
                column = table.c["line"] if "line" in table.c else table.c["n"]
                conn.execute(delete(table).where(table.c.book == "council-book", column == gap))
    assert store.book_numbers("council-book")[0] == len(whole.lines) - 1
    index, opened = open_index(path, cutoff=CUTOFF, store=store, book="council-book", now=T0)
    assert opened.mode == "checkpoint"
    assert store.book_numbers("council-book") == (len(whole.lines), len(whole.lines))
    assert index.of_kind("score", SESSIONS[2]) == whole.of_kind("score", SESSIONS[2])
