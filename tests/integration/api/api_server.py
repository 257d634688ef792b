"""Helpers: a real uvicorn server on a random 127.0.0.1 port (a uniquely named module, not conftest)."""

from __future__ import annotations

import socket
import sys
import threading
import time
from dataclasses import dataclass
from pathlib import Path

import uvicorn
from uvicorn.protocols.http.h11_impl import H11Protocol
from uvicorn.protocols.http.httptools_impl import HttpToolsProtocol

sys.path.insert(0, str(Path(__file__).resolve().parents[2] / "unit" / "publish"))

from season_fixture import Season  # noqa: E402

from league.api import create_app  # noqa: E402
from league.api.server import DEFAULT_HEADER_TIMEOUT_S, header_timeout_protocol  # noqa: E402


@dataclass
class Running:
    base: str
    season: Season
    server: uvicorn.Server
    thread: threading.Thread


def serve(data: Path, poll_s: float = 0.05, port: int = 0, header_timeout: float = DEFAULT_HEADER_TIMEOUT_S,
          protocol: type[H11Protocol] | type[HttpToolsProtocol] = H11Protocol,
          ) -> tuple[str, uvicorn.Server, threading.Thread]:
    """The app behind uvicorn with the header deadline `league serve` uses (h11 by default; `league serve` itself
    runs httptools: SERVE_PROTOCOL)."""
    sock = socket.socket(socket.AF_INET, socket.SOCK_STREAM)
    sock.setsockopt(socket.SOL_SOCKET, socket.SO_REUSEADDR, 1)
    sock.bind(("127.0.0.1", port))
    port = sock.getsockname()[1]
    config = uvicorn.Config(create_app(data, poll_s=poll_s), log_level="warning", lifespan="off",
                            timeout_graceful_shutdown=1, http=header_timeout_protocol(header_timeout, protocol))
    server = uvicorn.Server(config)
    thread = threading.Thread(target=server.run, kwargs={"sockets": [sock]}, daemon=True)
    thread.start()
    deadline = time.monotonic() + 20
    while not server.started:
        if time.monotonic() > deadline or not thread.is_alive():
            raise RuntimeError("uvicorn did not start")
        time.sleep(0.02)
    return f"http://127.0.0.1:{port}", server, thread


def stop(server: uvicorn.Server, thread: threading.Thread) -> None:
    server.should_exit = True
    thread.join(timeout=20)
