"""Scoring guards: nothing is scored before its events end; the contract sealed in the run line is the
one scored even if the config changes afterwards."""

from __future__ import annotations

from datetime import date, time
from pathlib import Path

from day_helpers import league_dir, roster, seat

from league import records
from league.calendar import default_calendar, et_time
from league.clock import SimulatedClock
from league.compose import build_league
from league.config import load_config
from league.jobs.ask import job_ask
from league.jobs.context import BARE
from league.jobs.score import job_score
from league.jobs.seal import pump
from league.prices.replay import SyntheticMarket
from league.records import as_json

SESSION = date(2026, 11, 24)


def make(tmp_path: Path) -> tuple[Path, SimulatedClock]:
    config_dir, _, clock = league_dir(tmp_path, roster(seat("_coin", "coin")), et_time(SESSION, time(8, 0)))
    return config_dir, clock


def test_a_score_asked_for_too_early_seals_nothing(tmp_path: Path) -> None:
    config_dir, clock = make(tmp_path)
    config = load_config(config_dir)
    with build_league(config, clock, stages=BARE) as lg:
        clock.set(et_time(SESSION, time(8, 30)))
        job_ask(lg, SESSION.isoformat())
        pump(lg, et_time(SESSION, time(15, 0)))
        assert job_score(lg, SESSION.isoformat()) == []  # 15:00: the day's events have not ended
        pump(lg, et_time(SESSION, time(16, 5)))
        sealed = job_score(lg, SESSION.isoformat())
        assert len(sealed) == 1
        assert not [x for x in lg.books.index.of_kind("score_h")]  # the week has not closed


def test_scoring_uses_the_contract_sealed_before_the_ask(tmp_path: Path) -> None:
    config_dir, clock = make(tmp_path)
    config = load_config(config_dir)
    prices = SyntheticMarket(7, config.markets.markets, default_calendar())
    with build_league(config, clock, prices=prices, stages=BARE) as lg:
        clock.set(et_time(SESSION, time(8, 30)))
        job_ask(lg, SESSION.isoformat())
        pump(lg, et_time(SESSION, time(9, 0)))
        sealed_id = lg.books.index.of(records.Run)[0].events["SPX"]["1d"]["event_id_v2"]
    markets = config_dir / "markets.toml"
    markets.write_text(markets.read_text().replace('symbol = "^GSPC"', 'symbol = "^SPX"'))
    changed = load_config(config_dir)
    with build_league(changed, clock, prices=prices, stages=BARE) as lg:
        pump(lg, et_time(SESSION, time(16, 5)))
        job_score(lg, SESSION.isoformat())
        score = as_json(lg.books.index.of_kind("score")[0])
    spx = [m for m in score["markets"] if m["market"] == "SPX"]
    assert [m["event_id_v2"] for m in spx] == [sealed_id]
    assert spx[0]["contract"]["price_symbol"] == "^GSPC"
