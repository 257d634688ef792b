"""What happens when the disk refuses: a raw reply that cannot be stored is named in
its line; a line the book cannot write stays pending in a simulated day and is sealed once, later."""

from __future__ import annotations

import errno
from concurrent.futures import Future
from datetime import date, timedelta
from pathlib import Path
from typing import Any

import pytest
from day_helpers import BASELINES, league_dir

from league import records
from league.book import Book
from league.compose import build_league
from league.config import load_config
from league.jobs.context import BARE, Pending
from league.jobs.scheduler import session_start
from league.jobs.seal import SealFailed, pump, seal_reply
from league.records import as_json
from league_agents.base import SeatReply

SESSION = date(2026, 11, 24)
ANSWER = '{"forecast": {"SPX": {"1d": {"prob_up": 61}}}}'


def _pending(lg: Any, seat: str, raw: str, arrives: Any) -> Pending:
    fut: Future[SeatReply] = Future()
    fut.set_result(SeatReply(seat=seat, raw=raw, model="m", version="v", mode="", started_at=arrives,
                             finished_at=arrives))
    return Pending(f"{SESSION}-r1", str(SESSION), seat, 1, "0" * 64, "1" * 64, {"SPX": ["1d"]}, fut)


def test_unstorable_raw_reply_is_named_in_the_line(tmp_path: Path) -> None:
    config_dir, data_dir, clock = league_dir(tmp_path, BASELINES, session_start(SESSION))
    with build_league(load_config(config_dir), clock, stages=BARE) as lg:
        (data_dir / "replies").write_text("a file where the folder should be")  # like a full or broken disk
        p = _pending(lg, "s1", ANSWER, clock.now())
        seal_reply(lg, p, p.future.result())
        line = as_json(lg.books.index.lines[lg.books.book.lines])
    assert line["seat"] == "s1" and line["status"] == "answered"
    assert "could not be stored" in line["raw_store_problem"]


def test_pump_keeps_a_failed_reply_pending_and_seals_it_once(tmp_path: Path, monkeypatch: pytest.MonkeyPatch) -> None:
    config_dir, _, clock = league_dir(tmp_path, BASELINES, session_start(SESSION))
    with build_league(load_config(config_dir), clock, stages=BARE) as lg:
        now = clock.now()
        lg.asking.pending = [_pending(lg, "first", ANSWER, now + timedelta(seconds=1)),
                      _pending(lg, "second", ANSWER, now + timedelta(seconds=2))]
        real_write = Book._write
        failures = iter([True])

        def refuse_first_answer(self: Book, line: Any) -> None:
            if line.kind == "answer" and line.content["seat"] == "first" and next(failures, False):
                raise OSError(errno.ENOSPC, "No space left on device")
            real_write(self, line)

        monkeypatch.setattr(Book, "_write", refuse_first_answer)
        with pytest.raises(SealFailed, match="No space left"):
            pump(lg, now + timedelta(minutes=1))
        assert [p.seat for p in lg.asking.pending] == ["first", "second"]  # the later reply waits: arrival order kept
        assert pump(lg, now + timedelta(minutes=2)) == 2
        seats = [a.seat for a in lg.books.index.of(records.Answer)]
    assert sorted(seats) == ["first", "second"]  # each exactly once
