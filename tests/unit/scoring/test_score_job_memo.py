"""The score job's memos give what the computations they skip give: each
(session, horizon)'s end groups, each sealed ``score_h`` line's markets, and an event's direction
without its draw band."""

from __future__ import annotations

from datetime import date
from types import SimpleNamespace
from typing import Any

import pytest
from index_of_lines import LinesIndex

from league import records
from league.calendar import default_calendar
from league.config import load_config, shipped_config_dir
from league.counting import LONG_HORIZONS, Event, common_contract
from league.jobs import score as score_job
from league.jobs.score import Bars, event_outcome, resolve_event
from league.prices.memo import MemoProvider
from league.prices.replay import SyntheticMarket


@pytest.fixture(scope="module")
def lg() -> Any:
    config = load_config(shipped_config_dir())
    cal = default_calendar()
    market = SyntheticMarket(7, config.markets.markets, cal, anchor=date(2026, 6, 1), before=40, after=200)
    return SimpleNamespace(config=config, calendar=cal, prices=MemoProvider(market))


def test_end_groups_from_the_memo_equal_the_computation(lg: Any) -> None:
    sessions = lg.calendar.sessions_in_range(date(2026, 6, 1), date(2026, 9, 30))
    for _ in range(2):  # computed, then served from the memo
        for session in [*sessions, date(2099, 1, 5)]:  # the last one is beyond the calendar: no groups
            for horizon in ("1d", *LONG_HORIZONS):
                got = score_job.end_groups(lg, session, horizon)
                assert got == score_job._end_groups(lg, session, horizon)
                got.clear()  # a caller's copy: the memo is not touched


def test_a_changed_calendar_or_config_is_not_served_an_old_answer(lg: Any) -> None:
    session = date(2026, 6, 1)
    before = score_job.end_groups(lg, session, "1w")
    other = SimpleNamespace(config=SimpleNamespace(markets=SimpleNamespace(markets=())), calendar=lg.calendar)
    assert before and score_job.end_groups(other, session, "1w") == {}


_Index = LinesIndex

class _League:
    def __init__(self) -> None:
        self.index = _Index()


def _line(n: int, session: str, horizon: str, seats: list[str], markets: list[str]) -> dict[str, Any]:
    return {"n": n, "kind": "score_h", "session": session, "horizon": horizon,
            "seats": [{"market": m} for m in seats], "markets": [{"market": m} for m in markets]}


def _direct(lg: _League, sessions: list[str]) -> dict[tuple[str, str], set[str]]:
    done: dict[tuple[str, str], set[str]] = {}
    for x in (x for s in sessions for x in lg.index.of(records.Score, s)):
        codes = {r.market for r in x.seats} | {e.market for e in x.markets}
        done.setdefault((x.session, x.horizon), set()).update(codes)
    return done


def test_scored_markets_from_the_memo_equal_the_computation() -> None:
    lg = _League()
    lg.index.lines += [_line(1, "2026-06-01", "1w", ["SPX", "NDX"], ["SPX"]),
                       _line(2, "2026-06-01", "1w", ["BTC"], []),
                       _line(3, "2026-06-02", "1m", [], ["GOLD"])]
    sessions = ["2026-06-01", "2026-06-02"]
    assert score_job._scored_markets(lg, sessions) == _direct(lg, sessions)  # type: ignore[arg-type]
    lg.index.lines.append(_line(4, "2026-06-02", "1w", ["WTI"], ["WTI", "VIX"]))
    assert score_job._scored_markets(lg, sessions) == _direct(lg, sessions)  # type: ignore[arg-type]
    assert score_job._scored_markets(lg, sessions[1:]) == _direct(lg, sessions[1:])  # type: ignore[arg-type]
    assert set(score_job._LINE_MARKETS[lg]) == {3, 4}  # type: ignore[index]  # the window moved on


def test_an_events_direction_is_the_score_jobs_without_its_band(lg: Any) -> None:
    seen = set()
    for session in lg.calendar.sessions_in_range(date(2026, 6, 1), date(2026, 6, 12)):
        for m in lg.config.markets.markets:
            for horizon in ("1d", "1w"):
                contract = common_contract(lg, m, session, horizon)
                ev = Event(m.code, horizon, contract, seal_based=not m.daily)
                resolve_event(lg, ev, Bars(lg))
                up = ev.result["up"]
                assert event_outcome(lg, m.code, horizon, contract) == (None if up is None else bool(up))
                seen.add(up)
    assert seen >= {True, False}
