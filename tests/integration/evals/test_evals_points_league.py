"""`_naive` and `_ets` answer a REAL council day (demo league, replayed prices, real sandbox for the scripted
seats), their targets are sealed and scored, and `league eval points` reads the book they are in.

Phase 1 supplies the closes history through the composition root's `ask_context` here, in the test; phase 2
wires it into the league (docs/evals.md, "What phase 2 wires").
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
from league.jobs.snapshot import daily_closes

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


def history_hook(lg: Any, session: str) -> dict[str, Any]:
    """Each market's daily closes up to the session before ``session`` (what was known at 08:30)."""
    previous = lg.calendar.previous_session(date.fromisoformat(session))
    out = {}
    for m in lg.config.markets.markets:
        closes = daily_closes(lg.prices, lg.calendar, m, previous)
        out[m.code] = [c for d, c in closes if d <= previous][-260:]
    return {"history": out}


@pytest.fixture(scope="module")
def league_data(tmp_path_factory: pytest.TempPathFactory) -> Iterator[dict[str, Any]]:
    if shutil.which("bwrap") is None:
        pytest.skip("bubblewrap (bwrap) is not installed: apt-get install -y bubblewrap")
    from league.cli.init import init_folder

    root = tmp_path_factory.mktemp("league")
    days = demo_sessions(default_calendar(), date(2026, 11, 16), 3)
    clock = SimulatedClock(session_start(days[0]))
    config_dir, _ = init_folder(root, demo=True, seed=5, clock=clock)
    roster = config_dir / "roster.toml"
    roster.write_text(roster.read_text() + BASELINES)
    with build_league(load_config(config_dir), clock, anchor=days[0], stages=Stages(publish=False),
                      ask_context=history_hook) as lg:
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
