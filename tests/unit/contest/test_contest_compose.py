"""The contest in the composition root and the daemon's scheduler: built only when config/contest.toml exists."""

from __future__ import annotations

from datetime import UTC, datetime
from importlib import resources
from pathlib import Path

import pytest

from league.clock import SimulatedClock
from league.compose import contest_runtime, open_contest
from league.config import ArmsSettings, Schedule, TalkSettings
from league.contest.config import Venue
from league.contest.context import broker_for, market_source
from league.errors import ConfigError
from league.jobs.scheduler import DAY_JOBS, TALK_JOBS, build_scheduler

LIVE = Path(str(resources.files("league.contest").joinpath("live.toml")))

#: Jobs a league plans only when configured: the arms ([arms]) and the council talk ([talk]).
OFF_BY_DEFAULT = ("arms", *TALK_JOBS)


class _League:
    """What open_contest and build_scheduler read of a league."""

    def __init__(self, folder: Path) -> None:
        self.config = type("Config", (), {"folder": folder,
                                          "settings": type("Settings", (), {"schedule": Schedule(),
                                                                           "arms": ArmsSettings(),
                                                                           "talk": TalkSettings()})()})()


def test_no_contest_toml_no_contest(tmp_path: Path) -> None:
    assert open_contest(_League(tmp_path)) is None  # type: ignore[arg-type]


def test_the_live_contest_on_a_data_folder_and_its_jobs_beside_the_councils(tmp_path: Path) -> None:
    clock = SimulatedClock(datetime(2026, 12, 7, 5, 0, tzinfo=UTC))
    (tmp_path / "data" / "books").mkdir(parents=True)
    rt = contest_runtime(LIVE, tmp_path / "data", clock, "06:00")
    try:
        assert rt.ctx.ledger.path == tmp_path / "data" / "books" / "contest-book.jsonl"
        assert rt.ctx.public == tmp_path / "data" / "contest" and rt.calls == tmp_path / "data" / "contest-calls"
        assert type(rt.ctx.source).__name__ == "GammaSource" and type(rt.ctx.broker).__name__ == "PaperBroker"
        assert rt.sweep_utc == "06:00" and rt.ctx.selfcheck is not None
        assert [a.seat.adapter for a in rt.ctx.config.agents] == ["claude_code", "codex", "gemini_cli", "grok_cli"]
        sched = build_scheduler(_League(tmp_path), f"sqlite:///{tmp_path / 'jobs.db'}", blocking=False,  # type: ignore[arg-type]
                                contest=rt)
        sched.start(paused=True)
        try:
            ids = {j.id for j in sched.get_jobs()}
        finally:
            sched.shutdown(wait=False)
        day = {f"league-{j}" for j in DAY_JOBS if j not in OFF_BY_DEFAULT}
        assert ids == day | {"league-contest_sweep", "league-contest_poll", "league-contest_nightly",
                             "league-verify-book"}
    finally:
        rt.close(0)


def test_market_sources_and_brokers_are_resolved_by_name() -> None:
    """The contest's market sources and brokers are registered adapters: a name nobody registered is one
    configuration error naming the registered ones."""
    assert type(market_source("gamma", Venue())).__name__ == "GammaSource"
    assert type(broker_for(Venue(live_trading=False))).__name__ == "PaperBroker"
    with pytest.raises(ConfigError) as info:
        market_source("kalshi", Venue())
    assert "unknown contest market source 'kalshi'; registered: gamma, recorded" in info.value.diagnostics()
