"""A small demo league built once per package: 3 sessions of the shipped demo roster, whose hard cases
(malformed, silent, second-wave, late seats) the tests read back from the published files."""

from __future__ import annotations

import shutil
from collections.abc import Iterator
from datetime import date

import pytest

from league.calendar import default_calendar
from league.clock import SimulatedClock
from league.compose import build_league
from league.config import load_config
from league.demo import demo_sessions, local_stamp_services
from league.jobs.context import Stages
from league.jobs.publish import publish_now
from league.jobs.scheduler import run_session, session_start
from league.jobs.stamp import use_services


def needs_bwrap() -> None:
    if shutil.which("bwrap") is None:
        pytest.skip("bubblewrap (bwrap) is not installed: apt-get install -y bubblewrap")


@pytest.fixture(scope="package")
def demo_league(tmp_path_factory: pytest.TempPathFactory) -> Iterator[dict[str, object]]:
    needs_bwrap()
    from league.folder import init_folder

    root = tmp_path_factory.mktemp("league")
    days = demo_sessions(default_calendar(), date(2026, 11, 23), 3)  # includes the 2026-11-27 early close
    clock = SimulatedClock(session_start(days[0]))
    config_dir, _ = init_folder(root, demo=True, seed=3, clock=clock)
    config = load_config(config_dir)
    with local_stamp_services(clock) as services, \
            build_league(config, clock, anchor=days[0], stages=Stages(publish=False)) as lg:
        from league.demo import synthetic_crowd

        lg.market.crowd = synthetic_crowd(lg.view, 3)
        use_services(lg, **services)
        for day in days:
            run_session(lg, day)
        public = publish_now(lg).out_dir
        yield {"league": lg, "public": public, "days": [d.isoformat() for d in days], "data": lg.data_dir}
