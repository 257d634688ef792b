"""A standby daemon takes over from a leader that dies mid-morning (docs/operations.md).

Two real `league daemon` processes on one league (SQLite index, so the leader lock is the data
folder's flock): the leader's wall clock starts at 08:31 ET, so its catch-up asks the seats at once;
the standby waits for the lock. The leader is SIGKILLed while a slow seat's ask is in flight. The
standby, whose clock the test has put at 16:30 ET of the same session, takes the lock, catches up and
runs the rest of the day through the score job. Every job of the day is done exactly once in the job
ledger, the book has one run and at most one line per seat, and it verifies.
"""

from __future__ import annotations

import json
import os
import signal
import sqlite3
import subprocess
import sys
import time
from collections.abc import Callable
from datetime import UTC, datetime, timedelta
from pathlib import Path
from typing import IO

import pytest
from day_helpers import hostile_seat, roster, seat
from test_daemon_stop import _answers, _slow_asked, _wait_for

from league.clock import SimulatedClock
from league.folder import init_folder
from league.verify.chain import verify

pytestmark = [pytest.mark.sandbox, pytest.mark.slow]
HERE = Path(__file__).resolve().parent
LEADER_AT = datetime(2026, 11, 25, 13, 31, tzinfo=UTC)  # 08:31 ET
STANDBY_AT = datetime(2026, 11, 25, 21, 30, tzinfo=UTC)  # 16:30 ET: after the 16:05 score job


def _league(tmp_path: Path) -> Path:
    if not Path("/usr/bin/bwrap").exists():
        pytest.skip("bubblewrap (bwrap) is not installed: apt-get install -y bubblewrap")
    config_dir, _ = init_folder(tmp_path, demo=True, clock=SimulatedClock(LEADER_AT - timedelta(minutes=2)))
    toml = config_dir / "league.toml"
    toml.write_text(toml.read_text().replace('mode = "simulated"', 'mode = "system"'))
    (config_dir / "roster.toml").write_text(roster(seat("quick", "scripted", seed=4), seat("_coin", "coin"),
                                                   hostile_seat("slow", "slow-50")))  # outlasts the standby's start
    return config_dir


def _daemon(config_dir: Path, at: datetime, err: IO[bytes] | None = None) -> subprocess.Popen[bytes]:
    """A daemon whose stderr goes to a pipe, or to ``err`` (a file the test can read while it runs)."""
    env = {**os.environ, "PYTHONPATH": str(HERE.parents[2]), "LEAGUE_OPS_LISTEN": "off",
           "LEAGUE_STANDBY_POLL_S": "0.5"}
    return subprocess.Popen([sys.executable, str(HERE / "shifted_daemon.py"), at.isoformat(), "--config",
                             str(config_dir)], env=env, stdout=subprocess.PIPE,
                            stderr=err if err is not None else subprocess.PIPE)


def _until(predicate: Callable[[], bool], proc: subprocess.Popen[bytes], log: Path, seconds: float) -> None:
    """Wait for ``predicate`` (polled, no fixed sleep: the machine may be loaded); a daemon that ends or a
    deadline that passes fails the test with the end of its log."""
    deadline = time.monotonic() + seconds
    while not predicate():
        if proc.poll() is not None or time.monotonic() > deadline:
            proc.kill()
            raise AssertionError(f"daemon ended ({proc.poll()}) or timed out: {log.read_text()[-3000:]}")
        time.sleep(0.1)


def _events(err: bytes) -> list[dict[str, object]]:
    return [json.loads(x) for x in err.decode().splitlines() if x.startswith("{")]


def _book(data: Path) -> list[dict[str, object]]:
    return [json.loads(x) for x in (data / "books" / "council-book.jsonl").read_text().splitlines()]


def test_the_standby_finishes_the_day_when_the_leader_is_killed_mid_ask(tmp_path: Path) -> None:
    config_dir = _league(tmp_path)
    data = tmp_path / "data"
    leader = _daemon(config_dir, LEADER_AT)
    _wait_for(lambda: _slow_asked(data), leader)
    log = tmp_path / "standby.err"
    with log.open("wb") as err_file:
        standby = _daemon(config_dir, STANDBY_AT, err_file)
    try:
        # the standby has said it waits for the lock (not a fixed sleep: under load it starts slowly)
        _until(lambda: '"leader.standby"' in log.read_text(), standby, log, seconds=120)
        assert standby.poll() is None and "slow" not in _answers(data)
        leader.send_signal(signal.SIGKILL)
        leader.wait(30)
        _until(lambda: any(x["kind"] == "score" for x in _book(data)), standby, log, seconds=240)
        standby.send_signal(signal.SIGTERM)
        standby.communicate(timeout=90)
    finally:
        for proc in (leader, standby):
            if proc.poll() is None:
                proc.kill()
    err = log.read_bytes()
    assert standby.returncode == 0, err.decode()[-3000:]
    events = [e.get("event") for e in _events(err)]
    assert events.index("leader.standby") < events.index("leader.acquired")
    jobs = sqlite3.connect(data / "league.db").execute(
        "SELECT job, status, count(*) FROM job_runs WHERE session = '2026-11-25' GROUP BY job, status").fetchall()
    by_job = {job: (status, n) for job, status, n in jobs}
    # One row per (session, job), claimed once and done once: the ask by the leader (its snapshot runs
    # inside it), ingest close and score by the standby. The second wave was due while nobody led
    # and is past counted ingest close when the standby catches up, so it is not run (no row).
    assert by_job == {"ask": ("done", 1), "ingest_close": ("done", 1), "score": ("done", 1)}, by_job
    owners = dict(sqlite3.connect(data / "league.db").execute(
        "SELECT job, owner FROM job_runs WHERE session = '2026-11-25'").fetchall())
    assert owners["ask"].endswith(f":{leader.pid}") and owners["score"].endswith(f":{standby.pid}")
    lines = _book(data)
    assert [x["kind"] for x in lines].count("run") == 1
    assert [x["kind"] for x in lines].count("score") == 1
    per_seat = [x["seat"] for x in lines if x["kind"] in ("answer", "incident", "silence")]
    assert len(per_seat) == len(set(per_seat)) and {"quick", "_coin"} <= set(per_seat)
    assert verify(data / "books" / "council-book.jsonl").ok
