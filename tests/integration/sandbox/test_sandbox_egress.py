"""The egress proxy in front of a real sandbox: only the allow-list, never the host's own services.

Every test that takes ``sandbox`` runs under both ways a run reaches its proxy: the shared egress
service (a prepared namespace, the league's one service) and a proxy per run (a forwarder inside)."""

from __future__ import annotations

import http.server
import os
import shutil
import threading
from collections.abc import Iterator

import pytest

from sandbox.bwrap import BwrapSandbox
from sandbox.netpolicy import EgressRules

pytestmark = pytest.mark.sandbox
PY = "/usr/bin/python3"
FETCH = """
import sys, urllib.request
for url in sys.argv[1:]:
    try:
        print("OK", url, urllib.request.urlopen(url, timeout=5).read().decode())
    except Exception as exc:
        print("ERR", url, exc)
"""


@pytest.fixture(params=["shared", "per-run"])
def sandbox(request: pytest.FixtureRequest) -> BwrapSandbox:
    if shutil.which("bwrap") is None:
        pytest.skip("bubblewrap (bwrap) is not installed: apt-get install -y bubblewrap")
    if request.param == "shared" and os.geteuid() != 0:
        pytest.skip("the shared egress service prepares network namespaces: the league runs as root")
    return BwrapSandbox(egress=str(request.param))


class Counting(http.server.ThreadingHTTPServer):
    hits = 0


@pytest.fixture
def host_service() -> Iterator[Counting]:
    """A service of the host on 127.0.0.1 (stands for PostgreSQL, the league's API...)."""

    class Handler(http.server.BaseHTTPRequestHandler):
        def log_message(self, *args: object) -> None:
            return

        def do_GET(self) -> None:  # noqa: N802
            srv.hits += 1
            self.send_response(200)
            self.end_headers()
            self.wfile.write(b"HOST-SERVICE " + self.headers.get("Host", "").encode())

    srv = Counting(("127.0.0.1", 0), Handler)
    threading.Thread(target=srv.serve_forever, daemon=True).start()
    yield srv
    srv.shutdown()
    srv.server_close()


def url(srv: Counting) -> str:
    return f"http://127.0.0.1:{srv.server_address[1]}/x"


def test_api_reaches_exact_entry_and_records_it(sandbox: BwrapSandbox, host_service: Counting) -> None:
    port = host_service.server_address[1]
    res = sandbox.exec([PY, "-c", FETCH, url(host_service)], timeout=20,
                       egress=EgressRules.of("api", [f"127.0.0.1:{port}"]))
    assert f"OK {url(host_service)} HOST-SERVICE 127.0.0.1:{port}" in res.text, res.err_text
    assert [(f.host, f.port, f.method, f.allowed) for f in res.fetches] == [("127.0.0.1", port, "GET", True)]


def test_api_refuses_a_loopback_probe_not_listed(sandbox: BwrapSandbox, host_service: Counting) -> None:
    probe = url(host_service)
    res = sandbox.exec([PY, "-c", FETCH, probe], timeout=20, egress=EgressRules.of("api", ["api.example.com"]))
    assert f"ERR {probe} HTTP Error 403" in res.text
    assert host_service.hits == 0
    assert [(f.host, f.allowed, f.reason) for f in res.fetches] == [
        ("127.0.0.1", False, "not on the allow-list (policy api)")]


@pytest.mark.parametrize("target", ["127.0.0.1", "localhost", "169.254.169.254", "10.0.0.1", "[::1]"])
def test_web_refuses_host_loopback_and_private_addresses(sandbox: BwrapSandbox, host_service: Counting,
                                                         target: str) -> None:
    """Refused before any connection is made: the decision needs only the resolved address."""
    probe = f"http://{target}:80/x"
    res = sandbox.exec([PY, "-c", FETCH, probe, url(host_service)], timeout=20, egress=EgressRules.of("web"))
    assert f"ERR {probe} HTTP Error 403" in res.text
    assert host_service.hits == 0
    assert res.fetches and not any(f.allowed for f in res.fetches)
    assert res.fetches[0].reason.startswith("non-public address")


def test_exact_entry_opens_only_its_port(sandbox: BwrapSandbox, host_service: Counting) -> None:
    port = host_service.server_address[1]
    other = f"http://127.0.0.1:{port + 1 if port < 65535 else port - 1}/x"
    res = sandbox.exec([PY, "-c", FETCH, other], timeout=20, egress=EgressRules.of("web", [f"127.0.0.1:{port}"]))
    assert "ERR" in res.text and host_service.hits == 0
    assert res.fetches[0].allowed is False


def test_no_network_means_no_proxy_and_no_record(sandbox: BwrapSandbox, host_service: Counting) -> None:
    res = sandbox.exec([PY, "-c", FETCH, url(host_service)], timeout=20)
    assert f"ERR {url(host_service)}" in res.text
    assert res.fetches == () and host_service.hits == 0


def test_proxy_variables_point_inside_and_nothing_else_is_listening(sandbox: BwrapSandbox) -> None:
    code = "import os; print(os.environ['HTTPS_PROXY']); print(open('/proc/net/tcp').read())"
    res = sandbox.exec([PY, "-c", code], timeout=20, egress=EgressRules.of("api", ["api.example.com"]))
    lines = res.text.splitlines()
    assert lines[0] == "http://127.0.0.1:3128"
    listening = [x.split()[1] for x in lines[2:] if x.strip() and x.split()[3] == "0A"]
    assert listening == ["0100007F:0C38"]


def test_a_proxy_that_never_serves_is_a_sandbox_error() -> None:
    """The run would have no way out at all: that is the league's failure, reported with the fix."""
    from sandbox.interface import SandboxError
    from sandbox.netpolicy import EgressProxy

    proxy = EgressProxy(EgressRules.of("api", ["api.example.com"]), wrap=("/bin/false",))
    with pytest.raises(SandboxError, match="did not start") as info:
        proxy.start()
    assert "proxy.py" in (info.value.fix or "")
    assert not proxy.directory.exists()


def test_concurrent_runs_keep_their_own_rules_and_records(sandbox: BwrapSandbox, host_service: Counting) -> None:
    """Each run gets its own rules and record, whether its proxy is forked from the zygote (per run)
    or is the shared service (one process, a listener per run)."""
    import concurrent.futures

    port = host_service.server_address[1]

    def run(allowed: bool) -> list[tuple[int, bool]]:
        rules = EgressRules.of("api", [f"127.0.0.1:{port}"] if allowed else ["api.example.com"])
        res = sandbox.exec([PY, "-c", FETCH, url(host_service)], timeout=30, egress=rules)
        return [(f.port, f.allowed) for f in res.fetches]

    with concurrent.futures.ThreadPoolExecutor(6) as pool:
        results = list(pool.map(run, [True, False] * 3))
    assert results == [[(port, True)], [(port, False)]] * 3
    assert host_service.hits == 3


def test_batch_preflight_checks_the_proxy_when_a_seat_has_network(sandbox: BwrapSandbox) -> None:
    from datetime import UTC, datetime

    from league_agents.base import SeatSpec
    from league_agents.selfcheck import preflight

    def now() -> datetime:
        return datetime.now(UTC)

    networked = preflight([SeatSpec(name="c", adapter="claude_code", network="api")], now, sandbox=sandbox)
    offline = preflight([SeatSpec(name="c", adapter="claude_code")], now, sandbox=sandbox)
    assert [c.ok for c in networked if c.name.startswith("egress proxy")] == [True]
    assert not [c for c in offline if c.name.startswith("egress proxy")]


def test_host_abstract_unix_sockets_are_out_of_reach_under_web(sandbox: BwrapSandbox) -> None:
    """Abstract Unix sockets belong to a network namespace: the seat's own has none of the host's."""
    import socket
    import uuid

    name = f"league-test-{uuid.uuid4().hex[:12]}"
    host = socket.socket(socket.AF_UNIX, socket.SOCK_STREAM)
    host.bind("\0" + name)
    host.listen(1)
    try:
        code = ("import socket, sys\ns = socket.socket(socket.AF_UNIX)\ntry:\n    s.connect('\\0' + sys.argv[1])\n"
                "    print('REACHED')\nexcept OSError as exc:\n    print('REFUSED', exc.errno)")
        res = sandbox.exec([PY, "-c", code, name], timeout=20, egress=EgressRules.of("web"))
        assert "REFUSED" in res.text and "REACHED" not in res.text, res.err_text
        probe = socket.socket(socket.AF_UNIX)
        probe.connect("\0" + name)  # the same name is reachable from the host: the test can fail
        probe.close()
    finally:
        host.close()
