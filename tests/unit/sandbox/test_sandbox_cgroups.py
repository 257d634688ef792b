"""The cgroup seam: parsing /proc, and the v2 file writing on a stand-in tree.

The v2 implementation cannot run for real on the test machine (cgroup v1 hybrid: its unified
hierarchy offers no controllers), so its logic is exercised against a directory tree laid out like
a delegated cgroup. What the kernel adds (interface files appearing on mkdir, refusing writes) is
not reproduced; docs/sandbox.md says so. The v1 implementation runs for real in
tests/integration/sandbox/test_sandbox_caps.py.
"""

from __future__ import annotations

import errno
import os
from pathlib import Path

import pytest

from sandbox import cgroups
from sandbox.bwrap import ended_by_of
from sandbox.cgroups import Caps, CgroupError, CgroupReport, CgroupV1, CgroupV2, cgroup_mounts, detect, own_cgroups
from sandbox.interface import EndedBy

PROC_CGROUP_V1 = "9:name=systemd:/\n8:pids:/\n4:memory:/process_api/abc\n1:cpu,cpuacct:/x\n0::/\n"
PROC_CGROUP_V2 = "0::/system.slice/league.service\n"
MOUNTINFO = (
    "35 24 0:30 / /sys/fs/cgroup rw,nosuid,nodev,noexec,relatime shared:9 - cgroup2 cgroup2 rw,nsdelegate\n"
    "40 25 0:35 / /sys/fs/cgroup/memory rw,relatime - cgroup cgroup rw,memory\n"
    "41 25 0:36 /outer /sys/fs/cgroup/pids rw,relatime - cgroup cgroup rw,pids\n"
    "50 24 254:0 / / rw,relatime - ext4 /dev/vda rw\n"
)


def test_own_cgroups_reads_both_layouts() -> None:
    v1 = own_cgroups(PROC_CGROUP_V1)
    assert v1["memory"] == "/process_api/abc" and v1["pids"] == "/" and v1["cpuacct"] == "/x"
    assert own_cgroups(PROC_CGROUP_V2) == {"": "/system.slice/league.service"}


def test_cgroup_mounts_keeps_only_cgroup_filesystems() -> None:
    mounts = cgroup_mounts(MOUNTINFO)
    assert [(str(m.point), m.fstype) for m in mounts] == [
        ("/sys/fs/cgroup", "cgroup2"), ("/sys/fs/cgroup/memory", "cgroup"), ("/sys/fs/cgroup/pids", "cgroup")]
    assert "memory" in mounts[1].options and mounts[2].root == "/outer"
    assert cgroups._inside(mounts[2], "/outer/league") == Path("/sys/fs/cgroup/pids/league")


@pytest.fixture
def delegated(tmp_path: Path) -> Path:
    """A stand-in for /sys/fs/cgroup/system.slice/league.service handed to the league (Delegate=yes)."""
    base = tmp_path / "league.service"
    base.mkdir()
    (base / "cgroup.controllers").write_text("cpu io memory pids\n")
    (base / "cgroup.subtree_control").write_text("\n")
    (base / "cgroup.procs").write_text(f"{os.getpid()}\n4242\n")
    return base


def test_v2_prepare_moves_the_daemon_to_a_leaf_and_hands_controllers_down(delegated: Path) -> None:
    CgroupV2(delegated).prepare()
    assert (delegated / "league-daemon" / "cgroup.procs").read_text() == "4242"  # last pid written
    assert (delegated / "cgroup.subtree_control").read_text() == "+memory +pids"
    assert (delegated / "league-seats" / "cgroup.subtree_control").read_text() == "+memory +pids"


def test_v2_run_writes_caps_attaches_and_reads_the_outcome(delegated: Path, monkeypatch: pytest.MonkeyPatch) -> None:
    monkeypatch.setattr(cgroups, "_REMOVE_WAIT_S", 0.0)
    run = CgroupV2(delegated).create("claude-1-1", Caps(memory_bytes=512 << 20, tasks=64))
    path = delegated / "league-seats" / "claude-1-1"
    assert (path / "memory.max").read_text() == str(512 << 20)
    assert (path / "pids.max").read_text() == "64"
    run.attach(31337)
    assert (path / "cgroup.procs").read_text() == "31337"
    (path / "memory.events").write_text("low 0\nhigh 0\nmax 12\noom 2\noom_kill 2\n")
    (path / "pids.events").write_text("max 5\n")
    (path / "memory.peak").write_text("536870912\n")
    report = run.report()
    assert (report.oom_kills, report.tasks_refused, report.memory_peak) == (2, 5, 536870912)
    (path / "cgroup.procs").write_text("")
    (path / "cgroup.kill").write_text("0")
    run.close()
    assert (path / "cgroup.kill").read_text() == "1"  # the kernel would now kill every task inside


def test_v2_without_delegated_controllers_names_the_fix(tmp_path: Path) -> None:
    (tmp_path / "cgroup.controllers").write_text("cpu io\n")
    with pytest.raises(CgroupError) as info:
        CgroupV2(tmp_path).prepare()
    assert "memory" in str(info.value) and "Delegate=yes" in (info.value.fix or "")


def test_opt_out_is_explicit_and_unknown_modes_refused() -> None:
    assert detect("off") is None
    with pytest.raises(CgroupError, match="LEAGUE_SANDBOX_CGROUP"):
        detect("maybe")


def test_no_usable_cgroup_refuses_to_run_uncapped(monkeypatch: pytest.MonkeyPatch) -> None:
    monkeypatch.setattr(cgroups, "_read_proc", lambda name: "")
    with pytest.raises(CgroupError) as info:
        detect("auto")
    assert "without a memory and process cap" in str(info.value)
    assert "LEAGUE_SANDBOX_CGROUP=off" in (info.value.fix or "")


def test_sweep_removes_only_empty_cgroups_of_dead_league_processes(tmp_path: Path) -> None:
    memory, pids = tmp_path / "memory", tmp_path / "pids"
    dead = 2**22 + 17  # above pid_max: no such process
    for parent in (memory, pids):
        for name in (f"claude-{dead}-3", f"claude-{os.getpid()}-4", "not-a-run", f"busy-{dead}-1"):
            (parent / name).mkdir(parents=True)
        (parent / f"busy-{dead}-1" / "cgroup.procs").write_text("4242\n")
    removed = CgroupV1(memory, pids).sweep()
    assert removed == 2
    assert sorted(p.name for p in memory.iterdir()) == sorted([f"claude-{os.getpid()}-4", "not-a-run",
                                                               f"busy-{dead}-1"])


def busy_dirs(monkeypatch: pytest.MonkeyPatch, busy: dict[Path, int]) -> None:
    """``Path.rmdir`` answering EBUSY (a cgroup a killed process has not left yet) so many times per path."""
    real = Path.rmdir

    def rmdir(path: Path) -> None:
        if busy.get(path, 0) > 0:
            busy[path] -= 1
            raise OSError(errno.EBUSY, "Device or resource busy")
        real(path)

    monkeypatch.setattr(Path, "rmdir", rmdir)


def run_dirs(tmp_path: Path, name: str) -> tuple[Path, Path]:
    memory, pids = tmp_path / "memory" / name, tmp_path / "pids" / name
    memory.mkdir(parents=True)
    pids.mkdir(parents=True)
    return memory, pids


def test_a_busy_run_cgroup_is_not_waited_for_and_is_removed_by_a_later_close(
        tmp_path: Path, monkeypatch: pytest.MonkeyPatch) -> None:
    """The close a run waits for no longer sleeps until the host reaps bubblewrap's namespace init."""
    monkeypatch.setattr(cgroups, "_deferred", cgroups.deque())
    monkeypatch.setattr(cgroups.time, "sleep", lambda s: pytest.fail("a run's close waited"))
    first, second = run_dirs(tmp_path, "a-1-1"), run_dirs(tmp_path, "a-1-2")
    busy_dirs(monkeypatch, {first[1]: 2, first[0]: 1})
    cgroups._v1_run(*first).close()
    assert first[1].exists() and first[0].exists() and len(cgroups._deferred) == 1
    cgroups._v1_run(*second).close()  # retries the first once more: its pids directory is still busy
    assert not second[0].exists() and not second[1].exists()
    assert first[1].exists() and not first[0].exists() and len(cgroups._deferred) == 1
    cgroups._v1_run(*run_dirs(tmp_path, "a-1-3")).close()
    assert not first[1].exists() and not cgroups._deferred


def test_drain_waits_for_deferred_cgroups(tmp_path: Path, monkeypatch: pytest.MonkeyPatch) -> None:
    monkeypatch.setattr(cgroups, "_deferred", cgroups.deque())
    dirs = run_dirs(tmp_path, "b-1-1")
    busy_dirs(monkeypatch, {dirs[1]: 5, dirs[0]: 5})
    cgroups._v1_run(*dirs).close()
    assert len(cgroups._deferred) == 1
    cgroups.drain_deferred()
    assert not dirs[0].exists() and not dirs[1].exists() and not cgroups._deferred


def test_a_directory_that_is_not_empty_is_still_waited_for_as_before(
        tmp_path: Path, monkeypatch: pytest.MonkeyPatch) -> None:
    """Only EBUSY (a task inside) defers; anything else is logged and left, as before."""
    monkeypatch.setattr(cgroups, "_deferred", cgroups.deque())
    monkeypatch.setattr(cgroups, "_REMOVE_WAIT_S", 0.0)
    memory, pids = run_dirs(tmp_path, "c-1-1")
    (pids / "stray").mkdir()
    cgroups._v1_run(memory, pids).close()
    assert pids.exists() and not memory.exists() and not cgroups._deferred


@pytest.mark.parametrize(
    ("killed_for", "code", "oom_kills", "ended"),
    [
        ("timeout", -9, 1, "memory"),  # the OOM kill and the deadline both: the memory cap ended it
        ("timeout", -9, 0, "timeout"),
        ("output_cap", -9, 1, "output_cap"),  # the league's own kill for output stands
        (None, 137, 1, "memory"),
        (None, 0, 1, "exit"),  # a helper was OOM-killed, the seat recovered and answered
    ],
)
def test_how_a_run_ended(killed_for: str | None, code: int, oom_kills: int, ended: str) -> None:
    killed = EndedBy(killed_for) if killed_for else None
    assert ended_by_of(killed, code, b"", CgroupReport(oom_kills=oom_kills)) is EndedBy(ended)
