"""Rebuild the index from real books and a price-cache folder, on SQLite and PostgreSQL.

Expected rows are written out by hand from the lines this test seals, not computed by the indexer.
"""

from __future__ import annotations

import json
import shutil
from datetime import UTC, date, datetime, timedelta
from pathlib import Path
from typing import Any

import pytest
from sqlalchemy import select, text
from typer.testing import CliRunner

from league.book import Book
from league.clock import SimulatedClock
from league.errors import ChainBroken
from league.store import Stamp, StoreError, index_book, open_store, rebuild
from league.store.models import metadata
from league.store.sql import SqlStore

S1 = "2026-11-25"
D1 = date(2026, 11, 25)
T_RUN = datetime(2026, 11, 25, 13, 25, tzinfo=UTC)
A1 = "a1" * 32
A2 = "b2" * 32


def write_books(data: Path) -> None:
    clock = SimulatedClock(T_RUN)
    with Book(data / "books" / "asks.jsonl", clock) as asks:
        asks.append("counting_rule", {"rule": "the scheduled morning run counts"})
        asks.append("roster", {"run_id": "r1", "session": S1, "role": "counted", "seats": [{"seat": "claude"}]})
        asks.append("ask", {"run_id": "r1", "session": S1, "seat": "claude", "attempt": 1, "ask_sha256": A1})
        asks.append("ask", {"run_id": "r1", "session": S1, "seat": "_coin", "attempt": 1, "ask_sha256": A2})
    with Book(data / "books" / "council-book.jsonl", clock) as book:
        book.append("run", {"run_id": "r1", "session": S1, "role": "counted", "ask_sha256": "c" * 64,
                            "snapshot_sha256": "d" * 64, "roster": ["claude", "_coin"]})
        clock.advance(timedelta(minutes=6))
        book.append("answer", {"seat": "claude", "model": "claude-x", "version": "4.5", "mode": "high",
                               "run_id": "r1", "attempt": 1, "status": "counted", "ask_sha256": A1,
                               "own_sha256": "e" * 64, "booked_at": "2026-11-25T13:31:00Z", "years": {},
                               "items": {"SPX": {"1d": {"prob_up": 57, "action": "hold", "cell_status": "elicited"},
                                                 "1w": {"prob_up": 50, "action": "buy_dips",
                                                        "cell_status": "explicit_50"}},
                                         "BTC": {"1d": {"prob_up": 42.5, "action": "trim",
                                                        "cell_status": "elicited"}}}})
        book.append("answer", {"seat": "_coin", "run_id": "r1", "attempt": 1, "status": "refused_shape",
                               "ask_sha256": A2, "own_sha256": "f" * 64, "items": {}, "failure": "no JSON"})
        clock.advance(timedelta(hours=7))
        book.append("score", {"session": S1, "of": [2, 3],
                              "markets": [{"market": "SPX", "horizon": "1d", "reference": 6000.0, "close": 6030.0,
                                           "change_pct": 0.5, "draw": False, "up": True, "late_ref": False},
                                          {"market": "BTC", "horizon": "1d", "reference": 90000.0,
                                           "close": 89000.0, "change_pct": -1.111, "draw": False, "up": False}],
                              "seats": [{"seat": "claude", "market": "SPX", "horizon": "1d", "prob_up": 57,
                                         "outcome": 1, "brier": 0.1849, "status": "counted", "line": 2},
                                        {"seat": "claude", "market": "BTC", "horizon": "1d", "prob_up": 42.5,
                                         "outcome": 0, "brier": 0.180625, "status": "counted", "line": 2}]})
        book.append("trade", {"account": "claude", "session": S1, "fund": "SPY", "qty": 2})


def write_prices(data: Path) -> None:
    spx = data / "prices" / "^GSPC"
    spx.mkdir(parents=True)
    (spx / f"{S1}.jsonl").write_text(
        '{"t":"2026-11-25T14:30:00Z","o":6000.0,"h":6001.5,"l":5999.0,"c":6001.0,"v":0}\n'
        '{"t":"2026-11-25T14:31:00Z","o":6001.0,"h":6003.0,"l":6000.5,"c":6002.25,"v":null}\n'
        '\n'
        '{"t":"2026-11-25T20:59:00Z","o":6029.0,"h":6031.0,"l":6028.0,"c":6030.0,"v":12}\n', encoding="utf-8")
    (spx / f"{S1}.complete").write_text('{"bars": 3}\n', encoding="utf-8")
    btc = data / "prices" / "BTC-USD"
    btc.mkdir(parents=True)
    (btc / f"{S1}.jsonl").write_text(
        '{"t":"2026-11-25T13:31:00Z","o":90010,"h":90020,"l":89990,"c":90000,"v":3.5}\n', encoding="utf-8")


@pytest.fixture
def data(tmp_path: Path) -> Path:
    folder = tmp_path / "data"
    write_books(folder)
    write_prices(folder)
    return folder


def rows(store: SqlStore, table: str, *cols: str) -> list[tuple[Any, ...]]:
    t = metadata.tables[table]
    stmt = select(*[t.c[c] for c in cols]).order_by(*[t.c[c] for c in cols])
    with store.engine.connect() as conn:
        return [tuple(r) for r in conn.execute(stmt)]


EXPECTED: dict[str, tuple[tuple[str, ...], list[tuple[Any, ...]]]] = {
    "book_lines": (("book", "n", "kind", "session", "run_id", "seat"), [
        ("asks", 1, "counting_rule", None, None, None),
        ("asks", 2, "roster", D1, "r1", None),
        ("asks", 3, "ask", D1, "r1", "claude"),
        ("asks", 4, "ask", D1, "r1", "_coin"),
        ("council-book", 1, "run", D1, "r1", None),
        ("council-book", 2, "answer", D1, "r1", "claude"),
        ("council-book", 3, "answer", D1, "r1", "_coin"),
        ("council-book", 4, "score", D1, None, None),
        ("council-book", 5, "trade", D1, None, None),
    ]),
    "runs": (("run_id", "session", "role", "ask_sha256", "snapshot_sha256", "line", "at"), [
        ("r1", D1, "counted", "c" * 64, "d" * 64, 1, T_RUN)]),
    "asks": (("seat", "ask_sha256", "run_id", "attempt", "line"), [
        ("_coin", A2, "r1", 1, 4), ("claude", A1, "r1", 1, 3)]),
    "cells": (("run_id", "session", "seat", "line", "market", "horizon", "prob_up", "action", "cell_status",
               "row_status"), [
        ("r1", D1, "claude", 2, "BTC", "1d", 42.5, "trim", "elicited", "counted"),
        ("r1", D1, "claude", 2, "SPX", "1d", 57.0, "hold", "elicited", "counted"),
        ("r1", D1, "claude", 2, "SPX", "1w", 50.0, "buy_dips", "explicit_50", "counted"),
    ]),
    "score_markets": (("session", "market", "horizon", "reference", "close", "change_pct", "draw", "up",
                       "late_ref"), [
        (D1, "BTC", "1d", 90000.0, 89000.0, -1.111, False, False, None),
        (D1, "SPX", "1d", 6000.0, 6030.0, 0.5, False, True, None),
    ]),
    "scores": (("session", "horizon", "market", "seat", "prob", "outcome", "brier", "status", "answer_line"), [
        (D1, "1d", "BTC", "claude", 42.5, 0, 0.180625, "counted", 2),
        (D1, "1d", "SPX", "claude", 57.0, 1, 0.1849, "counted", 2),
    ]),
    "trades": (("account", "session", "line"), [("claude", D1, 5)]),
    "price_bars": (("symbol", "start", "open", "high", "low", "close", "volume"), [
        ("BTC-USD", datetime(2026, 11, 25, 13, 31, tzinfo=UTC), 90010.0, 90020.0, 89990.0, 90000.0, 3.5),
        ("^GSPC", datetime(2026, 11, 25, 14, 30, tzinfo=UTC), 6000.0, 6001.5, 5999.0, 6001.0, 0.0),
        ("^GSPC", datetime(2026, 11, 25, 14, 31, tzinfo=UTC), 6001.0, 6003.0, 6000.5, 6002.25, 0.0),
        ("^GSPC", datetime(2026, 11, 25, 20, 59, tzinfo=UTC), 6029.0, 6031.0, 6028.0, 6030.0, 12.0),
    ]),
    "price_days": (("symbol", "day", "bars", "complete"), [("BTC-USD", D1, 1, False), ("^GSPC", D1, 3, True)]),
}


def assert_index_matches(store: SqlStore) -> None:
    for table, (cols, expected) in EXPECTED.items():
        assert rows(store, table, *cols) == sorted(expected, key=_sort_key), table


def _sort_key(row: tuple[Any, ...]) -> tuple[Any, ...]:
    return tuple((v is not None, v) for v in row)


def test_rebuild_index_wipe_rebuild(store_url: str, data: Path) -> None:
    report = rebuild(store_url, data)
    assert report.books == {"asks": 4, "council-book": 5}
    assert report.bars == {"BTC-USD": 1, "^GSPC": 3}
    store = open_store(store_url)
    try:
        assert_index_matches(store)
        bodies = {(b, n): body for b, n, body in rows(store, "book_lines", "book", "n", "body")}
        answer_body = json.loads(bodies[("council-book", 2)])
        assert answer_body["own_sha256"] == "e" * 64 and answer_body["kind"] == "answer"
        store.claim_job(D1, "score", T_RUN)
        store.record_stamp(Stamp(T_RUN, "ab" * 32, "ots", "pending", "2"))
        store.wipe_derived()
        assert all(store.counts()[t] == 0 for t in EXPECTED)
        rebuild(store_url, data)
        assert_index_matches(store)
        assert store.counts()["job_runs"] == 1 and store.counts()["stamps"] == 1
    finally:
        store.close()


def test_incremental_index_adds_only_new_lines(store_url: str, data: Path) -> None:
    store = open_store(store_url)
    try:
        book_path = data / "books" / "council-book.jsonl"
        assert index_book(store, book_path) == 5
        assert index_book(store, book_path) == 0
        with Book(book_path, SimulatedClock(T_RUN + timedelta(days=1))) as book:
            book.append("run", {"run_id": "r2", "session": "2026-11-26", "role": "counted"})
            book.append("answer", {"seat": "claude", "run_id": "r2", "status": "counted",
                                   "items": {"SPX": {"1d": {"prob_up": 61, "cell_status": "elicited"}}}})
        assert index_book(store, book_path) == 2
        assert store.last_indexed("council-book")[0] == 7
        assert rows(store, "cells", "run_id", "session", "market", "prob_up")[-1] == (
            "r2", date(2026, 11, 26), "SPX", 61.0)
        assert [r.run_id for r in store.last_runs()] == ["r2", "r1"]
    finally:
        store.close()


def test_replaced_book_is_refused_by_incremental_index(store_url: str, data: Path, tmp_path: Path) -> None:
    store = open_store(store_url)
    try:
        book_path = data / "books" / "council-book.jsonl"
        index_book(store, book_path)
        other = tmp_path / "other.jsonl"
        with Book(other, SimulatedClock(T_RUN)) as book:
            for i in range(6):
                book.append("note", {"i": i})
        shutil.copy(other, book_path)
        with pytest.raises(StoreError, match="differs from the index at line 5"):
            index_book(store, book_path)
    finally:
        store.close()


def _tamper(path: Path, n: int) -> None:
    lines = path.read_bytes().split(b"\n")
    lines[n - 1] = lines[n - 1].replace(b'"counted"', b'"not_counted"', 1)
    path.write_bytes(b"\n".join(lines))


def test_broken_book_is_refused_and_the_index_is_untouched(store_url: str, data: Path) -> None:
    rebuild(store_url, data)
    _tamper(data / "books" / "council-book.jsonl", 2)
    with pytest.raises(ChainBroken) as info:
        rebuild(store_url, data)
    assert info.value.line == 2 and "bad seal" in info.value.message
    assert "council-book.jsonl: line 2" in info.value.message
    store = open_store(store_url)
    try:
        assert_index_matches(store)
    finally:
        store.close()


@pytest.mark.parametrize(("line", "message"), [
    ('{"t":"2026-11-25T21:00:00Z","o":1,"h":0.5,"l":1,"c":1,"v":0}', "bracket"),
    ('{"t":"2026-11-25T21:00:00","o":1,"h":1,"l":1,"c":1,"v":0}', "naive"),
    ('{"t":"2026-11-25T21:00:00Z","o":"1","h":1,"l":1,"c":1,"v":0}', "'o' is '1'"),
    ('{"t":"2026-11-25T21:00:00Z", "o": 1', "not JSON"),
])
def test_bad_price_file_names_file_and_line_and_changes_nothing(
    store_url: str, data: Path, line: str, message: str
) -> None:
    rebuild(store_url, data)
    bad = data / "prices" / "^GSPC" / f"{S1}.jsonl"
    bad.write_text(bad.read_text() + line + "\n")
    with pytest.raises(StoreError, match=message) as info:
        rebuild(store_url, data)
    assert f"{bad}:5" in info.value.message
    store = open_store(store_url)
    try:
        assert_index_matches(store)
    finally:
        store.close()


def test_cli_rebuild(store_url: str, data: Path) -> None:
    from league.cli import app

    result = CliRunner().invoke(app, ["rebuild", "--data", str(data), "--db", store_url])
    assert result.exit_code == 0, result.output
    assert "book council-book: 5 lines indexed" in result.output
    assert "price cache: 4 bars of 2 symbols" in result.output
    store = open_store(store_url)
    try:
        assert_index_matches(store)
    finally:
        store.close()


def test_cli_rebuild_defaults_to_sqlite_in_the_data_folder(data: Path, monkeypatch: pytest.MonkeyPatch) -> None:
    from league.cli import app

    monkeypatch.setenv("LEAGUE_DATA", str(data))
    monkeypatch.delenv("LEAGUE_DB_URL", raising=False)
    result = CliRunner().invoke(app, ["rebuild"])
    assert result.exit_code == 0, result.output
    assert (data / "league.db").exists()
    store = open_store(f"sqlite:///{data / 'league.db'}")
    try:
        assert_index_matches(store)
    finally:
        store.close()


def test_empty_data_folder_is_a_clear_error(store_url: str, tmp_path: Path) -> None:
    with pytest.raises(StoreError, match="nothing to rebuild from"):
        rebuild(store_url, tmp_path)


@pytest.mark.postgres
def test_migrations_upgrade_an_empty_postgresql_database() -> None:
    from league.store import upgrade
    from league.store.migrate import head_revision
    from league.store.testing import pg_unreachable_reason, throwaway_pg_database

    reason = pg_unreachable_reason()
    if reason:
        pytest.skip(reason)
    with throwaway_pg_database("league_migr") as url:
        upgrade(url)
        store = open_store(url, migrate=False)
        try:
            with store.engine.connect() as conn:
                tables = {r[0] for r in conn.execute(text(
                    "SELECT table_name FROM information_schema.tables WHERE table_schema = 'public'"))}
                version = conn.execute(text("SELECT version_num FROM alembic_version")).scalar_one()
        finally:
            store.close()
    assert tables == set(metadata.tables) | {"alembic_version"}
    assert version == head_revision() == "0003"


def test_incremental_index_of_a_broken_book_adds_nothing(store_url: str, data: Path) -> None:
    book_path = data / "books" / "council-book.jsonl"
    _tamper(book_path, 2)
    store = open_store(store_url)
    try:
        with pytest.raises(ChainBroken) as info:
            index_book(store, book_path)
        assert info.value.line == 2
        assert store.last_indexed("council-book") == (0, "")
        assert store.counts()["book_lines"] == 0
    finally:
        store.close()


def test_torn_book_is_refused_with_the_recovery_hint(store_url: str, data: Path) -> None:
    book_path = data / "books" / "council-book.jsonl"
    with open(book_path, "ab") as fh:
        fh.write(b'{"kind":"answer","n":6')
    with pytest.raises(ChainBroken) as info:
        rebuild(store_url, data)
    assert info.value.line == 6 and "torn" in info.value.message
    assert "moved aside" in (info.value.fix or "")


def test_rebuild_tells_each_step_in_order(data: Path, tmp_path: Path) -> None:
    """The progress callback (`league rebuild`'s bar): each book verified, then indexed, then each cached
    price day read, counted first, the last call "done" at the total; the index is the same as without."""
    told: list[tuple[str, int, int]] = []
    url = f"sqlite:///{tmp_path / 'progress.db'}"
    report = rebuild(url, data, progress=lambda name, done, total: told.append((name, done, total)))
    assert [name for name, _, _ in told] == ["verify asks", "verify council-book", "index asks", "index council-book",
                                             f"prices BTC-USD {S1}", f"prices ^GSPC {S1}", "done"]
    assert [done for _, done, _ in told] == list(range(7)) and {total for _, _, total in told} == {6}
    assert report.bars == {"BTC-USD": 1, "^GSPC": 3}


def test_a_bulk_index_leaves_the_planner_an_index_for_one_kind_of_one_session(
        tmp_path: Path, monkeypatch: pytest.MonkeyPatch) -> None:
    """Without the (book, kind, session) index and planner statistics, SQLite read "the trades
    of session D" by walking the whole book through its primary key (to keep ORDER BY n)."""
    import league.store.sql as sql

    monkeypatch.setattr(sql, "ANALYZE_AFTER", 100)
    path = tmp_path / "books" / "council-book.jsonl"
    with Book(path, SimulatedClock(T_RUN)) as book:
        for day in range(60):
            session = (D1 + timedelta(days=day)).isoformat()
            for seat in range(30):
                book.append("trade", {"account": f"s{seat}", "session": session, "fund": "SPY", "qty": 1})
            book.append("note", {"session": session, "text": "one of another kind"})
    store = open_store(f"sqlite:///{tmp_path / 'league.db'}")
    try:
        assert index_book(store, path) == 60 * 31
        with store.engine.connect() as conn:  # type: ignore[attr-defined]
            stats = conn.execute(text("SELECT count(*) FROM sqlite_stat1 WHERE tbl = 'book_lines'")).scalar_one()
            plan = " ".join(str(r[-1]) for r in conn.execute(text(
                "EXPLAIN QUERY PLAN SELECT n FROM book_lines WHERE book = 'council-book' AND kind = 'trade' "
                "AND session = '2026-12-20' ORDER BY n")))
        assert stats > 0
        assert "ix_book_lines_book_kind_session" in plan or "ix_book_lines_session" in plan, plan
        assert len(store.book_lines("council-book", kind="note", session="2026-12-20")) == 1
    finally:
        store.close()
