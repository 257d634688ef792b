"""A windowed index that keeps its large lines packed answers exactly as one that keeps every record.

A book of many sessions with large lines (runs with events, answers with many cells, score and longer-horizon
score lines with every market's floats, a kind this version does not know, a known kind whose shape fits no
record) is written through the real writer. Two windowed indexes over it, one packing every line of 256 bytes
or more and one keeping records only, and the whole in-memory index must give the same answer to every
question the jobs ask, before and after the window moves, and the publisher's session keys must be the same.
"""

from __future__ import annotations

import math
import random
import tempfile
from dataclasses import dataclass
from datetime import UTC, date, datetime, timedelta
from pathlib import Path

import pytest

from league import records
from league.book import Book
from league.book.chain import iter_lines
from league.book.index import BookIndex, BookStream, Packed, PackedLines, body_of, pack
from league.clock import SimulatedClock
from league.publish.forecast_cache import session_keys, session_lines

T0 = datetime(2026, 1, 5, 14, 0, tzinfo=UTC)
SESSIONS = [(date(2026, 1, 5) + timedelta(days=7 * i)).isoformat() for i in range(24)]
CUTOFF = SESSIONS[12]
LATER = SESSIONS[18]
SEATS = ("a", "b", "c")
MARKETS = [f"M{i:02d}" for i in range(12)]
PACK_AT = 256

_WRITTEN: dict[str, bytes] = {}


def _float(rng: random.Random) -> float:
    """Floats whose JSON text is long or unusual: a round trip that lost a digit would show."""
    return rng.choice([rng.random(), rng.uniform(-1e6, 1e6), rng.random() * 1e-300, 1 / 3, 0.1 + 0.2, -0.0,
                       float(rng.randint(0, 100)), 2.0 ** 60, 5e-324])


def _seal_book(path: Path) -> None:
    rng = random.Random(7)
    with Book(path, SimulatedClock(T0)) as book:
        book.append("opening", {"league": "council", "markets": [{"code": m} for m in MARKETS]})
        book.append("rules", {"rules": "r1"})
        for s in SESSIONS:
            run_id = f"{s}-r1"
            book.append("run", {"session": s, "run_id": run_id, "role": "counted", "roster": list(SEATS),
                                "crowd": [{"market": m, "p": _float(rng)} for m in MARKETS],
                                "events": {m: {"1d": {"up": _float(rng), "note": "x" * 20}} for m in MARKETS}})
            for seat in SEATS:
                book.append("answer", {"session": s, "run_id": run_id, "seat": seat, "status": "answered",
                                       "items": {m: {"1d": {"prob_up": _float(rng)}, "1w": {"prob_up": _float(rng)}}
                                                 for m in MARKETS}})
            book.append("trade", {"session": s, "seat": "a", "market": "M00", "size": 1.5})
            book.append("incident", {"session": s, "seat": "b", "attempt": 1})
            for kind, horizon in (("score", "1d"), ("score_h", "1w")):
                book.append(kind, {"session": s, "horizon": horizon, "run_id": run_id,
                                   "markets": [{"market": m, "reference": _float(rng),
                                                "rows": [{"seat": x, "brier": _float(rng)} for x in SEATS]}
                                               for m in MARKETS]})
            book.append("mystery", {"session": s, "payload": [_float(rng) for _ in range(40)]})  # a Foreign kind
            book.append("answer", {"session": s, "run_id": f"{s}-r2", "seat": "c", "attempt": "not a number",
                                   "items": {m: {"1d": {"prob_up": 50.0}} for m in MARKETS}})  # fits no record
            if s == SESSIONS[3]:
                book.append("correction", {"session": s, "target": "cell", "of": 4, "reason": "typo"})


def write_book(path: Path) -> None:
    if "book" not in _WRITTEN:
        with tempfile.TemporaryDirectory() as tmp:
            fresh = Path(tmp) / path.name
            _seal_book(fresh)
            _WRITTEN["book"] = fresh.read_bytes()
    path.write_bytes(_WRITTEN["book"])


def windowed(path: Path, cutoff: str, pack_at: int | None) -> BookIndex:
    """The league's windowed index over the book alone (as league.book.startup opens it without a database)."""
    index = BookIndex(cutoff=cutoff, older=BookStream(path), pack_at=pack_at)
    for line in iter_lines(path):
        if index.keeps(body_of(line)):
            index.add(line)
        else:
            index.skip(line.n)
    return index


@pytest.fixture
def book(tmp_path: Path) -> Path:
    path = tmp_path / "council-book.jsonl"
    write_book(path)
    return path


def same_answers(a: BookIndex, b: BookIndex, top: int) -> None:
    """Every question the jobs ask gets the same answer (equal records of the same types) from both."""
    kinds = ("opening", "rules", "run", "answer", "trade", "incident", "score", "score_h", "mystery", "correction")
    for s in (SESSIONS[0], SESSIONS[3], CUTOFF, LATER, SESSIONS[-1], "2030-01-01"):
        for kind in kinds:
            assert typed(a.of_kind(kind, s)) == typed(b.of_kind(kind, s)), (kind, s)
            assert a.numbers(kind, s) == b.numbers(kind, s) == [rec.n for rec in b.of_kind(kind, s)]
        assert typed(a.runs(s)) == typed(b.runs(s))
        assert typed(a.of(records.Score, s)) == typed(b.of(records.Score, s))
        assert typed(a.answers({f"{s}-r1", f"{s}-r2"})) == typed(b.answers({f"{s}-r1", f"{s}-r2"}))
        assert a.run(f"{s}-r1") == b.run(f"{s}-r1")
    for kind in kinds:
        assert typed(a.of_kind(kind)) == typed(b.of_kind(kind))
        assert a.sessions(kind) == b.sessions(kind) and a.sessions(kind, since=CUTOFF) == b.sessions(kind, CUTOFF)
    for n in range(1, top + 2):
        assert typed([x for x in [a.line(n)] if x is not None]) == typed([x for x in [b.line(n)] if x is not None])
    for seat in SEATS:
        assert typed(a.of_seat(records.Answer, seat)) == typed(b.of_seat(records.Answer, seat))
        assert typed(a.of_seat(records.Trade, seat)) == typed(b.of_seat(records.Trade, seat))


def typed(found: list[records.Sealed]) -> list[tuple[str, records.Sealed]]:
    return [(type(rec).__name__, rec) for rec in found]


def test_packed_lines_answer_like_records_and_like_the_whole_book(book: Path) -> None:
    whole = BookIndex.of_book(book)
    top = max(whole.lines)
    plain, packed = windowed(book, CUTOFF, None), windowed(book, CUTOFF, PACK_AT)
    held = packed.lines.kept
    kinds = {item.kind for item in held.values() if isinstance(item, Packed)}
    assert kinds >= {"run", "answer", "score", "score_h", "mystery"}  # the large kinds are packed ...
    assert not any(isinstance(item, Packed) for item in plain.lines.kept.values())
    assert not isinstance(held[1], Packed) and held[1].kind == "opening"  # ... the sticky ones are not
    assert all(not isinstance(item, Packed) for item in PackedLines(pack_at=10_000).kept.values())
    assert [type(rec).__name__ for rec in packed.of_kind("mystery")][:1] == ["Foreign"]
    assert {type(rec).__name__ for rec in packed.of_kind("answer")} == {"Answer", "Foreign"}
    assert sorted(packed.lines) == sorted(plain.lines) and len(packed.lines) == len(plain.lines)
    assert dict(packed.lines.items()) == dict(plain.lines.items())
    same_answers(packed, plain, top)
    everything = windowed(book, SESSIONS[0], PACK_AT)  # the whole book in memory, packed
    assert any(isinstance(item, Packed) for item in everything.lines.kept.values())
    same_answers(everything, whole, top)
    assert [rec.n for rec in packed.recent("score")] == [rec.n for rec in plain.recent("score")]
    assert packed.recent_of(records.Score) == plain.recent_of(records.Score)


def test_a_packed_index_moves_its_window_without_decoding_and_still_answers(book: Path) -> None:
    top = max(BookIndex.of_book(book).lines)
    plain, packed = windowed(book, CUTOFF, None), windowed(book, CUTOFF, PACK_AT)
    before = packed.of_kind("score")
    fresh, dropped = packed.trimmed(LATER)
    assert dropped > 0 and dropped == plain.trimmed(LATER)[1]
    assert isinstance(fresh, BookIndex) and fresh is not packed
    assert packed.of_kind("score") == before  # a reader holding the old index keeps its view
    assert all(fresh.lines.kept[n] is packed.lines.kept[n] for n in fresh.lines)  # the same packed bytes
    assert plain.trim(LATER) == dropped and len(fresh.lines) == len(plain.lines)
    same_answers(fresh, plain, top)
    line = next(iter_lines(book))  # a line sealed after the move is packed when large
    big = {**line.content, "kind": "score", "session": SESSIONS[-1], "n": top + 1, "link": "l",
           "markets": [{"market": m, "reference": 0.5} for m in MARKETS * 3]}
    fresh.add_body(big)
    assert isinstance(fresh.lines.kept[top + 1], Packed) and fresh.line(top + 1) == records.record(big)


def test_the_publisher_s_session_keys_do_not_change_when_lines_are_packed(book: Path) -> None:
    plain, packed = BookIndex.of_book(book), windowed(book, SESSIONS[0], PACK_AT)
    assert any(isinstance(item, Packed) for item in packed.lines.kept.values())
    groups = session_lines(packed)
    fix = plain.lines[max(plain.by_kind["correction"])]
    assert isinstance(fix, records.Correction) and isinstance(packed.lines.kept[fix.of], Packed)  # the cell's answer
    assert groups == session_lines(plain) and SESSIONS[3] in groups
    assert session_keys(Held(packed), SESSIONS, "c") == session_keys(Held(plain), SESSIONS, "c")


@dataclass
class Held:
    index: BookIndex


def test_a_record_msgpack_cannot_hold_stays_a_record_and_reading_again_gives_equal_records() -> None:
    huge = records.record({"kind": "mystery", "n": 1, "big": 2 ** 70, "pad": "x" * 5000})
    assert pack(huge) is huge  # kept as it is
    odd = records.record({"kind": "mystery", "n": 2, "nan": math.inf, "pad": "y" * 5000})
    packed = pack(odd)
    assert isinstance(packed, Packed) and packed.record() == odd
    fix = pack(records.record({"kind": "correction", "n": 3, "target": "cell", "of": 2, "session": "2026-01-05"}), 1)
    assert isinstance(fix, Packed) and (fix.kind, fix.target, fix.of, fix.session, fix.run_id) == (
        "correction", "cell", 2, "2026-01-05", "")  # the publisher's key fields, without decoding
    lines = PackedLines(pack_at=64)
    scores = [records.record({"kind": "score", "n": n, "session": "2026-01-05", "horizon": "1d",
                              "markets": [{"market": m, "reference": n / 7} for m in MARKETS]}) for n in range(1, 40)]
    for rec in scores:
        lines[rec.n] = rec
    for _ in range(2):
        assert [lines[rec.n] for rec in scores] == scores
    del lines[1]
    assert 1 not in lines and len(lines) == len(scores) - 1
