"""Indexing a growing book resumes where the last call ended, and still refuses a changed book."""

from __future__ import annotations

import importlib
import shutil
from datetime import UTC, datetime
from pathlib import Path

import pytest

import league.book.tail as tail
from league.book import Book
from league.clock import SimulatedClock
from league.errors import ChainBroken
from league.store import StoreError, index_book
from league.store.sql import SqlStore

#: the module (``league.store.rebuild`` the attribute is the function of that name)
rebuild_mod = importlib.import_module("league.store.rebuild")
T0 = datetime(2026, 6, 1, 13, 0, tzinfo=UTC)


def _append(path: Path, lines: int, start: int = 0) -> None:
    with Book(path, SimulatedClock(T0)) as book:
        for i in range(start, start + lines):
            book.append("note", {"i": i})


@pytest.mark.parametrize("first", [1, 4])
def test_resumed_reads_add_exactly_the_new_lines(store: SqlStore, tmp_path: Path, monkeypatch: pytest.MonkeyPatch,
                                                 first: int) -> None:
    path = tmp_path / "asks.jsonl"
    _append(path, first)  # one line: the resume point is line 1, at byte 0
    assert index_book(store, path, "asks") == first
    scans: list[bool] = []
    real = rebuild_mod._scan

    def counted(*args: object, **kw: object) -> object:
        scans.append(bool(kw.get("resuming")))
        return real(*args, **kw)  # type: ignore[arg-type]

    monkeypatch.setattr(rebuild_mod, "_scan", counted)
    _append(path, 3, start=10)
    assert index_book(store, path, "asks") == 3
    assert index_book(store, path, "asks") == 0
    _append(path, 1, start=20)
    assert index_book(store, path, "asks") == 1
    assert store.last_indexed("asks")[0] == first + 4
    assert scans == [True, True]  # never from line 1 again; the call with nothing new read nothing at all


def test_a_replaced_book_is_still_refused_after_resuming(store: SqlStore, tmp_path: Path) -> None:
    path, other = tmp_path / "asks.jsonl", tmp_path / "other.jsonl"
    _append(path, 5)
    index_book(store, path, "asks")
    _append(other, 6, start=100)
    shutil.copy(other, path)  # same inode, other lines
    with pytest.raises(StoreError, match="differs from the index at line 5"):
        index_book(store, path, "asks")


def test_a_truncated_book_is_refused(store: SqlStore, tmp_path: Path) -> None:
    path, short = tmp_path / "asks.jsonl", tmp_path / "short.jsonl"
    _append(path, 5)
    index_book(store, path, "asks")
    _append(short, 2)
    shutil.copy(short, path)
    with pytest.raises(StoreError, match="has 2 lines but the index already holds 5"):
        index_book(store, path, "asks")


def test_a_bad_line_after_the_resume_point_is_named(store: SqlStore, tmp_path: Path) -> None:
    path = tmp_path / "asks.jsonl"
    _append(path, 3)
    index_book(store, path, "asks")
    _append(path, 2, start=10)
    lines = path.read_bytes().splitlines(keepends=True)
    lines[4] = lines[4].replace(b'"i":11', b'"i":12')
    path.write_bytes(b"".join(lines))
    with pytest.raises(ChainBroken) as info:
        index_book(store, path, "asks")
    assert info.value.line == 5
    assert store.last_indexed("asks")[0] == 3


def test_a_book_that_did_not_grow_is_not_read_and_the_index_not_asked(store: SqlStore, tmp_path: Path,
                                                                        monkeypatch: pytest.MonkeyPatch) -> None:
    path = tmp_path / "asks.jsonl"
    _append(path, 3)
    assert index_book(store, path, "asks") == 3
    asked: list[str] = []
    real = store.last_indexed
    monkeypatch.setattr(store, "last_indexed", lambda book: asked.append(book) or real(book))
    assert index_book(store, path, "asks") == 0 and asked == []  # unchanged: neither the file nor the index read
    with path.open("ab") as fh:
        fh.write(b'{"torn')  # a torn tail: the ordinary path, which refuses it as before
    with pytest.raises(ChainBroken, match="torn line"):
        index_book(store, path, "asks")
    assert asked == ["asks"]
    path.write_bytes(path.read_bytes()[: -len(b'{"torn')])
    _append(path, 2, start=10)
    assert index_book(store, path, "asks") == 2 and asked == ["asks", "asks"]
    assert index_book(store, path, "asks") == 0 and len(asked) == 2
    copy = tmp_path / "copy.jsonl"
    shutil.copy(path, copy)
    copy.replace(path)  # same bytes, another inode: the ordinary path
    assert index_book(store, path, "asks") == 0 and len(asked) == 3
    assert store.last_indexed("asks")[0] == 5


def _new_process(monkeypatch: pytest.MonkeyPatch) -> list[tuple[int, bool]]:
    """Forget what this process read (as a new `league run` job starts), and record each read's start:
    (byte offset, resuming)."""
    from weakref import WeakKeyDictionary

    monkeypatch.setattr(rebuild_mod, "_RESUME", {})
    monkeypatch.setattr(rebuild_mod, "_INDEXED", WeakKeyDictionary())
    reads: list[tuple[int, bool]] = []
    real = rebuild_mod._scan

    def counted(path: Path, name: str, offset: int, *args: object, **kw: object) -> object:
        reads.append((offset, bool(kw.get("resuming"))))
        return real(path, name, offset, *args, **kw)  # type: ignore[arg-type]

    monkeypatch.setattr(rebuild_mod, "_scan", counted)
    return reads


@pytest.mark.parametrize("block", [64, 1 << 16])
def test_a_new_process_finds_the_index_end_from_the_end_of_the_file(
        store: SqlStore, tmp_path: Path, monkeypatch: pytest.MonkeyPatch, block: int) -> None:
    path = tmp_path / "asks.jsonl"
    _append(path, 40)
    assert index_book(store, path, "asks") == 40
    _append(path, 3, start=100)
    with path.open("ab") as fh:
        fh.write(b'{"being written')  # the writer's next line, not whole yet (another process writes it)
    monkeypatch.setattr(tail, "BACK_BLOCK", block)  # lines cut across blocks, or all in one
    reads = _new_process(monkeypatch)
    assert index_book(store, path, "asks", growing=True) == 3
    line_40 = sum(len(raw) for raw in path.read_bytes().splitlines(keepends=True)[:39])
    assert reads == [(line_40, True)]  # read from line 40, where the index ended: not from line 1
    assert [row["n"] for row in store.book_lines("asks")][-4:] == [40, 41, 42, 43]


def test_a_new_process_still_refuses_a_replaced_book(store: SqlStore, tmp_path: Path,
                                                     monkeypatch: pytest.MonkeyPatch) -> None:
    path, other = tmp_path / "asks.jsonl", tmp_path / "other.jsonl"
    _append(path, 5)
    index_book(store, path, "asks")
    _append(other, 6, start=100)  # its line 5 has another link
    shutil.copy(other, path)
    reads = _new_process(monkeypatch)
    with pytest.raises(StoreError, match="differs from the index at line 5"):
        index_book(store, path, "asks")
    assert reads == [(0, False)]  # the full read from line 1 names what changed


def test_a_new_process_reads_from_line_1_when_the_index_end_is_far_back(
        store: SqlStore, tmp_path: Path, monkeypatch: pytest.MonkeyPatch) -> None:
    path = tmp_path / "asks.jsonl"
    _append(path, 4)
    index_book(store, path, "asks")
    _append(path, 30, start=10)
    monkeypatch.setattr(rebuild_mod, "TAIL_BYTES", 200)  # the index's last line lies further back
    monkeypatch.setattr(tail, "BACK_BLOCK", 64)
    reads = _new_process(monkeypatch)
    assert index_book(store, path, "asks") == 30
    assert reads == [(0, False)]
    assert store.last_indexed("asks")[0] == 34


def test_a_new_process_refuses_a_torn_tail_and_a_bad_new_line(store: SqlStore, tmp_path: Path,
                                                               monkeypatch: pytest.MonkeyPatch) -> None:
    path = tmp_path / "asks.jsonl"
    _append(path, 3)
    index_book(store, path, "asks")
    _append(path, 2, start=10)
    good = path.read_bytes()
    path.write_bytes(good + b'{"torn')
    _new_process(monkeypatch)
    with pytest.raises(ChainBroken, match="torn line"):
        index_book(store, path, "asks")
    path.write_bytes(good.replace(b'"i":11', b'"i":12'))
    _new_process(monkeypatch)
    with pytest.raises(ChainBroken) as info:
        index_book(store, path, "asks")
    assert info.value.line == 5 and store.last_indexed("asks")[0] == 3
