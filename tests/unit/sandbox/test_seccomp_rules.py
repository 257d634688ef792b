"""The system-call filter's table, its mode variable and the program libseccomp builds from it."""

from __future__ import annotations

import errno
import socket

import pytest

from sandbox import seccomp
from sandbox.seccomp import SeccompError, build_filter, rules, seccomp_mode

# The denials, written out: (system call, errno, argument matches as (index, mask, value)).
EXPECTED = {
    ("ptrace", errno.EPERM, ()),
    ("process_vm_readv", errno.EPERM, ()),
    ("process_vm_writev", errno.EPERM, ()),
    ("pidfd_getfd", errno.EPERM, ()),
    ("unshare", errno.EPERM, ((0, 0x10000000, 0x10000000),)),
    ("clone", errno.EPERM, ((0, 0x10000000, 0x10000000),)),
    ("clone3", errno.ENOSYS, ()),
    ("socket", errno.EAFNOSUPPORT, ((0, 0xFFFFFFFF, 16),)),  # AF_NETLINK
    ("socket", errno.EAFNOSUPPORT, ((0, 0xFFFFFFFF, 17),)),  # AF_PACKET
    ("socket", errno.EPERM, ((0, 0xFFFFFFFF, 2), (1, 0xF, 3))),  # AF_INET, SOCK_RAW
    ("socket", errno.EPERM, ((0, 0xFFFFFFFF, 10), (1, 0xF, 3))),  # AF_INET6, SOCK_RAW
    ("io_uring_setup", errno.ENOSYS, ()),
    ("io_uring_enter", errno.ENOSYS, ()),
    ("io_uring_register", errno.ENOSYS, ()),
}


def test_the_denials_are_the_documented_ones() -> None:
    assert {(r.syscall, r.errno, r.args) for r in rules()} == EXPECTED
    assert len(rules()) == len(EXPECTED)  # no rule twice
    assert all(r.why for r in rules())


def test_clone_takes_its_flags_second_on_s390() -> None:
    clone = next(r for r in rules(clone_flags_index=1) if r.syscall == "clone")
    assert clone.args == ((1, 0x10000000, 0x10000000),)


def test_the_constants_are_the_kernels() -> None:
    assert (socket.AF_NETLINK, socket.AF_PACKET, socket.AF_INET, socket.AF_INET6) == (16, 17, 2, 10)
    assert socket.SOCK_RAW == 3


def test_no_two_socket_rules_match_the_same_call() -> None:
    """libseccomp does not say which of two overlapping rules wins: the family rules and the raw rules must
    name disjoint cases."""
    families = [r.args[0][2] for r in rules() if r.syscall == "socket"]
    assert len(families) == len(set(families))


@pytest.mark.parametrize(("value", "mode"), [(None, "on"), ("on", "on"), (" OFF ", "off")])
def test_mode(value: str | None, mode: str, monkeypatch: pytest.MonkeyPatch) -> None:
    monkeypatch.delenv(seccomp.ENV, raising=False)
    assert seccomp_mode(value) == mode


def test_a_bad_mode_is_an_error_with_the_fix(monkeypatch: pytest.MonkeyPatch) -> None:
    monkeypatch.setenv(seccomp.ENV, "maybe")
    with pytest.raises(SeccompError) as err:
        seccomp_mode()
    assert "LEAGUE_SANDBOX_SECCOMP='maybe'" in err.value.message and "off" in (err.value.fix or "")


def test_off_is_no_filter_and_on_is_a_bpf_program() -> None:
    assert seccomp.load("off") is None
    program = seccomp.load("on")
    assert program is not None and program == build_filter()
    assert len(program) % 8 == 0 and len(program) // 8 > len(EXPECTED)  # struct sock_filter: 8 bytes each
