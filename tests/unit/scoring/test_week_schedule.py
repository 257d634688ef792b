"""One-week events on the NYSE calendar: which scoring run seals which markets.

The score job runs at 16:05 ET on every session. A week asked on Monday 2026-06-01 ends at Friday
06-05's close for the eleven daily markets (the reference session counts as the first of five) and on
Sunday 06-07 for bitcoin (seven calendar days): the daily markets are sealed at Friday's run, bitcoin at
Monday 06-08's. Over Juneteenth (Friday 2026-06-19, NYSE closed) the week asked on Monday 06-15 ends on
Monday 06-22 for the daily markets (15, 16, 17, 18, 22) and on Sunday 06-21 for bitcoin: both are first
scorable at Monday 06-22's run and share one line. The expected seals below are read off the calendar
by hand; the job itself runs on a stand-in book (price resolution is not the point here).
"""

from __future__ import annotations

from datetime import date, time
from types import SimpleNamespace
from typing import Any

import pytest
from index_of_lines import LinesIndex

from league.calendar import default_calendar, et_time
from league.clock import SimulatedClock
from league.config import load_markets, shipped_config_dir
from league.jobs import score as score_job

DAILY = frozenset({"SPX", "NDX", "DJI", "SOX", "TNX", "DXY", "VIX", "GOLD", "WTI", "BRENT", "COPPER"})
BTC = frozenset({"BTC"})


StandInIndex = LinesIndex

class StandInLeague:
    """What the score job's schedule reads: the NYSE calendar, the twelve markets, the clock, the book (a
    League's ``books`` and read-only ``view`` are this object itself)."""

    def __init__(self) -> None:
        self.calendar = default_calendar()
        self.config = SimpleNamespace(markets=load_markets(shipped_config_dir() / "markets.toml"))
        self.clock = SimulatedClock(et_time(date(2026, 6, 1), time(8, 0)))
        self.index = StandInIndex()
        self.sealed: list[tuple[str, str, str, frozenset[str]]] = []
        self.books = self.view = self.market = self

    def seal(self, line: dict[str, Any]) -> SimpleNamespace:
        self.index.lines.append(line)
        codes = frozenset(m["market"] for m in line["markets"])
        self.sealed.append((self.clock.now().date().isoformat(), line["session"], line["horizon"], codes))
        return SimpleNamespace(n=len(self.index.lines))


def _stand_in_line(lg: StandInLeague, session: str, horizon: str, markets: Any = None) -> dict[str, Any]:
    codes = markets if markets is not None else {m.code for m in lg.config.markets.markets}
    return {"kind": "score" if horizon == "1d" else "score_h", "session": session, "horizon": horizon,
            "markets": [{"market": c} for c in sorted(codes)], "seats": []}


@pytest.fixture()
def weeks(monkeypatch: pytest.MonkeyPatch) -> list[tuple[str, str, str, frozenset[str]]]:
    """Runs on the sessions 2026-06-01 .. 2026-06-22, each with its scoring run at 16:05 ET."""
    monkeypatch.setattr(score_job, "score_line", _stand_in_line)
    lg = StandInLeague()
    for day in lg.calendar.sessions_in_range(date(2026, 6, 1), date(2026, 6, 22)):
        lg.index.lines.append({"kind": "run", "session": day.isoformat()})
        lg.clock.set(et_time(day, time(16, 5)))
        score_job.job_score(lg, day.isoformat())  # type: ignore[arg-type]
    return [s for s in lg.sealed if s[2] == "1w"]


def test_a_week_ending_on_a_friday_is_sealed_that_friday(weeks: list[tuple[str, str, str, frozenset[str]]]) -> None:
    assert ("2026-06-05", "2026-06-01", "1w", DAILY) in weeks
    assert ("2026-06-08", "2026-06-01", "1w", BTC) in weeks
    assert [s for s in weeks if s[1] == "2026-06-01"] == [
        ("2026-06-05", "2026-06-01", "1w", DAILY), ("2026-06-08", "2026-06-01", "1w", BTC)]


def test_a_tuesday_week_is_one_line_on_the_next_monday(weeks: list[tuple[str, str, str, frozenset[str]]]) -> None:
    assert [s for s in weeks if s[1] == "2026-06-02"] == [("2026-06-08", "2026-06-02", "1w", DAILY | BTC)]


def test_over_a_holiday_friday_both_groups_share_the_monday_run(
        weeks: list[tuple[str, str, str, frozenset[str]]]) -> None:
    assert not default_calendar().is_session(date(2026, 6, 19))
    assert [s for s in weeks if s[1] == "2026-06-15"] == [("2026-06-22", "2026-06-15", "1w", DAILY | BTC)]
    # the week asked on Friday 06-12 ends on Thursday 06-18 for every market
    assert [s for s in weeks if s[1] == "2026-06-12"] == [("2026-06-18", "2026-06-12", "1w", DAILY | BTC)]


def test_every_week_is_sealed_once_per_market(weeks: list[tuple[str, str, str, frozenset[str]]]) -> None:
    per_session: dict[str, list[str]] = {}
    for _, session, _, codes in weeks:
        per_session.setdefault(session, []).extend(codes)
    # weeks complete by 06-22: asked 06-01 .. 06-15; asked Tuesday 06-16, bitcoin's ended Monday 06-22
    # (16 + 6) while the daily markets' runs to 06-23 (16, 17, 18, 22, 23)
    complete = ["2026-06-01", "2026-06-02", "2026-06-03", "2026-06-04", "2026-06-05", "2026-06-08",
                "2026-06-09", "2026-06-10", "2026-06-11", "2026-06-12", "2026-06-15"]
    assert sorted(per_session) == [*complete, "2026-06-16"]
    for session in complete:
        assert sorted(per_session[session]) == sorted(DAILY | BTC)
    assert per_session["2026-06-16"] == ["BTC"]
