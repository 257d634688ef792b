"""The scripted child's profile (``scripted-child``) in the real sandbox: fewer mounts and no reaper process,
and still every isolation property of docs/sandbox.md (own uid, no network, caps and limits from the first
instruction, fresh home, nothing of the host but /usr, no other seat in sight).

Each test would fail if the property were lost: it runs the same probe the full profile is held to, or
asserts what the lean profile leaves out is really absent (and that the child prints the same bytes in both).
"""

from __future__ import annotations

import dataclasses
import json
import os
import socket
import threading
import uuid
from collections.abc import Iterator
from pathlib import Path

import pytest

from league_agents.base import Ask, SeatSpec
from league_agents.scripted import CHILD_FLAGS, CHILD_PROFILE, SYSTEM_PYTHON, ScriptedSeat, child_program
from sandbox.bwrap import BwrapSandbox
from sandbox.interface import EndedBy
from sandbox.profiles import MIB, SANDBOX_HOME, get_profile

pytestmark = pytest.mark.sandbox
PY = SYSTEM_PYTHON
LEAN = get_profile(CHILD_PROFILE)


def py(box: BwrapSandbox, code: str, *args: str, owner: str = "lean-seat", timeout: float = 20) -> tuple[int, str]:
    res = box.exec([PY, "-I", "-S", "-c", code, *args], timeout=timeout, profile=LEAN, owner=owner)
    return res.exit_code, res.text + res.err_text


def test_the_root_holds_only_usr_its_links_and_the_home(sandbox: BwrapSandbox) -> None:
    """No /etc, /proc, /dev, /tmp: nothing of the host but /usr (and the merged-/usr links into it)."""
    code, out = py(sandbox, "import os, json; print(json.dumps([sorted(os.listdir('/')), os.listdir('/home'),"
                            " os.listdir('/home/seat')]))")
    assert code == 0, out
    top, home, seat = json.loads(out)
    host_links = {t.lstrip("/") for t in ("/bin", "/sbin", "/lib", "/lib64", "/lib32") if os.path.lexists(t)}
    assert set(top) == {"usr", "home"} | host_links
    assert home == ["seat"] and seat == []


def test_the_child_is_pid_1_of_its_own_namespace_under_its_seat_uid(sandbox: BwrapSandbox) -> None:
    code, out = py(sandbox, "import os; print(os.getpid(), os.getuid(), os.getgid())", owner="lean-uid")
    assert code == 0, out
    pid, uid, gid = map(int, out.split())
    assert pid == 1
    if sandbox.switch_uid:  # the seat's own uid, mapped to itself inside
        assert uid == gid == sandbox.uids.uid("lean-uid")


def test_limits_hold_from_the_first_instruction(sandbox: BwrapSandbox) -> None:
    code, out = py(sandbox, "import resource as r; print([r.getrlimit(x) for x in "
                            "(r.RLIMIT_NPROC, r.RLIMIT_FSIZE, r.RLIMIT_NOFILE)])")
    assert code == 0, out
    nproc = LEAN.nproc * (2 if sandbox.cgroups is not None else 1)
    assert out.strip() == str([(nproc, nproc), (LEAN.fsize_mb * MIB,) * 2, (LEAN.nofile,) * 2])


def test_the_memory_cap_of_the_cgroup_holds(sandbox: BwrapSandbox) -> None:
    if sandbox.cgroups is None:
        pytest.skip("no cgroup here")
    res = sandbox.exec([PY, "-c", "x = bytearray(600 * 1024 * 1024)"], timeout=20, profile=LEAN, owner="lean-hog")
    assert res.ended_by is EndedBy.MEMORY and res.oom_kills >= 1, (res.detail, res.err_text)


def test_nothing_but_the_home_is_writable_and_the_home_is_fresh(sandbox: BwrapSandbox) -> None:
    marker = f"lean-{uuid.uuid4().hex}"
    probe = ("import sys\nfor p in sys.argv[1:]:\n    try:\n        open(p, 'w').write('x'); print('WROTE', p)\n"
             "    except OSError as e: print('refused', p, e.errno)\n")
    code, out = py(sandbox, probe, f"/{marker}", f"/usr/{marker}", f"/tmp/{marker}", f"/dev/{marker}",
                   f"{SANDBOX_HOME}/{marker}")
    assert code == 0, out
    assert out.count("WROTE") == 1 and f"WROTE {SANDBOX_HOME}/{marker}" in out
    assert not Path(f"/{marker}").exists() and not Path(f"/usr/{marker}").exists()
    _, again = py(sandbox, "import os; print(os.listdir('/home/seat'))")
    assert again.strip() == "[]"


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


def test_no_network(sandbox: BwrapSandbox, local_server: int) -> None:
    """Its own namespace: of the host's interfaces only a loopback of its own is there (looked up one by one
    with if_nametoindex, an ioctl: listing them takes netlink, which the system-call filter refuses)."""
    host = [name for _, name in socket.if_nameindex()]
    code, out = py(sandbox, "import socket, sys\n"
                            "for name in sys.argv[2:]:\n"
                            "    try: print('FOUND', name, socket.if_nametoindex(name))\n"
                            "    except OSError: print('ABSENT', name)\n"
                            "s = socket.create_connection(('127.0.0.1', int(sys.argv[1])), timeout=2)\n"
                            "print(s.recv(100))", str(local_server), *host)
    assert "HELLO-FROM-HOST" not in out and code != 0
    assert [line for line in out.splitlines() if line.startswith("FOUND")] == ["FOUND lo 1"], out
    assert all(f"ABSENT {name}" in out for name in host if name != "lo")


def test_what_the_child_leaves_behind_dies_with_it(sandbox: BwrapSandbox) -> None:
    """No reaper: when pid 1 exits, the kernel kills the rest of the namespace (a stray sleep included)."""
    marker = f"1000.{uuid.uuid4().int % 10**9}"
    code, out = py(sandbox, "import os, sys\nif os.fork() == 0:\n    os.execv('/bin/sleep', ['sleep', sys.argv[1]])\n"
                            "print('parent done')", marker)
    assert code == 0 and "parent done" in out
    assert _survivors(marker) == []


def test_a_deadline_kills_the_child(sandbox: BwrapSandbox) -> None:
    marker = f"1000.{uuid.uuid4().int % 10**9}"
    res = sandbox.exec([PY, "-c", "import time, sys; time.sleep(float(sys.argv[1]))", marker], timeout=1.5,
                       profile=LEAN, owner="lean-late")
    assert res.ended_by is EndedBy.TIMEOUT
    assert _survivors(marker) == []


def _survivors(marker: str) -> list[int]:
    found = []
    for pid in filter(str.isdigit, os.listdir("/proc")):
        try:
            if marker.encode() in Path(f"/proc/{pid}/cmdline").read_bytes():
                found.append(int(pid))
        except OSError:
            continue
    return found


REQUESTS = [
    {"mode": "normal", "skill": 0.0},
    {"mode": "normal", "skill": 0.6, "seat": "søren-✓"},  # printed as is: stdout's encoding must agree too
    {"mode": "malformed", "skill": 0.0},
    {"mode": "silent", "skill": 0.0},
]


@pytest.mark.parametrize("change", REQUESTS)
def test_the_child_prints_the_same_bytes_as_under_the_scripted_profile(sandbox: BwrapSandbox,
                                                                        change: dict[str, object]) -> None:
    """The lean profile against the profile it replaces for the scripted seat: the same stdout, byte for byte."""
    seat = ScriptedSeat(SeatSpec(name="s1", adapter="scripted", options={"seed": 7, "skill": change["skill"]}),
                        sandbox=sandbox)
    markets = {"SPX": {"horizons": ["1d", "1w", "1m", "6m"], "price": 6000.0, "crowd": True},
               "TNX": {"horizons": ["1d"], "price": 4.1}, "BTC": {"horizons": ["1d", "1w"], "price": 91000.0}}
    ask = Ask(text="q", sha256="a" * 64, session="2026-06-01",
              context={"markets": markets, "hint": {"SPX": {"1d": 80.0}}})
    request = json.dumps({**seat.request(ask), "mode": change["mode"], "seat": change.get("seat", "s1")}).encode()
    name, program = child_program()
    outs = []
    for profile in ("scripted", CHILD_PROFILE):
        res = sandbox.exec([PY, *CHILD_FLAGS, f"{SANDBOX_HOME}/{name}"], stdin=request, timeout=30, profile=profile,
                           files_in_home={name: program}, owner="same-bytes")
        assert res.ok, (profile, res.detail, res.err_text)
        outs.append(res.stdout)
    assert outs[0] == outs[1]
    assert outs[0] or change["mode"] == "silent"


def test_a_networked_profile_without_reaper_keeps_one(sandbox: BwrapSandbox) -> None:
    """Under egress the forwarder is a second process: the reaper stays (argv only; no network needed)."""
    prof = dataclasses.replace(LEAN, allow_net=True)
    argv = sandbox.build_argv(["cmd"], prof, Path("/tmp/league-egress-x"), [], 9)
    assert "--as-pid-1" not in argv
    assert "--as-pid-1" in sandbox.build_argv(["cmd"], prof, None, [], 9)
