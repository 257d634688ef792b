"""How ``league serve`` runs uvicorn: on a socket bound first, with a deadline for a request's headers, and the app
factory its worker processes import (``--workers N``).

:func:`bind` takes the address before anything is announced: ``league serve`` printed "serving on …" and only
then let uvicorn bind, so a port already taken printed the line, then uvicorn's own error, and exited 1. Now a
taken port is a :class:`BindError` naming the address and the fix, and the line is printed only once the
socket listens; :func:`run_on` hands that socket to uvicorn (``Server.run(sockets=...)``, its public API), and
the worker processes get it by its file descriptor (uvicorn's ``fd``).

uvicorn (h11) waits for the rest of a request's headers for as long as the client likes: 1,100
half-sent requests stayed open indefinitely. :func:`header_timeout_protocol` closes a connection
that has not delivered complete headers within ``timeout`` seconds of connecting (or of its
previous response); a request whose headers arrived is never cut, however long its answer streams.
"""

from __future__ import annotations

import asyncio
import json
import os
import socket
from pathlib import Path
from typing import Any, TypeVar

import uvicorn
from fastapi import FastAPI
from starlette.types import ASGIApp
from uvicorn.protocols.http.h11_impl import H11Protocol
from uvicorn.protocols.http.httptools_impl import HttpToolsProtocol

from league.api.app import create_app
from league.errors import LeagueError
from league.jsonvalue import Json, obj, text

DEFAULT_HEADER_TIMEOUT_S = 10.0
#: The environment variable holding the header deadline (the one `league serve --header-timeout` reads too).
HEADER_TIMEOUT_ENV = "LEAGUE_HEADER_TIMEOUT"
#: The environment variable by which `league serve --workers N` hands each worker process its arguments.
WORKER_ARGS_ENV = "LEAGUE_SERVE_WORKER_ARGS"
#: uvicorn's import strings for the worker processes (a worker imports the app and the protocol by name).
WORKER_APP = "league.api.server:worker_app"
WORKER_PROTOCOL = "league.api.server:WorkerH11"
#: The protocol `league serve` runs (one process or several).
SERVE_PROTOCOL = HttpToolsProtocol
#: Pending connections the listening socket queues (uvicorn's default backlog).
BACKLOG = 2048


class BindError(LeagueError):
    """The address to serve on cannot be taken (in use, not an address of this machine, a privileged port)."""


def bind(host: str, port: int, *, option: str = "--port") -> socket.socket:
    """A TCP socket listening on ``host:port`` (SO_REUSEADDR, as uvicorn sets it: a restart right after a stop
    rebinds), or a :class:`BindError` naming the address, the reason and the option to change."""
    try:
        family, kind, proto, _, address = socket.getaddrinfo(host, port, type=socket.SOCK_STREAM,
                                                             flags=socket.AI_PASSIVE)[0]
    except (socket.gaierror, UnicodeError) as exc:
        raise BindError(f"cannot serve on {host}:{port}: {getattr(exc, 'strerror', None) or exc}",
                        fix="give --host an address of this machine (127.0.0.1, ::1, 0.0.0.0)") from None
    sock = socket.socket(family, kind, proto)
    try:
        sock.setsockopt(socket.SOL_SOCKET, socket.SO_REUSEADDR, 1)
        sock.bind(address)
        sock.listen(BACKLOG)
    except OSError as exc:
        sock.close()
        taken = exc.errno == 98  # EADDRINUSE
        raise BindError(f"cannot serve on {host}:{port}: {exc.strerror or exc}",
                        fix=(f"another process listens there (`ss -ltnp 'sport = :{port}'` names it): stop it or "
                             f"choose another {option}") if taken else
                            f"choose another address or {option} (ports below 1024 need privileges)") from None
    return sock


def run_on(app: ASGIApp, sock: socket.socket, *, http: type[H11Protocol] | type[HttpToolsProtocol] | None = None,
           proxy_headers: bool = False,
           forwarded_allow_ips: str | None = None) -> None:
    """Serve ``app`` with uvicorn on the socket :func:`bind` made: warnings only, no access log, and
    ``log_config=None`` so uvicorn keeps the root handler league.log installed (JSON or console like every line)."""
    config = uvicorn.Config(app, log_level="warning", log_config=None, access_log=False, http=http or "auto",
                            proxy_headers=proxy_headers, forwarded_allow_ips=forwarded_allow_ips)
    uvicorn.Server(config).run(sockets=[sock])


#: uvicorn's two HTTP implementations: h11 (pure Python) and httptools (llhttp, C: about twice the requests a
#: second per core); both have the hooks the header deadline needs.
_Http = TypeVar("_Http", H11Protocol, HttpToolsProtocol)


def header_timeout_protocol(timeout: float = DEFAULT_HEADER_TIMEOUT_S,
                            base: type[_Http] = H11Protocol) -> type[_Http]:  # type: ignore[assignment]
    """uvicorn's protocol class ``base`` (h11 by default; HttpToolsProtocol for `league serve`), closing
    connections whose headers do not arrive in time."""

    class HeaderTimeoutH11(base):  # type: ignore[valid-type,misc]
        _header_timer: asyncio.TimerHandle | None = None

        def connection_made(self, transport: Any) -> None:
            super().connection_made(transport)
            self._arm()

        def data_received(self, data: bytes) -> None:
            if self._waiting_for_headers() and self._header_timer is None:
                self._arm()  # the next request of a kept-alive connection starts to arrive
            super().data_received(data)

        def on_response_complete(self) -> None:
            super().on_response_complete()
            self._disarm()

        def connection_lost(self, exc: Exception | None) -> None:
            self._disarm()
            super().connection_lost(exc)

        def _waiting_for_headers(self) -> bool:
            return self.cycle is None or self.cycle.response_complete

        def _arm(self) -> None:
            self._disarm()
            self._header_timer = self.loop.call_later(timeout, self._expired)

        def _disarm(self) -> None:
            if self._header_timer is not None:
                self._header_timer.cancel()
                self._header_timer = None

        def _expired(self) -> None:
            self._header_timer = None
            if self._waiting_for_headers() and not self.transport.is_closing():
                self.transport.close()

    return HeaderTimeoutH11  # type: ignore[no-any-return]


def worker_args(data: Path, db_url: str | None, accel_redirect: str | None = None, view_cache: bool = True) -> str:
    """What a worker process needs to build the same app as the parent, as the text of WORKER_ARGS_ENV."""
    return json.dumps({"data": str(Path(data).resolve()), "db": db_url, "accel": accel_redirect,
                       "view_cache": view_cache})


def worker_app() -> FastAPI:
    """The app of one uvicorn worker process (``--workers N``), built from WORKER_ARGS_ENV: each worker keeps its
    own book index and caches, all reading the same files."""
    raw = os.environ.get(WORKER_ARGS_ENV)
    if raw is None:
        raise LeagueError(f"{WORKER_ARGS_ENV} is not set", fix="start the workers with `league serve --workers N`")
    args: Json = json.loads(raw)
    fields = obj(args)
    db, accel = fields.get("db"), fields.get("accel")
    return create_app(Path(text(fields.get("data"))), db_url=None if db is None else text(db),
                      accel_redirect=None if accel is None else text(accel),
                      view_cache=fields.get("view_cache") is not False)


def _env_timeout() -> float:
    try:
        return float(os.environ.get(HEADER_TIMEOUT_ENV, DEFAULT_HEADER_TIMEOUT_S))
    except ValueError:
        return DEFAULT_HEADER_TIMEOUT_S


#: The protocol of the worker processes, importable by name (a spawned worker cannot receive a class made in a
#: function); its deadline is the parent's ``--header-timeout``, passed on in HEADER_TIMEOUT_ENV.
WorkerH11 = header_timeout_protocol(_env_timeout(), HttpToolsProtocol)
