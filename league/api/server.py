"""How ``league serve`` runs uvicorn: on a socket bound first, with a deadline for a request's headers.

:func:`bind` takes the address before anything is announced: ``league serve`` printed "serving on …" and only
then let uvicorn bind, so a port already taken printed the line, then uvicorn's own error, and exited 1. Now a
taken port is a :class:`BindError` naming the address and the fix, and the line is printed only once the
socket listens; :func:`run_on` hands that socket to uvicorn (``Server.run(sockets=...)``, its public API).

uvicorn (h11) waits for the rest of a request's headers for as long as the client likes: 1,100
half-sent requests stayed open indefinitely. :func:`header_timeout_protocol` closes a connection
that has not delivered complete headers within ``timeout`` seconds of connecting (or of its
previous response); a request whose headers arrived is never cut, however long its answer streams.
"""

from __future__ import annotations

import asyncio
import socket
from typing import Any

import uvicorn
from starlette.types import ASGIApp
from uvicorn.protocols.http.h11_impl import H11Protocol

from league.errors import LeagueError

DEFAULT_HEADER_TIMEOUT_S = 10.0
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


def run_on(app: ASGIApp, sock: socket.socket, *, http: type[H11Protocol] | None = None, proxy_headers: bool = False,
           forwarded_allow_ips: str | None = None) -> None:
    """Serve ``app`` with uvicorn on the socket :func:`bind` made: warnings only, no access log, and
    ``log_config=None`` so uvicorn keeps the root handler league.log installed (JSON or console like every line)."""
    config = uvicorn.Config(app, log_level="warning", log_config=None, access_log=False, http=http or "auto",
                            proxy_headers=proxy_headers, forwarded_allow_ips=forwarded_allow_ips)
    uvicorn.Server(config).run(sockets=[sock])


def header_timeout_protocol(timeout: float = DEFAULT_HEADER_TIMEOUT_S) -> type[H11Protocol]:
    """The h11 protocol class of uvicorn, closing connections whose headers do not arrive in time."""

    class HeaderTimeoutH11(H11Protocol):
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

    return HeaderTimeoutH11
