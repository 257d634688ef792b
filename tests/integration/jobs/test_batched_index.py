"""The database index written once per job: complete when a job ends, caught up after a crash.

Inside a scheduled job (and a pump of replies) the League writes the lines it seals to the database
index in one transaction at the end instead of one per line. The book stays the truth: these tests show
the index holds every line of the book, link for link, after a day's jobs; that a job's lines are in
memory at once but reach the database only when the job ends; and that a process killed after sealing
but before indexing leaves lines the next open indexes.
"""

from __future__ import annotations

import os
import subprocess
import sys
from datetime import date, time
from pathlib import Path
from typing import Any

from day_helpers import BASELINES, league_dir

from league import records
from league.book import BookLine
from league.book.chain import iter_lines
from league.book.index import record_of
from league.calendar import default_calendar, et_time
from league.clock import SimulatedClock
from league.compose import build_league
from league.config import load_config
from league.demo import demo_sessions
from league.jobs.books import COUNCIL_BOOK
from league.jobs.context import BARE
from league.jobs.scheduler import run_job, run_session
from league.store import open_store

DAYS = demo_sessions(default_calendar(), date(2026, 11, 16), 2)


def _indexed(database_url: str) -> list[tuple[int, str]]:
    """(n, link) of every line of the council book in the database index, in order."""
    store = open_store(database_url)
    try:
        return [(int(b["n"]), str(b["link"])) for b in store.book_lines(COUNCIL_BOOK)]
    finally:
        store.close()


def _book(data_dir: Path) -> list[tuple[int, str]]:
    return [(ln.n, ln.link) for ln in iter_lines(data_dir / "books" / "council-book.jsonl")]


def test_after_a_day_the_database_index_holds_every_line_of_the_book(tmp_path: Path) -> None:
    config_dir, data_dir, clock = league_dir(tmp_path, BASELINES, et_time(DAYS[0], time(7, 0)))
    config = load_config(config_dir)
    calls: list[int] = []
    with build_league(config, clock, stages=BARE, store=open_store(config.database_url)) as lg:
        assert lg.books.store is not None
        real = lg.books.store.index_lines

        def counted(book: str, lines: Any) -> int:
            lines = list(lines)
            if book == COUNCIL_BOOK:  # (asks.jsonl is indexed by its own incremental pass)
                calls.append(len(lines))
            return real(book, lines)

        lg.books.store.index_lines = counted  # type: ignore[method-assign]
        run_session(lg, DAYS[0])
        book = _book(data_dir)
        assert _indexed(config.database_url) == book  # complete while the league is still open
    assert len(book) >= 6  # opening, run, two answers, ingest close, score
    assert sum(calls) == len(book) - 1  # every line after the opening once, none twice
    assert len(calls) < len(book) - 1  # in fewer transactions than lines: the two replies pumped are one
    assert max(calls) > 1


def test_a_jobs_lines_are_in_memory_at_once_and_in_the_database_when_it_ends(tmp_path: Path) -> None:
    config_dir, data_dir, clock = league_dir(tmp_path, BASELINES, et_time(DAYS[0], time(7, 0)))
    config = load_config(config_dir)
    with build_league(config, clock, stages=BARE, store=open_store(config.database_url)) as lg:
        run_session(lg, DAYS[0])
        before = lg.books.book.lines
        seen: list[tuple[int, int, int]] = []
        real_seal = lg.books.seal

        def watched(line: Any, **kw: Any) -> BookLine:
            sealed = real_seal(line, **kw)
            seen.append((sealed.n, len(_indexed(config.database_url)), len(lg.books.index.lines)))
            return sealed

        lg.books.seal = watched  # type: ignore[method-assign]
        clock.set(et_time(DAYS[1], time(8, 25)))
        assert run_job(lg, "snapshot", DAYS[1].isoformat()) == "done"
        clock.set(et_time(DAYS[1], time(8, 30)))
        assert run_job(lg, "ask", DAYS[1].isoformat()) == "done"  # seals the run line inside the job
        assert seen, "the ask job sealed nothing"
        for n, in_db, _ in seen:
            assert n > before and in_db == before  # sealed, not yet in the database during the job
        assert all(lg.books.index.line(n) is not None for n, _, _ in seen)  # but readable in memory at once
        assert _indexed(config.database_url) == _book(data_dir)  # the job ended: all of it


CRASH = """
import os, sys
from datetime import date, time
from pathlib import Path
from league.calendar import et_time
from league.clock import SimulatedClock
from league.compose import build_league
from league.config import load_config
from league.jobs.books import CouncilBooks
from league.jobs.context import BARE
from league.jobs.scheduler import run_session
from league.store import open_store

CouncilBooks.flush_index = lambda self: 0  # the process dies between the book append and the index write
config = load_config(Path(sys.argv[1]))
day = date.fromisoformat(sys.argv[2])
lg = build_league(config, SimulatedClock(et_time(day, time(7, 0))), stages=BARE, store=open_store(config.database_url))
run_session(lg, day)
print(lg.books.book.lines, flush=True)
os._exit(9)
"""


def test_lines_sealed_but_never_indexed_before_a_crash_are_indexed_at_the_next_open(tmp_path: Path) -> None:
    config_dir, data_dir, clock = league_dir(tmp_path, BASELINES, et_time(DAYS[0], time(7, 0)))
    config = load_config(config_dir)
    with build_league(config, clock, stages=BARE, store=open_store(config.database_url)) as lg:
        run_session(lg, DAYS[0])
    indexed_before = len(_indexed(config.database_url))
    out = subprocess.run([sys.executable, "-c", CRASH, str(config_dir), DAYS[1].isoformat()],
                         capture_output=True, text=True, env={**os.environ}, check=False)
    assert out.returncode == 9, out.stderr[-2000:]
    sealed = int(out.stdout.split()[-1])
    assert sealed > indexed_before
    assert len(_indexed(config.database_url)) == indexed_before  # the dead process indexed nothing
    clock = SimulatedClock(et_time(DAYS[1], time(23, 0)))
    with build_league(config, clock, stages=BARE, store=open_store(config.database_url)) as lg:
        assert lg.books.book.lines == sealed
        assert _indexed(config.database_url) == _book(data_dir)  # the open caught the index up


def test_the_index_keeps_each_line_as_sealed_with_its_keys_shared(tmp_path: Path) -> None:
    config_dir, data_dir, clock = league_dir(tmp_path, BASELINES, et_time(DAYS[0], time(7, 0)))
    config = load_config(config_dir)
    with build_league(config, clock, stages=BARE, store=open_store(config.database_url)) as lg:
        run_session(lg, DAYS[0])
        for line in iter_lines(data_dir / "books" / "council-book.jsonl"):
            if line.n > 1:  # the opening line was indexed at open, the others as sealed
                assert lg.books.index.lines[line.n] == record_of(line)
        first, second = lg.books.index.of(records.Answer)[:2]
        assert first.status is second.status  # one string object for a short value every answer repeats
