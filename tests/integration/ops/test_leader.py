"""The leader lock: one holder at a time, released when the holder goes (standby).

Both implementations are exercised for real: flock on a file, and PostgreSQL's advisory lock on the
machine's server (two connections standing for two daemons)."""

from __future__ import annotations

import json
import os
import subprocess
import sys
from pathlib import Path

import pytest

from league.ops.leader import FileLeaderLock, LeaderError, PostgresLeaderLock, leader_lock, league_key, wait_to_lead
from league.store.testing import ADMIN_URL


def test_the_file_lock_has_one_holder_and_names_it(tmp_path: Path) -> None:
    first, second = FileLeaderLock(tmp_path), FileLeaderLock(tmp_path)
    assert first.try_acquire()
    assert not second.try_acquire()
    assert json.loads(second.holder())["pid"] == os.getpid()
    first.release()
    assert second.try_acquire()
    second.release()


def test_the_file_lock_is_released_when_its_holder_is_killed(tmp_path: Path) -> None:
    holder = subprocess.Popen([sys.executable, "-c", (
        "import sys, time; from league.ops.leader import FileLeaderLock; "
        f"assert FileLeaderLock(__import__('pathlib').Path({str(tmp_path)!r})).try_acquire(); "
        "print('held', flush=True); time.sleep(600)")], stdout=subprocess.PIPE, text=True)
    try:
        assert holder.stdout is not None and holder.stdout.readline().strip() == "held"
        waiting = FileLeaderLock(tmp_path)
        assert not waiting.try_acquire()
        holder.kill()
        holder.wait(10)
        assert waiting.try_acquire()  # no stale lock file to clean up: the kernel dropped it
        waiting.release()
    finally:
        holder.kill()


def test_wait_to_lead_gives_up_when_a_stop_is_requested(tmp_path: Path) -> None:
    first = FileLeaderLock(tmp_path)
    assert first.try_acquire()
    waits: list[int] = []
    assert not wait_to_lead(FileLeaderLock(tmp_path), poll_s=0.1, stop=lambda: len(waits) >= 2,
                            on_wait=lambda: waits.append(1))
    first.release()


def test_keys_differ_per_league_and_fit_a_bigint(tmp_path: Path, monkeypatch: pytest.MonkeyPatch) -> None:
    a, b = league_key(tmp_path / "a"), league_key(tmp_path / "b")
    assert a != b and all(-(2**63) <= k < 2**63 for k in (a, b))
    monkeypatch.setenv("LEAGUE_LEADER_KEY", "shared-league")
    assert league_key(tmp_path / "a") == league_key(tmp_path / "b")
    assert isinstance(leader_lock("sqlite:///x.db", tmp_path), FileLeaderLock)
    assert isinstance(leader_lock("postgresql+psycopg://u@h/db", tmp_path), PostgresLeaderLock)


@pytest.fixture()
def pg() -> str:
    psycopg = pytest.importorskip("psycopg")
    try:
        psycopg.connect(ADMIN_URL.replace("postgresql+psycopg://", "postgresql://"), connect_timeout=3).close()
    except psycopg.Error as exc:
        pytest.skip(f"PostgreSQL is not running at {ADMIN_URL}: {exc}")
    return ADMIN_URL


def test_the_advisory_lock_has_one_holder_across_connections(pg: str) -> None:
    key = -(2**62) - 12345  # a negative key exercises the classid/objid split in pg_locks
    first, second = PostgresLeaderLock(pg, key), PostgresLeaderLock(pg, key)
    other_league = PostgresLeaderLock(pg, key + 1)
    try:
        assert first.try_acquire()
        assert not second.try_acquire()
        assert other_league.try_acquire()  # another league's key does not exclude this one
        assert second.holder().startswith("backend pid ")
        first.release()  # unlocked on the server before release() returns: no window for the standby
        assert second.try_acquire()
    finally:
        for lock in (first, second, other_league):
            lock.release()


def test_the_advisory_lock_goes_with_a_killed_holder(pg: str) -> None:
    key = 2**61 + 4242
    holder = subprocess.Popen([sys.executable, "-c", (
        "import time; from league.ops.leader import PostgresLeaderLock; "
        f"lock = PostgresLeaderLock({pg!r}, {key}); assert lock.try_acquire(); "
        "print('held', flush=True); time.sleep(600)")],
        stdout=subprocess.PIPE, text=True)
    waiting = PostgresLeaderLock(pg, key)
    try:
        assert holder.stdout is not None and holder.stdout.readline().strip() == "held"
        assert not waiting.try_acquire()
        holder.kill()
        holder.wait(10)
        polls: list[int] = []  # the server frees a dead session's locks when it notices: the standby polls
        assert wait_to_lead(waiting, poll_s=0.05, stop=lambda: len(polls) >= 400, on_wait=lambda: polls.append(1))
    finally:
        holder.kill()
        waiting.release()


def test_an_unreachable_database_is_a_leader_error_with_a_fix() -> None:
    lock = PostgresLeaderLock("postgresql+psycopg://root@127.0.0.1:1/test", 1)
    with pytest.raises(LeaderError) as caught:
        lock.try_acquire()
    assert "league.toml" in caught.value.diagnostics()
