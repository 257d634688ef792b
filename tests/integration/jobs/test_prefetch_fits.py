"""The stage before the score job starts the next session's `_ets` fits from exactly the history that
session's ask will carry, and the ask then takes them (no fit asked twice), answering as without them."""

from __future__ import annotations

from datetime import date, time
from pathlib import Path
from typing import Any

import pytest
from day_helpers import league_dir, roster, seat

from league.calendar import default_calendar, et_time
from league.compose import build_league
from league.config import load_config
from league.jobs.ask import history_context, prefetch_fits
from league.jobs.context import BARE
from league_agents import ets_fit
from league_agents.base import Ask, SeatBase
from league_agents.baselines import EtsSeat

DAY = date(2026, 6, 2)


class Recording(SeatBase):
    """A seat with the prefetch hook (league_agents.base.SeatBase): what the stage hands it is kept."""

    def __init__(self) -> None:
        self.seen: list[Any] = []

    def prefetch(self, history: Any) -> int:
        self.seen.append(history)
        return len(history)


def test_the_stage_hands_the_next_sessions_history_to_each_seat(tmp_path: Path) -> None:
    config_dir, _, clock = league_dir(tmp_path, roster(seat("_coin", "coin"), seat("_ets", "ets")),
                                      et_time(DAY, time(16, 5)))
    with build_league(load_config(config_dir), clock, stages=BARE, anchor=DAY) as lg:
        recording = Recording()
        lg.asking.seats["_rec"] = recording  # type: ignore[assignment]
        coming = default_calendar().next_session(DAY).isoformat()
        started = prefetch_fits(lg, DAY.isoformat())
        assert recording.seen == [history_context(lg, coming)["history"]]
        assert started >= len(recording.seen[0])  # the `_ets` seat's fits and the recording's


def test_the_next_ask_takes_the_prefetched_fits(tmp_path: Path, monkeypatch: pytest.MonkeyPatch) -> None:
    monkeypatch.setenv(ets_fit.ENV_FLAG, "1")
    config_dir, _, clock = league_dir(tmp_path, roster(seat("_ets", "ets", max_history=250)), et_time(DAY, time(16, 5)))
    with build_league(load_config(config_dir), clock, stages=BARE, anchor=DAY) as lg:
        ets = lg.asking.seats["_ets"]
        assert isinstance(ets, EtsSeat) and ets.worker is not None
        assert prefetch_fits(lg, DAY.isoformat()) > 0
        sent = ets.worker._next
        coming = default_calendar().next_session(DAY).isoformat()
        context = {"markets": {code: {"horizons": ["1d", "1w"], "price": closes[-1]}
                               for code, closes in history_context(lg, coming)["history"].items()},
                   **history_context(lg, coming)}
        ask = Ask(text="ask", sha256="0" * 64, session=coming, context=context)
        raw = ets.ask(ask, clock.now).raw
        assert ets.worker._next == sent  # every fit came from the stage
        monkeypatch.setenv(ets_fit.ENV_FLAG, "0")
        assert raw == EtsSeat(ets.spec).ask(ask, clock.now).raw
