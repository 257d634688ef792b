"""The demo's stand-in web pages: a few "outlets" on loopback addresses, so an offline demo season has cited
links the league can fetch (``[sources] fetch``) and shared-sources figures to publish.

Each outlet listens on its own loopback address (127.0.0.21 to 127.0.0.24 on Linux, where all of 127/8 is
loopback), on one fixed port, so the fetch records name different hosts. Pages are fixed HTML with a declared
publication time. One path shows a citation named after one outlet that leads to another (``/wire/...`` on the
first outlet redirects to the second); ``/gone`` answers 404. The fourth outlet stands for the league's own data source:
the demo lists it in ``[sources] ask_sites``, so its citations are removed as what the ask itself gave.
"""

from __future__ import annotations

import threading
from collections.abc import Iterator
from contextlib import contextmanager
from http.server import BaseHTTPRequestHandler, ThreadingHTTPServer

#: outlet name -> loopback address.
OUTLETS = {"wire": "127.0.0.21", "rates": "127.0.0.22", "energy": "127.0.0.23", "snapshot": "127.0.0.24"}
#: One fixed port, so the links the seats cite (and so the books) are the same in every demo with the same seed.
#: Demos running at once share it (SO_REUSEPORT: any of them answers, with the same fixed pages).
PORT = 28431


class _Server(ThreadingHTTPServer):
    allow_reuse_address = True
    allow_reuse_port = True
    request_queue_size = 128  # a season's fetches come in bursts (every seat's citations at once)


def _page(path: str) -> bytes:
    return ('<!doctype html><html><head><meta property="article:published_time" content="2026-05-29T12:00:00Z">'
            f"<title>{path}</title></head><body><p>A stand-in story at {path}.</p></body></html>").encode()


#: The outlets this process serves (started on first use, kept for the process's life): name -> base URL.
_SERVING: dict[str, str] = {}
_SERVING_LOCK = threading.Lock()


@contextmanager
def serve_pages() -> Iterator[dict[str, str]]:
    """Serve every outlet while the block runs; yields outlet name -> base URL (``http://address:port``).

    The outlets are started once per process and never stopped before it ends: demos running at once share the
    fixed port (SO_REUSEPORT), and the kernel queues a new connection on any of their listening sockets, so a demo
    that stopped its outlets at its end would reset the connections queued on them for another demo's fetches
    (which would then record the link as unreached). A process that runs several demos in turn (a test
    session) keeps one set of outlets; a ``league demo`` process closes them when it exits."""
    with _SERVING_LOCK:
        if not _SERVING:
            _SERVING.update(_start())
        bases = dict(_SERVING)
    yield bases


def _start() -> dict[str, str]:
    bases: dict[str, str] = {}

    class Handler(BaseHTTPRequestHandler):
        def log_message(self, *args: object) -> None:
            return None

        def do_GET(self) -> None:  # noqa: N802 - the stdlib's name
            if self.path.startswith("/wire/") and "rates" in bases:
                self.send_response(302)
                self.send_header("Location", f"{bases['rates']}/{self.path.removeprefix('/wire/')}")
                self.send_header("Content-Length", "0")
                self.end_headers()
                return
            status, body = (404, b"gone") if self.path == "/gone" else (200, _page(self.path))
            self.send_response(status)
            self.send_header("Content-Type", "text/html; charset=utf-8")
            self.send_header("Content-Length", str(len(body)))
            self.end_headers()
            self.wfile.write(body)

    for name, address in OUTLETS.items():
        try:
            server: ThreadingHTTPServer = _Server((address, PORT), Handler)
        except OSError:  # the fixed port is taken by another user's process: any port (the links then differ)
            server = _Server((address, 0), Handler)
        server.daemon_threads = True
        threading.Thread(target=server.serve_forever, name=f"demo-pages-{name}", daemon=True).start()
        bases[name] = f"http://{address}:{server.server_address[1]}"
    return bases
