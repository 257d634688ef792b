"""The shared egress service: one proxy process for all runs, each run reachable only through its own
namespace's listener, so a run never uses another run's allow-list; a service that dies is never an
open route (the run is a SandboxError, the next run starts a fresh service)."""

from __future__ import annotations

import concurrent.futures
import ctypes
import http.server
import os
import shutil
import signal
import socket
import threading
import time
from collections.abc import Iterator

import pytest

from sandbox.bwrap import BwrapSandbox
from sandbox.interface import ExecResult, SandboxError
from sandbox.netpolicy import SERVICE, EgressRules, SharedEgress

pytestmark = pytest.mark.sandbox
PY = "/usr/bin/python3"
# fetch each URL; a bare number sleeps that many seconds in between (to hold a run open)
FETCH = """
import sys, time, urllib.request
for arg in sys.argv[1:]:
    if arg.isdigit():
        time.sleep(int(arg)); continue
    try:
        print("OK", arg, urllib.request.urlopen(arg, timeout=5).read().decode(), flush=True)
    except Exception as exc:
        print("ERR", arg, exc, flush=True)
"""


class Counting(http.server.ThreadingHTTPServer):
    hits = 0


@pytest.fixture
def shared() -> BwrapSandbox:
    if shutil.which("bwrap") is None:
        pytest.skip("bubblewrap (bwrap) is not installed: apt-get install -y bubblewrap")
    if os.geteuid() != 0:
        pytest.skip("the shared egress service prepares network namespaces: the league runs as root")
    return BwrapSandbox(egress="shared")


@pytest.fixture
def host_service() -> Iterator[Counting]:
    class Handler(http.server.BaseHTTPRequestHandler):
        def log_message(self, *args: object) -> None:
            return

        def do_GET(self) -> None:  # noqa: N802
            srv.hits += 1
            self.send_response(200)
            self.end_headers()
            self.wfile.write(b"HOST-SERVICE")

    srv = Counting(("127.0.0.1", 0), Handler)
    threading.Thread(target=srv.serve_forever, daemon=True).start()
    yield srv
    srv.shutdown()
    srv.server_close()


def wait_for(cond: object, what: str, limit_s: float = 20.0) -> None:
    """Poll ``cond`` (a callable) until true; the limit only bounds a broken run, it asserts no speed."""
    deadline = time.monotonic() + limit_s
    while not cond():  # type: ignore[operator]
        assert time.monotonic() < deadline, f"never happened: {what}"
        time.sleep(0.02)


def test_a_run_cannot_use_the_allow_list_of_a_concurrent_run(shared: BwrapSandbox, host_service: Counting) -> None:
    """Run A may reach the host service and is still open; run B, served by the same service process at
    the same time, may not: B is refused, and each record holds only its own run's requests."""
    url = f"http://127.0.0.1:{host_service.server_address[1]}/x"
    allowed = EgressRules.of("api", [f"127.0.0.1:{host_service.server_address[1]}"])
    with concurrent.futures.ThreadPoolExecutor(1) as pool:
        first = pool.submit(shared.exec, [PY, "-c", FETCH, url, "3", url], timeout=30, egress=allowed)
        wait_for(lambda: host_service.hits == 1, "run A's first request")
        service_pid = SERVICE.pid
        other = shared.exec([PY, "-c", FETCH, url], timeout=30, egress=EgressRules.of("api", ["api.example.com"]))
        assert not first.done(), "run A ended before run B asked: the two runs did not overlap"
        a: ExecResult = first.result()
    assert f"ERR {url} HTTP Error 403" in other.text, other.err_text
    assert a.text.count("OK") == 2, a.err_text
    assert host_service.hits == 2
    assert SERVICE.pid == service_pid is not None
    assert [(f.port, f.allowed) for f in a.fetches] == [(host_service.server_address[1], True)] * 2
    assert [(f.port, f.allowed, f.reason) for f in other.fetches] == [
        (host_service.server_address[1], False, "not on the allow-list (policy api)")]


def test_a_service_that_dies_mid_run_is_restarted_with_the_runs_own_rules(
        shared: BwrapSandbox, host_service: Counting) -> None:
    """The service is killed while a run is open: a new one is started at once and handed the run again
    (same listener, rules and record): the run's next allowed request is served, and a host it may not
    reach is still refused — a restart never opens a route.

    The service is killed once the run's second request reaches the host: the run sends it only after the
    first answer is in, so that one is whole whatever the machine's load (a kill while the first answer is
    being relayed cuts it, as it cuts the second here, whose outcome the test does not read)."""
    url = f"http://127.0.0.1:{host_service.server_address[1]}/x"
    after_first = f"{url}?after-first"
    probe = socket.create_server(("127.0.0.1", 0))
    probe_url = f"http://127.0.0.1:{probe.getsockname()[1]}/x"
    rules = EgressRules.of("api", [f"127.0.0.1:{host_service.server_address[1]}"])
    restarts = SERVICE.restarts
    try:
        with concurrent.futures.ThreadPoolExecutor(1) as pool:
            run = pool.submit(shared.exec, [PY, "-c", FETCH, url, after_first, "2", probe_url, url], timeout=30,
                              egress=rules)
            wait_for(lambda: host_service.hits == 2, "the run's request after its first answer")
            dead = SERVICE.pid
            assert dead is not None
            os.kill(dead, signal.SIGKILL)
            res = run.result()
    finally:
        probe.close()
    assert SERVICE.restarts == restarts + 1 and SERVICE.pid not in (None, dead)
    assert res.text.count(f"OK {url} HOST-SERVICE") == 2, res.err_text
    assert f"ERR {probe_url} HTTP Error 403" in res.text
    assert host_service.hits == 3
    assert [f.allowed for f in res.fetches] == [True, True, False, True]


def test_a_run_the_service_no_longer_serves_is_a_sandbox_error(shared: BwrapSandbox) -> None:
    """A run whose service is gone at its end and could not be handed to a new one (here: stopped
    behind its back) ends as an infrastructure incident, not as a run that merely had no network."""
    run = SharedEgress(EgressRules.of("api", ["api.example.com"]), idle_s=5).launch()
    SERVICE.stop()
    with pytest.raises(SandboxError, match="egress service"):
        run.finish()
    assert not run.directory.exists()


def test_the_namespace_and_the_run_directory_stay_outside_the_sandbox(shared: BwrapSandbox) -> None:
    """No fd of the run's namespace is inherited inside, and the rules and record are not visible there."""
    code = ("import os\nfor fd in os.listdir('/proc/self/fd'):\n    try: print(os.readlink('/proc/self/fd/' + fd))\n"
            "    except OSError: pass\nprint('DIR', os.path.exists('/run/league-egress'))")
    res = shared.exec([PY, "-c", code], timeout=20, egress=EgressRules.of("api", ["api.example.com"]))
    assert "DIR False" in res.text, res.err_text
    assert not [line for line in res.text.splitlines() if line.startswith("net:")]
    assert res.exit_code == 0


def connect_inside(netns_fd: int) -> socket.socket:
    """A TCP connection to 127.0.0.1:3128 of the run's namespace, as its seat would make it (made in a
    throw-away thread that joins the namespace: a socket stays in the namespace it was made in)."""
    out: list[socket.socket] = []

    def join() -> None:
        assert ctypes.CDLL(None, use_errno=True).setns(netns_fd, 0x40000000) == 0  # CLONE_NEWNET
        out.append(socket.create_connection(("127.0.0.1", 3128), timeout=20))

    worker = threading.Thread(target=join)
    worker.start()
    worker.join()
    return out[0]


def test_each_run_keeps_its_own_inactivity_timeout_the_seats_deadline(shared: BwrapSandbox) -> None:
    """Two runs of the one service, deadlines 1 s and 120 s, each with a silent tunnel open: the
    short run's tunnel is closed by the proxy, the long run's one is still open after that."""
    silent = socket.create_server(("127.0.0.1", 0))
    port = silent.getsockname()[1]
    rules = EgressRules.of("api", [f"127.0.0.1:{port}"])
    short, long = SharedEgress(rules, idle_s=1).launch(), SharedEgress(rules, idle_s=120).launch()
    tunnels = []
    try:
        for run in (short, long):
            assert run.netns_fd is not None
            tunnel = connect_inside(run.netns_fd)
            tunnel.sendall(f"CONNECT 127.0.0.1:{port} HTTP/1.1\r\nHost: 127.0.0.1:{port}\r\n\r\n".encode())
            assert b" 200 " in tunnel.recv(4096).split(b"\r\n")[0]
            tunnels.append(tunnel)
        tunnels[0].settimeout(30)
        assert tunnels[0].recv(1) == b""  # closed by the proxy: 1 s without a byte either way
        tunnels[1].settimeout(1)
        with pytest.raises(TimeoutError):
            tunnels[1].recv(1)
        assert [len(r.finish()) for r in (short, long)] == [1, 1]
    finally:
        for tunnel in tunnels:
            tunnel.close()
        for run in (short, long):
            run.close()
        silent.close()


def test_a_forked_process_starts_its_own_service_and_leaves_the_parents_alone(
        shared: BwrapSandbox, host_service: Counting) -> None:
    """A worker's pool process forked after the parent's first networked run: its runs go to a service
    of its own (a shared control socket would mix the two processes' replies), the parent's lives on."""
    url = f"http://127.0.0.1:{host_service.server_address[1]}/x"
    rules = EgressRules.of("api", [f"127.0.0.1:{host_service.server_address[1]}"])
    assert "OK" in shared.exec([PY, "-c", FETCH, url], timeout=30, egress=rules).text
    parent_service = SERVICE.pid
    child = os.fork()
    if child == 0:  # pragma: no cover - the child reports through its exit status only
        code = 1
        try:
            res = shared.exec([PY, "-c", FETCH, url], timeout=30, egress=rules)
            code = 0 if "OK" in res.text and SERVICE.pid not in (None, parent_service) else 2
            SERVICE.stop()
        finally:
            os._exit(code)
    _, status = os.waitpid(child, 0)
    assert os.waitstatus_to_exitcode(status) == 0
    assert SERVICE.pid == parent_service is not None
    assert "OK" in shared.exec([PY, "-c", FETCH, url], timeout=30, egress=rules).text
    assert host_service.hits == 3


def test_a_run_whose_rules_cannot_be_read_is_refused_everything(shared: BwrapSandbox,
                                                                   host_service: Counting) -> None:
    """The service cannot read a run's rules: that run's requests are refused (policy none), the
    service stays up for the other runs, and the run ends as a SandboxError."""
    SERVICE.warm()
    service_pid = SERVICE.pid
    port = host_service.server_address[1]
    run = SharedEgress(EgressRules.of("api", [f"127.0.0.1:{port}"]), idle_s=5)
    (run.directory / "rules.json").write_text("{not json", encoding="utf-8")
    run.launch()
    assert run.netns_fd is not None
    with connect_inside(run.netns_fd) as tunnel:
        tunnel.sendall(f"GET http://127.0.0.1:{port}/x HTTP/1.1\r\nHost: 127.0.0.1:{port}\r\n\r\n".encode())
        assert b" 403 " in tunnel.recv(4096).split(b"\r\n")[0]
    with pytest.raises(SandboxError, match="did not know the run"):
        run.finish()
    assert host_service.hits == 0
    assert SERVICE.pid == service_pid is not None
