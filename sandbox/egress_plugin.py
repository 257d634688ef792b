"""The egress proxy of one sandboxed run: ``python -m sandbox.egress_plugin DIR``.

Built on ``proxy.py`` (PyPI ``proxy.py``, maintained since 2013, BSD): it already speaks CONNECT and
plain proxied HTTP, listens on a Unix socket, and takes plugins with a hook before every upstream
connection and one for name resolution. This module adds only the league's rules: the plugin
resolves the destination once, decides with :meth:`sandbox.netpolicy.EgressRules.decide`, appends
the decision to ``DIR/fetches.jsonl`` and, when allowed, makes proxy.py connect to exactly the
address it checked (no second lookup that could answer differently).

``DIR`` holds ``rules.json`` (written by :class:`sandbox.netpolicy.EgressProxy`); the proxy listens
on ``DIR/proxy.sock`` and writes ``DIR/ready`` once it accepts connections.

``python -m sandbox.egress_plugin --service FD`` is the shared egress service instead
(:class:`sandbox.netpolicy.EgressService`): one long-lived process for all runs. Over the control
socket ``FD`` the league hands it, per run, a listening socket that lives in that run's own network
namespace (``127.0.0.1:3128`` there) and the run's directory; each connection accepted on it is
served by proxy.py's public ``start_threaded_work`` with flags carrying that run's rules, record and
inactivity timeout. A run's rules are reachable only through its own listener, which only its own
namespace can connect to: one run can never use another run's allow-list.
"""

from __future__ import annotations

import copy
import ctypes
import json
import os
import signal
import socket
import sys
import threading
import time
from dataclasses import dataclass, field
from datetime import UTC, datetime
from pathlib import Path
from typing import Any

from proxy import Proxy
from proxy.common.flag import FlagParser
from proxy.common.utils import text_
from proxy.core.work import start_threaded_work
from proxy.http.exception import HttpRequestRejected
from proxy.http.parser import HttpParser
from proxy.http.proxy import HttpProxyBasePlugin

from sandbox.netpolicy import EgressRules

_STATE: dict[str, Any] = {}


@dataclass
class RunState:
    """The rules and fetch record of one run, as its connections' handlers see them.

    ``closed`` is set (under ``lock``) when the league ends the run: from then on nothing is allowed
    and nothing more is written to the record the league is reading."""

    rules: EgressRules
    record: str
    closed: bool = False
    lock: threading.Lock = field(default_factory=threading.Lock)


def _addresses(host: str, port: int) -> list[str]:
    try:
        infos = socket.getaddrinfo(host, port, type=socket.SOCK_STREAM)
    except (OSError, UnicodeError):
        return []
    return list(dict.fromkeys(str(info[4][0]) for info in infos))


def _record(run: RunState, entry: dict[str, Any]) -> bool:
    """Append ``entry`` to the run's record; False (nothing written) once the run is closed."""
    line = (json.dumps(entry, sort_keys=True) + "\n").encode("utf-8")
    with run.lock:
        if run.closed:
            return False
        fd = os.open(run.record, os.O_WRONLY | os.O_APPEND | os.O_CREAT, 0o600)
        try:
            os.write(fd, line)
        finally:
            os.close(fd)
    return True


class EgressPolicyPlugin(HttpProxyBasePlugin):
    """Allow or refuse each CONNECT/request by the run's rules, and record it."""

    def __init__(self, *args: Any, **kwargs: Any) -> None:
        super().__init__(*args, **kwargs)
        self._address: str | None = None

    def before_upstream_connection(self, request: HttpParser) -> HttpParser | None:
        # the shared service puts the run on the flags of that run's connections; a per-run proxy has one run
        run: RunState = getattr(self.flags, "league_run", None) or _STATE["run"]
        rules = run.rules
        host = str(text_(request.host or b"")).lower().strip("[]")
        port = int(request.port or 0)
        method = str(text_(request.method or b""))
        addresses = _addresses(host, port) if host and port else []
        allowed, reason = rules.decide(host, port, addresses) if host and port else (False, "no host")
        at = datetime.now(UTC).isoformat(timespec="milliseconds").replace("+00:00", "Z")
        if not _record(run, {"host": host, "port": port, "method": method, "allowed": allowed, "reason": reason,
                             "at": at}):
            allowed, reason = False, "the run has ended"
        if not allowed:
            raise HttpRequestRejected(status_code=403, reason=b"Forbidden",
                                      body=f"refused by the league's egress policy: {reason}\n".encode())
        self._address = addresses[0]
        return request

    def resolve_dns(self, host: str, port: int) -> tuple[str | None, tuple[str, int] | None]:
        return self._address, None


def serve(directory: Path, idle_s: int) -> None:
    """Run the proxy on ``directory/proxy.sock`` until SIGTERM/SIGKILL.

    ``idle_s`` is proxy.py's inactivity timeout of a connection: the seat's own deadline, because a
    model may think for minutes before the first byte of a non-streamed answer."""
    _STATE["run"] = _load_run(directory)
    sock = directory / "proxy.sock"
    args = ["--unix-socket-path", str(sock), "--num-acceptors", "1", "--threaded", "--log-level", "WARNING",
            "--timeout", str(idle_s)]
    with Proxy(args, plugins=[EgressPolicyPlugin]):
        os.chmod(sock, 0o666)  # the seat's forwarder runs under another uid
        (directory / "ready").write_text(str(os.getpid()), encoding="ascii")
        signal.signal(signal.SIGTERM, lambda *_: sys.exit(0))
        while True:
            time.sleep(3600)


def _load_run(directory: Path) -> RunState:
    rules = EgressRules.from_json(json.loads((directory / "rules.json").read_text(encoding="utf-8")))
    return RunState(rules, str(directory / "fetches.jsonl"))


def _accept_loop(listener: socket.socket, flags: Any, run: RunState) -> None:
    """Serve one run's listener until the league closes the run (shutdown wakes ``accept``)."""
    while True:
        try:
            conn, addr = listener.accept()
        except OSError:
            return
        if run.closed:
            conn.close()
            return
        start_threaded_work(flags, conn, addr)


def service(control_fd: int) -> None:
    """The shared egress service: serve runs the league opens over ``control_fd`` until it closes.

    Messages are JSON datagrams (SOCK_SEQPACKET): ``{"op": "open", "run": ID, "dir": DIR, "idle": S}``
    with the run's listening socket attached (SCM_RIGHTS), and ``{"op": "close", "run": ID}``, answered
    ``{"run": ID, "known": bool}`` once the listener is shut and the record will not grow. The first
    message sent is ``{"ready": PID}``, after proxy.py is imported and its flags are built. EOF on the
    control socket (the league is gone) ends the service and every run's connections with it."""
    # not niced (unlike the zygote): nothing of it is on a seat's start, and a seat's every request passes here
    base = FlagParser.initialize(["--threaded", "--log-level", "WARNING", "--timeout", "600"],
                                 plugins=[EgressPolicyPlugin])
    ctl = socket.socket(fileno=control_fd)
    runs: dict[str, tuple[socket.socket, RunState, bool]] = {}
    ctl.send(json.dumps({"ready": os.getpid()}).encode())
    quiet = os.open(os.devnull, os.O_WRONLY)
    os.dup2(quiet, 2)  # its start-up errors were the league's to read; later warnings go nowhere
    os.close(quiet)
    while True:
        try:
            data, fds, _, _ = socket.recv_fds(ctl, 65536, 4)
        except OSError:
            break
        if not data:
            break
        try:
            msg = json.loads(data)
            run_id = str(msg["run"])
        except (ValueError, KeyError, TypeError):
            for fd in fds:
                os.close(fd)
            continue
        if msg.get("op") == "open" and fds:
            listener = socket.socket(fileno=fds[0])
            try:
                state, ok = _load_run(Path(msg["dir"])), True
            except (OSError, ValueError, KeyError, TypeError):  # refuse everything; its close answers "known": false
                state, ok = RunState(EgressRules.of("none"), str(Path(str(msg.get("dir"))) / "fetches.jsonl")), False
            flags = copy.copy(base)
            flags.timeout = int(msg.get("idle", 600))  # the seat's deadline (a model may think for minutes)
            flags.league_run = state
            runs[run_id] = (listener, state, ok)
            threading.Thread(target=_accept_loop, args=(listener, flags, state), daemon=True).start()
        elif msg.get("op") == "close":
            known = runs.pop(run_id, None)
            if known is not None:
                listener, state, ok = known
                with state.lock:
                    state.closed = True
                try:
                    listener.shutdown(socket.SHUT_RDWR)
                except OSError:
                    pass
                listener.close()
            ctl.send(json.dumps({"run": run_id, "known": known is not None and known[2]}).encode())
    os._exit(0)


def _die_with_zygote(zygote_pid: int) -> None:
    """PR_SET_PDEATHSIG: if the zygote ends (the league died and closed its pipe), so does this proxy,
    instead of serving a socket nobody will read the record of. A zygote that died between the fork and
    the request is caught by the parent check after it (the signal would never come)."""
    try:
        ctypes.CDLL(None, use_errno=True).prctl(1, signal.SIGKILL, 0, 0, 0)  # 1 = PR_SET_PDEATHSIG
    except (OSError, AttributeError):
        return
    if os.getppid() != zygote_pid:
        os._exit(0)


def zygote() -> None:
    """Serve many runs from one process that has already imported proxy.py (~0.3 s of imports).

    Reads ``DIR IDLE_S`` lines on stdin; for each, forks a child that becomes its own session (so the
    league can kill it with its acceptor as one process group), writes its pid to ``DIR/pid`` and
    serves that run. Nothing is answered: the league never waits for the zygote. Children are reaped
    by the kernel (SIGCHLD ignored). Ends at EOF."""
    signal.signal(signal.SIGCHLD, signal.SIG_IGN)
    os.nice(10)  # at 08:30 the seats' own start-up comes first; the forwarder waits for the proxy anyway
    me = os.getpid()
    for line in sys.stdin:
        directory, _, idle = line.strip().partition(" ")
        pid = os.fork()
        if pid == 0:
            os.setsid()
            _die_with_zygote(me)
            signal.signal(signal.SIGCHLD, signal.SIG_DFL)
            quiet = os.open(os.devnull, os.O_RDWR)
            errors = os.open(Path(directory) / "proxy.err", os.O_WRONLY | os.O_CREAT | os.O_APPEND, 0o600)
            os.dup2(quiet, 0)
            os.dup2(quiet, 1)
            os.dup2(errors, 2)  # read back by EgressProxy.failure() if this run's proxy never serves
            (Path(directory) / "pid").write_text(str(os.getpid()), encoding="ascii")
            try:
                serve(Path(directory), int(idle or 600))
            finally:
                os._exit(1)


if __name__ == "__main__":
    if sys.argv[1:] == ["--zygote"]:
        zygote()
    elif sys.argv[1:2] == ["--service"]:
        service(int(sys.argv[2]))
    else:
        serve(Path(sys.argv[1]), int(sys.argv[2]) if len(sys.argv) > 2 else 600)
