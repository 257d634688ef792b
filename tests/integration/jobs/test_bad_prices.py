"""A provider raising or returning no bars leaves cells unresolved and reported; nothing is guessed."""

from __future__ import annotations

from datetime import date, datetime, time
from pathlib import Path
from typing import Any

from day_helpers import BASELINES, league_dir

from league.calendar import default_calendar, et_time
from league.compose import build_league
from league.config import load_config
from league.jobs.context import BARE
from league.jobs.scheduler import run_session
from league.prices.interface import ProviderOutage
from league.prices.replay import SyntheticMarket
from league.records import as_json

SESSION = date(2026, 11, 24)


class Flaky:
    """The real replay provider, except ^GSPC raises (an outage) and ^NDX has no bars after the snapshot."""

    name = "replay_synthetic_v1"

    def __init__(self, inner: Any) -> None:
        self.inner = inner
        self.cut = et_time(SESSION, time(9, 0))

    def bars(self, symbol: str, start: datetime, end: datetime) -> list[Any]:
        if symbol == "^GSPC" and end > self.cut:
            raise ProviderOutage("chart endpoint answered 503 three times")
        if symbol == "^NDX" and end > self.cut:
            return []
        return self.inner.bars(symbol, start, end)

    def daily_closes(self, symbol: str, start: date, end: date) -> Any:
        return self.inner.daily_closes(symbol, start, end)


def test_outage_and_empty_bars_leave_cells_unresolved(tmp_path: Path) -> None:
    config_dir, _, clock = league_dir(tmp_path, BASELINES, et_time(SESSION, time(7, 0)))
    config = load_config(config_dir)
    prices = Flaky(SyntheticMarket(7, config.markets.markets, default_calendar()))
    with build_league(config, clock, prices=prices, seats=None, stages=BARE) as lg:
        run_session(lg, SESSION)
        score = as_json(lg.books.index.of_kind("score", SESSION.isoformat())[0])
    events = {e["market"]: e for e in score["markets"]}
    for code in ("SPX", "NDX"):
        assert events[code]["status"] == "unresolved"
        assert events[code]["reference"] is None and events[code]["up"] is None
    assert events["DJI"]["status"] == "resolved" and events["DJI"]["reference"] > 0
    assert any("^GSPC" in e and "503" in e for e in score["price_errors"])
    for row in score["seats"]:
        if row["market"] in ("SPX", "NDX"):
            assert row["brier"] is None and row["outcome"] is None
    assert any(r["brier"] is not None for r in score["seats"] if r["market"] == "DJI")
