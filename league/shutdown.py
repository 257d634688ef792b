"""Stopping on SIGTERM or SIGINT without losing a reply that is on its way (docs/league-day.md).

``systemctl stop`` sends SIGTERM to the daemon and, ``TimeoutStopSec`` later (60 s in
systemd/league.service), SIGKILL to everything left. Without a handler Python died at once, the
drain in ``League.close`` never ran, and a slow seat's reply was lost unsealed. Now:

- the first SIGTERM/SIGINT only sets :attr:`Shutdown.requested`: the daemon schedules nothing new
  (no new job starts, catch-up stops between jobs), waits for the jobs and asks in flight for at
  most ``grace_s`` seconds, seals every reply that arrives meanwhile, closes the books and exits 0;
- a second signal exits at once (status 128 + signal number). Sealed lines are fsync'd one by one,
  so an immediate exit loses no sealed line; a torn last line is moved aside at the next open.

``grace_s`` (``LEAGUE_STOP_GRACE_S``, default 45 s) must stay below ``TimeoutStopSec`` minus the
few seconds closing takes, or systemd's SIGKILL comes first. The handler itself only sets flags: it
never logs or takes a lock, since it runs between two bytecodes of whatever the main thread holds.

A process the league forks to write (the demo's season, the publisher's side workers) must not outlive
the process that forked it: :func:`die_with_parent`.
"""

from __future__ import annotations

import ctypes
import os
import signal
import sys
import threading
import time
from types import FrameType
from typing import Any

DEFAULT_GRACE_S = 45.0


class Shutdown:
    """The stop request of one league process."""

    def __init__(self, grace_s: float = DEFAULT_GRACE_S) -> None:
        self.grace_s = grace_s
        self.requested = threading.Event()
        self.signum = 0
        self._at = 0.0
        self._previous: dict[int, Any] = {}

    def install(self) -> Shutdown:
        """Handle SIGTERM and SIGINT (main thread only, as Python requires)."""
        for sig in (signal.SIGTERM, signal.SIGINT):
            self._previous[sig] = signal.signal(sig, self._on_signal)
        return self

    def restore(self) -> None:
        """Put the handlers back as they were (a command run inside a longer-lived process)."""
        for sig, handler in self._previous.items():
            signal.signal(sig, handler)
        self._previous.clear()

    def _on_signal(self, signum: int, frame: FrameType | None) -> None:
        if self.requested.is_set():
            os._exit(128 + signum)  # the second signal: now, whatever is still running
        self.signum, self._at = signum, time.monotonic()
        self.requested.set()

    def request(self, signum: int = signal.SIGTERM) -> None:
        """Ask for the stop from code (the same path as a signal)."""
        self._on_signal(signum, None)

    def remaining(self) -> float | None:
        """Seconds left of the grace period, ``None`` while no stop was requested."""
        if not self.requested.is_set():
            return None
        return max(0.0, self._at + self.grace_s - time.monotonic())


def exit_now(code: int = 0) -> None:
    """Leave at once after a requested stop: asks still running after the grace period are abandoned
    (their threads would otherwise keep the interpreter alive until the seats' own timeouts)."""
    for stream in (sys.stdout, sys.stderr):
        try:
            stream.flush()
        except (OSError, ValueError):
            pass
    os._exit(code)


#: prctl(2) option: the signal the kernel sends this process when the thread that forked it ends.
PR_SET_PDEATHSIG = 1


def die_with_parent(parent: int) -> bool:
    """In a child forked by process ``parent``, first thing after the fork: SIGKILL this process when the
    parent dies. Returns False where the kernel cannot be asked (not Linux).

    Why: a forked child that writes (the demo's season writing the book, a publishing worker writing the
    open files) outlived a ``kill -9`` of its parent, reparented to init, still writing and still holding
    the folder's locks, so a restart found the book "already open for writing". With PR_SET_PDEATHSIG the
    kernel kills it when its parent ends; its locks are flocks, which the kernel releases with its files.

    The parent may have died between the fork and the prctl call: the signal is then never sent (the
    child already has a new parent), so the parent is checked after the request and this process ends
    at once, the same way, if it is gone. The signal is tied to the *thread* that forked: callers fork
    from the thread that lives as long as their process (the main thread)."""
    asked = _ask_kernel(signal.SIGKILL)
    if os.getppid() != parent:
        os.kill(os.getpid(), signal.SIGKILL)
    return asked


def _ask_kernel(sig: int) -> bool:
    if not sys.platform.startswith("linux"):
        return False
    try:
        libc = ctypes.CDLL(None, use_errno=True)
        return bool(libc.prctl(PR_SET_PDEATHSIG, int(sig), 0, 0, 0) == 0)
    except (OSError, AttributeError):
        return False
