"""One seat's value that cannot be sealed costs that seat its morning, never another seat's.

The roster loader refuses such values (an infinite ``timeout_s`` is a ConfigError now); this is the last
guard behind it, for a value that reaches the ask some other way (a roster built in code, a plugin): the
seat gets a ``seat_fault`` silence naming the value, and every other seat is asked and sealed."""

from __future__ import annotations

import json
import math
import shutil
from datetime import date, time
from pathlib import Path

import pytest
from day_helpers import league_dir, roster, seat

from league.calendar import et_time
from league.compose import build_league
from league.config import load_config
from league.jobs.ask import job_ask
from league.jobs.context import BARE
from league.jobs.seal import pump

SESSION = date(2026, 11, 24)


def test_a_seat_with_an_unsealable_timeout_leaves_every_other_seat_sealed(tmp_path: Path) -> None:
    if shutil.which("bwrap") is None:
        pytest.skip("bubblewrap (bwrap) is not installed: apt-get install -y bubblewrap")
    seats = roster(seat("aurora", "scripted", seed=5, latency_s=30), seat("basalt", "scripted", seed=6, latency_s=60),
                   seat("_coin", "coin"), seat("_momentum", "momentum"))
    config_dir, data_dir, clock = league_dir(tmp_path, seats, et_time(SESSION, time(8, 30)))
    config = load_config(config_dir)
    # What the loader now refuses, set behind its back (model_copy does not validate).
    bad = [s.model_copy(update={"timeout_s": math.inf}) if s.name == "basalt" else s for s in config.roster.seat]
    config = config.model_copy(update={"roster": config.roster.model_copy(update={"seat": tuple(bad)})})
    with build_league(config, clock, stages=BARE) as lg:
        assert job_ask(lg, str(SESSION)) is not None
        pump(lg, et_time(SESSION, time(9, 29)))
    book = [json.loads(x) for x in (data_dir / "books" / "council-book.jsonl").read_text().splitlines()]
    answered = sorted(x["seat"] for x in book if x["kind"] == "answer")
    assert answered == ["_coin", "_momentum", "aurora"]
    faults = [x for x in book if x["kind"] == "silence" and x["seat"] == "basalt"]
    assert len(faults) == 1 and faults[0]["failure"] == "seat_fault"
    assert "timeout_s = inf" in faults[0]["detail"]
    run = next(x for x in book if x["kind"] == "run")
    assert "basalt" not in run["roster"]  # not asked, so not expected in this run
