"""Caps for a whole sandbox: one cgroup per run, with a memory cap and a process (task) cap.

Why cgroups: ``prlimit`` limits are per process, so four processes of 700 MB passed a "2 GiB"
address-space limit, and ``RLIMIT_AS`` itself breaks the Node-based vendor CLIs (WebAssembly
cannot reserve its address space; shared/spec/vendors.md). A cgroup counts every process of the run
together, and the kernel enforces it: above the memory cap the OOM killer ends a process of that
run only; above the task cap ``fork``/``clone`` fail with EAGAIN inside that run only. Pages a seat
writes to its tmpfs mounts are charged to its cgroup too.

The seam: :class:`Cgroups` creates a :class:`RunCgroup` per run; the sandbox attaches the run's
first process before it may fork (it waits on a pipe until then), reads what happened
(:class:`CgroupReport`), and closes it (kills leftovers, removes the directory). Two
implementations, picked by :func:`detect`:

- :class:`CgroupV2` (production: Debian under systemd, unified hierarchy). The unit has
  ``Delegate=yes``; the daemon's own cgroup ``S`` is then its to manage. Because a cgroup that
  hands controllers to children may hold no processes itself, the daemon moves itself into the
  leaf ``S/league-daemon``, enables ``+memory +pids`` in ``S`` and in ``S/league-seats``, and
  creates one ``S/league-seats/<run>`` per run (``memory.max``, ``memory.swap.max = 0``,
  ``pids.max``). Outcome from ``memory.events`` (``oom_kill``) and ``pids.events`` (``max``).
- :class:`CgroupV1` (hybrid hosts such as the test machine): one directory per run under the
  process's own cgroup in the ``memory`` and in the ``pids`` hierarchy
  (``memory.limit_in_bytes``, ``memory.memsw.limit_in_bytes`` when swap is accounted,
  ``pids.max``); outcome from ``memory.oom_control`` (``oom_kill``) and ``pids.events``.

No cgroup, no run: if neither can be used, :func:`detect` raises :class:`CgroupError` with the fix.
``LEAGUE_SANDBOX_CGROUP=off`` is the operator's explicit, logged opt-out (docs/sandbox.md).
"""

from __future__ import annotations

import atexit
import errno
import os
import re
import signal
import threading
import time
from abc import ABC, abstractmethod
from collections import deque
from dataclasses import dataclass
from multiprocessing import util
from pathlib import Path

import structlog

from sandbox.interface import SandboxError

log = structlog.get_logger(__name__)

CONTROLLERS = ("memory", "pids")
MODES = ("auto", "v2", "v1", "off")
V2_LEAF, V2_SEATS = "league-daemon", "league-seats"
_REMOVE_WAIT_S = 5.0  # how long a closing run waits for its killed processes to leave the cgroup
_FIX = (
    "run the league as root, or under systemd with Delegate=yes (systemd/league.service); "
    "to run seats without per-seat caps knowingly, set LEAGUE_SANDBOX_CGROUP=off"
)


class CgroupError(SandboxError):
    """No cgroup can be made for a run: the sandbox refuses to run the seat uncapped."""


@dataclass(frozen=True)
class Caps:
    """What one run may use in total, over all its processes."""

    memory_bytes: int
    tasks: int


@dataclass(frozen=True)
class CgroupReport:
    """What the kernel recorded for a run: OOM kills and refused forks at the task cap."""

    oom_kills: int = 0
    tasks_refused: int = 0
    memory_peak: int | None = None


class RunCgroup(ABC):
    """The cgroup of one run."""

    @abstractmethod
    def attach(self, pid: int) -> None:
        """Move ``pid`` (the run's first process, before it forks) into the cgroup."""

    @abstractmethod
    def report(self) -> CgroupReport:
        """Read the kernel's counters (call after the run ended, before :meth:`close`)."""

    @abstractmethod
    def close(self) -> None:
        """Kill whatever is left inside and remove the cgroup (or, while a killed process has not left it
        yet, have the removal retried later: :func:`drain_deferred`); never raises."""


class Cgroups(ABC):
    """Makes one :class:`RunCgroup` per run."""

    kind: str = ""

    @abstractmethod
    def create(self, name: str, caps: Caps) -> RunCgroup:
        """A fresh cgroup named ``name`` (unique per run) with ``caps``."""

    @abstractmethod
    def parents(self) -> list[Path]:
        """The directories the runs' cgroups are made in."""

    def sweep(self) -> int:
        """Remove the empty cgroups of runs whose league process is gone (killed, or ended at once by a
        second SIGTERM while a seat was running); returns how many were removed. Never raises."""
        removed = 0
        for parent in self.parents():
            try:
                names = [p for p in parent.iterdir() if p.is_dir()]
            except OSError:
                continue
            for path in names:
                match = _RUN_NAME.match(path.name)
                if match is None or _alive(int(match.group(1))) or _pids(path / "cgroup.procs"):
                    continue
                try:
                    path.rmdir()
                    removed += 1
                except OSError:
                    pass
        return removed


_RUN_NAME = re.compile(r"^.+-(\d+)-\d+$")  # <owner>-<pid of the league process>-<run number>


def _alive(pid: int) -> bool:
    try:
        os.kill(pid, 0)
    except ProcessLookupError:
        return False
    except PermissionError:
        return True
    return True


# ----------------------------------------------------------------------------- file helpers
# A run makes about a dozen of these reads and writes (create, attach, report, close), so they go straight to
# os.open/os.read/os.write: no buffered text file object per access (open(..., "w") semantics are kept:
# created if missing, truncated).
_WRITE_FLAGS = os.O_WRONLY | os.O_CREAT | os.O_TRUNC | os.O_CLOEXEC


def _write(path: Path | str, value: str) -> None:
    try:
        fd = os.open(path, _WRITE_FLAGS, 0o666)
        try:
            data = memoryview(value.encode("ascii"))
            while data:
                data = data[os.write(fd, data):]
        finally:
            os.close(fd)
    except OSError as exc:
        raise CgroupError(f"cannot write {value!r} to {path}: {exc.strerror or exc}", fix=_FIX) from exc


def _read(path: Path | str) -> str:
    """The whole file as text; raises OSError (and UnicodeDecodeError for bytes that are not ASCII)."""
    fd = os.open(path, os.O_RDONLY | os.O_CLOEXEC)
    try:
        chunks = []
        while chunk := os.read(fd, 65536):
            chunks.append(chunk)
    finally:
        os.close(fd)
    return b"".join(chunks).decode("ascii")


def _keyed(path: Path | str, key: str) -> int:
    """``key N`` from a flat-keyed cgroup file (memory.events, pids.events, memory.oom_control)."""
    try:
        text = _read(path)
    except (OSError, ValueError):
        return 0
    for row in text.splitlines():
        name, _, value = row.partition(" ")
        if name == key and value.strip().isdigit():
            return int(value)
    return 0


def _number(path: Path | str) -> int | None:
    try:
        text = _read(path).strip()
    except (OSError, ValueError):
        return None
    return int(text) if text.isdigit() else None


def _pids(path: Path | str) -> list[int]:
    try:
        return [int(x) for x in _read(path).split()]
    except (OSError, ValueError):
        return []


def _mkdir(path: Path) -> None:
    try:
        path.mkdir()
    except FileExistsError:
        pass
    except OSError as exc:
        raise CgroupError(f"cannot create cgroup {path}: {exc.strerror or exc}", fix=_FIX) from exc


def _empty_and_remove(dirs: list[Path], kill_file: Path | None = None, *, wait: bool = True,
                      deadline: float | None = None) -> list[Path]:
    """Kill every process left in ``dirs`` and remove them (children first); never raises. With ``wait``
    off, a directory whose killed processes have not left yet (EBUSY) is not waited for: it is returned,
    to be tried again later (:func:`_defer`)."""
    if kill_file is not None and kill_file.exists():
        try:
            kill_file.write_text("1", encoding="ascii")
        except OSError:
            pass
    deadline = time.monotonic() + _REMOVE_WAIT_S if deadline is None else deadline
    busy: list[Path] = []
    for directory in dirs:
        while True:
            left = _pids(directory / "cgroup.procs")
            for pid in left:
                try:
                    os.kill(pid, signal.SIGKILL)
                except (ProcessLookupError, PermissionError):
                    pass
            try:
                directory.rmdir()
                break
            except FileNotFoundError:
                break
            except OSError as exc:
                if exc.errno == errno.EBUSY and not wait:
                    busy.append(directory)
                    break
                if exc.errno not in (errno.EBUSY, errno.ENOTEMPTY) or time.monotonic() > deadline:
                    log.warning("sandbox.cgroup_left", path=str(directory), error=str(exc))
                    break
                time.sleep(0.01)
    return busy


#: Cgroups of ended runs still holding a killed process that has not left yet: a run's first process is
#: bubblewrap, which exits as soon as its command has; the namespace's init, then orphaned, lingers as a
#: zombie until the host's PID 1 reaps it (~10 ms here, and runs waited for it). Every later close kills
#: what is left in them again and retries their removal; the process's exit waits for the rest. Appends
#: and pops of a deque are atomic, so no lock (which a fork could leave held).
_deferred: deque[tuple[list[Path], Path | None]] = deque()


_drain_registered_in = 0  # the pid of the process whose exit drains them (a forked child registers anew)


def _defer(dirs: list[Path], kill_file: Path | None) -> None:
    global _drain_registered_in
    if _drain_registered_in != os.getpid():
        _drain_registered_in = os.getpid()
        _register_drain()
    _deferred.append((dirs, kill_file))


def _retry_deferred() -> None:
    """One more kill-and-remove of each deferred cgroup, without waiting; those still busy stay deferred."""
    for _ in range(len(_deferred)):
        try:
            dirs, kill_file = _deferred.popleft()
        except IndexError:
            return
        busy = _empty_and_remove(dirs, kill_file, wait=False)
        if busy:
            _deferred.append((busy, kill_file))


def drain_deferred(timeout: float = _REMOVE_WAIT_S) -> None:
    """Remove every deferred cgroup, waiting up to ``timeout`` seconds in all (at exit, and for tests)."""
    deadline = time.monotonic() + timeout
    while True:
        try:
            dirs, kill_file = _deferred.popleft()
        except IndexError:
            return
        _empty_and_remove(dirs, kill_file, deadline=deadline)


def _register_drain() -> None:
    """Drain at this process's exit: ``atexit``, and multiprocessing's exit finalizers for a forked child
    (the demo's season), which leaves through ``os._exit`` without running ``atexit``."""
    atexit.register(drain_deferred)
    util.Finalize(None, drain_deferred, exitpriority=0)


# --------------------------------------------------------------------------- /proc parsing
def own_cgroups(text: str) -> dict[str, str]:
    """``/proc/self/cgroup`` -> {controller: path}; the unified hierarchy is under ``""``."""
    out: dict[str, str] = {}
    for row in text.splitlines():
        parts = row.split(":", 2)
        if len(parts) != 3:
            continue
        for controller in parts[1].split(",") if parts[1] else [""]:
            out[controller] = parts[2]
    return out


@dataclass(frozen=True)
class Mount:
    point: Path
    root: str
    fstype: str
    options: frozenset[str]


def cgroup_mounts(text: str) -> list[Mount]:
    """The cgroup and cgroup2 mounts of ``/proc/self/mountinfo``."""
    mounts: list[Mount] = []
    for row in text.splitlines():
        left, sep, right = row.partition(" - ")
        fields, tail = left.split(), right.split()
        if not sep or len(fields) < 5 or len(tail) < 3 or tail[0] not in ("cgroup", "cgroup2"):
            continue
        point = fields[4].replace("\\040", " ")
        mounts.append(Mount(Path(point), fields[3], tail[0], frozenset(tail[2].split(","))))
    return mounts


def _inside(mount: Mount, path: str) -> Path:
    """The directory of cgroup ``path`` under ``mount`` (a mount may expose only a subtree)."""
    root = mount.root.rstrip("/")
    rel = path[len(root):] if root and path.startswith(root) else path
    return mount.point / rel.lstrip("/")


def _read_proc(name: str) -> str:
    try:
        return Path("/proc/self", name).read_text(encoding="utf-8")
    except OSError:
        return ""


# ------------------------------------------------------------------------------------- v2
class CgroupV2(Cgroups):
    """Unified hierarchy, directly written, inside the delegated cgroup of the league process."""

    kind = "v2"

    def __init__(self, base: Path) -> None:
        self.base = base
        self.seats = base / V2_SEATS
        self._ready = False
        self._lock = threading.Lock()

    @classmethod
    def here(cls) -> CgroupV2 | None:
        """The league process's own v2 cgroup, when the unified hierarchy offers memory and pids there."""
        own = own_cgroups(_read_proc("cgroup")).get("")
        for mount in cgroup_mounts(_read_proc("mountinfo")):
            if mount.fstype == "cgroup2" and own is not None:
                base = _inside(mount, own)
                controllers = _words(base / "cgroup.controllers")
                if set(CONTROLLERS) <= controllers and os.access(base, os.W_OK):
                    return cls(base)
        return None

    def prepare(self) -> None:
        """Once per process: leave the delegated cgroup for a leaf, hand memory+pids down to the seats."""
        with self._lock:
            if self._ready:
                return
            missing = set(CONTROLLERS) - _words(self.base / "cgroup.controllers")
            if missing:
                raise CgroupError(f"cgroup {self.base} does not offer the {sorted(missing)} controllers", fix=_FIX)
            if not set(CONTROLLERS) <= _words(self.base / "cgroup.subtree_control"):
                self._leave_for_leaf()
                _write(self.base / "cgroup.subtree_control", " ".join(f"+{c}" for c in CONTROLLERS))
            _mkdir(self.seats)
            if not set(CONTROLLERS) <= _words(self.seats / "cgroup.subtree_control"):
                _write(self.seats / "cgroup.subtree_control", " ".join(f"+{c}" for c in CONTROLLERS))
            self._ready = True

    def _leave_for_leaf(self) -> None:
        """A cgroup that hands controllers down may hold no process ("no internal processes")."""
        procs = _pids(self.base / "cgroup.procs")
        if not procs:
            return
        leaf = self.base / V2_LEAF
        _mkdir(leaf)
        for pid in procs:
            try:
                _write(leaf / "cgroup.procs", str(pid))
            except CgroupError:
                if pid == os.getpid():
                    raise

    def parents(self) -> list[Path]:
        return [self.seats]

    def create(self, name: str, caps: Caps) -> RunCgroup:
        self.prepare()
        path = self.seats / name
        _mkdir(path)
        run = _v2_run(path)
        try:
            _write(path / "memory.max", str(caps.memory_bytes))
            if (path / "memory.swap.max").exists():
                _write(path / "memory.swap.max", "0")
            _write(path / "pids.max", str(caps.tasks))
        except CgroupError:
            run.close()
            raise
        return run


class _Run(RunCgroup):
    """One run's cgroup: its directories (one, or one per v1 hierarchy) and where the kernel counts."""

    def __init__(self, dirs: list[Path], *, oom: Path, refused: Path, peak: Path, kill: Path | None = None) -> None:
        self.dirs, self.oom, self.refused, self.peak, self.kill = dirs, oom, refused, peak, kill

    def attach(self, pid: int) -> None:
        for directory in self.dirs:
            _write(directory / "cgroup.procs", str(pid))

    def report(self) -> CgroupReport:
        return CgroupReport(oom_kills=_keyed(self.oom, "oom_kill"), tasks_refused=_keyed(self.refused, "max"),
                            memory_peak=_number(self.peak))

    def close(self) -> None:
        """Kill what is left and remove the cgroup; a zombie not yet reaped defers the removal (never waited)."""
        _retry_deferred()
        busy = _empty_and_remove(self.dirs, kill_file=self.kill, wait=False)
        if busy:
            _defer(busy, self.kill)


def _v2_run(path: Path) -> _Run:
    return _Run([path], oom=path / "memory.events", refused=path / "pids.events", peak=path / "memory.peak",
                kill=path / "cgroup.kill")


def _v1_run(memory: Path, pids: Path) -> _Run:
    return _Run([pids, memory], oom=memory / "memory.oom_control", refused=pids / "pids.events",
                peak=memory / "memory.max_usage_in_bytes")


def _words(path: Path) -> set[str]:
    try:
        return set(path.read_text(encoding="ascii").split())
    except OSError:
        return set()


# ------------------------------------------------------------------------------------- v1
class CgroupV1(Cgroups):
    """Legacy hierarchies: one directory per run in the memory and in the pids hierarchy."""

    kind = "v1"

    def __init__(self, memory: Path, pids: Path) -> None:
        self.memory, self.pids = memory, pids

    @classmethod
    def here(cls) -> CgroupV1 | None:
        own = own_cgroups(_read_proc("cgroup"))
        found: dict[str, Path] = {}
        for mount in cgroup_mounts(_read_proc("mountinfo")):
            for controller in CONTROLLERS:
                if mount.fstype == "cgroup" and controller in mount.options and controller in own:
                    found[controller] = _inside(mount, own[controller])
        if len(found) == len(CONTROLLERS) and all(os.access(p, os.W_OK) for p in found.values()):
            return cls(found["memory"], found["pids"])
        return None

    def parents(self) -> list[Path]:
        return [self.memory, self.pids]

    def create(self, name: str, caps: Caps) -> RunCgroup:
        mem, pids = self.memory / name, self.pids / name
        _mkdir(mem)
        run = _v1_run(mem, pids)
        try:
            _mkdir(pids)
            _write(mem / "memory.limit_in_bytes", str(caps.memory_bytes))
            if (mem / "memory.memsw.limit_in_bytes").exists():  # swap counted too: the cap cannot be swapped around
                _write(mem / "memory.memsw.limit_in_bytes", str(caps.memory_bytes))
            _write(pids / "pids.max", str(caps.tasks))
        except CgroupError:
            run.close()
            raise
        return run


# ------------------------------------------------------------------------------- detection
def cgroup_mode(value: str | None = None) -> str:
    mode = (value if value is not None else os.environ.get("LEAGUE_SANDBOX_CGROUP", "auto")).strip().lower()
    if mode not in MODES:
        raise CgroupError(f"LEAGUE_SANDBOX_CGROUP={mode!r} is not one of {', '.join(MODES)}",
                          fix="unset it (auto) or set auto, v2, v1 or off")
    return mode


def detect(mode: str | None = None) -> Cgroups | None:
    """The cgroup backend to use; ``None`` only for the explicit opt-out ``off``."""
    chosen = cgroup_mode(mode)
    if chosen == "off":
        log.warning("sandbox.cgroups_off", note="LEAGUE_SANDBOX_CGROUP=off: seats run without whole-sandbox caps")
        return None
    v2 = CgroupV2.here() if chosen in ("auto", "v2") else None
    if v2 is not None:
        v2.prepare()
        v2.sweep()
        return v2
    v1 = CgroupV1.here() if chosen in ("auto", "v1") else None
    if v1 is not None:
        v1.sweep()
        return v1
    wanted = {"auto": "cgroup v2 or v1", "v2": "cgroup v2", "v1": "cgroup v1"}[chosen]
    raise CgroupError(
        f"no writable {wanted} with the memory and pids controllers for this process: seats would run "
        "without a memory and process cap for the whole sandbox",
        fix=_FIX,
    )
