"""How ``league serve`` runs uvicorn: the HTTP protocol with a deadline for a request's headers.

uvicorn (h11) waits for the rest of a request's headers for as long as the client likes: 1,100
half-sent requests stayed open indefinitely. :func:`header_timeout_protocol` closes a connection
that has not delivered complete headers within ``timeout`` seconds of connecting (or of its
previous response); a request whose headers arrived is never cut, however long its answer streams.
"""

from __future__ import annotations

import asyncio
from typing import Any

from uvicorn.protocols.http.h11_impl import H11Protocol

DEFAULT_HEADER_TIMEOUT_S = 10.0


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
