"""systemd's notify protocol (sd_notify(3)), without a library: one datagram to ``$NOTIFY_SOCKET``.

The daemon says READY=1 once it has caught up and its scheduler runs, WATCHDOG=1 from its main loop
(so a hung loop is restarted by systemd after WatchdogSec), STATUS= lines for `systemctl status`, and
STOPPING=1 when a stop begins. Outside systemd (no variable) every call is a no-op returning False.
"""

from __future__ import annotations

import os
import socket
import threading
from collections.abc import Callable

import structlog

log = structlog.get_logger(__name__)


def _address(raw: str) -> str | bytes:
    """An '@' prefix names an abstract socket (a leading NUL byte on the wire)."""
    return b"\0" + raw[1:].encode() if raw.startswith("@") else raw


def notify(*fields: str) -> bool:
    """Send ``KEY=VALUE`` fields; False when not under systemd or the socket refused the datagram."""
    target = os.environ.get("NOTIFY_SOCKET", "")
    if not target:
        return False
    try:
        with socket.socket(socket.AF_UNIX, socket.SOCK_DGRAM | socket.SOCK_CLOEXEC) as sock:
            # MSG_DONTWAIT: a notify socket nobody reads (its queue full) must never block the daemon
            sock.sendto("\n".join(fields).encode(), socket.MSG_DONTWAIT, _address(target))
    except OSError as exc:  # a watchdog ping lost must not stop the league; systemd acts on silence itself
        log.warning("sd_notify.failed", error=str(exc))
        return False
    return True


def watchdog_interval() -> float | None:
    """Half of systemd's WatchdogSec (``$WATCHDOG_USEC``) when the watchdog is meant for this process."""
    usec = os.environ.get("WATCHDOG_USEC", "")
    pid = os.environ.get("WATCHDOG_PID", "")
    if not usec.isdigit() or (pid and pid != str(os.getpid())):
        return None
    return int(usec) / 2_000_000


def start_watchdog(alive: Callable[[], bool], stop: threading.Event) -> threading.Thread | None:
    """Ping WATCHDOG=1 every half WatchdogSec while ``alive()`` holds, until ``stop`` is set.

    The pings come from a thread of their own so that a long job in the main thread (catching up at
    start) does not starve them; ``alive`` is the health rule, so a stuck loop still stops the pings
    and systemd restarts the daemon. None when systemd set no watchdog for this process."""
    every = watchdog_interval()
    if every is None:
        return None

    def ping() -> None:
        while not stop.wait(every):
            if alive():
                notify("WATCHDOG=1")

    thread = threading.Thread(target=ping, name="sd-watchdog", daemon=True)
    thread.start()
    return thread
