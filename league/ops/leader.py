"""One leader per league: a standby daemon waits for the lock and takes over when the leader dies.

Two daemons must never write one book (the book's own flock already refuses a second writer on one
host; this lock makes the second daemon *wait* instead of failing, and works across hosts that share
the database). The lock lives where the league's index lives:

* PostgreSQL: a session-level advisory lock (``pg_try_advisory_lock``) held by one connection for the
  daemon's life. When the leader dies, its connection closes and the server releases the lock.
* SQLite (one host): ``flock`` on ``DATA/leader.lock``; the kernel releases it when the process dies.

The key is derived from the data folder (overridable with ``LEAGUE_LEADER_KEY``), so two leagues on one
database do not exclude each other. The holder's host and pid are written beside the lock so a waiting
standby can say whom it waits for.
"""

from __future__ import annotations

import fcntl
import hashlib
import json
import os
import socket
import time
from collections.abc import Callable
from pathlib import Path
from typing import TYPE_CHECKING, Protocol

import structlog

from league.errors import LeagueError
from league.extras import extra

if TYPE_CHECKING:  # psycopg is the optional ``postgres`` extra: imported where a lock is made
    from psycopg import Connection
    from psycopg.rows import TupleRow

log = structlog.get_logger(__name__)


class LeaderError(LeagueError):
    """The leader lock could not be reached (not: is held by another daemon)."""


class LeaderLock(Protocol):
    def try_acquire(self) -> bool:
        """Take the lock if it is free; True when this process now leads."""

    def holder(self) -> str:
        """Who holds it, as far as known (host and pid), for the standby's log."""

    def release(self) -> None: ...


def league_key(data_dir: Path) -> int:
    """A signed 64-bit advisory-lock key for this league (PostgreSQL's bigint)."""
    seed = os.environ.get("LEAGUE_LEADER_KEY") or f"forecast-league:{Path(data_dir).resolve()}"
    return int.from_bytes(hashlib.sha256(seed.encode()).digest()[:8], "big", signed=True)


def _me() -> dict[str, str | int]:
    """Who leads, as the lock file records it for a standby's log."""
    return {"host": socket.gethostname(), "pid": os.getpid()}


class FileLeaderLock:
    """``flock`` on a file in the data folder: one host, released by the kernel when the holder dies."""

    def __init__(self, data_dir: Path) -> None:
        self.path = Path(data_dir) / "leader.lock"
        self._fd: int | None = None

    def try_acquire(self) -> bool:
        fd = os.open(self.path, os.O_RDWR | os.O_CREAT | os.O_CLOEXEC, 0o640)
        try:
            fcntl.flock(fd, fcntl.LOCK_EX | fcntl.LOCK_NB)
        except BlockingIOError:
            os.close(fd)
            return False
        os.ftruncate(fd, 0)
        os.write(fd, json.dumps(_me()).encode())
        self._fd = fd
        return True

    def holder(self) -> str:
        try:
            return self.path.read_text() or "unknown"
        except OSError:
            return "unknown"

    def release(self) -> None:
        if self._fd is not None:
            os.close(self._fd)  # closing the descriptor drops the flock
            self._fd = None


class PostgresLeaderLock:
    """A session-level advisory lock on a connection of its own, kept open while this process leads."""

    def __init__(self, url: str, key: int) -> None:
        self.url, self.key = url, key
        self._conn: Connection[TupleRow] | None = None

    def _connect(self) -> Connection[TupleRow]:
        with extra("postgres"):
            import psycopg
        dsn = self.url.replace("postgresql+psycopg://", "postgresql://", 1)
        try:
            return psycopg.connect(dsn, autocommit=True, application_name="league-leader")
        except psycopg.Error as exc:
            raise LeaderError(f"leader lock: cannot reach PostgreSQL: {exc}",
                              fix="check [database] url in league.toml and that the server runs") from exc

    def try_acquire(self) -> bool:
        conn = self._conn or self._connect()
        row = conn.execute("SELECT pg_try_advisory_lock(%s)", (self.key,)).fetchone()
        got = row is not None and bool(row[0])
        if got:
            self._conn = conn
        elif conn is not self._conn:
            conn.close()
        return got

    def holder(self) -> str:
        conn = self._connect()
        try:
            row = conn.execute(
                "SELECT a.client_addr::text, a.pid, a.backend_start::text FROM pg_locks l "
                "JOIN pg_stat_activity a ON a.pid = l.pid WHERE l.locktype = 'advisory' AND l.granted "
                "AND l.objsubid = 1 AND ((l.classid::bigint << 32) | l.objid::bigint) = %s::bigint",
                (self.key,)).fetchone()
        finally:
            conn.close()
        return f"backend pid {row[1]} from {row[0] or 'local socket'} since {row[2]}" if row else "unknown"

    def release(self) -> None:
        """Unlock before closing: closing alone frees the lock only once the server's backend has exited,
        which is after ``close()`` returns, so a standby polling at that moment would still see it held."""
        with extra("postgres"):
            import psycopg
        if self._conn is None:
            return
        conn, self._conn = self._conn, None
        try:
            conn.execute("SELECT pg_advisory_unlock(%s)", (self.key,))
        except psycopg.Error:  # a broken session holds nothing: closing is all that is left
            log.warning("leader.unlock_failed", key=self.key)
        finally:
            conn.close()


def leader_lock(database_url: str, data_dir: Path) -> LeaderLock:
    """PostgreSQL's advisory lock when the league's index is there, else the data folder's flock."""
    if database_url.startswith("postgresql"):
        return PostgresLeaderLock(database_url, league_key(data_dir))
    return FileLeaderLock(data_dir)


def wait_to_lead(lock: LeaderLock, *, poll_s: float, stop: Callable[[], bool],
                 on_wait: Callable[[], None] = lambda: None) -> bool:
    """Block until this process leads (True) or a stop is requested (False), polling every ``poll_s``."""
    said = False
    while not lock.try_acquire():
        if not said:
            log.warning("leader.standby", holder=lock.holder(), poll_s=poll_s)
            said = True
        on_wait()
        if _sleep_or_stop(poll_s, stop):
            return False
    log.info("leader.acquired", took_over=said)
    return True


def _sleep_or_stop(seconds: float, stop: Callable[[], bool]) -> bool:
    end = time.monotonic() + seconds
    while time.monotonic() < end:
        if stop():
            return True
        time.sleep(min(0.2, max(0.0, end - time.monotonic())))
    return stop()
