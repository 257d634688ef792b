"""What a requested stop changes inside the league: catch-up starts no further
job, scheduled jobs do not start, and the drain of asks in flight is bounded by the grace period
(without a stop it waits for every ask, as `league run ask` needs)."""

from __future__ import annotations

from concurrent.futures import Future
from datetime import date, time
from pathlib import Path

from day_helpers import BASELINES, league_dir

from league.calendar import et_time
from league.compose import build_league
from league.config import load_config
from league.jobs.context import BARE
from league.jobs.scheduler import _DAEMON, catch_up, scheduled_entry
from league.jobs.seal import pump
from league.shutdown import Shutdown

SESSION = date(2026, 11, 24)


def test_catch_up_runs_nothing_once_a_stop_is_requested(tmp_path: Path) -> None:
    config_dir, _, clock = league_dir(tmp_path, BASELINES, et_time(SESSION, time(3, 0)))
    with build_league(load_config(config_dir), clock, stages=BARE) as lg:
        stop = Shutdown()
        ran = catch_up(lg, et_time(SESSION, time(3, 0)), et_time(SESSION, time(9, 20)),
                       before_each=lambda f: (pump(lg, f.at), stop.request()), should_stop=stop.requested.is_set)
        assert [f.job for f, _ in ran] == ["snapshot"]  # the job under way finished, none started after
        assert lg.books.index.of_kind("run") == []


def test_scheduled_job_does_not_start_while_stopping(tmp_path: Path) -> None:
    config_dir, _, clock = league_dir(tmp_path, BASELINES, et_time(SESSION, time(8, 30)))
    with build_league(load_config(config_dir), clock, stages=BARE) as lg:
        stop = Shutdown()
        stop.request()
        _DAEMON.update(league=lg, ledger=None, shutdown=stop)
        try:
            scheduled_entry("ask")
        finally:
            _DAEMON.clear()
        assert lg.books.index.of_kind("run") == []


def test_drain_is_bounded_by_the_grace_period_once_stopping(tmp_path: Path) -> None:
    config_dir, _, clock = league_dir(tmp_path, BASELINES, et_time(SESSION, time(8, 30)))
    lg = build_league(load_config(config_dir), clock, stages=BARE)
    never: Future[object] = Future()  # an ask whose seat never answers
    lg.asking.inflight.append(never)
    lg.asking.inflight_by_seat[(str(SESSION), "stuck")] = never
    lg.asking.shutdown = Shutdown(grace_s=0.2)
    lg.asking.shutdown.request()
    assert lg.asking.drain() == 1  # returned although the ask is still running: the grace period is over
    lg.close()
