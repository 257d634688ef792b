"""The seats' empty network namespaces (sandbox/netns.py) without making any: who gets the pool, and a failed
namespace call is a sandbox error naming the fix (the real namespaces: integration/sandbox/test_sandbox_lean.py)."""

from __future__ import annotations

import pytest

from sandbox import netns
from sandbox.errors import SandboxError


def test_no_pool_without_root(monkeypatch: pytest.MonkeyPatch) -> None:
    monkeypatch.setattr(netns.os, "geteuid", lambda: 1000)
    assert netns.SeatNetns.here() is None


def test_no_pool_when_the_kernel_refuses(monkeypatch: pytest.MonkeyPatch) -> None:
    def refuse(self: netns.SeatNetns) -> int:
        raise SandboxError("unshare(network namespace) failed: Operation not permitted")

    monkeypatch.setattr(netns.SeatNetns, "_make", refuse)
    assert netns.SeatNetns._probe() is None


def test_one_pool_per_process(monkeypatch: pytest.MonkeyPatch) -> None:
    monkeypatch.setattr(netns.os, "geteuid", lambda: 0)
    monkeypatch.setattr(netns, "_checked", True)
    monkeypatch.setattr(netns, "_pool", pool := netns.SeatNetns())
    assert netns.SeatNetns.here() is pool and netns.SeatNetns.here() is pool


def test_a_failed_call_names_the_fix(monkeypatch: pytest.MonkeyPatch) -> None:
    class Libc:
        @staticmethod
        def setns(fd: int, flags: int) -> int:
            return -1

    pool = netns.SeatNetns.__new__(netns.SeatNetns)
    pool._libc = Libc()  # type: ignore[assignment]
    monkeypatch.setattr(netns.ctypes, "get_errno", lambda: 1)
    with pytest.raises(SandboxError, match="setns.*Operation not permitted") as err:
        pool._call("setns", 3, netns.CLONE_NEWNET)
    assert "root" in err.value.diagnostics()
