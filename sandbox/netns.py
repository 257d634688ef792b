"""One empty network namespace per seat, for the runs that need no network at all.

Why: a fresh network namespace per run (``bwrap --unshare-net``) costs every run its creation, bubblewrap's
loopback set-up and a teardown in a kworker afterwards, which no cgroup is charged for: ~1.1 ms in the run's
tree and ~0.8 ms in kernel threads on the test VM, about 7 % of a scripted seat's whole run once its other
mounts are gone (docs/costs.md, session 12).

What instead: the league process makes ONE network namespace per seat, the first time that seat runs, and
keeps only a descriptor of it. A run of a profile with ``fresh_netns=False`` (the scripted child) and no
egress starts in its seat's namespace, and bubblewrap is told not to unshare another one. The namespace:

- is empty: only its loopback, which stays DOWN (nothing brings it up), so not even 127.0.0.1 can be
  reached, let alone the host or another seat;
- belongs to the host's user namespace, while the seat runs in bubblewrap's own user namespace: the seat
  has no capability over it and cannot bring an interface up, add one, or change a setting of it;
- holds nothing that outlives a run: sockets (abstract Unix names included) die with the run's processes,
  all of which are killed when the run ends. Only runs of the SAME seat in the SAME league process (and its
  forked children, such as the demo's season) ever share it; another seat, or the same seat in another
  league process, has its own.

How a run enters it without a wrapper exec and without ``preexec_fn``: the thread that starts the run moves
itself into the namespace (``setns(2)``, which for a network namespace changes the calling thread only),
starts the launcher (which inherits the thread's namespace, Python's vfork path intact), and moves straight
back, in a ``finally``. Nothing else runs in that thread meanwhile.

Making and entering namespaces needs ``CAP_SYS_ADMIN`` (root). Without it (production under systemd with
only ``CAP_SETUID``/``CAP_SETGID``) :meth:`SeatNetns.here` returns ``None`` and every run keeps its own
namespace, as before. Python 3.11 has no ``os.setns``/``os.unshare``: the two calls go through ctypes.
"""

from __future__ import annotations

import contextlib
import ctypes
import os
import threading
from collections.abc import Iterator

import structlog

from sandbox.errors import SandboxError

log = structlog.get_logger(__name__)

CLONE_NEWNET = 0x40000000
_THREAD_NETNS = "/proc/thread-self/ns/net"


class SeatNetns:
    """The seats' namespaces of this league process: seat name -> descriptor (close-on-exec). One per process
    (:meth:`here`), shared by its sandboxes."""

    def __init__(self) -> None:
        self._libc = ctypes.CDLL(None, use_errno=True)
        self._fds: dict[str, int] = {}
        self._lock = threading.Lock()

    @classmethod
    def here(cls) -> SeatNetns | None:
        """This process's pool, when it can make and enter network namespaces; otherwise ``None``."""
        global _checked, _pool
        if os.geteuid() != 0 or not os.path.exists(_THREAD_NETNS):
            return None
        with _here_lock:
            if not _checked:
                _pool, _checked = cls._probe(), True
            return _pool

    @classmethod
    def _probe(cls) -> SeatNetns | None:
        pool = cls()
        try:
            os.close(pool._make())
        except (OSError, SandboxError, AttributeError) as exc:
            log.info("sandbox.netns_per_run", reason=str(exc))
            return None
        return pool

    def _after_fork(self) -> None:
        self._lock = threading.Lock()  # a fork from another thread may have left it held

    def fd(self, owner: str) -> int:
        """The descriptor of ``owner``'s namespace, made on first use."""
        with self._lock:
            if owner not in self._fds:
                self._fds[owner] = self._make()
            return self._fds[owner]

    def _make(self) -> int:
        """A new, empty network namespace, made from this thread, which then returns to its own."""
        home = os.open(_THREAD_NETNS, os.O_RDONLY | os.O_CLOEXEC)
        try:
            self._call("unshare", CLONE_NEWNET)
            try:
                return os.open(_THREAD_NETNS, os.O_RDONLY | os.O_CLOEXEC)
            finally:
                self._call("setns", home, CLONE_NEWNET)
        finally:
            os.close(home)

    @contextlib.contextmanager
    def entered(self, owner: str) -> Iterator[None]:
        """Run the body with the calling thread in ``owner``'s namespace; back in its own afterwards."""
        target = self.fd(owner)
        home = os.open(_THREAD_NETNS, os.O_RDONLY | os.O_CLOEXEC)
        try:
            self._call("setns", target, CLONE_NEWNET)
            try:
                yield
            finally:
                self._call("setns", home, CLONE_NEWNET)
        finally:
            os.close(home)

    def _call(self, name: str, *args: int) -> None:
        if getattr(self._libc, name)(*args) != 0:
            err = ctypes.get_errno()
            raise SandboxError(f"{name}(network namespace) failed: {os.strerror(err)}",
                               fix="run the league as root, or let each run make its own namespace")


_pool: SeatNetns | None = None
_checked = False
_here_lock = threading.Lock()


def _after_fork_in_child() -> None:
    global _here_lock
    _here_lock = threading.Lock()
    if _pool is not None:
        _pool._after_fork()


os.register_at_fork(after_in_child=_after_fork_in_child)
