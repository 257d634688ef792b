"""A seat whose ask is still running at the second wave is working, not silent: it is not asked twice
(for example when a restart at 09:10 runs the missed ask and the second wave back to back)."""

from __future__ import annotations

import json
import shutil
from collections import Counter
from datetime import date, time
from pathlib import Path

import pytest
from day_helpers import league_dir, roster, seat

from league.calendar import et_time
from league.compose import build_league
from league.config import load_config
from league.jobs.context import BARE
from league.jobs.scheduler import catch_up
from league.jobs.seal import pump

SESSION = date(2026, 11, 24)


def test_restart_at_0910_asks_each_seat_once_unless_silent(tmp_path: Path) -> None:
    if shutil.which("bwrap") is None:
        pytest.skip("bubblewrap (bwrap) is not installed: apt-get install -y bubblewrap")
    seats = roster(seat("slowpoke", "scripted", seed=5, latency_s=600), seat("mute", "scripted", seed=6, mode="silent"),
                   seat("_coin", "coin"))
    config_dir, data_dir, clock = league_dir(tmp_path, seats, et_time(SESSION, time(3, 0)))
    clock.set(et_time(SESSION, time(9, 10)))  # the daemon comes back after the second-wave time
    with build_league(load_config(config_dir), clock, stages=BARE) as lg:
        catch_up(lg, et_time(SESSION, time(3, 0)), et_time(SESSION, time(9, 20)),
                 before_each=lambda f: pump(lg, f.at))
        pump(lg, et_time(SESSION, time(9, 29)))
    asks = [json.loads(x) for x in (data_dir / "books" / "asks.jsonl").read_text().splitlines()]
    per_seat = Counter(a["seat"] for a in asks if a["kind"] == "ask")
    assert per_seat == {"slowpoke": 1, "_coin": 1, "mute": 2}
