"""The demo's oracle hints read their bars through one Bars kept from session to session (replay prices are
fixed): the hints are the ones a fresh Bars per session gives, session after session, and a price source
put in after the stand-ins (a test's outage wrapper) is read afresh every session."""

from __future__ import annotations

from collections.abc import Iterator
from contextlib import contextmanager
from datetime import date, time
from pathlib import Path
from typing import Any

from day_helpers import BASELINES, league_dir

from league.calendar import default_calendar, et_time
from league.compose import build_league
from league.config import load_config
from league.demo import add_stand_ins, demo_sessions, forget_bars_before, oracle_hints
from league.jobs.context import BARE, League
from league.jobs.score import Bars

START = date(2026, 6, 1)


@contextmanager
def demo_league(tmp_path: Path, sessions: int, *, stand_ins: bool = True) -> Iterator[tuple[League, list[date]]]:
    """A baselines-only League opened at 07:00 ET on the first of ``sessions`` demo days (with the demo's
    stand-ins unless told otherwise), and those days."""
    days = demo_sessions(default_calendar(), START, sessions)
    config_dir, _, clock = league_dir(tmp_path, BASELINES, et_time(days[0], time(7, 0)))
    with build_league(load_config(config_dir), clock, seats=None, stages=BARE, anchor=days[0]) as lg:
        if stand_ins:
            add_stand_ins(lg, 7)
            assert lg.asking.ask_context is not None
        yield lg, days


def test_hints_with_bars_kept_across_sessions_are_the_fresh_ones(tmp_path: Path) -> None:
    with demo_league(tmp_path, 12) as (lg, days):
        assert lg.asking.ask_context is not None
        for day in days:
            fresh = oracle_hints(lg.view, day)
            assert any(fresh.values())
            assert lg.asking.ask_context(lg, day.isoformat())["hint"] == fresh


def test_forgetting_drops_old_days_and_everything_after_an_error(tmp_path: Path) -> None:
    with demo_league(tmp_path, 3, stand_ins=False) as (lg, days):
        bars = Bars(lg.view)
        oracle_hints(lg.view, days[0], bars)
        oracle_hints(lg.view, days[2], bars)
        first = min(k[1] for k in bars.days)
        forget_bars_before(bars, days[2])
        assert bars.days and min(k[1] for k in bars.days) >= days[2] > first
        assert all(k[1] >= days[2] for table in (bars.starts, bars.bands) for k in table)
        bars.errors.append("^GSPC 2026-06-03: outage")
        forget_bars_before(bars, days[0])
        assert not bars.days and not bars.starts and not bars.bands and not bars.errors


def test_a_price_source_put_in_later_is_read_afresh(tmp_path: Path) -> None:
    with demo_league(tmp_path, 2) as (lg, days):
        assert lg.asking.ask_context is not None
        lg.asking.ask_context(lg, days[0].isoformat())
        calls: list[Any] = []
        inner = lg.market.prices

        class Counting:
            name = "counting"

            def bars(self, *args: Any) -> Any:
                calls.append(args)
                return inner.bars(*args)

            def day_bars(self, *args: Any) -> Any:  # the score job's Bars read whole days of the memo so
                calls.append(args)
                return inner.day_bars(*args)

            def __getattr__(self, item: str) -> Any:
                return getattr(inner, item)

        lg.market.prices = Counting()  # type: ignore[assignment]
        got = lg.asking.ask_context(lg, days[1].isoformat())["hint"]
        n = len(calls)
        assert n > 0 and got == oracle_hints(lg.view, days[1])
        assert len(calls) == 2 * n  # the fresh read above asked the source for exactly the same days
