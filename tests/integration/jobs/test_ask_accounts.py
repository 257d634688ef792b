"""Each seat's ask carries its own paper accounts (both leagues), from the marks sealed before it."""

from __future__ import annotations

import json
from datetime import date, time
from pathlib import Path
from typing import Any

from day_helpers import league_dir, roster, seat

from league.calendar import et_time
from league.compose import build_league
from league.config import load_config
from league.jobs.context import Stages
from league.jobs.scheduler import run_session
from league.records import as_json
from league_agents.base import Ask, SeatReply, SeatSpec

DAYS = (date(2026, 11, 23), date(2026, 11, 24))


class Recorder:
    """An in-process seat that keeps every ask text and buys SPX on the first day."""

    def __init__(self, spec: SeatSpec) -> None:
        self.spec = spec
        self.asks: list[str] = []

    def ask(self, ask: Ask, now: Any) -> SeatReply:
        self.asks.append(ask.text)
        action = "buy_strong" if self.spec.name == "bull" else "hold"
        raw = json.dumps({"forecast": {"SPX": {"1d": {"prob_up": 70, "action": action}}}})
        t = now()
        return SeatReply(seat=self.spec.name, raw=raw, model="m", version="v", mode="x", started_at=t, finished_at=t)


def test_second_day_ask_shows_each_seat_its_own_accounts(tmp_path: Path) -> None:
    text = roster(seat("bull", "coin"), seat("bear", "coin"))
    config_dir, _, clock = league_dir(tmp_path, text, et_time(DAYS[0], time(3, 0)))
    config = load_config(config_dir)
    seats = {s.name: Recorder(s) for s in config.roster.seat}
    with build_league(config, clock, seats=seats, anchor=DAYS[0], stages=Stages(publish=False)) as lg:
        for day in DAYS:
            run_session(lg, day)
        marks = {(m["league"], m["account"]): m for m in map(as_json, lg.books.index.of_kind("mark"))
                 if m["session"] == "2026-11-23"}
    first, second = seats["bull"].asks[0], seats["bull"].asks[1]
    assert "No positions yet" in first
    assert "No positions yet" not in second
    block = json.loads(second.split("## Your paper account (bull)")[1].split("```json")[1].split("```")[0])
    assert set(block) == {"arena-3", "pro-1"}
    for league, account in block.items():
        assert account["as_of"] == "2026-11-23"
        assert account["value"] == marks[(league, "bull")]["value"]
        assert account["positions"] == marks[(league, "bull")]["positions"]
    assert block["arena-3"]["positions"], "the bull bought on day one"
    assert "bear" not in second.split("## Your paper account (bull)")[1]
