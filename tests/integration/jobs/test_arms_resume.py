"""Arm asks in flight when the daemon died are resumed at the restart, identically and once: the arms' book and
its ask chain of a killed and restarted day are byte-identical to an uninterrupted day's (as the council's are,
tests/integration/jobs/test_fault_resume.py)."""

from __future__ import annotations

import fcntl
import json
import os
import shutil
import signal
import subprocess
import sys
import time as time_mod
from collections import Counter
from datetime import date, datetime, time, timedelta
from pathlib import Path

import pytest
from arms_helpers import enable_arms
from day_helpers import league_dir, roster, seat

from league.calendar import et_time
from league.clock import SimulatedClock, parse_iso
from league.compose import build_league
from league.config import load_config
from league.jobs.context import BARE
from league.jobs.scheduler import catch_up
from league.jobs.seal import pump
from league.verify.chain import verify

SESSION = date(2026, 11, 24)
HERE = Path(__file__).resolve().parent
SEATS = roster(seat("aurora", "scripted", seed=1, latency_s=60), seat("basalt", "scripted", seed=2, latency_s=1500),
               seat("_coin", "coin"))
BOOKS = ("council-book.jsonl", "asks.jsonl", "arms-book.jsonl", "arm-asks.jsonl")


@pytest.fixture(autouse=True)
def _bwrap() -> None:
    if shutil.which("bwrap") is None:
        pytest.skip("bubblewrap (bwrap) is not installed: apt-get install -y bubblewrap")


def _league(tmp_path: Path, name: str) -> Path:
    config_dir, data_dir, _ = league_dir(tmp_path / name, SEATS, et_time(SESSION, time(7, 0)))
    enable_arms(config_dir, data_dir, SESSION, repeat_seats=("aurora",), repeat_day="tue")
    return config_dir


def _stopped_at(books: Path) -> datetime:
    """The latest ``at`` of the four books' last lines: where the killed simulated daemon's clock stood."""
    ats = [parse_iso(json.loads(p.read_bytes().rpartition(b"\n")[0].rpartition(b"\n")[2])["at"])
           for p in (books / name for name in BOOKS) if p.is_file() and p.stat().st_size]
    return max(ats)


def _lock_free(books: Path, wait_s: float = 20.0) -> None:
    """Wait (bounded) until no process holds the council book's writer lock: a killed daemon's lock is released
    by the kernel once every process sharing it has exited, which on a loaded machine can trail the exit code."""
    end = time_mod.monotonic() + wait_s
    while time_mod.monotonic() < end:
        fd = os.open(books / "council-book.jsonl.lock", os.O_RDWR | os.O_CREAT, 0o644)
        try:
            fcntl.flock(fd, fcntl.LOCK_EX | fcntl.LOCK_NB)
            fcntl.flock(fd, fcntl.LOCK_UN)
            return
        except BlockingIOError:
            time_mod.sleep(0.2)
        finally:
            os.close(fd)


def _day(config_dir: Path, start: datetime) -> None:
    config = load_config(config_dir)
    with build_league(config, SimulatedClock(start), stages=BARE) as lg:
        catch_up(lg, et_time(SESSION, time(3, 0)), et_time(SESSION + timedelta(days=1), time(3, 0)),
                 before_each=lambda f: pump(lg, f.at))
        pump(lg, et_time(SESSION + timedelta(days=1), time(3, 0)))


def test_killed_with_arm_asks_in_flight_the_restart_resends_them_identically(tmp_path: Path) -> None:
    calm = _league(tmp_path, "calm")
    _day(calm, et_time(SESSION, time(8, 0)))
    killed = _league(tmp_path, "killed")
    proc = subprocess.run([sys.executable, str(HERE / "child_daemon.py"), str(killed), SESSION.isoformat(), "08:45"],
                          capture_output=True, text=True, timeout=180)
    assert proc.returncode == -signal.SIGKILL, proc.stderr
    books = load_config(killed).data_dir / "books"
    arms = [json.loads(x) for x in (books / "arms-book.jsonl").read_bytes().splitlines()]
    assert any(x["kind"] == "arm_run" for x in arms)
    in_flight = [x for x in arms if x["kind"] == "arm_answer"]
    runs = [x for x in arms if x["kind"] == "arm_run"]
    assert len(in_flight) < sum(len(r["roster"]) for r in runs)  # basalt's arm asks were in flight at the kill
    _lock_free(books)
    for _ in range(2):  # the second restart finds nothing left to do
        _day(killed, _stopped_at(books))
    calm_books = load_config(calm).data_dir / "books"
    for name in BOOKS:
        assert (calm_books / name).read_bytes() == (books / name).read_bytes(), name
    arms = [json.loads(x) for x in (books / "arms-book.jsonl").read_bytes().splitlines()]
    replies = Counter((x["run_id"], x["seat"]) for x in arms if x["kind"] in ("arm_answer", "arm_silence"))
    assert set(replies.values()) == {1} and len(replies) == sum(len(r["roster"]) for r in runs)
    assert verify(books / "arms-book.jsonl").ok and verify(books / "arm-asks.jsonl").ok
