"""The synthetic league generator (benchmarks/synth_league.py) writes a league the real code accepts.

A tiny league (3 sessions × 2 seats): every line of both books fits its typed model, both chains verify,
and the database index holds exactly the book's lines, kind by kind. No timing here (the figures are
benchmarks/growth_bench.py's, in docs/costs.md).
"""

from __future__ import annotations

import hashlib
import json
import sqlite3
import sys
from collections import Counter
from pathlib import Path

import pytest
from sqlalchemy import text

from league.book.chain import iter_lines
from league.book.lines import ForeignLine, check_book, read_line
from league.config import load_config
from league.store import open_store
from league.verify.chain import verify

BENCHMARKS = Path(__file__).resolve().parents[3] / "benchmarks"


@pytest.fixture(scope="module")
def synth(tmp_path_factory: pytest.TempPathFactory):  # type: ignore[no-untyped-def]
    sys.path.insert(0, str(BENCHMARKS))
    try:
        import synth_league
    finally:
        sys.path.remove(str(BENCHMARKS))
    out = tmp_path_factory.mktemp("synth") / "league"
    report = synth_league.write_league(out, synth_league.Size.of(sessions=3, seats=2, seed=11))
    return out, report


def books(out: Path) -> dict[str, Path]:
    folder = out / "data" / "books"
    return {"council-book": folder / "council-book.jsonl", "asks": folder / "asks.jsonl"}


def test_every_line_fits_its_typed_model(synth) -> None:  # type: ignore[no-untyped-def]
    out, _ = synth
    for path in books(out).values():
        counts, problems = check_book(path)
        assert problems == []
        assert sum(counts.values()) > 0
        assert not [ln.n for ln in iter_lines(path) if isinstance(read_line(ln.content), ForeignLine)]


def test_the_day_s_shapes_are_all_there(synth) -> None:  # type: ignore[no-untyped-def]
    out, report = synth
    kinds = Counter(ln.kind for ln in iter_lines(books(out)["council-book"]))
    assert kinds["opening"] == 1 and kinds["rules"] == 2
    for kind in ("run", "ingest_close", "score"):
        assert kinds[kind] == len(report.sessions) == 3
    assert kinds["answer"] == 3 * 2
    assert kinds["crowd"] > 0 and kinds["mark"] > 0 and kinds["decision"] > 0
    asks = Counter(ln.kind for ln in iter_lines(books(out)["asks"]))
    assert asks == {"counting_rule": 1, "roster": 3, "ask": 6}
    first_score = next(ln for ln in iter_lines(books(out)["council-book"]) if ln.kind == "score")
    assert {r["status"] for r in first_score.content["seats"]} == {"counted"}
    assert all(m["status"] == "resolved" for m in first_score.content["markets"])


def test_both_chains_verify(synth) -> None:  # type: ignore[no-untyped-def]
    out, report = synth
    for name, path in books(out).items():
        result = verify(path)
        assert result.ok, (name, result.bad_line, result.reason)
        assert result.lines == report.lines[name]


def test_the_database_index_matches_the_books(synth) -> None:  # type: ignore[no-untyped-def]
    out, _ = synth
    config = load_config(out / "config")
    store = open_store(config.database_url)
    try:
        with store.engine.connect() as conn:
            rows = conn.execute(text("SELECT book, kind, count(*) FROM book_lines GROUP BY book, kind")).all()
            jobs = conn.execute(text("SELECT count(*) FROM job_runs WHERE status = 'done'")).scalar_one()
    finally:
        store.close()
    indexed = {(book, kind): n for book, kind, n in rows}
    expected = {(name, kind): n for name, path in books(out).items()
                for kind, n in Counter(ln.kind for ln in iter_lines(path)).items()}
    assert indexed == expected
    assert jobs > 0


def test_the_size_key_names_length_width_and_seed() -> None:
    sys.path.insert(0, str(BENCHMARKS))
    try:
        import synth_league
    finally:
        sys.path.remove(str(BENCHMARKS))
    assert synth_league.Size.of(years=5, seats=100).key == "s1260-w100-seed7"
    assert synth_league.Size.of(sessions=3, seats=2, seed=11).label == "3 sessions × 2 seats"
    assert json.loads(json.dumps(synth_league.Size.of(years=1).key)) == "s252-w14-seed7"


def _synth_module():  # type: ignore[no-untyped-def]
    sys.path.insert(0, str(BENCHMARKS))
    try:
        import synth_league
    finally:
        sys.path.remove(str(BENCHMARKS))
    return synth_league


def test_the_contract_memo_answers_what_the_contract_does_and_is_put_back() -> None:
    from league.contracts import CONTRACT_KEYS, EventContract
    from league.errors import InvalidRecord

    synth_league = _synth_module()
    plain = {name: EventContract.__dict__[name] for name in synth_league.ContractMemo.NAMES}
    fields = {"asset": "SPX", "horizon": "1w", "reference_at": "2026-01-05T14:30:00Z",
              "end_at": "2026-01-12T21:00:00Z", "rule": "close_strictly_above_reference",
              "resolver_version": "league-resolver-1", "reference_rule": "first 1-minute bar",
              "price_provider": "synthetic", "price_symbol": "^GSPC", "extra": "ignored"}
    outside = EventContract.from_mapping(fields)
    expected = (outside.event_id, outside.event_id_v2, outside.as_dict())
    with synth_league.ContractMemo():
        for _ in range(2):  # the second answer comes from the memo
            inside = EventContract.from_mapping(fields)
            assert inside == outside
            assert (inside.event_id, inside.event_id_v2, inside.as_dict()) == expected
        inside.as_dict()["asset"] = "changed"  # a caller's dict is its own, as asdict's is
        assert inside.as_dict() == expected[2]
        with pytest.raises(InvalidRecord):  # a bad mapping still meets the real reader's errors
            EventContract.from_mapping({k: fields[k] for k in CONTRACT_KEYS[:3]})
    assert {name: EventContract.__dict__[name] for name in synth_league.ContractMemo.NAMES} == plain


def test_the_ask_chain_finds_a_run_s_roster_without_reading_the_chain(tmp_path: Path) -> None:
    from datetime import UTC, datetime

    from league.clock import SimulatedClock
    from league_agents.base import SeatSpec

    synth_league = _synth_module()
    clock = SimulatedClock(datetime(2026, 1, 5, 13, 30, tzinfo=UTC))
    chain = synth_league.NewRunsAskChain(tmp_path / "asks.jsonl", clock, "the 08:30 run counts")
    seat = SeatSpec(name="seat-000", adapter="scripted", model="m", family="f")
    args = ({"SPX": ["1d"]}, clock.now(), clock.now(), "none", "counted")
    try:
        first = chain.seal_roster("2026-01-05-r1", "2026-01-05", [seat], *args)
        again = chain.seal_roster("2026-01-05-r1", "2026-01-05", [seat], *args)  # a restart's re-seal
        chain.seal_roster("2026-01-06-r1", "2026-01-06", [seat], *args)
        assert again is first and chain.book.lines == 3  # counting rule + two rosters, no duplicate
        assert chain.roster_of("2026-01-05-r1") is None  # only the current session is kept
        assert chain.roster_of("2026-01-06-r1") is not None
    finally:
        chain.close()


def _digest(out: Path) -> dict[str, str]:
    """SHA-256 of both books and of every database table's rows (sorted), the job ledger without its owner
    (host and process id of the writer, which differ from run to run)."""
    found = {name: hashlib.sha256(path.read_bytes()).hexdigest() for name, path in books(out).items()}
    db = sqlite3.connect(out / "data" / "league.db")
    try:
        for (table,) in db.execute("SELECT name FROM sqlite_master WHERE type = 'table' ORDER BY name"):
            names = [r[1] for r in db.execute(f'PRAGMA table_info("{table}")') if r[1] != "owner"]
            columns = ", ".join(f'"{c}"' for c in names)
            rows = sorted(repr(r) for r in db.execute(f'SELECT {columns} FROM "{table}"'))
            found[f"table {table}"] = hashlib.sha256("\n".join(rows).encode()).hexdigest()
    finally:
        db.close()
    return found


def test_the_index_fed_while_writing_equals_the_index_read_back_from_the_books(
        tmp_path: Path, monkeypatch: pytest.MonkeyPatch) -> None:
    """The generator's index (BookFeed, the sealed lines handed to Store.index_lines in batches) holds the
    rows ``index_book`` derives from the books afterwards: the same books byte for byte, the same tables.
    Small batches, so that several are indexed mid-season and the lines sealed before the feed (the opening,
    the counting rule) go through the file."""
    synth_league = _synth_module()
    monkeypatch.setattr(synth_league.BookFeed, "BATCH", 25)
    size = synth_league.Size.of(sessions=4, seats=3, seed=5)
    read_back: list[int] = []
    real = synth_league.index_book
    monkeypatch.setattr(synth_league, "index_book",
                        lambda store, path, name=None: read_back.append(real(store, path, name)) or read_back[-1])
    fed = synth_league.write_league(tmp_path / "fed", size)
    # the first batch follows the lines sealed before the feed: it is read from the file; the others are not
    assert 0 < sum(read_back) < sum(fed.lines.values()) // 2
    after = synth_league.write_league(tmp_path / "after", size, index=False)
    synth_league.index_store(load_config(tmp_path / "after" / "config"),
                             [synth_league.date.fromisoformat(d) for d in after.sessions])
    assert fed.lines == after.lines
    digest = _digest(tmp_path / "fed")
    assert digest == _digest(tmp_path / "after")
    assert {"council-book", "asks", "table book_lines", "table cells", "table trades"} <= set(digest)


def test_a_batch_that_does_not_follow_the_index_is_indexed_from_the_file(tmp_path: Path) -> None:
    """A batch whose first line is not the one after the index's last (here: the index is empty, the batch
    starts at line 2) is not indexed as given: the book file is, from where the index ends."""
    synth_league = _synth_module()
    out = tmp_path / "league"
    synth_league.write_league(out, synth_league.Size.of(sessions=1, seats=2, seed=3), index=False)
    config = load_config(out / "config")
    store = open_store(config.database_url)
    try:
        path = books(out)["council-book"]
        feed = synth_league.BookFeed(store, path.parent)
        for line in list(iter_lines(path))[1:]:
            feed.add("council-book", line)
        feed.flush()
        assert store.last_indexed("council-book")[0] == sum(1 for _ in iter_lines(path))
        assert store.last_indexed("asks")[0] == 0  # nothing pending for it: not read
    finally:
        store.close()


def test_the_anchor_seals_every_line_of_both_books_and_leaves_nothing_behind(synth, tmp_path: Path) -> None:  # type: ignore[no-untyped-def]
    out, _ = synth
    scratch = tmp_path / "scratch"
    scratch.mkdir()
    row = _synth_module().anchor_report(out, 12.5, scratch)
    assert row["anchor_lines"] == sum(len(p.read_bytes().splitlines()) for p in books(out).values())
    assert row["generator_cpu_s"] == 12.5 and row["anchor_cpu_s"] >= 0 and row["ratio"] > 0
    assert list(scratch.iterdir()) == []
    cached = _synth_module().anchor_report(out, None, scratch)
    assert cached["generator_cpu_s"] is None and cached["ratio"] is None and "cached" in cached["note"]
