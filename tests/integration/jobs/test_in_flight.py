"""Asks in flight as `league status` shows them: read from the books (an ask line, no reply line yet),
with where each seat runs (its lab's queue, or this host)."""

from __future__ import annotations

from datetime import date, time
from pathlib import Path

from day_helpers import league_dir, roster, seat

from league.calendar import et_time
from league.compose import build_league
from league.config import load_config
from league.jobs.context import BARE
from league.jobs.inflight import InFlight, in_flight, read_in_flight
from league.jobs.scheduler import run_session

DAY = date(2026, 11, 24)


def test_an_ask_without_a_reply_line_is_in_flight() -> None:
    asks = [{"kind": "roster", "run_id": "r1"},
            *({"kind": "ask", "session": "2026-11-24", "run_id": "r1", "seat": s, "attempt": 1, "at": "t"}
              for s in ("a", "b", "c")),
            {"kind": "ask", "session": "2026-11-24", "run_id": "r2", "seat": "b", "attempt": 2, "at": "u"}]
    book = [{"kind": "answer", "run_id": "r1", "seat": "a", "attempt": 1},
            {"kind": "silence", "run_id": "r1", "seat": "b", "attempt": 1},
            {"kind": "reply_record", "run_id": "r1", "seat": "c", "attempt": 1},  # a record answers nothing
            {"kind": "answer", "run_id": "r2", "seat": "b", "attempt": 1}]  # another attempt
    assert in_flight(asks, book, {"b": "lab-b"}) == [InFlight("2026-11-24", "r1", "c", 1, "t", ""),
                                                      InFlight("2026-11-24", "r2", "b", 2, "u", "lab-b")]


def test_the_books_of_a_day_show_the_ask_sent_after_the_last_reply(tmp_path: Path) -> None:
    config_dir, data_dir, clock = league_dir(tmp_path, roster(seat("a", "coin"), seat("b", "coin")),
                                             et_time(DAY, time(3, 0)))
    with build_league(load_config(config_dir), clock, anchor=DAY, stages=BARE) as lg:
        run_session(lg, DAY)
        assert read_in_flight(data_dir / "books", {}) == []
        lg.books.asks.seal_ask("2026-11-24-r1", "2026-11-24", "b", 2, "again", "0" * 64)
    [f] = read_in_flight(data_dir / "books", {"b": "lab-a"})
    assert (f.run_id, f.seat, f.attempt, f.queue) == ("2026-11-24-r1", "b", 2, "lab-a")
