"""SIGTERM mid-ask under the real daemon process (docs/league-day.md "Stopping").

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
import socket
import subprocess
import sys
import threading
import time
import urllib.error
import urllib.request
from datetime import UTC, datetime, timedelta
from pathlib import Path

import pytest
from day_helpers import hostile_seat, roster, seat

from league.clock import SimulatedClock
from league.folder import init_folder
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


def _start(config_dir: Path, **extra: str) -> subprocess.Popen[bytes]:
    env = {**os.environ, "PYTHONPATH": str(HERE.parents[2]), "LEAGUE_OPS_LISTEN": "off", **extra}
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


def _free_port() -> int:
    with socket.socket() as s:
        s.bind(("127.0.0.1", 0))
        return int(s.getsockname()[1])


def _get(url: str) -> tuple[int, str]:
    try:
        with urllib.request.urlopen(url, timeout=10) as r:  # noqa: S310 - loopback
            return r.status, r.read().decode()
    except urllib.error.HTTPError as e:
        return e.code, e.read().decode()


def _listen(sock: socket.socket) -> list[str]:
    """Collect the daemon's notifications in a thread, as systemd reads them (its queue never fills)."""
    got: list[str] = []

    def read() -> None:
        sock.settimeout(None)
        while True:
            try:
                got.extend(sock.recv(4096).decode().split("\n"))
            except OSError:
                return

    threading.Thread(target=read, daemon=True).start()
    return got


def test_sigterm_mid_ask_seals_the_slow_reply_and_exits_0(tmp_path: Path) -> None:
    """Also the daemon's operations surface: sd_notify READY / WATCHDOG / STOPPING on a real
    notify socket, /healthz alive while the catch-up's ask runs in the main thread, /metrics counting
    the sealed replies, and every log line JSON."""
    config_dir = _league(tmp_path)
    data = tmp_path / "data"
    notify = socket.socket(socket.AF_UNIX, socket.SOCK_DGRAM)
    notify.bind(str(tmp_path / "notify.sock"))
    told = _listen(notify)
    port = _free_port()
    proc = _start(config_dir, NOTIFY_SOCKET=str(tmp_path / "notify.sock"), WATCHDOG_USEC="400000",
                  LEAGUE_OPS_LISTEN=f"127.0.0.1:{port}")
    _wait_for(lambda: _slow_asked(data), proc)
    _wait_for(lambda: "quick" in _answers(data), proc)  # the slow seat is still running in its sandbox
    assert "slow" not in _answers(data)
    code, body = _get(f"http://127.0.0.1:{port}/healthz")
    assert code == 200 and json.loads(body)["status"] == "ok", body
    assert json.loads(body)["last_job"] == {"job": "ask", "session": "2026-11-25", "result": "done"}
    # the line is on disk before the seal returns; the counter moves after the database index is written,
    # so the scrape is read again until it counts the reply (or the wait times out)
    counted = 'league_replies_sealed_total{seat="quick",status="answered"} 1.0'
    _wait_for(lambda: counted in _get(f"http://127.0.0.1:{port}/metrics")[1], proc, seconds=30)
    code, scrape = _get(f"http://127.0.0.1:{port}/metrics")
    assert code == 200 and counted in scrape
    proc.send_signal(signal.SIGTERM)
    _, err = proc.communicate(timeout=60)
    assert proc.returncode == 0, err.decode()[-3000:]
    answers = _answers(data)
    assert answers["slow"]["status"] == "answered"  # sealed after the signal, before the exit
    assert {"quick", "_coin"} <= set(answers)
    lines = [x for x in err.decode().splitlines() if x.strip()]
    records = [json.loads(x) for x in lines]  # every line is JSON, the libraries' included
    events = [r.get("event") for r in records]
    assert "daemon.stopping" in events and "daemon.stopped" in events
    assert verify(data / "books" / "council-book.jsonl").ok
    notify.shutdown(socket.SHUT_RDWR)
    assert told[0] == "READY=1" and "WATCHDOG=1" in told and "STOPPING=1" in told
    assert told.index("WATCHDOG=1") < told.index("STOPPING=1")


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
    _wait_for_empty_runs(f"slow-{proc.pid}-*")  # the kernel ends the sandbox after its parent (--die-with-parent)
    cgroups = detect()  # the slow seat's run cgroup outlived the daemon; the next league process sweeps it
    assert cgroups is not None and not [p for d in cgroups.parents() for p in d.glob(f"slow-{proc.pid}-*")]


def _wait_for_empty_runs(pattern: str, seconds: float = 10) -> None:
    """Wait until no process is left in the run cgroups matching ``pattern``: a daemon that exits at once leaves
    its sandboxed run to die after it (bubblewrap's parent-death signal, then its pid namespace), which takes a
    moment the sweep must not race (seen in CI: the sweep ran while the slow seat's process was still exiting,
    and rightly kept its cgroup). Fails if a process outlives the wait: a sandbox must not outlive its league."""
    cgroups = detect()
    assert cgroups is not None
    deadline = time.monotonic() + seconds
    while left := {p: _procs(p) for d in cgroups.parents() for p in d.glob(pattern) if _procs(p)}:
        assert time.monotonic() < deadline, f"sandboxed processes outlived the daemon by {seconds} s: {left}"
        time.sleep(0.05)


def _procs(cgroup: Path) -> list[str]:
    """The pids in a run cgroup; none once it is gone (another test process's sweep may remove it meanwhile)."""
    try:
        return (cgroup / "cgroup.procs").read_text().split()
    except FileNotFoundError:
        return []
