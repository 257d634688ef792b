"""The bubblewrap sandbox: a fresh tmpfs home, read-only system, nothing of the operator.

How a run is built (and why):
- The run's first process is a tiny ``sh`` that waits for one line on stdin. Before sending it, the
  league moves it into the run's own cgroup (:mod:`sandbox.cgroups`: a memory cap and a task cap for
  the whole sandbox, however many processes it starts) and sets its per-process limits (processes,
  file size, open files) with ``prlimit(2)``; only then may it ``exec`` the rest. So nothing of the run
  is ever outside its cgroup or its limits, everything inside inherits them, and no ``preexec_fn``
  (unsafe with threads) nor ``prlimit`` executable (one exec less per run) is needed. There is no
  address-space limit when a cgroup caps memory: ``RLIMIT_AS`` breaks the Node-based vendor CLIs.
- When the league may switch uids (root, or ``CAP_SETUID``/``CAP_SETGID``), each run drops
  (``setpriv``, capabilities cleared) to its SEAT's own unprivileged uid (:mod:`sandbox.identity`):
  the kernel counts processes and user namespaces per uid, so one seat's processes never count
  against another's. ``setpriv`` rather than ``Popen(user=…)`` keeps Python's fast vfork path.
- ``/`` and ``/dev`` are read-only; the writable mounts (home, ``/tmp``, ``/dev/shm``) are tmpfs of a
  stated size, so the disk a run can fill is bounded.
- Credential files and extra files reach the tmpfs home through memfds (``--file``/``--ro-bind-data``):
  they are copied per run (never through a symlink) and no file of the operator is ever bind-mounted.
- ``--json-status-fd`` tells a command that ran apart from a sandbox that failed to set up: only
  bubblewrap writes that fd, so a seat cannot fake an infrastructure incident on stderr.
- The deadline kills the whole process group; killing bubblewrap's pid-namespace init takes every
  process inside with it (and ``--die-with-parent`` covers the league dying); closing the run's
  cgroup kills anything left. A run whose cgroup recorded an OOM kill ended at its memory cap, even when
  the deadline fired too (the kernel's reclaim before the kill can outlast a short deadline under load).
- A system-call filter (:mod:`sandbox.seccomp`: no ptrace, no nested user namespace, no netlink, packet or
  raw socket) is handed to bubblewrap per run (``--seccomp FD``), and ``--disable-userns`` makes the kernel
  itself refuse a nested user namespace, filter or not.
- A profile says which mounts besides ``/usr`` and the home a run gets (/etc files, /proc, /dev, /tmp,
  /dev/shm) and whether a reaper runs as pid 1. The scripted child's profile takes none of those extras:
  they were a fifth of its run's CPU (docs/sandbox.md, "The scripted child's profile"). Every run, of
  every profile, has its own fresh network namespace.
"""

from __future__ import annotations

import contextlib
import json
import os
import resource
import selectors
import shutil
import signal
import subprocess
import threading
import time
from collections.abc import Mapping, Sequence
from dataclasses import dataclass, field, replace
from datetime import datetime
from pathlib import Path

import structlog

from sandbox.cgroups import Caps, CgroupReport, Cgroups, RunCgroup, detect
from sandbox.identity import ANONYMOUS, table_for, uid_range
from sandbox.interface import BwrapMissing, EndedBy, ExecResult, Now, SandboxError, system_now
from sandbox.netpolicy import (
    INSIDE_DIR,
    NSENTER_FIX,
    EgressProxy,
    EgressRules,
    SharedEgress,
    egress_mode,
    find_socat,
    inside_command,
    proxy_env,
)
from sandbox.profiles import (
    DEFAULT_PATH,
    ETC_FILES,
    MIB,
    SANDBOX_HOME,
    Profile,
    credentials_home,
    get_profile,
    read_credential,
    safe_home_path,
)
from sandbox.seccomp import load as load_filter

log = structlog.get_logger(__name__)

INSTALL_FIX = "apt-get install -y bubblewrap"
MEMORY_MARKERS = (b"MemoryError", b"Cannot allocate memory", b"out of memory", b"std::bad_alloc")
_SIGXFSZ_EXIT = 128 + signal.SIGXFSZ
# The run's first process: wait for the league's go (one line on stdin, sent once the process is in
# its cgroup and has its limits), then become the sandbox. dash reads a pipe one byte at a time, so
# the seat's own stdin that follows is untouched.
_LAUNCH = ["/bin/sh", "-c", 'read -r _ && exec "$@"', "sh"]
_CAP_SETGID, _CAP_SETUID = 6, 7
_LIMIT_NAMES = {resource.RLIMIT_AS: "RLIMIT_AS", resource.RLIMIT_NPROC: "RLIMIT_NPROC",
                resource.RLIMIT_FSIZE: "RLIMIT_FSIZE", resource.RLIMIT_NOFILE: "RLIMIT_NOFILE"}
_run_counter = iter(range(1, 2**62))
_run_lock = threading.Lock()


def find_bwrap(path: str | None = None) -> str:
    """The bwrap binary, or :class:`BwrapMissing` with the install command (never run unsandboxed)."""
    found = shutil.which(path or os.environ.get("LEAGUE_BWRAP", "bwrap"))
    if not found:
        raise BwrapMissing("bubblewrap (bwrap) is not installed; seats cannot run sandboxed", fix=INSTALL_FIX)
    return found


def can_switch_uid() -> bool:
    """True when this process may run seats under other uids (root, or CAP_SETUID and CAP_SETGID)."""
    try:
        with open("/proc/self/status", encoding="ascii") as fh:
            eff = next((int(r.split()[1], 16) for r in fh if r.startswith("CapEff:")), 0)
    except OSError:
        return os.geteuid() == 0
    return bool(eff >> _CAP_SETUID & 1 and eff >> _CAP_SETGID & 1)


def _run_name(owner: str) -> str:
    with _run_lock:
        n = next(_run_counter)
    return f"{owner}-{os.getpid()}-{n}"


def _system_args(etc_files: Sequence[str] = ETC_FILES) -> list[str]:
    """Read-only system dirs, mirroring the host's /bin, /lib… symlinks (merged-/usr) when present, and the
    profile's /etc files (no /etc at all for a profile that names none)."""
    args = ["--ro-bind", "/usr", "/usr"]
    for top in ("/bin", "/sbin", "/lib", "/lib64", "/lib32"):
        if os.path.islink(top):
            args += ["--symlink", os.readlink(top), top]
        elif os.path.isdir(top):
            args += ["--ro-bind", top, top]
    if etc_files:
        args += ["--perms", "0755", "--dir", "/etc"]
    for etc in etc_files:
        args += ["--ro-bind-try", etc, etc]
    return args


@dataclass
class _Capture:
    """One output pipe read to a cap; on overflow of a ``kill_on_cap`` pipe the run is ended."""

    cap: int
    kill_on_cap: bool
    chunks: list[bytes] = field(default_factory=list)
    size: int = 0
    truncated: bool = False

    def data(self) -> bytes:
        return b"".join(self.chunks)


@dataclass
class _Run:
    """Mutable bookkeeping of one run (one thread serves it: :func:`_serve_io`)."""

    proc: subprocess.Popen[bytes]
    ended_by: EndedBy | None = None

    def kill(self, reason: EndedBy) -> None:
        """Kill the run's process group; the first reason given is the one reported."""
        if self.ended_by is None:
            self.ended_by = reason
        try:
            os.killpg(self.proc.pid, signal.SIGKILL)
        except (ProcessLookupError, PermissionError):
            pass


class BwrapSandbox:
    """The :class:`sandbox.interface.Sandbox` implementation on bubblewrap."""

    def __init__(
        self,
        *,
        bwrap: str | None = None,
        creds_home: Path | None = None,
        now: Now = system_now,
        uids: str | None = None,
        cgroup: str | None = None,
        seccomp: str | None = None,
        egress: str | None = None,
    ) -> None:
        self.bwrap = find_bwrap(bwrap)
        setpriv = shutil.which("setpriv")
        self.switch_uid = can_switch_uid()
        if self.switch_uid and not setpriv:
            raise SandboxError("setpriv (util-linux) is missing; cannot drop root", fix="apt-get install -y util-linux")
        self.setpriv = setpriv or "setpriv"
        self.creds_home = creds_home
        self.now = now
        self.uids = table_for(*uid_range(uids))
        self.cgroups: Cgroups | None = detect(cgroup)
        # the BPF program of sandbox.seccomp, or None for the operator's explicit opt-out (logged)
        self.syscall_filter: bytes | None = load_filter(seccomp)
        # how a networked run reaches its egress proxy: "shared" (a prepared namespace and the league's one
        # egress service) or "per-run" (a proxy per run and a forwarder inside); LEAGUE_SANDBOX_EGRESS
        self.egress_mode = egress_mode(egress)
        nsenter = shutil.which("nsenter")
        if self.egress_mode == "shared" and not nsenter:
            raise SandboxError("nsenter (util-linux) is missing; a networked seat cannot join its namespace",
                               fix=NSENTER_FIX)
        self.nsenter = nsenter or "nsenter"

    @staticmethod
    def available() -> bool:
        """True when bubblewrap is installed (tests skip with a reason otherwise)."""
        return shutil.which(os.environ.get("LEAGUE_BWRAP", "bwrap")) is not None

    # -- building ---------------------------------------------------------------------------------
    def home_files(self, profile: Profile, files_in_home: Mapping[str, bytes] | None) -> list[tuple[str, bytes, bool]]:
        """(relative path, content, writable) for the profile's present credentials and extra files;
        an extra file replaces a credential file of the same path (e.g. a merged settings file)."""
        extra = {str(safe_home_path(rel)) for rel in files_in_home or {}}
        out: list[tuple[str, bytes, bool]] = []
        root = (self.creds_home or credentials_home()) if profile.credentials else Path("/")
        for cred in profile.credentials:
            if str(safe_home_path(cred.rel)) in extra:
                continue
            content = read_credential(root, cred.rel)
            if content is not None:
                out.append((cred.rel, content, cred.writable))
        for rel, content in (files_in_home or {}).items():
            safe_home_path(rel)
            out.append((rel, content, True))
        return out

    def env_for(self, profile: Profile, env: Mapping[str, str] | None) -> dict[str, str]:
        """Allow-list only: base variables, the profile's key variables if set, then the caller's values."""
        base = {"PATH": DEFAULT_PATH, "HOME": SANDBOX_HOME, "LANG": "C.UTF-8", "TZ": "UTC"}
        for key in ("LANG", "TZ"):
            if os.environ.get(key):
                base[key] = os.environ[key]
        base.update({k: os.environ[k] for k in (*profile.env_keys, *profile.config_env) if os.environ.get(k)})
        base.update(env or {})
        base["HOME"] = SANDBOX_HOME
        return base

    def build_argv(
        self,
        argv: Sequence[str],
        profile: Profile,
        egress_dir: Path | None,
        file_fds: Sequence[tuple[str, int, bool]],
        status_fd: int,
        *,
        seccomp_fd: int | None = None,
        joined_net: bool = False,
    ) -> list[str]:
        """The sandbox's command line: bwrap with namespaces, mounts and home files, then argv (the launcher and
        ``setpriv`` go in front of it; the limits are :meth:`limits`). ``seccomp_fd`` holds the system-call
        filter's BPF program (bubblewrap reads it to its end and closes it). ``joined_net``: the launcher
        has already joined the run's prepared network namespace (its only way out is the egress service's
        listener there, :func:`sandbox.netpolicy.seat_namespace`), so bubblewrap must not make another."""
        ns = ["--unshare-user", "--unshare-pid", "--unshare-ipc", "--unshare-uts"]
        if not joined_net:  # a namespace of its own: the only way out is the egress proxy's socket (netpolicy.py)
            ns += ["--unshare-net"]
        # no nested user namespace: the kernel refuses it (ENOSPC), with or without the filter's EPERM before it
        ns += ["--disable-userns"]
        ns += ["--die-with-parent", "--new-session", "--json-status-fd", str(status_fd)]
        ns += ["--seccomp", str(seccomp_fd)] if seccomp_fd is not None else []
        ns += ["--hostname", "seat"]
        if not profile.reaper and egress_dir is None:  # (under egress the forwarder is a second process to reap)
            ns.append("--as-pid-1")
        mounts = _system_args(profile.etc_files)
        mounts += (["--proc", "/proc"] if profile.proc else []) + (["--dev", "/dev"] if profile.dev else [])
        for size_mb, where in ((profile.shm_mb, "/dev/shm"), (profile.tmp_mb, "/tmp"), (profile.home_mb, SANDBOX_HOME)):
            if size_mb:
                mounts += ["--size", str(size_mb * MIB), "--tmpfs", where]
        for extra in profile.ro_binds:
            mounts += ["--ro-bind-try", extra, extra]
        if egress_dir is not None:
            mounts += ["--ro-bind", str(egress_dir), INSIDE_DIR]
            argv = inside_command(find_socat(), argv)
        for rel, fd, writable in file_fds:
            perms = "0755" if rel.startswith("bin/") else ("0644" if writable else "0444")
            mounts += ["--perms", perms, "--file" if writable else "--ro-bind-data", str(fd), f"{SANDBOX_HOME}/{rel}"]
        # last: the root and /dev tmpfs (unsized, owned by the seat) become read-only; the sized mounts stay writable
        mounts += (["--remount-ro", "/dev"] if profile.dev else []) + ["--remount-ro", "/"]
        return [self.bwrap, *ns, *mounts, "--chdir", SANDBOX_HOME, "--", *argv]

    def limits(self, profile: Profile) -> tuple[tuple[int, int], ...]:
        """The run's per-process limits, (resource, value): each set as soft and hard limit on the launcher
        before its go (what ``prlimit --nproc=N …`` did as an exec'd wrapper), inherited by all inside."""
        nproc = profile.nproc
        out: list[tuple[int, int]] = []
        if self.cgroups is None:  # the operator's opt-out: only the per-process address-space limit is left
            out.append((resource.RLIMIT_AS, profile.memory_mb * MIB))
        else:  # the cgroup's task cap is the cap; the uid's RLIMIT_NPROC stays as a looser second fence
            nproc *= 2
        out += [(resource.RLIMIT_NPROC, nproc), (resource.RLIMIT_FSIZE, profile.fsize_mb * MIB),
                (resource.RLIMIT_NOFILE, profile.nofile)]
        return tuple(out)

    # -- running ----------------------------------------------------------------------------------
    def exec(
        self,
        argv: Sequence[str],
        *,
        stdin: bytes | None = None,
        timeout: float,
        env: Mapping[str, str] | None = None,
        egress: EgressRules | None = None,
        profile: str | Profile = "default",
        files_in_home: Mapping[str, bytes] | None = None,
        owner: str | None = None,
    ) -> ExecResult:
        """Run ``argv`` in a fresh sandbox; raise :class:`SandboxError` only if isolation failed.

        ``owner`` names the seat the run belongs to: its uid and its cgroup's name derive from it.
        ``egress`` (policy ``api``/``web``) starts the run's egress proxy first; its fetch record
        comes back in ``ExecResult.fetches``. Without it the run has no network at all."""
        prof = get_profile(profile) if isinstance(profile, str) else profile
        if not argv:
            raise SandboxError("nothing to run: empty argv")
        if timeout <= 0:
            raise SandboxError(f"timeout must be positive, got {timeout}")
        networked = egress is not None and egress.uses_proxy
        if networked and not prof.allow_net:
            raise SandboxError(f"profile {prof.name!r} does not allow network access")
        proxy: EgressProxy | SharedEgress | None = None
        if egress is not None and networked:
            shared = self.egress_mode == "shared"
            proxy = (SharedEgress(egress, idle_s=timeout) if shared else EgressProxy(egress, idle_s=timeout)).launch()
        try:
            result = self._exec(argv, prof, stdin, timeout, env, files_in_home, owner, proxy)
        except BaseException:
            if proxy is not None:
                with contextlib.suppress(SandboxError):  # the run's own failure is the one to report
                    proxy.finish()
            raise
        if proxy is not None:
            proxy.wait_ready()  # a proxy that never served means the run had no way out: an incident
        return replace(result, fetches=proxy.finish() if proxy is not None else ())

    def _exec(
        self,
        argv: Sequence[str],
        prof: Profile,
        stdin: bytes | None,
        timeout: float,
        env: Mapping[str, str] | None,
        files_in_home: Mapping[str, bytes] | None,
        owner: str | None,
        proxy: EgressProxy | SharedEgress | None,
    ) -> ExecResult:
        who = owner or ANONYMOUS
        files = self.home_files(prof, files_in_home)
        fds = [(rel, _memfd(rel, content), w) for rel, content, w in files]
        # a fresh fd per run: bubblewrap reads the program from the fd's (shared) offset to its end
        filter_fd = _memfd("seccomp", self.syscall_filter) if self.syscall_filter is not None else None
        cgroup: RunCgroup | None = None
        try:
            uid = self.uids.uid(who) if self.switch_uid else None
            if self.cgroups is not None:
                cgroup = self.cgroups.create(_run_name(who), Caps(prof.memory_mb * MIB, prof.nproc))
            status_r, status_w = os.pipe()
            try:
                run_env = self.env_for(prof, env) | (proxy_env() if proxy is not None else {})
                joined = proxy.netns_fd if isinstance(proxy, SharedEgress) else None
                cmd = self.build_argv(argv, prof, proxy.directory if isinstance(proxy, EgressProxy) else None, fds,
                                      status_w, seccomp_fd=filter_fd, joined_net=joined is not None)
                passed = (status_w, *(fd for _, fd, _ in fds), *([filter_fd] if filter_fd is not None else []))
                start = _Start(cmd, run_env, passed, stdin, uid, cgroup, self.limits(prof), joined)
                return self._run(start, tuple(argv), prof, timeout, status_r, status_w)
            finally:
                os.close(status_r)  # status_w is closed by _run right after the start, exactly once
        finally:
            for fd in [*(fd for _, fd, _ in fds), *([filter_fd] if filter_fd is not None else [])]:
                os.close(fd)
            if cgroup is not None:
                cgroup.close()

    def _popen(self, start: _Start) -> subprocess.Popen[bytes]:
        cmd = start.cmd
        if start.uid is not None:  # drop root via setpriv: Popen(user=...) would forbid the fast vfork path
            cmd = [self.setpriv, f"--reuid={start.uid}", f"--regid={start.uid}", "--clear-groups",
                   "--inh-caps=-all", "--ambient-caps=-all", "--", *cmd]
        if start.netns_fd is not None:  # still root here: join the run's prepared namespace, then drop root
            # by the league's /proc path, so the namespace's fd is never inherited into the sandbox
            cmd = [self.nsenter, f"--net=/proc/{os.getpid()}/fd/{start.netns_fd}", "--", *cmd]
        try:
            proc = subprocess.Popen(  # noqa: S603 - argv is built above, never through a shell
                [*_LAUNCH, *cmd],
                stdin=subprocess.PIPE,
                stdout=subprocess.PIPE,
                stderr=subprocess.PIPE,
                env=start.env,
                cwd="/",
                pass_fds=start.pass_fds,
                start_new_session=True,
            )
        except OSError as exc:
            raise SandboxError(f"could not start the sandbox: {exc}", fix=INSTALL_FIX) from exc
        try:
            _confine(proc.pid, start)
        except SandboxError:
            proc.kill()
            proc.communicate()
            raise
        return proc

    def _run(
        self, start: _Start, argv: tuple[str, ...], prof: Profile, timeout: float, status_r: int, status_w: int
    ) -> ExecResult:
        started_at, t0 = self.now(), time.monotonic()
        try:
            proc = self._popen(start)
        finally:
            os.close(status_w)  # only bubblewrap may hold the write end, so EOF means it is gone
        run = _Run(proc)
        out, err = _Capture(prof.stdout_cap, True), _Capture(prof.stderr_cap, False)
        _serve_io(run, start.stdin_bytes, out, err, deadline=t0 + timeout)
        try:
            proc.wait(timeout=max(0.0, timeout - (time.monotonic() - t0)) + 0.01)
        except subprocess.TimeoutExpired:
            run.kill(EndedBy.TIMEOUT)
            proc.wait()
        elapsed = time.monotonic() - t0
        status = _read_status(status_r)
        report = start.cgroup.report() if start.cgroup is not None else CgroupReport()
        return self._result(argv, run, out, err, status, started_at, elapsed, _Outcome(prof, report))

    def _result(
        self,
        argv: tuple[str, ...],
        run: _Run,
        out: _Capture,
        err: _Capture,
        status: dict[str, int],
        started_at: datetime,
        elapsed: float,
        outcome: _Outcome,
    ) -> ExecResult:
        finished_at = self.now()
        assert run.proc.returncode is not None
        exit_code = status.get("exit-code", run.proc.returncode)
        if run.ended_by is None and "exit-code" not in status:
            detail = err.data().decode("utf-8", "replace").strip()
            log.error("sandbox.setup_failed", detail=detail, code=run.proc.returncode)
            raise SandboxError(f"the sandbox failed to start: {detail or 'no detail'}", fix=_setup_fix(detail))
        ended_by = ended_by_of(run.ended_by, exit_code, err.data(), outcome.report)
        return ExecResult(
            argv=argv,
            stdout=out.data(),
            stderr=err.data(),
            exit_code=exit_code,
            started_at=started_at,
            finished_at=max(finished_at, started_at),
            ended_by=ended_by,
            elapsed_s=elapsed,
            stdout_truncated=out.truncated,
            stderr_truncated=err.truncated,
            detail=_detail(ended_by, out, exit_code, outcome, deadline_fired=run.ended_by is EndedBy.TIMEOUT),
            oom_kills=outcome.report.oom_kills,
            tasks_refused=outcome.report.tasks_refused,
            memory_peak_bytes=outcome.report.memory_peak,
        )


@dataclass(frozen=True)
class _Start:
    """How one run is started: the sandbox command line and what wraps it."""

    cmd: list[str]
    env: dict[str, str]
    pass_fds: tuple[int, ...]
    stdin: bytes | None
    uid: int | None
    cgroup: RunCgroup | None
    limits: tuple[tuple[int, int], ...] = ()
    netns_fd: int | None = None  # the run's prepared network namespace (shared egress), joined by nsenter

    @property
    def stdin_bytes(self) -> bytes:
        """What is written to stdin: first the launcher's go line, then the seat's input (if any)."""
        return b"\n" + (self.stdin or b"")


def _confine(pid: int, start: _Start) -> None:
    """Put the waiting launcher into the run's cgroup and give it the run's limits, before its go."""
    if start.cgroup is not None:
        start.cgroup.attach(pid)
    for which, value in start.limits:
        try:
            resource.prlimit(pid, which, (value, value))
        except (OSError, ValueError) as exc:
            name = _LIMIT_NAMES.get(which, str(which))
            raise SandboxError(f"cannot set the run's limit {name}={value}: {exc}",
                               fix="the league's own hard limits must be at least the profile's") from exc


@dataclass(frozen=True)
class _Outcome:
    profile: Profile
    report: CgroupReport


def _setup_fix(detail: str) -> str:
    if "execvp" in detail:
        return "the command is not installed inside the sandbox: install it under /usr (e.g. npm install -g)"
    if "Resource temporarily unavailable" in detail:
        return ("the seat's uid reached its process limit (RLIMIT_NPROC counts every process of a uid): another "
                "run under the same uid holds that many processes; each seat has its own uid "
                "(LEAGUE_SEAT_UIDS), so look for a process outside the league using that uid (ps -u UID)")
    if "No space left on device" in detail:
        return "the host's user-namespace limit is reached: raise user.max_user_namespaces (sysctl)"
    if "namespace" in detail or "setting up uid map" in detail:
        return "enable unprivileged user namespaces (sysctl kernel.unprivileged_userns_clone=1) or check bwrap"
    return INSTALL_FIX


def _memfd(rel: str, content: bytes) -> int:
    fd = os.memfd_create(f"seat-{rel.replace('/', '_')}", 0)
    view = memoryview(content)
    while view:
        view = view[os.write(fd, view) :]
    os.lseek(fd, 0, os.SEEK_SET)
    return fd


def _serve_io(run: _Run, stdin: bytes | None, out: _Capture, err: _Capture, *, deadline: float) -> None:
    """Feed stdin and drain stdout and stderr in the calling thread (one ``poll`` loop, no thread per pipe:
    a season makes ~12 runs a session), until both outputs are closed. At ``deadline`` (monotonic) the run
    is killed for its timeout and the pipes are drained to their end, as they are after an output-cap kill.
    Returns with every pipe of the run closed."""
    proc = run.proc
    assert proc.stdout is not None and proc.stderr is not None
    readers = {proc.stdout.fileno(): out, proc.stderr.fileno(): err}
    feed = _Feed(proc, stdin)
    with selectors.PollSelector() as sel:
        for fd in readers:
            sel.register(fd, selectors.EVENT_READ)
        if feed.fd is not None:
            sel.register(feed.fd, selectors.EVENT_WRITE)
        reading = set(readers)
        while reading:
            wait = None if run.ended_by is not None else deadline - time.monotonic()
            if wait is not None and wait <= 0:
                run.kill(EndedBy.TIMEOUT)
                continue
            for key, _ in sel.select(wait):
                if key.fd in reading:
                    if not _take(os.read(key.fd, 65536), readers[key.fd], run):
                        sel.unregister(key.fd)
                        reading.discard(key.fd)
                elif not feed.write():
                    sel.unregister(key.fd)
                    feed.close()
    feed.close()
    proc.stdout.close()
    proc.stderr.close()


def _take(chunk: bytes, cap: _Capture, run: _Run) -> bool:
    """Keep at most ``cap.cap`` bytes of a pipe (and end the run on overflow of a ``kill_on_cap`` pipe);
    False at the pipe's end. Past the cap it keeps draining, so nothing inside blocks on a full pipe."""
    if not chunk:
        return False
    room = cap.cap - cap.size
    if len(chunk) > room:
        cap.truncated = True
        if room > 0:
            cap.chunks.append(chunk[:room])
            cap.size += room
        if cap.kill_on_cap:
            run.kill(EndedBy.OUTPUT_CAP)
        return True
    cap.chunks.append(chunk)
    cap.size += len(chunk)
    return True


class _Feed:
    """The run's stdin, written without blocking as the pipe takes it, then closed (its EOF ends the seat's
    input); a reader that is gone (EPIPE) ends the feeding, as it ended the blocking write of old."""

    def __init__(self, proc: subprocess.Popen[bytes], data: bytes | None) -> None:
        self.pipe = proc.stdin
        self.rest = memoryview(data or b"")
        self.fd: int | None = None
        if self.pipe is not None and self.rest:
            self.fd = self.pipe.fileno()
            os.set_blocking(self.fd, False)
        else:
            self.close()

    def write(self) -> bool:
        """Write what the pipe takes now; False once nothing is left to write (or nobody reads it)."""
        assert self.fd is not None
        try:
            while self.rest:
                self.rest = self.rest[os.write(self.fd, self.rest) :]
        except BlockingIOError:
            return True
        except OSError:  # EPIPE: the seat closed its stdin or ended; what it did not read is dropped
            return False
        return False

    def close(self) -> None:
        self.fd = None
        if self.pipe is not None:
            try:
                self.pipe.close()
            except OSError:
                pass
            self.pipe = None


def _read_status(fd: int) -> dict[str, int]:
    """bubblewrap's JSON status lines; ``exit-code`` is present only if the command really ran."""
    raw = b""
    while chunk := os.read(fd, 65536):
        raw += chunk
    status: dict[str, int] = {}
    for line in raw.splitlines():
        try:
            doc = json.loads(line)
        except ValueError:
            continue
        status.update({k: v for k, v in doc.items() if isinstance(v, int)})
    return status


def ended_by_of(killed_for: EndedBy | None, code: int, stderr: bytes, report: CgroupReport) -> EndedBy:
    """How a run ended: ``killed_for`` is the reason the sandbox itself killed it (deadline, output cap), if it
    did. The kernel's OOM kill at the run's memory cap wins over the deadline: under load the kernel's reclaim
    before the kill can take longer than a short deadline, and the deadline then fired on a run that the memory
    cap had already ended (or was ending), which is the seat's memory, not its time."""
    if killed_for is EndedBy.TIMEOUT and report.oom_kills:
        return EndedBy.MEMORY
    return killed_for or _classify_exit(code, stderr, report)


def _classify_exit(code: int, stderr: bytes, report: CgroupReport) -> EndedBy:
    if code == _SIGXFSZ_EXIT:
        return EndedBy.FILE_SIZE
    if code != 0 and (report.oom_kills or any(m in stderr for m in MEMORY_MARKERS)):
        return EndedBy.MEMORY  # (a run that recovered from a helper's OOM kill and exited 0 keeps its answer)
    if code != 0 and report.tasks_refused:
        return EndedBy.PROCESSES
    if code > 128:
        return EndedBy.SIGNAL
    return EndedBy.EXIT


def _detail(ended_by: EndedBy, out: _Capture, code: int, outcome: _Outcome, *, deadline_fired: bool = False) -> str:
    prof, report = outcome.profile, outcome.report
    if ended_by is EndedBy.OUTPUT_CAP:
        return f"stdout exceeded {out.cap} bytes; run killed and output truncated"
    if ended_by is EndedBy.MEMORY and report.oom_kills:
        late = "; the deadline passed too and the rest of the run was killed" if deadline_fired else ""
        return (f"memory cap of {prof.memory_mb} MiB for the whole sandbox reached: the kernel killed "
                f"{report.oom_kills} process(es) of the run (exit code {code}){late}")
    if ended_by is EndedBy.PROCESSES:
        return (f"process cap of {prof.nproc} tasks for the whole sandbox reached: {report.tasks_refused} "
                f"fork(s) refused (exit code {code})")
    if ended_by is EndedBy.EXIT:
        return f"exit code {code}"
    return f"ended by {ended_by.value} (exit code {code})"
