"""The contest ledger's in-memory index: the file is read once at open, appended lines join as sealed."""

from __future__ import annotations

import json
from datetime import UTC, datetime
from pathlib import Path

import pytest

from league.clock import SimulatedClock
from league.contest import ledger as L
from league.contest.ledger import Ledger
from league.errors import ChainBroken

T0 = datetime(2026, 12, 1, 6, 0, tzinfo=UTC)


def _fill(path: Path) -> None:
    with Ledger(path, SimulatedClock(T0)) as ledger:
        ledger.append(L.SEEN, {"market_ids": ["a"], "first_poll": True})
        ledger.append(L.ROUND_OPEN, {"round_id": 1})
        ledger.append(L.BET, {"round_id": 1, "agent": "x"})
        ledger.append(L.ROUND_OPEN, {"round_id": 2})


def test_reopened_ledger_serves_the_book_by_kind_in_book_order(tmp_path: Path) -> None:
    path = tmp_path / "contest-book.jsonl"
    _fill(path)
    with Ledger(path, SimulatedClock(T0)) as ledger:
        assert [c["round_id"] for c in ledger.contents(L.ROUND_OPEN)] == [1, 2]
        assert [line.n for line in ledger.lines(L.BET, L.ROUND_OPEN)] == [2, 3, 4]
        assert [line.n for line in ledger.lines()] == [1, 2, 3, 4]
        assert ledger.count(L.ROUND_OPEN) == 2 and ledger.count(L.RESOLUTION) == 0


def test_appended_lines_join_the_index_without_rereading_the_file(tmp_path: Path,
                                                                   monkeypatch: pytest.MonkeyPatch) -> None:
    path = tmp_path / "contest-book.jsonl"
    _fill(path)
    with Ledger(path, SimulatedClock(T0)) as ledger:
        def no_reread(_: object) -> None:
            raise AssertionError("the book was read again")

        monkeypatch.setattr(L, "iter_lines", no_reread)
        ledger.append(L.ROUND_OPEN, {"round_id": 3})
        assert [c["round_id"] for c in ledger.contents(L.ROUND_OPEN)] == [1, 2, 3]
        assert [line.n for line in ledger.lines(L.ROUND_OPEN, L.SEEN)] == [1, 2, 4, 5]
    assert sum(1 for _ in path.open()) == 5


def test_a_snapshot_does_not_grow_while_it_is_read(tmp_path: Path) -> None:
    with Ledger(tmp_path / "b.jsonl", SimulatedClock(T0)) as ledger:
        ledger.append(L.SEEN, {"market_ids": ["a"], "first_poll": True})
        seen = []
        for line in ledger.lines(L.SEEN):
            seen.append(line.n)
            ledger.append(L.SEEN, {"market_ids": ["b"], "first_poll": False})
        assert seen == [1]
        assert ledger.count(L.SEEN) == 2


def test_a_tampered_book_is_refused_at_open(tmp_path: Path) -> None:
    path = tmp_path / "contest-book.jsonl"
    _fill(path)
    rows = path.read_text().splitlines()
    obj = json.loads(rows[1])
    obj["round_id"] = 9
    rows[1] = json.dumps(obj, sort_keys=True, separators=(",", ":"))
    path.write_text("\n".join(rows) + "\n")
    with pytest.raises(ChainBroken):
        Ledger(path, SimulatedClock(T0))
    path.write_text("\n".join(rows[:1]) + "\n")  # the failed open left no lock behind
    with Ledger(path, SimulatedClock(T0)) as ledger:
        assert ledger.count(L.SEEN) == 1
