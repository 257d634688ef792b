"""The daemon's own small HTTP endpoint: ``/healthz`` (is the main loop alive?) and ``/metrics``.

It runs in a thread of the daemon on a loopback port of its own (``league daemon --ops-listen``), apart
from `league serve`, so a scrape or a health probe never touches the published folder or the book.
``/healthz`` answers 200 while the daemon is alive and 503 otherwise; systemd's watchdog pings follow the
same rule. Alive = the main loop beat within ``stale_after_s``, or a job is running and has run less
than ``job_max_s`` (catching up at start runs jobs in the main thread; an ask legitimately runs until
its seats' deadline). A loop stuck outside any job, or a job stuck past ``job_max_s``, is not alive.
"""

from __future__ import annotations

import json
import threading
import time
from dataclasses import dataclass, field
from http.server import BaseHTTPRequestHandler, ThreadingHTTPServer
from typing import NotRequired, TypedDict

from league.errors import ConfigError
from league.ops.metrics import exposition


class HealthReport(TypedDict):
    """``/healthz``'s JSON body: the state in a word, the main loop's age, the jobs running, the last one."""

    status: str
    loop_age_s: float
    running: list[str]
    last_job: dict[str, str]
    degraded: NotRequired[dict[str, str]]


@dataclass
class Health:
    """What the main loop reports; read by the endpoint's threads (plain attribute writes)."""

    stale_after_s: float = 30.0
    job_max_s: float = 7200.0
    stopping: bool = False
    last_job: dict[str, str] = field(default_factory=dict)
    running: dict[str, float] = field(default_factory=dict)
    degraded: dict[str, str] = field(default_factory=dict)  # what -> why (alive, but something needs a person)
    _beat: float = field(default_factory=time.monotonic)

    def beat(self) -> None:
        self._beat = time.monotonic()

    def started(self, job: str, session: str) -> None:
        self.running[f"{job} {session}"] = time.monotonic()

    def finished(self, job: str, session: str, result: str) -> None:
        self.running.pop(f"{job} {session}", None)
        self.last_job = {"job": job, "session": session, "result": result}

    def degrade(self, what: str, why: str) -> None:
        """Mark a part degraded (e.g. the nightly book verification failed): alive, but reported."""
        self.degraded[what] = why

    def recover(self, what: str) -> None:
        self.degraded.pop(what, None)

    def alive(self) -> bool:
        now = time.monotonic()
        in_job = any(now - since <= self.job_max_s for since in list(self.running.values()))
        return not self.stopping and (now - self._beat <= self.stale_after_s or in_job)

    def report(self) -> tuple[int, HealthReport]:
        """The HTTP status (503 when not alive) and the body the endpoint serves."""
        ok = self.alive()
        state = ("degraded" if self.degraded else "ok") if ok else ("stopping" if self.stopping else "stale")
        body: HealthReport = {"status": state,
                              "loop_age_s": round(time.monotonic() - self._beat, 3), "running": sorted(self.running),
                              "last_job": self.last_job}
        if self.degraded:
            body["degraded"] = dict(self.degraded)
        return (200 if ok else 503), body


#: The daemon's health, recorded by the scheduler's job runner (harmless in any other process).
DAEMON = Health()


def _handler(health: Health) -> type[BaseHTTPRequestHandler]:
    class Handler(BaseHTTPRequestHandler):
        def do_GET(self) -> None:  # noqa: N802 - the name http.server calls
            if self.path == "/healthz":
                code, body = health.report()
                self._send(code, json.dumps(body).encode(), "application/json")
            elif self.path == "/metrics":
                data, ctype = exposition()
                self._send(200, data, ctype)
            else:
                self._send(404, b'{"error": "not found: /healthz or /metrics"}', "application/json")

        def _send(self, code: int, data: bytes, ctype: str) -> None:
            self.send_response(code)
            self.send_header("Content-Type", ctype)
            self.send_header("Content-Length", str(len(data)))
            self.end_headers()
            self.wfile.write(data)

        def log_message(self, format: str, *args: object) -> None:  # noqa: A002 - scrapes are not log lines
            return

    return Handler


def serve(health: Health, host: str, port: int) -> ThreadingHTTPServer:
    """Start the endpoint in a daemon thread; the caller shuts it down. Port 0 picks a free one."""
    server = ThreadingHTTPServer((host, port), _handler(health))
    server.daemon_threads = True
    threading.Thread(target=server.serve_forever, name="ops-http", daemon=True).start()
    return server


def parse_listen(value: str) -> tuple[str, int] | None:
    """``HOST:PORT`` (``[::1]:9464`` for IPv6); empty or ``off`` turns the endpoint off."""
    if value.strip().lower() in ("", "off"):
        return None
    host, sep, port = value.strip().rpartition(":")
    if not sep or not port.isdigit():
        raise ConfigError(f"--ops-listen {value!r} is not HOST:PORT", fix="e.g. 127.0.0.1:9464, or off")
    return host.strip("[]") or "127.0.0.1", int(port)
