"""Run inside a fresh network namespace (``unshare -n``) by test_fetch_netns.py: nothing here can reach or be
reached from the machine's network. It brings loopback up, gives it the inner addresses a guard must refuse
(10.9.8.7, 169.254.169.254), serves two "outlets" on 127.0.0.2 and 127.0.0.3, listens with canary sockets
that must never see a connection, fetches, and prints what it found as one JSON object."""

from __future__ import annotations

import json
import socket
import subprocess
import sys
import threading
import time
from datetime import UTC, datetime
from http.server import BaseHTTPRequestHandler, ThreadingHTTPServer

from league.clock import SimulatedClock
from league.sources.http import HttpFetcher, resolve

PAGE = b'<html><head><meta property="og:published_time" content="2026-11-24T11:00:00Z"></head><body>x</body></html>'
HITS: dict[str, int] = {}
HUGE = 10_000_000


def serve(address: str, redirect_to: str = "") -> int:
    class Handler(BaseHTTPRequestHandler):
        protocol_version = "HTTP/1.1"

        def log_message(self, *args: object) -> None:
            return None

        def do_GET(self) -> None:  # noqa: N802
            key = f"{address}{self.path}"
            HITS[key] = HITS.get(key, 0) + 1
            if self.path == "/away":
                self.send_response(302)
                self.send_header("Location", f"{redirect_to}/landing")
                self.send_header("Content-Length", "0")
                self.end_headers()
                return
            if self.path in ("/huge", "/slow"):
                self.send_response(200)
                self.send_header("Content-Type", "text/plain")
                self.send_header("Content-Length", str(HUGE))
                self.end_headers()
                sent = 0
                try:
                    while sent < HUGE:
                        piece = b"x" * (65536 if self.path == "/huge" else 1)
                        self.wfile.write(piece)
                        self.wfile.flush()
                        sent += len(piece)
                        if self.path == "/slow":
                            time.sleep(0.05)
                except OSError:
                    HITS[f"{key}:sent"] = sent
                    return
                return
            self.send_response(200)
            self.send_header("Content-Type", "text/html")
            self.send_header("Content-Length", str(len(PAGE)))
            self.end_headers()
            self.wfile.write(PAGE)

    server = ThreadingHTTPServer((address, 0), Handler)
    server.daemon_threads = True
    threading.Thread(target=server.serve_forever, daemon=True).start()
    return int(server.server_address[1])


def canary(address: str) -> socket.socket:
    s = socket.socket()
    s.bind((address, 0))
    s.listen(8)
    s.setblocking(False)
    return s


def touched(s: socket.socket) -> bool:
    try:
        conn, _ = s.accept()
    except BlockingIOError:
        return False
    conn.close()
    return True


def main() -> None:
    subprocess.run(["ip", "link", "set", "lo", "up"], check=True)
    for inner in ("10.9.8.7/32", "169.254.169.254/32"):
        subprocess.run(["ip", "addr", "add", inner, "dev", "lo"], check=True)
    port_b = serve("127.0.0.3")
    port_a = serve("127.0.0.2", redirect_to=f"http://127.0.0.3:{port_b}")
    a = f"http://127.0.0.2:{port_a}"
    clock = SimulatedClock(datetime(2026, 11, 24, 15, 0, tzinfo=UTC))
    loose = HttpFetcher(clock, timeout_s=1.0, max_bytes=100_000, allow_private=True)
    out: dict[str, object] = {"a": a, "b": f"http://127.0.0.3:{port_b}"}
    for name in ("story", "away", "huge", "slow"):
        out[name] = loose.fetch(f"{a}/{name}").as_json()
    time.sleep(0.3)  # the servers' write after a cut connection fails: its count is then recorded
    cans = {name: canary(addr) for name, addr in (("loopback", "127.0.0.1"), ("private", "10.9.8.7"),
                                                  ("metadata", "169.254.169.254"))}
    strict = HttpFetcher(clock, timeout_s=1.0)
    urls = {name: f"http://{s.getsockname()[0]}:{s.getsockname()[1]}/latest" for name, s in cans.items()}
    calls: list[str] = []

    def rebinding(host: str, port: int) -> list[str]:  # public for the check, loopback for the request
        calls.append(host)
        return ["93.184.216.34"] if len(calls) == 1 else resolve("127.0.0.1", port)

    sneaky = HttpFetcher(clock, timeout_s=1.0, resolver=rebinding)
    port = cans["loopback"].getsockname()[1]
    out["refused"] = {name: strict.fetch(url).as_json() for name, url in urls.items()}
    out["rebinding"] = sneaky.fetch(f"http://rebind.test:{port}/latest").as_json()
    out["touched"] = {name: touched(s) for name, s in cans.items()}
    out["hits"] = dict(HITS)
    json.dump(out, sys.stdout)


if __name__ == "__main__":
    main()
