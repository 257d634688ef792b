"""Longer horizons: a `score_h` line when the 1w window closes, reusing the reference sealed by the
day's score line — even when the provider no longer has that day's minutes (Yahoo keeps ~30 days)."""

from __future__ import annotations

from datetime import date, datetime, time
from pathlib import Path
from typing import Any

from day_helpers import BASELINES, league_dir

from league.calendar import default_calendar, et_time
from league.clock import SimulatedClock
from league.compose import build_league
from league.config import load_config
from league.demo import demo_sessions
from league.jobs.context import BARE
from league.jobs.scheduler import run_session
from league.prices.interface import ProviderOutage
from league.prices.replay import SyntheticMarket
from league.records import as_json


class Forgetful:
    """Replay prices that 'forget' the first session's minutes once it is three days old."""

    name = "replay_synthetic_v1"

    def __init__(self, inner: Any, first: date, clock: SimulatedClock) -> None:
        self.inner, self.first, self.clock = inner, first, clock

    def bars(self, symbol: str, start: datetime, end: datetime) -> list[Any]:
        old = (self.clock.now().date() - self.first).days >= 3
        if old and start.date() <= self.first < end.date() or (old and start.date() == self.first):
            raise ProviderOutage("1-minute history no longer served for that day")
        return self.inner.bars(symbol, start, end)

    def daily_closes(self, symbol: str, start: date, end: date) -> Any:
        return self.inner.daily_closes(symbol, start, end)


def test_week_scored_with_the_sealed_reference(tmp_path: Path) -> None:
    days = demo_sessions(default_calendar(), date(2026, 11, 16), 6)
    config_dir, _, clock = league_dir(tmp_path, BASELINES, et_time(days[0], time(7, 0)))
    config = load_config(config_dir)
    prices = Forgetful(SyntheticMarket(7, config.markets.markets, default_calendar(), anchor=days[0]), days[0], clock)
    with build_league(config, clock, prices=prices, stages=BARE) as lg:
        for day in days:
            run_session(lg, day)
        day_line = as_json(lg.books.index.of_kind("score", days[0].isoformat())[0])
        week = [x for x in map(as_json, lg.books.index.of_kind("score_h", days[0].isoformat())) if x["horizon"] == "1w"]
    # the daily markets' week ends at Friday 11-20's close and is sealed at that day's run; bitcoin's
    # seven calendar days end on Sunday 11-22, sealed at Monday 11-23's run
    week = sorted(week, key=lambda x: x["n"])
    assert [(x["at"][:10], sorted({m["market"] for m in x["markets"]}) == ["BTC"]) for x in week] == [
        ("2026-11-20", False), ("2026-11-23", True)]
    day_refs = {m["market"]: m["reference"] for m in day_line["markets"] if not m["late_ref"]}
    week_events = {m["market"]: m for m in week[0]["markets"]}
    for code in ("SPX", "TNX", "GOLD"):
        assert day_refs[code] is not None
        assert week_events[code]["reference"] == day_refs[code]
        assert week_events[code]["status"] == "resolved"
    assert all(r["brier"] is not None for r in week[0]["seats"] if r["market"] == "SPX" and r["prob_up"] is not None
               and r["status"] == "counted")
