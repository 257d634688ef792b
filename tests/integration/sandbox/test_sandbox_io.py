"""A run's limits are set on its waiting launcher (``prlimit(2)``, no ``prlimit`` executable): they hold
inside, soft and hard, with and without a cgroup. A run's pipes are served by one poll loop in the calling
thread (``sandbox.bwrap._serve_io``), not by a thread per pipe: held to ``Popen.communicate`` (the standard
library's own loop, an independent reference) on generated sizes, and in the real sandbox to the behaviours
the threads had: stdin larger than a pipe while both outputs fill theirs, a seat that never reads its stdin,
output caps (stdout kills, stderr only truncates), a timeout while stdin is still pending or after the
outputs were closed."""

from __future__ import annotations

import dataclasses
import pathlib
import subprocess
import threading
import time

import pytest
from hypothesis import given, settings
from hypothesis import strategies as st

from sandbox import bwrap
from sandbox.bwrap import BwrapSandbox, _Capture, _Run, _serve_io
from sandbox.interface import EndedBy, SandboxError
from sandbox.profiles import MIB, get_profile

# stdin to stdout, and a second copy of it to stderr, written as it is read (both pipes fill while stdin is fed)
TEE = ["/usr/bin/python3", "-I", "-S", "-c",
       "import sys\nwhile chunk := sys.stdin.buffer.read1(65536):\n"
       "    for f in (sys.stdout.buffer, sys.stderr.buffer):\n        f.write(chunk); f.flush()"]
KIB = 1024


def served(argv: list[str], stdin: bytes | None, *, out_cap: int, err_cap: int,
           timeout: float = 30.0) -> tuple[bytes, bytes, int, EndedBy | None, bool, bool]:
    proc = subprocess.Popen(argv, stdin=subprocess.PIPE if stdin is not None else subprocess.DEVNULL,  # noqa: S603
                            stdout=subprocess.PIPE, stderr=subprocess.PIPE, start_new_session=True)
    run = _Run(proc)
    out, err = _Capture(out_cap, True), _Capture(err_cap, False)
    _serve_io(run, stdin, out, err, deadline=time.monotonic() + timeout)
    code = proc.wait()
    return out.data(), err.data(), code, run.ended_by, out.truncated, err.truncated


@settings(max_examples=25)
@given(size=st.sampled_from([0, 1, 511, 4096, 65535, 65536, 65537, 200_000, 1_000_000]) | st.integers(0, 300_000),
       byte=st.integers(0, 255))
def test_the_loop_returns_what_communicate_returns(size: int, byte: int) -> None:
    data = bytes([byte]) * size
    reference = subprocess.run(TEE, input=data, capture_output=True, check=True)  # noqa: S603
    out, err, code, ended_by, out_cut, err_cut = served(TEE, data, out_cap=8 * 1024 * KIB, err_cap=8 * 1024 * KIB)
    assert (out, err, code) == (reference.stdout, reference.stderr, 0)
    assert ended_by is None and not out_cut and not err_cut


def test_no_stdin_and_empty_stdin_end_the_input() -> None:
    for stdin in (None, b""):
        out, err, code, ended_by, *_ = served(["/bin/cat"], stdin, out_cap=KIB, err_cap=KIB)
        assert (out, err, code, ended_by) == (b"", b"", 0, None)


def test_a_seat_that_never_reads_its_stdin_is_not_waited_for() -> None:
    out, _, code, ended_by, *_ = served(["/bin/sh", "-c", "echo done"], b"x" * 1_000_000, out_cap=KIB, err_cap=KIB)
    assert (out, code, ended_by) == (b"done\n", 0, None)


def test_stdout_over_its_cap_kills_and_stderr_over_its_cap_only_truncates() -> None:
    big = b"y" * 300_000
    out, err, _, ended_by, out_cut, err_cut = served(TEE, big, out_cap=100_000, err_cap=50_000)
    assert ended_by is EndedBy.OUTPUT_CAP and out_cut and len(out) == 100_000 and out == big[:100_000]
    assert len(err) <= 50_000 and err == big[: len(err)]
    to_stderr = [*TEE[:-1], "import sys\nsys.stderr.buffer.write(sys.stdin.buffer.read())"]
    out, err, code, ended_by, out_cut, err_cut = served(to_stderr, big, out_cap=KIB, err_cap=50_000)
    assert (out, code, ended_by, out_cut) == (b"", 0, None, False)
    assert err_cut and err == big[:50_000]


def test_the_deadline_kills_a_seat_with_stdin_still_pending() -> None:
    t0 = time.monotonic()
    out, _, _, ended_by, *_ = served(["/bin/sh", "-c", "head -c 3; sleep 30"], b"abc" + b"z" * 1_000_000,
                                     out_cap=KIB, err_cap=KIB, timeout=1.0)
    assert ended_by is EndedBy.TIMEOUT and out == b"abc"
    assert time.monotonic() - t0 < 20


# ------------------------------------------------------------------------------------- in the sandbox
@pytest.fixture
def box(sandbox: BwrapSandbox) -> BwrapSandbox:
    return sandbox


def test_a_megabyte_each_way_through_the_sandbox(box: BwrapSandbox) -> None:
    data = bytes(range(256)) * 4096
    res = box.exec(TEE, stdin=data, timeout=30, profile="scripted", owner="io-seat")
    assert res.ok and res.stdout == data and res.stderr == data


def test_a_sandboxed_seat_ignoring_a_megabyte_of_stdin_ends(box: BwrapSandbox) -> None:
    res = box.exec(["/bin/sh", "-c", "echo ok"], stdin=b"q" * 1_000_000, timeout=30, profile="scripted")
    assert res.ok and res.stdout == b"ok\n"


def test_a_seat_that_closes_its_outputs_still_times_out(box: BwrapSandbox) -> None:
    res = box.exec(["/bin/sh", "-c", "exec >&- 2>&-; sleep 30"], timeout=1.5, profile="scripted")
    assert res.ended_by is EndedBy.TIMEOUT


def test_stderr_over_its_cap_is_truncated_not_killed(box: BwrapSandbox) -> None:
    prof = dataclasses.replace(get_profile("scripted"), stderr_cap=10_000)
    res = box.exec(["/bin/sh", "-c", "head -c 200000 /dev/zero >&2; echo fine"], timeout=30, profile=prof)
    assert res.ok and res.stdout == b"fine\n" and res.stderr_truncated and len(res.stderr) == 10_000


def test_runs_in_many_threads_keep_their_own_streams(box: BwrapSandbox) -> None:
    results: dict[int, bytes] = {}

    def one(i: int) -> None:
        data = f"seat {i}\n".encode() * (5000 + i)
        res = box.exec(TEE, stdin=data, timeout=60, profile="scripted", owner=f"io-{i % 4}")
        results[i] = data if res.ok and res.stdout == data and res.stderr == data else b"wrong"

    threads = [threading.Thread(target=one, args=(i,)) for i in range(12)]
    for th in threads:
        th.start()
    for th in threads:
        th.join()
    assert all(results[i] != b"wrong" for i in range(12)) and len(results) == 12


# ------------------------------------------------------------------------- limits, set before the go
def limits_inside(box: BwrapSandbox, profile: str = "scripted") -> dict[str, tuple[str, str]]:
    res = box.exec(["/bin/cat", "/proc/self/limits"], timeout=30, profile=profile, owner="limits-seat")
    assert res.ok, res.detail
    rows = {}
    for row in res.text.splitlines()[1:]:
        parts = row[26:].split()
        rows[row[:26].strip()] = (parts[0], parts[1])
    return rows


@pytest.mark.parametrize("cgroup", ["auto", "off"])
def test_the_profile_limits_hold_inside_as_prlimit_set_them(cgroup: str) -> None:
    """Soft and hard, as ``prlimit --nproc=N --fsize=N --nofile=N [--as=N]`` set them when it was a wrapper."""
    if not BwrapSandbox.available():
        pytest.skip("bubblewrap (bwrap) is not installed: apt-get install -y bubblewrap")
    box = BwrapSandbox(cgroup=cgroup)
    prof = get_profile("scripted")
    rows = limits_inside(box)
    nproc = str(prof.nproc * (2 if box.cgroups is not None else 1))
    assert rows["Max processes"] == (nproc, nproc)
    assert rows["Max file size"] == (str(prof.fsize_mb * MIB),) * 2
    assert rows["Max open files"] == (str(prof.nofile),) * 2
    memory = (str(prof.memory_mb * MIB),) * 2 if box.cgroups is None else ("unlimited", "unlimited")
    assert rows["Max address space"] == memory


def test_a_limit_that_cannot_be_set_is_a_sandbox_error(box: BwrapSandbox, monkeypatch: pytest.MonkeyPatch) -> None:
    started: list[int] = []

    def refuse(pid: int, which: int, limits: tuple[int, int]) -> None:
        started.append(pid)
        raise PermissionError(1, "Operation not permitted")

    monkeypatch.setattr(bwrap.resource, "prlimit", refuse)
    with pytest.raises(SandboxError, match="cannot set the run's limit RLIMIT_NPROC"):
        box.exec(["/bin/echo", "ran"], timeout=10, profile="scripted")
    assert started and not pathlib.Path(f"/proc/{started[0]}").exists()
