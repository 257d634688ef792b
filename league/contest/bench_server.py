"""The league side of ``bench``: a Unix-socket server per agent and round, one JSON line each way.

Each agent gets its own socket in its own directory, bound read-only into its sandbox: the socket
itself says who is calling, so an agent cannot act for another. The server answers
``{"ok": true, "result": ...}`` or ``{"ok": false, "error": "..."}``; a handler exception is
reported as an error line, never as a dropped connection. The socket is world-connectable (0777):
the sandboxed process runs under its own unprivileged uid, and only the socket's directory is
mounted into that one sandbox.
"""

from __future__ import annotations

import json
import os
import shutil
import socketserver
import tempfile
import threading
from collections.abc import Callable
from pathlib import Path

import structlog

from league.contest.errors import ContestError
from league.jsonvalue import Json, JsonObject

log = structlog.get_logger(__name__)
MAX_REQUEST = 64 * 1024
Handler = Callable[[JsonObject], Json]


class BenchRefused(ContestError):
    """A bench command the league refuses; the message goes back to the agent verbatim."""


class _Server(socketserver.ThreadingUnixStreamServer):
    daemon_threads = True

    def __init__(self, path: str, handler: Handler) -> None:
        self.handle_request_fn = handler
        super().__init__(path, _Conn)


class _Conn(socketserver.StreamRequestHandler):
    server: _Server

    def handle(self) -> None:
        raw = self.rfile.readline(MAX_REQUEST + 1)
        try:
            request: Json = json.loads(raw.decode("utf-8"))
            if not isinstance(request, dict):
                raise BenchRefused("a bench request is one JSON object")
            answer: JsonObject = {"ok": True, "result": self.server.handle_request_fn(request)}
        except BenchRefused as exc:
            answer = {"ok": False, "error": exc.message}
        except (ValueError, UnicodeDecodeError):
            answer = {"ok": False, "error": "a bench request is one JSON line"}
        except Exception as exc:  # noqa: BLE001 - the agent gets a message, the operator the log
            log.exception("contest.bench_handler_failed")
            answer = {"ok": False, "error": f"the league could not answer: {type(exc).__name__}"}
        self.wfile.write(json.dumps(answer, ensure_ascii=False).encode("utf-8") + b"\n")


class BenchServer:
    """Serve ``handler`` on ``<dir>/bench.sock`` until :meth:`stop`; use as a context manager."""

    def __init__(self, handler: Handler, parent: Path | None = None) -> None:
        self.directory = Path(tempfile.mkdtemp(prefix="league-bench-", dir=str(parent) if parent else "/tmp"))
        os.chmod(self.directory, 0o755)
        self.path = self.directory / "bench.sock"
        self._server = _Server(str(self.path), handler)
        os.chmod(self.path, 0o777)
        self._thread = threading.Thread(target=self._server.serve_forever, kwargs={"poll_interval": 0.05},
                                        daemon=True)
        self._thread.start()

    def stop(self) -> None:
        self._server.shutdown()
        self._server.server_close()
        self._thread.join()
        shutil.rmtree(self.directory, ignore_errors=True)

    def __enter__(self) -> BenchServer:
        return self

    def __exit__(self, *exc: object) -> None:
        self.stop()
