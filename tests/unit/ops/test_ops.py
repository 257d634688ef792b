"""Operations surface: sd_notify datagrams, the watchdog rule, /healthz and /metrics, JSON logs of
libraries. Values are read back from the wire (socket, HTTP), not from our own objects."""

from __future__ import annotations

import json
import logging
import socket
import threading
import urllib.error
import urllib.request
from collections.abc import Iterator
from pathlib import Path

import pytest
import structlog

from league.errors import ConfigError
from league.log import configure
from league.ops import health, metrics, sdnotify


@pytest.fixture()
def notify_socket(tmp_path: Path, monkeypatch: pytest.MonkeyPatch) -> Iterator[socket.socket]:
    sock = socket.socket(socket.AF_UNIX, socket.SOCK_DGRAM)
    sock.bind(str(tmp_path / "notify"))
    sock.settimeout(2.0)
    monkeypatch.setenv("NOTIFY_SOCKET", str(tmp_path / "notify"))
    yield sock
    sock.close()


def test_notify_sends_one_datagram_of_newline_separated_fields(notify_socket: socket.socket) -> None:
    assert sdnotify.notify("READY=1", "STATUS=catching up")
    assert notify_socket.recv(4096) == b"READY=1\nSTATUS=catching up"


def test_an_abstract_notify_socket_is_reached_with_a_leading_nul(monkeypatch: pytest.MonkeyPatch) -> None:
    name = f"league-test-{threading.get_ident()}"
    with socket.socket(socket.AF_UNIX, socket.SOCK_DGRAM) as sock:
        sock.bind(b"\0" + name.encode())
        sock.settimeout(2.0)
        monkeypatch.setenv("NOTIFY_SOCKET", "@" + name)
        assert sdnotify.notify("WATCHDOG=1")
        assert sock.recv(64) == b"WATCHDOG=1"


def test_outside_systemd_notify_is_a_no_op(monkeypatch: pytest.MonkeyPatch, tmp_path: Path) -> None:
    monkeypatch.delenv("NOTIFY_SOCKET", raising=False)
    assert not sdnotify.notify("READY=1")
    monkeypatch.setenv("NOTIFY_SOCKET", str(tmp_path / "nobody-listens"))
    assert not sdnotify.notify("READY=1")  # logged, never raised


def test_watchdog_interval_is_half_of_watchdog_usec_for_this_pid(monkeypatch: pytest.MonkeyPatch) -> None:
    monkeypatch.setenv("WATCHDOG_USEC", "120000000")
    monkeypatch.delenv("WATCHDOG_PID", raising=False)
    assert sdnotify.watchdog_interval() == 60.0
    monkeypatch.setenv("WATCHDOG_PID", "1")  # meant for another process
    assert sdnotify.watchdog_interval() is None
    monkeypatch.delenv("WATCHDOG_USEC")
    assert sdnotify.watchdog_interval() is None


def test_watchdog_pings_only_while_alive(notify_socket: socket.socket, monkeypatch: pytest.MonkeyPatch) -> None:
    monkeypatch.setenv("WATCHDOG_USEC", "100000")
    alive = threading.Event()
    alive.set()
    stop = threading.Event()
    thread = sdnotify.start_watchdog(alive.is_set, stop)
    assert thread is not None
    assert notify_socket.recv(64) == b"WATCHDOG=1"
    alive.clear()
    _drain(notify_socket)
    notify_socket.settimeout(0.5)
    with pytest.raises(TimeoutError):
        notify_socket.recv(64)  # a stuck daemon is not pinged for
    stop.set()
    thread.join(5)
    assert not thread.is_alive()


def _drain(sock: socket.socket) -> None:
    sock.settimeout(0.15)  # a ping already in flight when alive turned false
    try:
        while True:
            sock.recv(64)
    except TimeoutError:
        return


def test_health_rule_loop_beat_or_a_job_within_its_bound() -> None:
    h = health.Health(stale_after_s=30, job_max_s=100)
    assert h.alive()
    h._beat -= 60  # the main loop has not beaten for a minute
    assert not h.alive()
    h.started("ask", "2026-11-25")  # catching up: a job runs in the main thread
    assert h.alive()
    h.running["ask 2026-11-25"] -= 200  # past its bound
    assert not h.alive()
    h.finished("ask", "2026-11-25", "done")
    assert h.running == {} and h.last_job == {"job": "ask", "session": "2026-11-25", "result": "done"}
    h.beat()
    h.stopping = True
    assert h.report()[0] == 503 and h.report()[1]["status"] == "stopping"


def _get(url: str) -> tuple[int, str, str]:
    try:
        with urllib.request.urlopen(url, timeout=10) as r:  # noqa: S310 - loopback
            return r.status, r.headers["Content-Type"], r.read().decode()
    except urllib.error.HTTPError as e:
        return e.code, e.headers["Content-Type"], e.read().decode()


def test_the_daemon_endpoint_serves_healthz_and_a_scrapable_metrics_text() -> None:
    h = health.Health(stale_after_s=30)
    server = health.serve(h, "127.0.0.1", 0)
    base = f"http://127.0.0.1:{server.server_address[1]}"
    try:
        metrics.job_result("unit-test-job", "failed", 0.25)
        metrics.reply_sealed("unit-seat", "refused_shape", 0.002)
        code, _, body = _get(base + "/healthz")
        assert code == 200 and json.loads(body)["status"] == "ok"
        code, ctype, text = _get(base + "/metrics")
        assert code == 200 and ctype.startswith("text/plain")
        assert 'league_jobs_total{job="unit-test-job",result="failed"} 1.0' in text
        assert 'league_job_duration_seconds_count{job="unit-test-job"} 1.0' in text
        assert 'league_replies_sealed_total{seat="unit-seat",status="refused_shape"} 1.0' in text
        assert "process_resident_memory_bytes" in text
        h.stopping = True
        assert _get(base + "/healthz")[0] == 503
        assert _get(base + "/nothing")[0] == 404
    finally:
        server.shutdown()
        server.server_close()


@pytest.mark.parametrize("value", ["9464", "host:", "a:b"])
def test_a_bad_listen_address_is_a_config_error(value: str) -> None:
    with pytest.raises(ConfigError):
        health.parse_listen(value)


def test_listen_addresses() -> None:
    assert health.parse_listen("off") is None and health.parse_listen("") is None
    assert health.parse_listen("[::1]:9464") == ("::1", 9464)
    assert health.parse_listen(":9") == ("127.0.0.1", 9)


@pytest.fixture()
def restored_logging() -> Iterator[None]:
    root = logging.getLogger()
    handlers, level = root.handlers[:], root.level
    yield
    root.handlers[:] = handlers
    root.setLevel(level)
    structlog.reset_defaults()


def test_library_log_records_are_json_with_the_bound_job(restored_logging: None,
                                                        capsys: pytest.CaptureFixture[str]) -> None:
    configure(json_logs=True, level="INFO")
    with structlog.contextvars.bound_contextvars(job="score", session="2026-11-25"):
        logging.getLogger("alembic.runtime.migration").info("Running upgrade %s -> %s", "a1", "b2")
        structlog.get_logger("league.test").info("score.done", rows=3)
    logging.getLogger("httpx").info("HTTP Request: GET https://example.invalid")  # quieted below WARNING
    lines = [json.loads(x) for x in capsys.readouterr().err.splitlines() if x.strip()]
    assert [x["event"] for x in lines] == ["Running upgrade a1 -> b2", "score.done"]
    assert lines[0]["logger"] == "alembic.runtime.migration" and lines[0]["level"] == "info"
    assert all(x["job"] == "score" and x["session"] == "2026-11-25" and "timestamp" in x for x in lines)


def test_a_notify_socket_nobody_reads_never_blocks_the_sender(notify_socket: socket.socket) -> None:
    sent = [sdnotify.notify(f"STATUS=ping {i}") for i in range(500)]  # far past a datagram queue's length
    assert sent[0] and not all(sent)  # the first went out; once the queue is full, False instead of waiting
