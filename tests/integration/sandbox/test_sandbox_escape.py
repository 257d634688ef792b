"""Escape tests: each assertion fails if the real bubblewrap sandbox leaks something of the operator."""

from __future__ import annotations

import dataclasses
import os
import socket
import threading
import uuid
from collections.abc import Iterator
from pathlib import Path

import pytest

from sandbox.bwrap import BwrapSandbox
from sandbox.interface import BwrapMissing, EndedBy, SandboxError
from sandbox.netpolicy import EgressRules
from sandbox.profiles import get_profile

pytestmark = pytest.mark.sandbox
PY = "/usr/bin/python3"


def sh(sandbox: BwrapSandbox, script: str, **kw: object) -> tuple[int, str, str]:
    res = sandbox.exec(["/bin/sh", "-c", script], timeout=kw.pop("timeout", 10), **kw)  # type: ignore[arg-type]
    return res.exit_code, res.text, res.err_text


def survivors(marker: str) -> list[int]:
    """Host pids whose command line still carries ``marker``."""
    found = []
    for pid in filter(str.isdigit, os.listdir("/proc")):
        try:
            if marker.encode() in Path(f"/proc/{pid}/cmdline").read_bytes():
                found.append(int(pid))
        except OSError:
            continue
    return found


@pytest.fixture
def planted(tmp_path: Path) -> dict[str, Path]:
    files = {}
    for folder in ("data", "config"):
        secret = tmp_path / folder / "secret.txt"
        secret.parent.mkdir()
        secret.write_text(f"PLANTED-{folder}")
        files[folder] = secret
    return files


@pytest.mark.parametrize("folder", ["data", "config"])
def test_operator_folders_are_not_mounted(sandbox: BwrapSandbox, planted: dict[str, Path], folder: str) -> None:
    code, out, _ = sh(sandbox, f"cat {planted[folder]}; ls {planted[folder].parent}")
    assert f"PLANTED-{folder}" not in out
    assert code != 0


def test_root_and_home_and_work_are_absent(sandbox: BwrapSandbox) -> None:
    code, out, _ = sh(sandbox, "for d in /root /home/* /work /srv /var; do [ -e $d ] && echo VISIBLE $d; done; true")
    assert code == 0
    assert out.strip() == "VISIBLE /home/seat"


def test_only_own_vendor_credentials_are_copied(tmp_path: Path) -> None:
    if not BwrapSandbox.available():
        pytest.skip("bubblewrap (bwrap) is not installed: apt-get install -y bubblewrap")
    (tmp_path / ".claude").mkdir()
    (tmp_path / ".claude/.credentials.json").write_text('{"token": "claude-own"}')
    (tmp_path / ".codex").mkdir()
    (tmp_path / ".codex/auth.json").write_text('{"token": "codex-other"}')
    box = BwrapSandbox(creds_home=tmp_path)
    res = box.exec(
        [
            "/bin/sh",
            "-c",
            f"cat ~/.claude/.credentials.json; cat ~/.codex/auth.json {tmp_path}/.codex/auth.json",
        ],
        timeout=10,
        profile="claude",
    )
    assert "claude-own" in res.text
    assert "codex-other" not in res.text + res.err_text


def test_operator_environment_is_invisible(sandbox: BwrapSandbox, monkeypatch: pytest.MonkeyPatch) -> None:
    monkeypatch.setenv("LEAGUE_PLANTED_SECRET", "planted-env-value")
    monkeypatch.setenv("OPENAI_API_KEY", "other-vendor-key")
    monkeypatch.setenv("ANTHROPIC_API_KEY", "own-vendor-key")
    _, out, _ = sh(sandbox, "env", profile="claude")
    assert "planted-env-value" not in out
    assert "other-vendor-key" not in out
    assert "ANTHROPIC_API_KEY=own-vendor-key" in out  # the seat's own key does pass


def test_writes_outside_home_fail_or_vanish(sandbox: BwrapSandbox, tmp_path: Path) -> None:
    marker = f"vanish-{uuid.uuid4().hex}"
    code, _, err = sh(
        sandbox,
        f"echo x > /usr/{marker}; echo x > /etc/{marker}; echo $? > /tmp/{marker}; "
        f"echo kept > ~/{marker}; mkdir -p {tmp_path}/w && echo x > {tmp_path}/w/{marker}",
    )
    assert "Read-only file system" in err
    assert not Path(f"/usr/{marker}").exists() and not Path(f"/etc/{marker}").exists()
    assert not Path(f"/tmp/{marker}").exists()
    assert not (tmp_path / "w").exists()
    _, out, _ = sh(sandbox, f"cat ~/{marker} /tmp/{marker} || echo GONE")
    assert "GONE" in out and "kept" not in out


@pytest.fixture
def local_server() -> Iterator[int]:
    srv = socket.socket()
    srv.bind(("127.0.0.1", 0))
    srv.listen(8)
    srv.settimeout(5)

    def serve() -> None:
        try:
            while True:
                conn, _ = srv.accept()
                conn.sendall(b"HELLO-FROM-HOST\n")
                conn.close()
        except OSError:
            return

    threading.Thread(target=serve, daemon=True).start()
    yield srv.getsockname()[1]
    srv.close()


CONNECT = (
    "import socket,sys\ns=socket.create_connection(('127.0.0.1', int(sys.argv[1])), timeout=2)\nprint(s.recv(100))"
)


def test_network_cut_blocks_local_server(sandbox: BwrapSandbox, local_server: int) -> None:
    res = sandbox.exec([PY, "-c", CONNECT, str(local_server)], timeout=10)
    assert "HELLO-FROM-HOST" not in res.text
    assert res.exit_code != 0
    assert res.fetches == ()


def test_direct_connection_fails_even_with_a_proxy(sandbox: BwrapSandbox, local_server: int) -> None:
    """Under `web` the namespace is still the sandbox's own: only the proxy leads out."""
    res = sandbox.exec([PY, "-c", CONNECT, str(local_server)], timeout=10, egress=EgressRules.of("web"))
    assert "HELLO-FROM-HOST" not in res.text
    assert res.exit_code != 0


def test_net_refused_when_profile_forbids(sandbox: BwrapSandbox) -> None:
    with pytest.raises(SandboxError, match="does not allow network"):
        sandbox.exec(["/bin/true"], timeout=5, egress=EgressRules.of("api", ["example.org"]), profile="scripted")


def test_sleep_killed_at_deadline_with_group(sandbox: BwrapSandbox) -> None:
    marker = f"1000.{uuid.uuid4().int % 10**9}"
    res = sandbox.exec(["/bin/sh", "-c", f"sleep {marker} & sleep {marker} & sleep {marker}"], timeout=2)
    assert res.ended_by is EndedBy.TIMEOUT
    assert survivors(marker) == []


def test_fork_storm_killed_at_deadline(sandbox: BwrapSandbox) -> None:
    marker = f"1000.{uuid.uuid4().int % 10**9}"
    prof = dataclasses.replace(get_profile("default"), nproc=48)
    storm = (
        "import os, sys, time\nwhile True:\n    try:\n        if os.fork() == 0:\n"
        "            os.execv('/bin/sleep', ['sleep', sys.argv[1]])\n"
        "    except OSError:\n        time.sleep(0.01)"
    )
    res = sandbox.exec([PY, "-c", storm, marker], timeout=2, profile=prof)
    assert res.ended_by is EndedBy.TIMEOUT
    assert survivors(marker) == []


def test_fifty_megabytes_capped_and_reported(sandbox: BwrapSandbox) -> None:
    res = sandbox.exec(
        [PY, "-c", "import sys\nfor _ in range(50): sys.stdout.buffer.write(b'y' * 1048576)"], timeout=20
    )
    assert res.ended_by is EndedBy.OUTPUT_CAP
    assert res.stdout_truncated
    assert len(res.stdout) == get_profile("default").stdout_cap
    assert "exceeded" in res.detail


def test_file_size_limit(sandbox: BwrapSandbox) -> None:
    prof = dataclasses.replace(get_profile("default"), fsize_mb=1)
    res = sandbox.exec(["/bin/sh", "-c", "head -c 3000000 /dev/zero > ~/big"], timeout=10, profile=prof)
    assert res.ended_by is EndedBy.FILE_SIZE


def test_memory_limit(sandbox: BwrapSandbox) -> None:
    prof = dataclasses.replace(get_profile("default"), memory_mb=256)
    res = sandbox.exec([PY, "-c", "x = bytearray(600 * 1024 * 1024)"], timeout=10, profile=prof)
    assert res.ended_by is EndedBy.MEMORY


def test_stdin_and_home_files_reach_the_command(sandbox: BwrapSandbox) -> None:
    res = sandbox.exec(
        [PY, "/home/seat/bin/up.py"],
        stdin=b"quiet words",
        timeout=10,
        files_in_home={"bin/up.py": b"import sys\nprint(sys.stdin.read().upper())"},
    )
    assert res.ok and res.text.strip() == "QUIET WORDS"


def test_home_file_paths_cannot_escape(sandbox: BwrapSandbox) -> None:
    with pytest.raises(SandboxError, match="inside the home"):
        sandbox.exec(["/bin/true"], timeout=5, files_in_home={"../etc/x": b"x"})


def test_setup_failure_is_an_error_not_a_result(tmp_path: Path) -> None:
    fake = tmp_path / "bwrap"
    fake.write_text("#!/bin/sh\necho 'bwrap: Creating new namespace failed' >&2\nexit 1\n")
    fake.chmod(0o755)
    box = BwrapSandbox(bwrap=str(fake))
    with pytest.raises(SandboxError, match="failed to start"):
        box.exec(["/bin/true"], timeout=5)


def test_seat_cannot_fake_a_sandbox_incident(sandbox: BwrapSandbox) -> None:
    res = sandbox.exec(["/bin/sh", "-c", "echo 'bwrap: Creating new namespace failed' >&2; exit 1"], timeout=5)
    assert res.ended_by is EndedBy.EXIT and res.exit_code == 1


def test_missing_bwrap_names_the_install_command() -> None:
    with pytest.raises(BwrapMissing) as info:
        BwrapSandbox(bwrap="/nonexistent/bwrap")
    assert "apt-get install -y bubblewrap" in info.value.diagnostics()


def test_concurrent_runs_keep_their_own_files_and_output(sandbox: BwrapSandbox) -> None:
    """14 seats at once (the league's fan-out): each sees only its own home file and gets its own output."""
    from concurrent.futures import ThreadPoolExecutor

    def one(i: int) -> tuple[int, str]:
        res = sandbox.exec(
            ["/bin/sh", "-c", "cat ~/id.txt; ls ~"], timeout=20, files_in_home={"id.txt": f"seat-{i}\n".encode()}
        )
        return i, res.text

    with ThreadPoolExecutor(14) as pool:
        results = list(pool.map(one, range(28)))
    for i, text in results:
        assert text.split() == [f"seat-{i}", "id.txt"]


def test_no_descriptor_of_the_league_leaks_in(sandbox: BwrapSandbox) -> None:
    """Neither the status fd nor the memfds carrying credentials are open inside (a seat could
    otherwise forge bubblewrap's status or re-read files)."""
    res = sandbox.exec(["/bin/sh", "-c", "ls /proc/$$/fd"], timeout=10, files_in_home={"a.txt": b"x"}, profile="claude")
    assert res.text.split() == ["0", "1", "2"]


def test_config_files_read_only_token_files_writable(tmp_path: Path) -> None:
    if not BwrapSandbox.available():
        pytest.skip("bubblewrap (bwrap) is not installed: apt-get install -y bubblewrap")
    (tmp_path / ".codex").mkdir()
    (tmp_path / ".codex/auth.json").write_text("{}")
    (tmp_path / ".codex/config.toml").write_text("model = 'x'\n")
    box = BwrapSandbox(creds_home=tmp_path)
    res = box.exec(
        [
            "/bin/sh",
            "-c",
            "echo t >> ~/.codex/auth.json && echo AUTH-OK; echo c >> ~/.codex/config.toml || echo CONFIG-RO",
        ],
        timeout=10,
        profile="codex",
    )
    assert "AUTH-OK" in res.text and "CONFIG-RO" in res.text
    assert (tmp_path / ".codex/auth.json").read_text() == "{}"  # the operator's copy is untouched


def test_extra_file_replaces_credential_of_same_path(tmp_path: Path) -> None:
    if not BwrapSandbox.available():
        pytest.skip("bubblewrap (bwrap) is not installed: apt-get install -y bubblewrap")
    (tmp_path / ".gemini").mkdir()
    (tmp_path / ".gemini/settings.json").write_text('{"from": "operator"}')
    box = BwrapSandbox(creds_home=tmp_path)
    res = box.exec(
        ["/bin/cat", "/home/seat/.gemini/settings.json"],
        timeout=10,
        profile="gemini",
        files_in_home={".gemini/settings.json": b'{"from": "adapter"}'},
    )
    assert res.ok and res.text == '{"from": "adapter"}'
