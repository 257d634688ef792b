"""SIGTERM mid-ask under the real daemon process (issue 11, item 2; docs/league-day.md "Stopping").

The daemon is `league daemon` itself (league.cli.main) in a child process whose wall clock starts at
08:31 ET on a session, so its catch-up asks the seats at once; a seat of the real sandbox takes
six seconds to answer. SIGTERM arrives while that ask is in flight: the daemon starts nothing new,
seals the slow seat's reply when it arrives and exits 0. A second SIGTERM exits at once.
"""

from __future__ import annotations

import json
import os
import shutil
import signal
import subprocess
import sys
import time
from datetime import UTC, datetime, timedelta
from pathlib import Path

import pytest
from day_helpers import hostile_seat, roster, seat

from league.cli.init import init_folder
from league.clock import SimulatedClock
from league.verify.chain import verify
from sandbox.cgroups import detect

pytestmark = [pytest.mark.sandbox, pytest.mark.slow]
HERE = Path(__file__).resolve().parent
START = datetime(2026, 11, 25, 13, 31, tzinfo=UTC)  # 08:31 ET: the 08:30 ask is due at once


def _league(tmp_path: Path) -> Path:
    if shutil.which("bwrap") is None:
        pytest.skip("bubblewrap (bwrap) is not installed: apt-get install -y bubblewrap")
    config_dir, _ = init_folder(tmp_path, demo=True, clock=SimulatedClock(START - timedelta(minutes=2)))
    toml = config_dir / "league.toml"
    toml.write_text(toml.read_text().replace('mode = "simulated"', 'mode = "system"'))
    (config_dir / "roster.toml").write_text(roster(seat("quick", "scripted", seed=4), seat("_coin", "coin"),
                                                   hostile_seat("slow", "slow-6")))
    return config_dir


def _start(config_dir: Path) -> subprocess.Popen[bytes]:
    env = {**os.environ, "PYTHONPATH": str(HERE.parents[2])}
    return subprocess.Popen([sys.executable, str(HERE / "shifted_daemon.py"), START.isoformat(), "--config",
                             str(config_dir)], env=env, stdout=subprocess.PIPE, stderr=subprocess.PIPE)


def _lines(path: Path) -> list[dict[str, object]]:
    if not path.exists():
        return []
    return [json.loads(x) for x in path.read_text().splitlines() if x.endswith("}")]


def _wait_for(predicate: object, proc: subprocess.Popen[bytes], seconds: float = 60) -> None:
    deadline = time.monotonic() + seconds
    while not predicate():  # type: ignore[operator]
        if proc.poll() is not None:
            raise AssertionError(f"daemon ended early ({proc.returncode}): {proc.stderr.read().decode()[-3000:]}")  # type: ignore[union-attr]
        if time.monotonic() > deadline:
            proc.kill()
            raise AssertionError(f"timed out: {proc.stderr.read().decode()[-3000:]}")  # type: ignore[union-attr]
        time.sleep(0.1)


def _slow_asked(data: Path) -> bool:
    return any(x.get("kind") == "ask" and x.get("seat") == "slow" for x in _lines(data / "books" / "asks.jsonl"))


def _answers(data: Path) -> dict[str, dict[str, object]]:
    return {str(x["seat"]): x for x in _lines(data / "books" / "council-book.jsonl") if x["kind"] == "answer"}


def test_sigterm_mid_ask_seals_the_slow_reply_and_exits_0(tmp_path: Path) -> None:
    config_dir = _league(tmp_path)
    data = tmp_path / "data"
    proc = _start(config_dir)
    _wait_for(lambda: _slow_asked(data), proc)
    time.sleep(1.0)  # the slow seat is running in its sandbox now
    assert "slow" not in _answers(data)
    proc.send_signal(signal.SIGTERM)
    _, err = proc.communicate(timeout=60)
    assert proc.returncode == 0, err.decode()[-3000:]
    answers = _answers(data)
    assert answers["slow"]["status"] == "answered"  # sealed after the signal, before the exit
    assert {"quick", "_coin"} <= set(answers)
    events = [json.loads(x).get("event") for x in err.decode().splitlines() if x.startswith("{")]
    assert "daemon.stopping" in events and "daemon.stopped" in events
    assert verify(data / "books" / "council-book.jsonl").ok


def test_second_sigterm_exits_at_once(tmp_path: Path) -> None:
    config_dir = _league(tmp_path)
    data = tmp_path / "data"
    proc = _start(config_dir)
    _wait_for(lambda: _slow_asked(data), proc)
    proc.send_signal(signal.SIGTERM)
    time.sleep(0.5)
    proc.send_signal(signal.SIGTERM)
    proc.communicate(timeout=30)
    assert proc.returncode == 128 + signal.SIGTERM
    assert "slow" not in _answers(data)  # it did not wait for the slow seat
    assert verify(data / "books" / "council-book.jsonl").ok
    cgroups = detect()  # the slow seat's run cgroup outlived the daemon; the next league process sweeps it
    assert cgroups is not None and not [p for d in cgroups.parents() for p in d.glob(f"slow-{proc.pid}-*")]
