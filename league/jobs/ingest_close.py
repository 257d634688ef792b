"""Counted ingest closes (docs/protocol.md §5): the book states when, and which answer lines it holds.

After this line nothing sealed for the session counts; a reply that arrives later is still sealed
(and reported as not counted), never dropped.
"""

from __future__ import annotations

from league.book.lines import IngestCloseLine
from league.clock import iso_seconds
from league.counting import counted_runs, sealed_time
from league.jobs.ask import deadline
from league.jobs.context import League


def job_ingest_close(lg: League, session: str) -> int | None:
    """State, in the book, when counted ingest closed and which answer lines it holds."""
    if lg.books.index.of_kind("ingest_close", session):
        return None
    close_at = deadline(lg, session)
    runs = {r.run_id for r in counted_runs(lg.view, session)}
    inside = [a.n for a in lg.books.index.answers(runs) if sealed_time(a) <= close_at]
    line = lg.books.seal(IngestCloseLine(session=session, closed_at=iso_seconds(close_at), counted_runs=sorted(runs),
                                   answer_lines=inside, book_lines=lg.books.book.lines))
    return line.n
