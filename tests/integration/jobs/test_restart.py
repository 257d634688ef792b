"""Restart: the daemon killed between ask and close, restarted → the day is scored exactly once
and no line is sealed twice (the job ledger and the book both guard each (session, job))."""

from __future__ import annotations

import json
import shutil
import signal
import subprocess
import sys
from collections import Counter
from datetime import date, time, timedelta
from pathlib import Path

import pytest
from day_helpers import league_dir as make_league_dir
from day_helpers import roster, seat

from league.calendar import et_time
from league.clock import SimulatedClock
from league.compose import build_league
from league.config import load_config
from league.jobs.context import BARE
from league.jobs.scheduler import catch_up
from league.jobs.seal import pump
from league.store import open_store
from league.verify.chain import verify

SESSION = date(2026, 11, 24)


@pytest.fixture()
def league_dir(tmp_path: Path) -> Path:
    if shutil.which("bwrap") is None:
        pytest.skip("bubblewrap (bwrap) is not installed: apt-get install -y bubblewrap")
    seats = roster(seat("aurora", "scripted", seed=1, latency_s=60), seat("basalt", "scripted", seed=2, latency_s=1500),
                   seat("_coin", "coin"))
    config_dir, _, _ = make_league_dir(tmp_path, seats, et_time(SESSION, time(7, 0)))
    return config_dir


def lines(config_dir: Path) -> list[dict[str, object]]:
    path = load_config(config_dir).data_dir / "books" / "council-book.jsonl"
    return [json.loads(x) for x in path.read_text(encoding="utf-8").splitlines()]


def test_killed_between_ask_and_close_scores_once(league_dir: Path) -> None:
    child = Path(__file__).with_name("child_daemon.py")
    proc = subprocess.run([sys.executable, str(child), str(league_dir), SESSION.isoformat(), "08:45"],
                          capture_output=True, text=True, timeout=120)
    assert proc.returncode == -signal.SIGKILL, proc.stderr
    before = lines(league_dir)
    assert any(x["kind"] == "run" for x in before) and not any(x["kind"] == "score" for x in before)

    config = load_config(league_dir)
    for _restart in range(2):  # restart twice: the second catch-up must find nothing left to do
        clock = SimulatedClock(et_time(SESSION, time(9, 5)))
        with build_league(config, clock, store=None, stages=BARE) as lg:
            store = open_store(config.database_url)
            catch_up(lg, et_time(SESSION, time(3, 0)), et_time(SESSION + timedelta(days=1), time(3, 0)),
                     ledger=store, before_each=lambda f, lg=lg: pump(lg, f.at))
            store.close()

    after = lines(league_dir)
    assert after[: len(before)] == before  # nothing sealed before the crash was rewritten
    kinds = Counter(x["kind"] for x in after)
    assert kinds["score"] == 1
    assert kinds["ingest_close"] == 1
    answers = Counter((x["run_id"], x["seat"], x["attempt"]) for x in after if x["kind"] == "answer")
    assert answers and max(answers.values()) == 1
    counted_runs = [x for x in after if x["kind"] == "run" and x["attempt"] == 1]
    assert len(counted_runs) == 1
    assert verify(load_config(league_dir).data_dir / "books" / "council-book.jsonl").ok
