"""A reply that is not an answer — another run's reply to an ask already answered, a reply for an ask
nobody waits for — is sealed as a `reply_record` line (its raw bytes kept), never as a second answer."""

from __future__ import annotations

import hashlib
from collections.abc import Sequence
from concurrent.futures import Future
from datetime import date, datetime, time, timedelta
from pathlib import Path

from day_helpers import league_dir, roster, seat

from league.calendar import et_time
from league.compose import build_league
from league.config import load_config
from league.jobs.context import BARE
from league.jobs.scheduler import run_session
from league.jobs.seal import read_reply
from league.records import as_json
from league.runner import RecordSink, ReplyRecord, SeatAsk, ThreadRunner
from league_agents.base import Now, SeatReply

DAY = date(2026, 11, 24)


class TwiceRunner(ThreadRunner):
    """Local threads, plus what a queue can deliver: a second run of one seat's ask and a stray."""

    sink: RecordSink | None = None

    def on_record(self, sink: RecordSink) -> None:
        self.sink = sink

    def start(self, asks: Sequence[SeatAsk], now: Now, deadline: datetime | None = None) -> list[Future[SeatReply]]:
        futures = super().start(asks, now, deadline)
        first = next(a for a in asks if a.spec.name == "b")
        assert self.sink is not None
        for sha, raw, reason in ((first.ask.sha256, "second run of b", "duplicate"),
                                 (hashlib.sha256(b"no such ask").hexdigest(), "", "stray")):
            reply = SeatReply(seat="b", raw=raw, model="m2", version="v2", mode="", started_at=now(),
                              finished_at=now() + timedelta(seconds=5))
            self.sink(ReplyRecord(seat="b", ask_sha256=sha, reply=reply, arrived_at=now(),
                                  reason=reason, worker="lab-a@host", redelivered=True))  # type: ignore[arg-type]
        return futures


def test_a_duplicate_and_a_stray_are_records_never_answers(tmp_path: Path) -> None:
    config_dir, data_dir, clock = league_dir(tmp_path, roster(seat("a", "coin"), seat("b", "coin")),
                                             et_time(DAY, time(3, 0)))
    config = load_config(config_dir)
    runner = TwiceRunner({})
    with build_league(config, clock, anchor=DAY, stages=BARE, runner=runner) as lg:
        runner.seats = lg.asking.seats
        run_session(lg, DAY)
        answers = [x for x in map(as_json, lg.books.index.of_kind("answer")) if x["seat"] == "b"]
        records = [as_json(x) for x in lg.books.index.of_kind("reply_record")]
    assert len(answers) == 1 and answers[0]["status"] == "answered"
    dup, stray = sorted(records, key=lambda x: x["reason"])
    assert (dup["reason"], dup["run_id"], dup["session"], dup["attempt"]) == ("duplicate", "2026-11-24-r1",
                                                                              "2026-11-24", 1)
    assert (dup["worker"], dup["redelivered"], dup["model"]) == ("lab-a@host", True, "m2")
    assert read_reply(data_dir, dup["own_sha256"], dup.get("raw_encoding", "")) == "second run of b"
    assert dup["booked_at"] == "2026-11-24T13:30:00Z"  # 08:30 ET, the league's clock at its arrival
    assert (stray["reason"], stray["run_id"], stray["session"], stray["own_sha256"]) == ("stray", "", "", "")
