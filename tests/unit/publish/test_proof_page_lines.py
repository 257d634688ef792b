"""The proof pages keep only what they show of the council book: the day pages built from the kept
lines are those built from every line read whole (league.verify.reader.read_lines)."""

from __future__ import annotations

from datetime import UTC, datetime
from pathlib import Path

from league.book import Book
from league.clock import SimulatedClock
from league.publish.proof_pages import BookFacts, _page_lines, ingest_close_page, runs_page
from league.verify.reader import read_lines


def _at(day: str, hms: str) -> datetime:
    return datetime.fromisoformat(f"{day}T{hms}+00:00")


def test_the_day_pages_from_the_kept_lines_are_those_from_the_whole_book(tmp_path: Path) -> None:
    clock = SimulatedClock(datetime(2026, 3, 2, 13, 0, tzinfo=UTC))
    book = tmp_path / "council-book.jsonl"
    with Book(book, clock) as b:
        for day in ("2026-03-02", "2026-03-03"):
            run_id = f"{day}-r1"
            b.append("run", {"session": day, "run_id": run_id, "role": "counted",
                             "reference_at": f"{day}T14:30:00Z", "markets": ["SPX"]}, at=_at(day, "13:00:00"))
            for i, seat in enumerate(("a", "b", "c")):
                b.append("answer", {"session": day, "run_id": run_id, "seat": seat, "status": "answered",
                                    "items": {"SPX": {"1d": {"prob_up": 60}}}}, at=_at(day, f"13:1{i}:00"))
            b.append("answer", {"session": day, "run_id": run_id, "seat": "late", "status": "answered",
                                "booked_at": f"{day}T15:00:01Z"}, at=_at(day, "15:00:00"))
            b.append("score", {"session": day, "markets": [{"market": "SPX", "up": True}], "seats": []})
    whole = BookFacts.of(read_lines(book), [])
    kept = BookFacts.of(_page_lines(book), [])
    assert len(_page_lines(book)) == 10 and len(read_lines(book)) == 12  # the score lines are not kept
    for day in ("2026-03-02", "2026-03-03", "2026-03-04"):
        assert runs_page(day, kept) == runs_page(day, whole)
        assert ingest_close_page(day, kept) == ingest_close_page(day, whole)
    assert "seat late" in runs_page("2026-03-02", kept) and "lines through" in ingest_close_page("2026-03-02", kept)
