"""Contract tests of the storage port; every test runs on SQLite and on the real PostgreSQL."""

from __future__ import annotations

import multiprocessing
from datetime import UTC, date, datetime, timedelta
from pathlib import Path

import pytest
from alembic.autogenerate import compare_metadata
from alembic.runtime.migration import MigrationContext

from league.book import Book
from league.clock import SimulatedClock
from league.store import CachedBar, Stamp, Store, StoreError, index_book, open_store
from league.store.migrate import downgrade_engine, head_revision, upgrade_engine
from league.store.models import metadata
from league.store.sql import SqlStore
from league.store.testing import claim_and_die, claim_in_child

T0 = datetime(2026, 11, 27, 14, 30, tzinfo=UTC)
DAY = date(2026, 11, 27)


# ------------------------------------------------------------------------ schema
def test_store_is_the_port_and_at_head(store: SqlStore) -> None:
    assert isinstance(store, Store)
    assert store.revision() == "0003" == head_revision()


def test_migrated_schema_equals_the_models(store: SqlStore) -> None:
    with store.engine.connect() as conn:
        diff = compare_metadata(MigrationContext.configure(conn, opts={"compare_type": True}), metadata)
    assert diff == []


def test_downgrade_then_upgrade_again(store: SqlStore) -> None:
    downgrade_engine(store.engine, "base")
    assert store.revision() is None
    upgrade_engine(store.engine)
    assert store.revision() == "0003"
    assert store.counts()["job_runs"] == 0


def test_open_store_twice_is_idempotent(store_url: str) -> None:
    a = open_store(store_url)
    b = open_store(store_url)
    assert a.revision() == b.revision() == "0003"
    a.close()
    b.close()


# ------------------------------------------------------------------------ price cache
def _bar(minute: int, close: float, volume: float = 100.0) -> CachedBar:
    return CachedBar(T0 + timedelta(minutes=minute), close - 1, close + 1, close - 2, close, volume)


def test_bars_round_trip_exactly(store: SqlStore) -> None:
    odd = CachedBar(T0 + timedelta(minutes=2), 1.1, 3.3000000000000003, 0.1, 2.9999999999999996, 12345.5)
    bars = [_bar(0, 6012.25), _bar(1, 6013.5, 0.0), odd]
    assert store.put_bars("^GSPC", bars) == 3
    got = store.get_bars("^GSPC", T0, T0 + timedelta(minutes=3))
    assert [(b.start, b.open, b.high, b.low, b.close, b.volume) for b in got] == [
        (T0, 6011.25, 6013.25, 6010.25, 6012.25, 100.0),
        (T0 + timedelta(minutes=1), 6012.5, 6014.5, 6011.5, 6013.5, 0.0),
        (T0 + timedelta(minutes=2), 1.1, 3.3000000000000003, 0.1, 2.9999999999999996, 12345.5),
    ]
    assert all(b.start.tzinfo is not None and b.start.utcoffset() == timedelta(0) for b in got)


def test_bar_range_is_half_open_and_per_symbol(store: SqlStore) -> None:
    store.put_bars("^GSPC", [_bar(m, 100 + m) for m in range(5)])
    store.put_bars("BTC-USD", [_bar(m, 90000 + m) for m in range(5)])
    got = store.get_bars("^GSPC", T0 + timedelta(minutes=1), T0 + timedelta(minutes=3))
    assert [b.close for b in got] == [101, 102]
    assert store.get_bars("^NDX", T0, T0 + timedelta(hours=1)) == []


def test_bars_in_another_zone_are_stored_in_utc(store: SqlStore) -> None:
    from zoneinfo import ZoneInfo

    et = datetime(2026, 11, 27, 9, 30, tzinfo=ZoneInfo("America/New_York"))
    store.put_bars("^GSPC", [CachedBar(et, 1.0, 2.0, 0.5, 1.5, 7.0)])
    (got,) = store.get_bars("^GSPC", T0, T0 + timedelta(minutes=1))
    assert got.start == datetime(2026, 11, 27, 14, 30, tzinfo=UTC)


def test_refetched_bar_replaces_the_cached_one(store: SqlStore) -> None:
    store.put_bars("^GSPC", [_bar(0, 100.0, 5)])
    store.put_bars("^GSPC", [_bar(0, 101.0, 9)])
    (got,) = store.get_bars("^GSPC", T0, T0 + timedelta(minutes=1))
    assert (got.close, got.volume) == (101.0, 9.0)
    assert store.counts()["price_bars"] == 1


def test_naive_bar_is_refused_and_nothing_is_written(store: SqlStore) -> None:
    naive = type("B", (), {"start": datetime(2026, 11, 27, 14, 30), "open": 1, "high": 1, "low": 1,  # noqa: DTZ001
                           "close": 1, "volume": 1})()
    with pytest.raises(StoreError, match="naive"):
        store.put_bars("^GSPC", [_bar(0, 10.0), naive])
    assert store.counts()["price_bars"] == 0


def test_invalid_bar_is_refused(store: SqlStore) -> None:
    bad = type("B", (), {"start": T0, "open": 10.0, "high": 9.0, "low": 8.0, "close": 10.0, "volume": 1.0})()
    with pytest.raises(StoreError, match="bracket"):
        store.put_bars("^GSPC", [bad])


def test_bars_come_back_as_the_prices_bar(store: SqlStore) -> None:
    from league.prices.interface import Bar

    store.put_bars("^GSPC", [Bar(T0, 10.0, 11.0, 9.0, 10.5, 3.0)])
    (got,) = store.get_bars("^GSPC", T0, T0 + timedelta(minutes=1))
    assert isinstance(got, Bar) and got == Bar(T0, 10.0, 11.0, 9.0, 10.5, 3.0)


def test_day_cache_serves_only_complete_days(store: SqlStore) -> None:
    from league.store.bar_cache import DbBarCache

    cache = DbBarCache(store)
    cache.put_bars("^GSPC", DAY, [_bar(0, 100.0), _bar(1, 101.0)], complete=False)
    assert cache.get_bars("^GSPC", DAY) is None
    cache.put_bars("^GSPC", DAY, [_bar(0, 100.5)], complete=True)
    got = cache.get_bars("^GSPC", DAY)
    assert got is not None and [(b.start, b.close) for b in got] == [(T0, 100.5)]
    assert store.counts()["price_bars"] == 1
    assert cache.get_bars("^GSPC", DAY + timedelta(days=1)) is None


def test_day_cache_refuses_a_bar_of_another_day(store: SqlStore) -> None:
    with pytest.raises(StoreError, match="not inside UTC day"):
        store.put_day("^GSPC", DAY - timedelta(days=1), [_bar(0, 100.0)], complete=True)
    assert store.counts()["price_days"] == 0


# ------------------------------------------------------------------------ job bookkeeping
def test_two_claims_give_one_true(store: SqlStore) -> None:
    assert [store.claim_job(DAY, "ask", T0), store.claim_job(DAY, "ask", T0)] == [True, False]
    assert store.claim_job(DAY, "score", T0) is True
    assert store.claim_job(DAY + timedelta(days=1), "ask", T0) is True


def test_done_job_is_never_claimed_again(store: SqlStore) -> None:
    assert store.claim_job(DAY, "score", T0)
    store.finish_job(DAY, "score", "done", "scored 12 markets", T0 + timedelta(minutes=2))
    assert not store.claim_job(DAY, "score", T0 + timedelta(days=3), stale_after=timedelta(seconds=1))
    (run,) = store.job_history()
    assert (run.status, run.detail, run.finished_at, run.attempts) == (
        "done", "scored 12 markets", T0 + timedelta(minutes=2), 1)


def test_failed_job_can_be_claimed_again(store: SqlStore) -> None:
    assert store.claim_job(DAY, "snapshot", T0)
    store.finish_job(DAY, "snapshot", "failed", "provider down", T0 + timedelta(minutes=1))
    assert store.claim_job(DAY, "snapshot", T0 + timedelta(minutes=5))
    assert not store.claim_job(DAY, "snapshot", T0 + timedelta(minutes=6))
    (run,) = store.job_history(session=DAY)
    assert (run.status, run.attempts, run.started_at, run.finished_at, run.detail) == (
        "started", 2, T0 + timedelta(minutes=5), None, "")


def test_stale_started_job_can_be_reclaimed(store: SqlStore) -> None:
    assert store.claim_job(DAY, "ask", T0)
    assert not store.claim_job(DAY, "ask", T0 + timedelta(minutes=59), stale_after=timedelta(hours=1))
    assert store.claim_job(DAY, "ask", T0 + timedelta(hours=1), stale_after=timedelta(hours=1))


def test_finish_without_claim_is_an_error(store: SqlStore) -> None:
    with pytest.raises(StoreError, match="not running"):
        store.finish_job(DAY, "publish", "done", "", T0)
    store.claim_job(DAY, "publish", T0)
    with pytest.raises(StoreError, match="'done' or 'failed'"):
        store.finish_job(DAY, "publish", "started", "", T0)
    store.finish_job(DAY, "publish", "done", "", T0)
    with pytest.raises(StoreError, match="not running"):
        store.finish_job(DAY, "publish", "done", "", T0)


def test_job_history_newest_first_and_filtered(store: SqlStore) -> None:
    store.claim_job(DAY, "snapshot", T0)
    store.claim_job(DAY, "ask", T0 + timedelta(minutes=5))
    store.claim_job(DAY + timedelta(days=3), "snapshot", T0 + timedelta(days=3))
    assert [(r.session, r.job) for r in store.job_history()] == [
        (DAY + timedelta(days=3), "snapshot"), (DAY, "ask"), (DAY, "snapshot")]
    assert [r.job for r in store.job_history(session=DAY, limit=1)] == ["ask"]


def test_claim_across_two_engines(store_url: str) -> None:
    a, b = open_store(store_url), open_store(store_url)
    try:
        assert a.engine is not b.engine
        assert [a.claim_job(DAY, "ask", T0), b.claim_job(DAY, "ask", T0)] == [True, False]
        a.finish_job(DAY, "ask", "done", "", T0)
        assert b.job_history()[0].status == "done"
    finally:
        a.close()
        b.close()


def test_concurrent_claims_in_processes_give_one_true(store_url: str) -> None:
    ctx = multiprocessing.get_context("fork")
    workers = 4
    barrier, results = ctx.Barrier(workers), ctx.Queue()
    procs = [ctx.Process(target=claim_in_child, args=(store_url, DAY, "score", T0, barrier, results))
             for _ in range(workers)]
    for p in procs:
        p.start()
    for p in procs:
        p.join(60)
    outcomes = sorted(results.get(timeout=10) for _ in procs)
    assert [p.exitcode for p in procs] == [0] * workers
    assert outcomes == [False, False, False, True]


def test_job_of_a_crashed_process_can_be_reclaimed(store: SqlStore) -> None:
    ctx = multiprocessing.get_context("fork")
    child = ctx.Process(target=claim_and_die, args=(store.url, DAY, "score", T0))
    child.start()
    child.join(60)
    (run,) = store.job_history()
    assert run.status == "started" and run.owner.endswith(f":{child.pid}")
    assert store.claim_job(DAY, "score", T0 + timedelta(seconds=1))
    assert store.job_history()[0].attempts == 2


# ------------------------------------------------------------------------ stamps
def test_stamps_round_trip(store: SqlStore) -> None:
    sha = "ab" * 32
    a = Stamp(T0, sha, "ots", "pending", "2", "calendar a.pool")
    b = Stamp(T0 + timedelta(seconds=3), sha, "rfc3161:freetsa", "ok", "2+")
    store.record_stamp(b)
    store.record_stamp(a)
    store.record_stamp(Stamp(T0, "cd" * 32, "rekor", "failed", "1", "timeout"))
    assert store.stamps(list_sha256=sha) == [a, b]
    assert len(store.stamps()) == 3


@pytest.mark.parametrize("bad", [
    {"list_sha256": "XYZ"}, {"trust_level": "3"}, {"backend": ""},
    {"taken_at": datetime(2026, 1, 1)},  # noqa: DTZ001
])
def test_invalid_stamp_is_refused_on_construction(bad: dict[str, object]) -> None:
    fields: dict[str, object] = {"taken_at": T0, "list_sha256": "ab" * 32, "backend": "ots", "status": "ok",
                                 "trust_level": "2"}
    with pytest.raises(ValueError):
        Stamp(**{**fields, **bad})  # type: ignore[arg-type]


# ------------------------------------------------------------------------ status queries
def _book_with_two_sessions(path: Path) -> None:
    clock = SimulatedClock(datetime(2026, 11, 25, 13, 25, tzinfo=UTC))
    with Book(path, clock) as book:
        book.append("run", {"run_id": "r1", "session": "2026-11-25", "role": "counted", "ask_sha256": "a1"})
        book.append("answer", {"seat": "claude", "run_id": "r1", "model": "m", "version": "v1", "status": "counted",
                               "attempt": 1, "booked_at": "2026-11-25T13:31:00Z",
                               "items": {"SPX": {"1d": {"prob_up": 60}, "1w": {"prob_up": 55}}}})
        book.append("answer", {"seat": "_coin", "run_id": "r1", "items": {"SPX": {"1d": {"prob_up": 50}}}})
        book.append("run", {"run_id": "r1b", "session": "2026-11-25", "role": "not_counted"})
        clock.advance(timedelta(days=1))
        book.append("run", {"run_id": "r2", "session": "2026-11-26", "role": "counted", "ask_sha256": "a2"})
        book.append("answer", {"seat": "claude", "run_id": "r2", "model": "m", "version": "v2", "status": "counted",
                               "attempt": 2, "items": {"SPX": {"1d": {"prob_up": 70}}, "BTC": {"1d": {"prob_up": 40}},
                                                       "NDX": {"years": "not a cell"}}})


def test_last_run_per_session_and_last_answer_per_seat(store: SqlStore, tmp_path: Path) -> None:
    _book_with_two_sessions(tmp_path / "council-book.jsonl")
    assert index_book(store, tmp_path / "council-book.jsonl") == 6
    runs = store.last_runs()
    assert [(r.session, r.run_id, r.role, r.line) for r in runs] == [
        (date(2026, 11, 26), "r2", "counted", 5), (date(2026, 11, 25), "r1b", "not_counted", 4)]
    answers = {a.seat: a for a in store.last_answers()}
    assert sorted(answers) == ["_coin", "claude"]
    claude = answers["claude"]
    assert (claude.run_id, claude.session, claude.line, claude.version, claude.attempt, claude.cells) == (
        "r2", date(2026, 11, 26), 6, "v2", 2, 2)
    assert claude.at == datetime(2026, 11, 26, 13, 25, tzinfo=UTC)
    coin = answers["_coin"]
    assert (coin.run_id, coin.session, coin.line, coin.status, coin.model, coin.cells) == (
        "r1", date(2026, 11, 25), 3, None, None, 1)


def test_empty_store_has_no_status(store: SqlStore) -> None:
    assert store.last_runs() == [] and store.last_answers() == [] and store.job_history() == []
    assert store.last_indexed("council-book") == (0, "")


#: (kind, session) of each line of the window test's book, in book order: old sessions sealed late (as a
#: six-month score line is), lines without a session, a sticky kind ("memo") in old and new sessions.
WINDOW_BOOK = [("note", "2026-01-05"), ("memo", "2026-01-05"), ("note", None), ("zeta", "2026-02-02"),
               ("note", "2026-03-02"), ("zeta", "2026-01-05"), ("memo", "2026-03-03"), ("note", "2026-01-06"),
               ("zeta", None), ("note", "2026-03-04"), ("memo", "2026-01-07"), ("zeta", "2026-03-05"),
               ("note", "2026-03-05")]


@pytest.mark.parametrize(("cutoff", "upto"), [("2026-03-01", 13), ("2026-03-01", 11), ("2026-01-06", 12),
                                              ("2027-01-01", 13)])
def test_the_window_is_its_sessions_the_sessionless_and_the_sticky_in_book_order(
        store: SqlStore, tmp_path: Path, monkeypatch: pytest.MonkeyPatch, cutoff: str, upto: int) -> None:
    import league.store.sql as sql

    monkeypatch.setattr(sql, "WINDOW_BATCH", 2)  # lines read a few at a time: the batches keep book order
    path = tmp_path / "council-book.jsonl"
    with Book(path, SimulatedClock(datetime(2026, 3, 6, 14, 0, tzinfo=UTC))) as book:
        for i, (kind, session) in enumerate(WINDOW_BOOK):
            book.append(kind, {"i": i} | ({"session": session} if session else {}))
    index_book(store, path)
    got = [(b["n"], b["i"]) for b in store.book_window("council-book", cutoff=cutoff, sticky={"memo"}, upto=upto)]
    expected = [(n, n - 1) for n, (kind, session) in enumerate(WINDOW_BOOK, 1)
                if n <= upto and (session is None or session >= cutoff or kind == "memo")]
    assert got == expected
