"""Which unprivileged uid a seat's sandbox runs under: one uid per seat, the same in every process.

Why one uid per seat: the kernel counts processes per real uid (``RLIMIT_NPROC``, and the user
namespaces a uid may create), so seats sharing a uid share those counts, and one seat holding a few
hundred processes makes the next seat's sandbox fail to start ("Creating new namespace failed:
Resource temporarily unavailable"). With its own uid a seat can only exhaust its own count.

Why a hash and not a counter: the daemon and a by-hand ``league run ask`` are two processes; a
counter restarting at the first uid in each would hand two different seats the same uid. The uid
is ``first + int(sha256(name)[:8]) mod count``, a pure function of the seat name and the range, so
every process agrees. Two names of one roster landing on the same uid are told apart by probing
to the next free uid in name order (:meth:`UidTable.reserve` with the whole roster), which every
process that reserves the same roster repeats identically.

The range comes from ``LEAGUE_SEAT_UIDS`` (``FIRST-LAST``, default ``61000-61999``): uids no
account on the host uses, kept out of ``/etc/passwd`` (docs/sandbox.md).
"""

from __future__ import annotations

import hashlib
import os
import threading
from collections.abc import Iterable

from sandbox.interface import SandboxError

DEFAULT_RANGE = (61000, 1000)
ANONYMOUS = "_sandbox"  # runs that belong to no seat: `league sandbox exec`, the isolation probe


def uid_range(spec: str | None = None) -> tuple[int, int]:
    """``(first, count)`` from ``FIRST-LAST`` (``LEAGUE_SEAT_UIDS`` when not given)."""
    text = (spec if spec is not None else os.environ.get("LEAGUE_SEAT_UIDS", "")).strip()
    if not text:
        return DEFAULT_RANGE
    first_s, sep, last_s = text.partition("-")
    try:
        first, last = int(first_s), int(last_s)
    except ValueError:
        first, last = -1, -1
    if not sep or first < 1000 or last < first or last > 2**31 - 2:
        raise SandboxError(
            f"LEAGUE_SEAT_UIDS={text!r} is not a uid range FIRST-LAST above 999",
            fix="set LEAGUE_SEAT_UIDS=61000-61999 (uids no account on this host uses)",
        )
    return first, last - first + 1


def hashed_uid(name: str, first: int, count: int) -> int:
    """The uid a seat name hashes to before any probing (stable across processes and restarts)."""
    digest = hashlib.sha256(name.encode("utf-8")).digest()
    return first + int.from_bytes(digest[:8], "big") % count


class UidTable:
    """Seat name -> uid within one range; thread-safe, shared by every sandbox of the process."""

    def __init__(self, first: int, count: int) -> None:
        self.first, self.count = first, count
        self._by_name: dict[str, int] = {}
        self._taken: set[int] = set()
        self._lock = threading.Lock()

    def uid(self, name: str) -> int:
        with self._lock:
            return self._assign(name)

    def reserve(self, names: Iterable[str]) -> dict[str, int]:
        """Assign a whole roster in name order, so that collisions resolve the same way everywhere."""
        with self._lock:
            return {name: self._assign(name) for name in sorted(set(names) | {ANONYMOUS})}

    def _assign(self, name: str) -> int:
        if name in self._by_name:
            return self._by_name[name]
        if len(self._taken) >= self.count:
            raise SandboxError(
                f"the seat uid range {self.first}-{self.first + self.count - 1} is full",
                fix="widen LEAGUE_SEAT_UIDS (one uid per seat)",
            )
        uid = hashed_uid(name, self.first, self.count)
        while uid in self._taken:
            uid = self.first + (uid - self.first + 1) % self.count
        self._by_name[name] = uid
        self._taken.add(uid)
        return uid


_TABLES: dict[tuple[int, int], UidTable] = {}
_TABLES_LOCK = threading.Lock()


def table_for(first: int, count: int) -> UidTable:
    """The process-wide table of one range (every BwrapSandbox of the process shares it)."""
    with _TABLES_LOCK:
        return _TABLES.setdefault((first, count), UidTable(first, count))


def reserve_seat_uids(names: Iterable[str], spec: str | None = None) -> dict[str, int]:
    """Fix the uids of a whole roster (called by the league when it opens, before any ask)."""
    first, count = uid_range(spec)
    return table_for(first, count).reserve(names)
