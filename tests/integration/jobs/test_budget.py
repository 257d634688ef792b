"""A seat's hard budget stops it before its next ask, and the silence says why.

Three simulated sessions; a scripted seat reports 1,000 tokens a run and has `tokens_total = 1500`:
it answers sessions 1 and 2 (0 and 1,000 spent before them), then its session-3 ask is sealed in the
ask chain but not run, and its line is a `budget_exhausted` silence naming 2,000 >= 1,500. A seat
without a budget is untouched."""

from __future__ import annotations

import json
import shutil
from datetime import date

import pytest
from day_helpers import league_dir, roster, seat

from league.calendar import default_calendar
from league.compose import build_league
from league.config import load_config
from league.demo import demo_sessions
from league.jobs.context import BARE
from league.jobs.scheduler import run_session, session_start
from league.verify.chain import verify

DAYS = demo_sessions(default_calendar(), date(2026, 11, 23), 3)


def test_a_spent_budget_stops_the_seat_and_is_sealed(tmp_path) -> None:  # type: ignore[no-untyped-def]
    if shutil.which("bwrap") is None:
        pytest.skip("bubblewrap (bwrap) is not installed: apt-get install -y bubblewrap")
    spender = seat("spender", "scripted", seed=3, tokens=1000) + "budget = { tokens_total = 1500 }\n"
    config_dir, data, clock = league_dir(tmp_path, roster(spender, seat("free", "scripted", seed=4, tokens=1000)),
                                         session_start(DAYS[0]))
    with build_league(load_config(config_dir), clock, anchor=DAYS[0], stages=BARE) as lg:
        for day in DAYS:
            run_session(lg, day)
    book = data / "books" / "council-book.jsonl"
    lines = [json.loads(x) for x in book.read_text().splitlines()]
    by = {(x["session"], x["seat"]): x for x in lines if x["kind"] in ("answer", "silence", "incident")
          and x.get("attempt", 1) == 1}
    first, second, third = (d.isoformat() for d in DAYS)
    assert by[(first, "spender")]["kind"] == by[(second, "spender")]["kind"] == "answer"
    stop = by[(third, "spender")]
    assert stop["kind"] == "silence" and stop["failure"] == "budget_exhausted"
    assert "tokens in total 2,000 >= 1,500" in stop["detail"]
    assert all(by[(d, "free")]["kind"] == "answer" for d in (first, second, third))
    asks = [json.loads(x) for x in (data / "books" / "asks.jsonl").read_text().splitlines()]
    assert any(a.get("seat") == "spender" and a.get("session") == third and a["kind"] == "ask" for a in asks)
    assert verify(book).ok
