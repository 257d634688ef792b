"""`league serve` takes its address first and only then says "serving on": a port already taken is one clear
error (the address, the reason, the fix) and no such line; a served port accepts as soon as the line is out."""

from __future__ import annotations

import os
import socket
import subprocess
import sys
from pathlib import Path

import pytest

from league.api.server import BindError, bind

LEAGUE = Path(sys.executable).with_name("league")
pytestmark = pytest.mark.skipif(not LEAGUE.exists(), reason="the league console script is not installed")


def _env() -> dict[str, str]:
    return {k: v for k, v in os.environ.items() if not k.startswith("LEAGUE_PORT")}


def test_a_taken_port_is_an_error_and_no_serving_line(api_root: Path) -> None:
    with socket.socket() as taken:
        taken.bind(("127.0.0.1", 0))
        taken.listen(1)
        port = taken.getsockname()[1]
        done = subprocess.run([str(LEAGUE), "serve", "--data", str(api_root), "--db", "", "--port", str(port)],
                              capture_output=True, text=True, timeout=120, check=False, env=_env())
    assert done.returncode == 1, done.stdout + done.stderr
    assert "serving" not in done.stdout
    assert f"error: cannot serve on 127.0.0.1:{port}: Address already in use" in done.stderr
    assert "fix: another process listens there" in done.stderr and "Traceback" not in done.stderr


def test_the_serving_line_comes_once_the_port_listens(api_root: Path) -> None:
    probe = bind("127.0.0.1", 0)
    port = probe.getsockname()[1]
    probe.close()
    server = subprocess.Popen([str(LEAGUE), "serve", "--data", str(api_root), "--db", "", "--port", str(port)],
                              stdout=subprocess.PIPE, stderr=subprocess.PIPE, text=True, env=_env())
    try:
        assert server.stdout is not None
        line = server.stdout.readline()
        assert line.startswith(f"serving {api_root} on http://127.0.0.1:{port}/"), line + server.stderr.read()
        with socket.create_connection(("127.0.0.1", port), timeout=5):  # refused if the line came before the bind
            pass
    finally:
        server.terminate()
        server.wait(timeout=30)


def test_bind_names_the_address_and_the_option() -> None:
    with socket.socket() as taken:
        taken.bind(("127.0.0.1", 0))
        taken.listen(1)
        port = taken.getsockname()[1]
        with pytest.raises(BindError) as caught:
            bind("127.0.0.1", port, option="--port (LEAGUE_READERS_PORT)")
    assert caught.value.fix is not None and "--port (LEAGUE_READERS_PORT)" in caught.value.fix
    with pytest.raises(BindError, match="cannot serve on no-such-host.invalid"):
        bind("no-such-host.invalid", 0)
    sock = bind("127.0.0.1", 0)
    try:
        with socket.create_connection(sock.getsockname()[:2], timeout=5):  # listening: the kernel accepts
            pass
    finally:
        sock.close()
