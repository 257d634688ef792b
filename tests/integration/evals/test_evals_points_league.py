"""`_naive` and `_ets` answer a REAL council day (demo league, replayed prices, real sandbox for the scripted
seats), their targets are sealed and scored, and `league eval points` reads the book they are in.

The closes history comes from the league itself: the composition root's default ask context adds it when a
roster seat reads it (`league.jobs.ask.history_context`).
"""

from __future__ import annotations

import shutil
from collections.abc import Iterator
from datetime import date, timedelta
from typing import Any

import pytest

from league.calendar import default_calendar
from league.clock import SimulatedClock
from league.compose import build_league
from league.config import load_config
from league.demo import demo_sessions
from league.evals.points import points_report
from league.jobs.context import Stages
from league.jobs.scheduler import run_session, session_start

pytestmark = [pytest.mark.sandbox, pytest.mark.slow]

BASELINES = """
[[seat]]
name = "_naive"
adapter = "naive"

[[seat]]
name = "_ets"
adapter = "ets"
options = { min_history = 30, max_history = 250 }
"""


@pytest.fixture(scope="module")
def league_data(tmp_path_factory: pytest.TempPathFactory) -> Iterator[dict[str, Any]]:
    if shutil.which("bwrap") is None:
        pytest.skip("bubblewrap (bwrap) is not installed: apt-get install -y bubblewrap")
    from league.folder import init_folder

    root = tmp_path_factory.mktemp("league")
    days = demo_sessions(default_calendar(), date(2026, 11, 16), 3)
    clock = SimulatedClock(session_start(days[0]))
    config_dir, _ = init_folder(root, demo=True, seed=5, clock=clock)
    roster = config_dir / "roster.toml"
    if "_naive" not in roster.read_text():  # the demo roster ships both point baselines
        roster.write_text(roster.read_text() + BASELINES)
    with build_league(load_config(config_dir), clock, anchor=days[0], stages=Stages(publish=False)) as lg:
        for day in days:
            run_session(lg, day)
        clock.set(clock.now() + timedelta(days=1))
        yield {"data": lg.data_dir, "days": [d.isoformat() for d in days], "book": lg.data_dir}


def test_the_point_baselines_answer_with_targets_that_are_sealed(league_data: dict[str, Any]) -> None:
    from league.book import iter_lines

    answers = [ln.content for ln in iter_lines(league_data["data"] / "books" / "council-book.jsonl")
               if ln.kind == "answer" and ln.content["seat"] in ("_naive", "_ets")]
    assert {a["seat"] for a in answers} == {"_naive", "_ets"}
    for a in answers:
        assert a["status"] == "answered"
        cells = [c for row in a["items"].values() for c in row.values()]
        assert len(cells) >= 12 and all(c["target"] > 0 and 1 <= c["prob_up"] <= 99 for c in cells)


def test_points_reads_the_league_book(league_data: dict[str, Any]) -> None:
    report = points_report(league_data["data"], min_history=1)
    seats = report["seats"]
    assert {"_naive", "_ets"} <= set(seats)
    # day 3's one-day windows have two sealed closes before them: one difference, enough at min_history 1
    for name in ("_naive", "_ets"):
        assert seats[name]["windows"] >= 10 and seats[name]["overall"] is not None
        assert seats[name]["compliance"]["with_forecast_share"] == 1.0
    assert report["naive"]["overall"] == 1.0
    assert all(r["relative"] == 1.0 for r in report["naive"]["configs"])
