"""One small demo folder built once for the package, and its rebuild from the books.

Two sessions of the demo league plus a seat that replies malformed, one that is silent and one that
answers late, so the folder holds ``refused_shape``, ``no_answer`` and own-reference rows too. Every
tamper test works on a ``cp -a`` copy of the published folder; the folder itself stays clean.
"""

from __future__ import annotations

import shutil
from collections.abc import Iterator
from pathlib import Path

import pytest

from league.errors import LeagueError


@pytest.fixture(scope="package")
def demo_public(tmp_path_factory: pytest.TempPathFactory) -> Path:
    from league.config import load_roster, shipped_config_dir
    from league.jobs.preflight import require

    try:
        require(load_roster(shipped_config_dir() / "roster.demo.toml").seat, what="the demo")
    except LeagueError as exc:
        pytest.skip(f"the demo's prerequisites are missing: {exc.message}")
    return _season(tmp_path_factory.mktemp("verify-demo") / "league")


HARD_SEATS = """
[[seat]]
name = "grumpy"
adapter = "scripted"
model = "scripted-grumpy-1"
family = "lab-g"
options = { seed = 61, mode = "malformed", latency_s = 30 }

[[seat]]
name = "mute"
adapter = "scripted"
model = "scripted-mute-1"
family = "lab-m"
options = { seed = 71, mode = "silent", latency_s = 30 }

[[seat]]
name = "sloth"
adapter = "scripted"
model = "scripted-sloth-1"
family = "lab-s"
options = { seed = 81, latency_s = 4500 }
"""


def _season(root: Path) -> Path:
    """The demo configuration with the hard seats, two sessions through the scheduler, then publish."""
    from datetime import date

    from league.calendar import default_calendar
    from league.clock import SimulatedClock
    from league.compose import build_league
    from league.config import load_config
    from league.demo import add_stand_ins, demo_sessions
    from league.folder import init_folder
    from league.jobs.context import Stages
    from league.jobs.publish import publish_now
    from league.jobs.scheduler import run_session, session_start

    days = demo_sessions(default_calendar(), date(2026, 6, 1), 2)
    clock = SimulatedClock(session_start(days[0]))
    config_dir, _ = init_folder(root, demo=True, seed=7, clock=clock)
    roster = config_dir / "roster.toml"
    if "grumpy" not in roster.read_text():  # the demo roster ships the hard-case seats itself now
        roster.write_text(roster.read_text() + HARD_SEATS)
    with build_league(load_config(config_dir), clock, anchor=days[0], stages=Stages(publish=False)) as lg:
        add_stand_ins(lg, 7)
        for day in days:
            run_session(lg, day)
        return publish_now(lg).out_dir


@pytest.fixture(scope="package")
def rebuilt(demo_public: Path, tmp_path_factory: pytest.TempPathFactory) -> Path:
    """Every derived file recomputed from the published books (the tampers touch no book)."""
    from league.publish.rebuild import rebuild_into

    return rebuild_into(demo_public, tmp_path_factory.mktemp("rebuilt"))


@pytest.fixture(scope="package")
def clean_verify(demo_public: Path) -> tuple[int, str]:
    """`league verify` on the untampered folder, run once: (exit code, output)."""
    from typer.testing import CliRunner

    from league.cli import app

    result = CliRunner().invoke(app, ["verify", str(demo_public)])
    return result.exit_code, result.output


@pytest.fixture
def copy(demo_public: Path, tmp_path: Path) -> Iterator[Path]:
    """A ``cp -a`` copy of the published folder to tamper with."""
    target = tmp_path / "public"
    shutil.copytree(demo_public, target, symlinks=True)
    yield target
