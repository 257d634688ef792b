"""Network policy of a sandboxed run: ``none``, ``api`` or ``web``, enforced outside the seat.

Every sandbox gets its own network namespace (bubblewrap ``--unshare-net``): inside there is only
its own loopback. Under ``none`` that is all. Under ``api`` and ``web`` the league starts an egress
proxy for the run (:class:`EgressProxy`: the maintained ``proxy.py`` library, see
:mod:`sandbox.egress_plugin`) listening on a Unix socket in a private directory that is bound into
the sandbox; a tiny forwarder inside (Debian's ``socat``) exposes that socket on the sandbox's own
``127.0.0.1:3128``, which ``HTTPS_PROXY``/``HTTP_PROXY`` name. A CLI that ignores the proxy
variables simply reaches nothing: the namespace has no other way out.

The proxy decides per request (CONNECT or plain HTTP) from :class:`EgressRules`:
- ``api``: only hosts on the allow-list (the adapter's vendor API hosts, the seat's ``base_url``
  host, or the roster's ``allow`` list);
- ``web``: any host on ports 80/443, plus the allow-list;
- under both, a destination that resolves to a loopback, private, link-local or otherwise
  non-global address is refused, unless an allow-list entry names that exact ``host:port`` (a
  LAN gateway, a test stand-in) — and then only that ``host:port``.

Every request host, allowed or refused, is appended to the run's fetch record, which the seat
seals with its answer line (paper requirement 17, "fetch records").
"""

from __future__ import annotations

import atexit
import contextlib
import ctypes
import enum
import fcntl
import functools
import ipaddress
import itertools
import json
import os
import shutil
import signal
import socket
import struct
import subprocess
import sys
import tempfile
import threading
import time
from collections.abc import Iterable, Sequence
from dataclasses import dataclass, field
from pathlib import Path
from typing import Any
from urllib.parse import urlsplit

import structlog

from sandbox.errors import SandboxError

log = structlog.get_logger(__name__)

#: Where the proxy's directory appears inside the sandbox, and the forwarder's port there.
INSIDE_DIR = "/run/league-egress"
INSIDE_SOCKET = f"{INSIDE_DIR}/proxy.sock"
INSIDE_PORT = 3128
PROXY_URL = f"http://127.0.0.1:{INSIDE_PORT}"
WEB_PORTS = frozenset({80, 443})
SOCAT_FIX = "apt-get install -y socat"
NSENTER_FIX = "apt-get install -y util-linux (nsenter joins a networked seat to its prepared namespace)"
EGRESS_ENV = "LEAGUE_SANDBOX_EGRESS"
EGRESS_MODES = ("auto", "shared", "per-run")
PROXY_FIX = "pip install 'proxy.py>=2.4' (a dependency of forecast-league: pip install -e .)"
READY_TIMEOUT_S = 15.0
#: A service that died this many times within RESTART_WINDOW_S is not restarted by the watcher (the next
#: run tries again): a service that cannot live would otherwise be restarted in a loop.
RESTART_LIMIT, RESTART_WINDOW_S = 3, 60.0


@dataclass(frozen=True)
class Fetch:
    """One request a sandboxed run made through its egress proxy (allowed or refused): host, port
    and method only, never a path or a header (those may carry the seat's secrets)."""

    host: str
    port: int
    method: str
    allowed: bool
    reason: str
    at: str

    def as_json(self) -> dict[str, str | int | bool]:
        return {"host": self.host, "port": self.port, "method": self.method, "allowed": self.allowed,
                "reason": self.reason, "at": self.at}


class NetworkPolicy(enum.StrEnum):
    """What a seat may reach: nothing, its model's API only (closed book), or the web."""

    NONE = "none"
    API = "api"
    WEB = "web"


@dataclass(frozen=True)
class AllowEntry:
    """One allow-list entry: ``host`` (port 443), ``host:port``, or ``*.domain[:port]``.

    ``exact`` is true when the entry names its port: only such an entry may open a loopback or
    private destination (a LAN gateway, a stand-in), and then only that host and port."""

    host: str
    port: int
    exact: bool

    @classmethod
    def parse(cls, text: str) -> AllowEntry:
        raw = text.strip().lower()
        if not raw or "/" in raw or "@" in raw or raw.count("*") > 1 or ("*" in raw and not raw.startswith("*.")):
            raise SandboxError(f"allow-list entry {text!r} is not host, host:port or *.domain[:port]",
                               fix='write e.g. "api.anthropic.com", "gateway.lan:8443" or "*.googleapis.com"')
        host, port = _split_host_port(raw)
        return cls(host, port if port is not None else 443, port is not None)

    def matches(self, host: str, port: int) -> bool:
        if port != self.port:
            return False
        if self.host.startswith("*."):
            return host.endswith(self.host[1:])
        return host == self.host

    def as_text(self) -> str:
        return f"{_bracket(self.host)}:{self.port}" if self.exact else self.host


def _bracket(host: str) -> str:
    return f"[{host}]" if ":" in host else host


def _split_host_port(raw: str) -> tuple[str, int | None]:
    if raw.startswith("["):
        host, _, rest = raw[1:].partition("]")
        port_text = rest[1:] if rest.startswith(":") else ""
    elif raw.count(":") == 1:
        host, _, port_text = raw.partition(":")
    else:
        host, port_text = raw, ""
    if not port_text:
        return host, None
    if not port_text.isdigit() or not 0 < int(port_text) < 65536:
        raise SandboxError(f"allow-list entry {raw!r}: bad port {port_text!r}", fix="use a port 1-65535")
    return host, int(port_text)


def entry_for_url(url: str) -> str:
    """The exact ``host:port`` allow-list entry of a base URL (its scheme's default port if none)."""
    parts = urlsplit(url)
    if parts.scheme not in ("http", "https") or not parts.hostname:
        raise SandboxError(f"base URL {url!r} is not an http(s) URL with a host",
                           fix="write e.g. https://gateway.example:8443/v1")
    port = parts.port or (443 if parts.scheme == "https" else 80)
    return f"{_bracket(parts.hostname)}:{port}"


@dataclass(frozen=True)
class EgressRules:
    """The policy of one run and its allow-list (validated entries)."""

    policy: NetworkPolicy
    allow: tuple[AllowEntry, ...] = ()

    @classmethod
    def of(cls, policy: str | NetworkPolicy, allow: Iterable[str] = ()) -> EgressRules:
        try:
            pol = NetworkPolicy(policy)
        except ValueError:
            raise SandboxError(f"unknown network policy {policy!r}", fix='use "none", "api" or "web"') from None
        entries = tuple(dict.fromkeys(AllowEntry.parse(a) for a in allow))
        return cls(pol, entries)

    @property
    def uses_proxy(self) -> bool:
        return self.policy is not NetworkPolicy.NONE

    def decide(self, host: str, port: int, addresses: Sequence[str]) -> tuple[bool, str]:
        """(allowed, reason) for a request to ``host:port`` resolving to ``addresses``."""
        host = host.lower().strip("[]")
        listed = [e for e in self.allow if e.matches(host, port)]
        if self.policy is NetworkPolicy.NONE:
            return False, "policy none"
        if self.policy is NetworkPolicy.API and not listed:
            return False, "not on the allow-list (policy api)"
        if self.policy is NetworkPolicy.WEB and not listed and port not in WEB_PORTS:
            return False, f"port {port} (policy web allows 80 and 443)"
        if not addresses:
            return False, "does not resolve"
        inner = [a for a in addresses if not ipaddress.ip_address(a.split("%")[0]).is_global]
        if inner and not any(e.exact for e in listed):
            return False, f"non-public address {inner[0]} (name the exact host:port on the allow-list)"
        return True, "allow-list" if listed else "policy web"

    def as_json(self) -> dict[str, Any]:
        return {"policy": self.policy.value, "allow": [e.as_text() for e in self.allow]}

    @classmethod
    def from_json(cls, doc: dict[str, Any]) -> EgressRules:
        return cls.of(str(doc.get("policy", "none")), [str(a) for a in doc.get("allow", [])])


def read_fetches(path: Path) -> tuple[Fetch, ...]:
    """The fetch record the proxy appended (one JSON object a line; a torn last line is skipped)."""
    out = []
    try:
        raw = path.read_text(encoding="utf-8")
    except FileNotFoundError:
        return ()
    for line in raw.splitlines():
        try:
            d = json.loads(line)
            out.append(Fetch(str(d["host"]), int(d["port"]), str(d["method"]), bool(d["allowed"]),
                             str(d["reason"]), str(d["at"])))
        except (ValueError, KeyError, TypeError):
            continue
    return tuple(out)


def find_socat() -> str:
    found = shutil.which("socat")
    if not found or not found.startswith("/usr/"):
        raise SandboxError("socat is not installed under /usr; a networked seat cannot reach its proxy",
                           fix=SOCAT_FIX)
    return found


def inside_command(socat: str, argv: Sequence[str]) -> list[str]:
    """The sandbox's command: start the forwarder on 127.0.0.1:3128, wait until it listens, exec argv.

    ``/proc/net/tcp`` of the sandbox's own namespace shows the listener; the CLI starts only after it.
    Each forwarded connection retries reaching the proxy's socket (10 ms apart, up to the proxy's
    start-up timeout), because the proxy starts in parallel with the sandbox."""
    listen = f"0100007F:{INSIDE_PORT:04X} 00000000:0000 0A"
    script = (
        f"{socat} -lf /dev/null TCP-LISTEN:{INSIDE_PORT},bind=127.0.0.1,fork,reuseaddr"
        f" UNIX-CONNECT:{INSIDE_SOCKET},retry={int(READY_TIMEOUT_S * 100)},interval=0.01 &"
        f" i=0; until grep -q '{listen}' /proc/net/tcp; do i=$((i+1)); [ $i -gt 500 ] && exit 125; sleep 0.01; done;"
        ' exec "$@"'
    )
    return ["/bin/sh", "-c", script, "egress", *argv]


def proxy_env() -> dict[str, str]:
    """The proxy variables every HTTP client of the CLIs reads (both spellings; nothing bypassed)."""
    env = {k: PROXY_URL for k in ("HTTPS_PROXY", "HTTP_PROXY", "ALL_PROXY", "https_proxy", "http_proxy",
                                  "all_proxy")}
    env.update({"NO_PROXY": "", "no_proxy": ""})
    return env


@dataclass
class EgressProxy:
    """One proxy process for one sandboxed run: started before the run, stopped after it.

    It runs in the league's own network namespace (it is the only way out of the sandbox's), with
    the rules in a file of its private directory; the fetch record is read back when it stops."""

    rules: EgressRules
    idle_s: float = 600.0
    python: str = sys.executable
    wrap: tuple[str, ...] = ()
    directory: Path = field(init=False)
    proc: subprocess.Popen[bytes] | None = field(init=False, default=None)
    pid: int | None = field(init=False, default=None)

    def __post_init__(self) -> None:
        self.directory = Path(tempfile.mkdtemp(prefix="league-egress-"))
        os.chmod(self.directory, 0o711)  # the seat's dropped uid must reach the socket by name
        (self.directory / "rules.json").write_text(json.dumps(self.rules.as_json()), encoding="utf-8")

    @property
    def socket(self) -> Path:
        return self.directory / "proxy.sock"

    @property
    def record(self) -> Path:
        return self.directory / "fetches.jsonl"

    def launch(self) -> EgressProxy:
        """Start the proxy without waiting: the sandbox starts meanwhile, and the forwarder inside
        retries its connection until the proxy listens (start-up off the seat's critical path).

        Without ``wrap`` the proxy is forked from the league's proxy zygote (:class:`Zygote`), which
        has paid proxy.py's imports once; with ``wrap`` (e.g. ``unshare -n``) it is a process of its own."""
        if not self.wrap:
            try:
                ZYGOTE.spawn(self.python, self.directory, self.idle_s)
            except OSError as exc:
                self.close()
                raise SandboxError(f"the egress proxy could not start: {exc}", fix=PROXY_FIX) from exc
            return self
        argv = [*self.wrap, self.python, "-m", "sandbox.egress_plugin", str(self.directory),
                str(max(1, int(self.idle_s)))]
        try:
            self.proc = subprocess.Popen(  # noqa: S603 - fixed argv, no shell
                argv, stdin=subprocess.DEVNULL, stdout=subprocess.DEVNULL, stderr=subprocess.PIPE,
                start_new_session=True, env=_proxy_process_env())
        except OSError as exc:
            self.close()
            raise SandboxError(f"the egress proxy could not start: {exc}", fix=PROXY_FIX) from exc
        self.pid = self.proc.pid
        return self

    def start(self) -> EgressProxy:
        """Start the proxy and wait until it accepts connections."""
        self.launch()
        self.wait_ready()
        return self

    def wait_ready(self) -> None:
        """Return once the proxy serves; raise :meth:`failure` if it died or never came up."""
        deadline = time.monotonic() + READY_TIMEOUT_S
        while not self.ready:
            if not self.alive() or time.monotonic() > deadline:
                raise self.failure()
            time.sleep(0.005)

    def alive(self) -> bool:
        if self.proc is not None:
            return self.proc.poll() is None
        pid = self.forked_pid()
        return _pid_alive(pid) if pid is not None else ZYGOTE.alive()  # not forked yet: still coming

    def forked_pid(self, wait_s: float = 0.0) -> int | None:
        """The pid a zygote-forked proxy wrote into its directory (waiting up to ``wait_s`` for it)."""
        if self.pid is not None or self.proc is not None:
            return self.pid
        deadline = time.monotonic() + wait_s
        while True:
            try:
                self.pid = int((self.directory / "pid").read_text(encoding="ascii"))
                return self.pid
            except (OSError, ValueError):
                if time.monotonic() >= deadline or not ZYGOTE.alive():
                    return None
                time.sleep(0.005)

    @property
    def ready(self) -> bool:
        return (self.directory / "ready").exists()

    def failure(self) -> SandboxError:
        """Stop what is left and describe why the proxy never served (an infrastructure incident)."""
        err = self.stop_process()
        try:
            err += (self.directory / "proxy.err").read_text(encoding="utf-8", errors="replace")
        except OSError:
            pass
        self.close()
        return SandboxError(f"the egress proxy did not start: {err[-800:] or 'no detail'}", fix=PROXY_FIX)

    def stop_process(self) -> str:
        """Stop the proxy (its whole process group); its stderr, when it has its own, is returned."""
        if self.proc is None:
            self.forked_pid(wait_s=READY_TIMEOUT_S)
        if self.pid is not None:
            try:
                os.killpg(self.pid, signal.SIGKILL)
            except (ProcessLookupError, PermissionError):
                pass
            self.pid = None
        if self.proc is None:
            return ""
        _, err = self.proc.communicate()
        self.proc = None
        return err.decode("utf-8", "replace")

    def finish(self) -> tuple[Fetch, ...]:
        """Stop the proxy and return the fetch record; the private directory is removed."""
        self.stop_process()
        fetches = read_fetches(self.record)
        self.close()
        return fetches

    def close(self) -> None:
        shutil.rmtree(self.directory, ignore_errors=True)


def _pid_alive(pid: int) -> bool:
    """True while ``pid`` runs (a zombie or a reaped pid counts as gone)."""
    try:
        with open(f"/proc/{pid}/stat", encoding="ascii") as fh:
            return fh.read().rsplit(")", 1)[1].split()[0] != "Z"
    except (OSError, IndexError):
        return False


class Zygote:
    """One long-lived ``python -m sandbox.egress_plugin --zygote`` per league process, started on the
    first networked run: each run's proxy is a fork of it (milliseconds) instead of a new interpreter
    importing proxy.py (~0.3 s of CPU per seat, fourteen at once at 08:30). Restarted if it died."""

    def __init__(self) -> None:
        self._proc: subprocess.Popen[str] | None = None
        self._lock = threading.Lock()

    def spawn(self, python: str, directory: Path, idle_s: float) -> None:
        """Ask for a proxy serving ``directory``; returns at once (the fork happens in the zygote)."""
        with self._lock:
            for attempt in (1, 2):
                proc = self._running(python)
                assert proc.stdin is not None
                try:
                    proc.stdin.write(f"{directory} {max(1, int(idle_s))}\n")
                    proc.stdin.flush()
                    return
                except OSError:
                    self._stop()
                    if attempt == 2:
                        raise

    def alive(self) -> bool:
        proc = self._proc
        return proc is not None and proc.poll() is None

    def _running(self, python: str) -> subprocess.Popen[str]:
        if self._proc is None or self._proc.poll() is not None:
            self._proc = subprocess.Popen(  # noqa: S603 - fixed argv, no shell
                [python, "-m", "sandbox.egress_plugin", "--zygote"], stdin=subprocess.PIPE,
                stdout=subprocess.DEVNULL, stderr=subprocess.DEVNULL, text=True, start_new_session=True,
                env=_proxy_process_env())
        return self._proc

    def _stop(self) -> None:
        if self._proc is not None:
            self._proc.kill()
            self._proc.wait()
            self._proc = None


ZYGOTE = Zygote()


def _proxy_process_env() -> dict[str, str]:
    """The proxy's own environment: the league's, minus any proxy variables of the operator's shell
    (the egress proxy connects directly) — it never sees a seat's secrets, which go to the sandbox."""
    return {k: v for k, v in os.environ.items() if "proxy" not in k.lower()}


# -- the shared egress service ---------------------------------------------------------------------
_CLONE_NEWNET = 0x40000000
_SIOCGIFFLAGS, _SIOCSIFFLAGS, _IFF_UP = 0x8913, 0x8914, 0x1
_IFREQ = "16sH14x"


def egress_mode(value: str | None = None) -> str:
    """``auto`` (the shared service where the league may create network namespaces, i.e. as root, else
    a proxy per run), ``shared`` or ``per-run``; from ``LEAGUE_SANDBOX_EGRESS`` when not given."""
    mode = (value if value is not None else os.environ.get(EGRESS_ENV, "auto")).strip().lower() or "auto"
    if mode not in EGRESS_MODES:
        raise SandboxError(f"{EGRESS_ENV}={mode!r} is not one of {', '.join(EGRESS_MODES)}",
                           fix=f"unset {EGRESS_ENV} (auto) or set it to shared or per-run")
    if mode == "auto":
        return "shared" if os.geteuid() == 0 and shutil.which("nsenter") and can_prepare_namespaces() else "per-run"
    return mode


@functools.cache
def can_prepare_namespaces() -> bool:
    """Whether this league may make a seat's network namespace (root without CAP_SYS_ADMIN, as in some
    containers, may not): tried once, a few milliseconds."""
    try:
        listener, ns = seat_namespace()
    except SandboxError as exc:
        log.warning("sandbox.egress_per_run", reason=exc.message)
        return False
    listener.close()
    os.close(ns)
    return True


def seat_namespace() -> tuple[socket.socket, int]:
    """A fresh network namespace holding only a loopback that is up and a listening socket on its
    ``127.0.0.1:3128``: (that listener, an fd of the namespace). The seat's sandbox joins the namespace
    (``nsenter --net``) instead of creating its own, so its proxy port listens before the seat starts,
    with no forwarder inside. Made in a throw-away thread: ``unshare(CLONE_NEWNET)`` moves only the
    calling thread, the league's own threads keep the host's network."""
    out: dict[str, object] = {}

    def make() -> None:
        try:
            if ctypes.CDLL(None, use_errno=True).unshare(_CLONE_NEWNET) != 0:
                raise OSError(ctypes.get_errno(), os.strerror(ctypes.get_errno()))
            with socket.socket(socket.AF_INET, socket.SOCK_DGRAM) as probe:
                got = fcntl.ioctl(probe.fileno(), _SIOCGIFFLAGS, struct.pack(_IFREQ, b"lo", 0))
                flags = int(struct.unpack(_IFREQ, got)[1])
                fcntl.ioctl(probe.fileno(), _SIOCSIFFLAGS, struct.pack(_IFREQ, b"lo", flags | _IFF_UP))
            listener = socket.socket(socket.AF_INET, socket.SOCK_STREAM)
            listener.bind(("127.0.0.1", INSIDE_PORT))
            listener.listen(128)
            out["listener"] = listener
            out["ns"] = os.open("/proc/thread-self/ns/net", os.O_RDONLY | os.O_CLOEXEC)
        except OSError as exc:
            out["error"] = exc

    worker = threading.Thread(target=make, name="league-netns")
    worker.start()
    worker.join()
    listener, ns = out.get("listener"), out.get("ns")
    if not isinstance(listener, socket.socket) or not isinstance(ns, int):
        if isinstance(listener, socket.socket):
            listener.close()
        raise SandboxError(f"cannot prepare the seat's network namespace: {out.get('error')}",
                           fix=f"run the league as root, or set {EGRESS_ENV}=per-run")
    return listener, ns


@dataclass
class _OpenRun:
    """A run the service serves: what re-opening it at a restarted service takes. The league keeps its
    own copy of the run's listener, so connections made while the service restarts wait in its backlog."""

    directory: Path
    listener: socket.socket
    idle_s: int
    served: bool = False  # handed to the service now running


class EgressService:
    """One long-lived egress proxy for all networked runs of this league process.

    ``python -m sandbox.egress_plugin --service FD``, started lazily on the first networked run (or
    ahead of the morning by :meth:`warm`), stopped at exit. Each run hands it a listener that lives in
    that run's own namespace; the run's rules travel with it. The league never waits for it on a
    seat's start: a seat's first connection waits in its listener's backlog until the service accepts.
    If the service dies, a watcher restarts it at once and hands it every open run again (same
    listeners, rules and records); connections cut by the death stay cut, later ones are served."""

    def __init__(self, python: str = sys.executable) -> None:
        self.python = python
        self._proc: subprocess.Popen[bytes] | None = None
        self._ctl: socket.socket | None = None
        self._lock = threading.Lock()
        self._ids = itertools.count(1)
        self._open: dict[str, _OpenRun] = {}
        self.restarts = 0
        self._deaths: list[float] = []
        atexit.register(self.stop)
        os.register_at_fork(after_in_child=self._forget)

    def _forget(self) -> None:
        """In a forked child (a worker's pool process): the parent's service, control socket and runs are
        the parent's; this process starts its own service at its first networked run, and never stops
        the parent's."""
        if self._ctl is not None:
            self._ctl.close()
        for run in self._open.values():
            run.listener.close()
        self._proc, self._ctl, self._open = None, None, {}
        self._lock = threading.Lock()

    def warm(self) -> None:
        """Start the service now (it imports proxy.py once, ~0.3 s) so the first run does not pay it."""
        with self._lock:
            self._running()

    @property
    def pid(self) -> int | None:
        proc = self._proc
        return proc.pid if proc is not None and proc.poll() is None else None

    def open(self, directory: Path, listener: socket.socket, idle_s: float) -> str:
        """Hand the run's listener (the service keeps it from now on) and directory to the service;
        returns the run's id."""
        run_id = f"{os.getpid()}-{next(self._ids)}"
        run = _OpenRun(directory, listener, max(1, int(idle_s)))
        with self._lock:
            self._open[run_id] = run
            for attempt in (1, 2):
                try:
                    self._serve_all()
                    return run_id
                except OSError as exc:
                    self._stop()
                    if attempt == 2:
                        del self._open[run_id]
                        listener.close()
                        raise SandboxError(f"the egress service does not take runs: {exc}", fix=PROXY_FIX) from exc
        raise AssertionError("unreachable")

    def close(self, run_id: str) -> None:
        """End the run at the service: its listener is shut and its record no longer grows. A run the
        service running now was never handed (it died and could not be restarted), or a service that
        dies at the run's end, is a :class:`SandboxError`: the run may have had no way out."""
        with self._lock:
            run = self._open.pop(run_id, None)
            if run is None:
                raise SandboxError(f"egress run {run_id} is not open", fix="close each run once")
            try:
                ctl = self._ctl
                if ctl is None or not run.served:
                    raise OSError("the service was not running")
                ctl.send(json.dumps({"op": "close", "run": run_id}).encode())
                reply = ctl.recv(65536)
                if not reply:
                    raise OSError("the service ended")
                known = bool(json.loads(reply).get("known"))
            except (OSError, ValueError) as exc:
                self._stop()
                if self._open:  # the other runs get a fresh service now (their listeners hold their backlog)
                    with contextlib.suppress(OSError, SandboxError):
                        self._serve_all()
                raise SandboxError(f"the egress service died during the run: {exc}", fix=PROXY_FIX) from exc
            finally:
                run.listener.close()
        if not known:
            raise SandboxError("the egress service did not know the run at its end", fix=PROXY_FIX)

    def _serve_all(self) -> None:
        """Start the service if it is not running, and hand it every open run it does not have yet."""
        ctl = self._running()
        for run_id, run in self._open.items():
            if not run.served:
                msg = {"op": "open", "run": run_id, "dir": str(run.directory), "idle": run.idle_s}
                socket.send_fds(ctl, [json.dumps(msg).encode()], [run.listener.fileno()])
                run.served = True

    def _watch(self, proc: subprocess.Popen[bytes]) -> None:
        """Wait for the service's end; unless the league stopped it, restart it and re-open every run."""
        proc.wait()
        with self._lock:
            if self._proc is not proc:
                return  # stopped or replaced on purpose
            log.warning("sandbox.egress_service_died", pid=proc.pid, code=proc.returncode, runs=len(self._open))
            self._stop()
            now = time.monotonic()
            self._deaths = [t for t in self._deaths if now - t < RESTART_WINDOW_S] + [now]
            if len(self._deaths) > RESTART_LIMIT:
                log.error("sandbox.egress_service_not_restarted", deaths=len(self._deaths), window_s=RESTART_WINDOW_S)
                return  # its open runs end as SandboxError; the next run starts it again
            self.restarts += 1
            try:
                self._serve_all()
            except (OSError, SandboxError) as exc:  # its runs end as SandboxError at their close
                log.error("sandbox.egress_service_restart_failed", error=str(exc))

    def _running(self) -> socket.socket:
        if self._proc is not None and self._proc.poll() is None and self._ctl is not None:
            return self._ctl
        self._stop()
        mine, theirs = socket.socketpair(socket.AF_UNIX, socket.SOCK_SEQPACKET)
        try:
            proc = subprocess.Popen(  # noqa: S603 - fixed argv, no shell
                [self.python, "-m", "sandbox.egress_plugin", "--service", str(theirs.fileno())],
                stdin=subprocess.DEVNULL, stdout=subprocess.DEVNULL, stderr=subprocess.PIPE,
                pass_fds=(theirs.fileno(),), start_new_session=True, env=_proxy_process_env())
        except OSError as exc:
            mine.close()
            raise SandboxError(f"the egress service could not start: {exc}", fix=PROXY_FIX) from exc
        finally:
            theirs.close()
        mine.settimeout(READY_TIMEOUT_S)
        try:
            ready = mine.recv(65536)
        except OSError:
            ready = b""
        if not ready:
            proc.kill()
            _, err = proc.communicate()
            mine.close()
            detail = err.decode("utf-8", "replace")[-800:] or "no detail"
            raise SandboxError(f"the egress service did not start: {detail}", fix=PROXY_FIX)
        assert proc.stderr is not None
        proc.stderr.close()  # the service has moved its stderr to /dev/null once ready
        self._proc, self._ctl = proc, mine
        threading.Thread(target=self._watch, args=(proc,), name="league-egress-watch", daemon=True).start()
        log.info("sandbox.egress_service_started", pid=proc.pid)
        return mine

    def _stop(self) -> None:
        if self._ctl is not None:
            self._ctl.close()
            self._ctl = None
        proc, self._proc = self._proc, None  # first: the watcher must see a stop, not a death
        for run in self._open.values():
            run.served = False  # a service started later is handed them again
        if proc is not None:
            if proc.poll() is None:
                try:
                    os.killpg(proc.pid, signal.SIGKILL)
                except (ProcessLookupError, PermissionError):
                    proc.kill()
            proc.wait()

    def stop(self) -> None:
        """Stop the service (at the league's exit; a later run starts a new one)."""
        with self._lock:
            self._stop()


SERVICE = EgressService()


@dataclass
class SharedEgress:
    """The egress of one run through the shared service: the run's namespace (joined by its sandbox),
    its private directory (rules and fetch record, never visible inside the sandbox) and its id."""

    rules: EgressRules
    idle_s: float = 600.0
    service: EgressService = field(default_factory=lambda: SERVICE)
    directory: Path = field(init=False)
    netns_fd: int | None = field(init=False, default=None)
    run_id: str | None = field(init=False, default=None)

    def __post_init__(self) -> None:
        self.directory = Path(tempfile.mkdtemp(prefix="league-egress-"))
        (self.directory / "rules.json").write_text(json.dumps(self.rules.as_json()), encoding="utf-8")

    def launch(self) -> SharedEgress:
        """Prepare the namespace and hand its listener to the service (which may still be starting)."""
        try:
            listener, self.netns_fd = seat_namespace()
            self.run_id = self.service.open(self.directory, listener, self.idle_s)  # the service owns it now
        except BaseException:
            self.close()
            raise
        return self

    def started(self) -> None:
        """The sandbox has joined the namespace: the league's handle on it is no longer needed."""
        if self.netns_fd is not None:
            os.close(self.netns_fd)
            self.netns_fd = None

    def wait_ready(self) -> None:
        """Kept for the per-run proxy's call site: the shared service answers at :meth:`finish`."""

    def finish(self) -> tuple[Fetch, ...]:
        """End the run at the service and return its fetch record; the private directory is removed."""
        try:
            if self.run_id is not None:
                self.service.close(self.run_id)
                self.run_id = None
            return read_fetches(self.record)
        finally:
            self.close()

    @property
    def record(self) -> Path:
        return self.directory / "fetches.jsonl"

    def close(self) -> None:
        self.started()
        shutil.rmtree(self.directory, ignore_errors=True)
