"""The seats' system-call filter: what a seat may not ask the kernel, even inside its namespaces.

bubblewrap's namespaces hide the operator's files, network and processes, but left a seat free to
- ``ptrace`` its own sandbox's pid 1 (bubblewrap's reaper) and keep it stopped: the reaper then never
  reported the seat's exit, and a run whose answer was complete ended at its deadline as ``timeout``;
- create a nested user namespace (``unshare -U``), in which it is root again: the whole of the kernel's
  namespace-root attack surface (mounts, netfilter, …) opens to it;
- open netlink sockets (routing, netfilter, audit, … talk to the kernel over them) and packet or raw
  sockets.

The filter is built with libseccomp (the library behind systemd's, Flatpak's and Docker's filters) through
the ``pyseccomp`` ctypes binding, exported as BPF and handed to bubblewrap with ``--seccomp FD``; bubblewrap
loads it into the reaper and the command after the sandbox is set up, so everything of the run, and nothing of
bubblewrap's own set-up, is under it. Every rule denies with an errno, never a kill: a program probing its
environment (Node's ``os.networkInterfaces()``, glibc's ``getaddrinfo``) gets the error it gets on a kernel
or a container without the feature, and goes on. Everything not named here is allowed.

No filter, no run: without libseccomp :func:`load` raises :class:`SeccompError` with the fix.
``LEAGUE_SANDBOX_SECCOMP=off`` is the operator's explicit, logged opt-out (docs/sandbox.md), as
``LEAGUE_SANDBOX_CGROUP=off`` is for the caps. Nested user namespaces stay refused without the filter too:
bubblewrap's ``--disable-userns`` (:mod:`sandbox.bwrap`) makes the kernel itself refuse them.
"""

from __future__ import annotations

import errno
import functools
import io
import os
import socket
from dataclasses import dataclass
from types import ModuleType
from typing import Any

import structlog

from sandbox.errors import SandboxError

log = structlog.get_logger(__name__)

#: The pyseccomp binding, or why it could not be imported. Importing it loads the system's libseccomp.so.2, and
#: a host without that library must get :class:`SeccompError` with the fix when a filter is built, not an
#: ImportError from every module that imports the sandbox.
_PYSECCOMP: ModuleType | str
try:
    import pyseccomp

    _PYSECCOMP = pyseccomp  # (untyped: the binding ships no type information)
except (ImportError, RuntimeError, OSError) as exc:  # RuntimeError: "Unable to find libseccomp"
    _PYSECCOMP = str(exc)

ENV = "LEAGUE_SANDBOX_SECCOMP"
MODES = ("on", "off")
INSTALL_FIX = (
    "apt-get install -y libseccomp2 (the system library the filter is built with) and reinstall the league "
    "(pip install forecast-league brings the pyseccomp binding); to run seats without the filter knowingly, "
    f"set {ENV}=off"
)

CLONE_NEWUSER = 0x10000000
SOCK_TYPE_MASK = 0xF  # the socket type without SOCK_NONBLOCK / SOCK_CLOEXEC
INT_MASK = 0xFFFFFFFF  # an ``int`` argument: the kernel reads only the low 32 bits of its register
_MASKED_EQ = 7  # libseccomp's SCMP_CMP_MASKED_EQ: (arg & mask) == value


class SeccompError(SandboxError):
    """The filter cannot be built here: the sandbox refuses to run a seat without it."""


Match = tuple[int, int, int]  # (argument index, mask, value): the rule applies when (arg & mask) == value


@dataclass(frozen=True)
class Rule:
    """One denial: ``syscall`` fails with ``errno`` when every one of ``args`` matches (always, with none).

    No two rules of a system call may match the same call: which of two overlapping rules libseccomp's
    program applies is not specified, so each rule here names a case of its own."""

    syscall: str
    errno: int
    why: str
    args: tuple[Match, ...] = ()


def rules(clone_flags_index: int = 0) -> tuple[Rule, ...]:
    """The denials, in the order they are added. ``clone_flags_index`` is where ``clone`` takes its flags
    (1 on s390/s390x, whose ``clone`` swaps its first two arguments; 0 elsewhere)."""
    return (
        Rule("ptrace", errno.EPERM, "no tracing of another process, the sandbox's own pid 1 included"),
        Rule("process_vm_readv", errno.EPERM, "no reading of another process's memory"),
        Rule("process_vm_writev", errno.EPERM, "no writing into another process's memory"),
        Rule("pidfd_getfd", errno.EPERM, "no taking of another process's open files (ptrace's own check)"),
        Rule("unshare", errno.EPERM, "no nested user namespace", ((0, CLONE_NEWUSER, CLONE_NEWUSER),)),
        Rule("clone", errno.EPERM, "no nested user namespace", ((clone_flags_index, CLONE_NEWUSER, CLONE_NEWUSER),)),
        # clone3 takes its flags in a struct behind a pointer, which a filter cannot read: ENOSYS makes glibc
        # (and Node's libuv, Go, Rust std) fall back to clone, whose flags the rule above checks.
        Rule("clone3", errno.ENOSYS, "its flags are out of a filter's reach: libc falls back to clone"),
        Rule("socket", errno.EAFNOSUPPORT, "no netlink socket (routing, netfilter, audit…), of any type",
             ((0, INT_MASK, socket.AF_NETLINK),)),
        Rule("socket", errno.EAFNOSUPPORT, "no packet socket, of any type", ((0, INT_MASK, socket.AF_PACKET),)),
        # raw IP sockets; a raw netlink or packet socket is refused by its family's rule above
        Rule("socket", errno.EPERM, "no raw IPv4 socket",
             ((0, INT_MASK, socket.AF_INET), (1, SOCK_TYPE_MASK, socket.SOCK_RAW))),
        Rule("socket", errno.EPERM, "no raw IPv6 socket",
             ((0, INT_MASK, socket.AF_INET6), (1, SOCK_TYPE_MASK, socket.SOCK_RAW))),
        # io_uring opens sockets (IORING_OP_SOCKET) without the socket system call, so past the rules above.
        Rule("io_uring_setup", errno.ENOSYS, "io_uring can open sockets past the socket rules"),
        Rule("io_uring_enter", errno.ENOSYS, "io_uring can open sockets past the socket rules"),
        Rule("io_uring_register", errno.ENOSYS, "io_uring can open sockets past the socket rules"),
    )


def seccomp_mode(value: str | None = None) -> str:
    """``on`` (the default) or ``off`` (the operator's explicit opt-out); anything else is an error."""
    mode = (value if value is not None else os.environ.get(ENV, "on")).strip().lower()
    if mode not in MODES:
        raise SeccompError(f"{ENV}={mode!r} is not one of {', '.join(MODES)}", fix=f"unset it (on) or set {ENV}=off")
    return mode


def load(mode: str | None = None) -> bytes | None:
    """The filter's BPF program for every run; ``None`` only for the explicit opt-out ``off`` (logged)."""
    if seccomp_mode(mode) == "off":
        log.warning("sandbox.seccomp_off", note=f"{ENV}=off: seats run without the system-call filter "
                    "(ptrace, netlink, packet and raw sockets allowed inside the sandbox)")
        return None
    return build_filter()


@functools.cache
def build_filter() -> bytes:
    """Build the filter once per process (libseccomp's BPF for the native architecture)."""
    lib = _binding()
    clone_index = 1 if lib.system_arch() in (lib.Arch.S390, lib.Arch.S390X) else 0
    try:
        flt: Any = lib.SyscallFilter(lib.ALLOW)
        # A system call through another ABI (i386's int 0x80, or x32, on x86-64) would be checked against no
        # rule at all: it is never a program's ordinary way in, only the classic way around a filter. Kill it.
        flt.set_attr(lib.Attr.ACT_BADARCH, lib.KILL_PROCESS)
        for rule in rules(clone_index):
            args = [lib.Arg(index, _MASKED_EQ, mask, value) for index, mask, value in rule.args]
            flt.add_rule_exactly(lib.ERRNO(rule.errno), rule.syscall, *args)
        with io.FileIO(os.memfd_create("seat-seccomp", os.MFD_CLOEXEC), "r+") as out:
            flt.export_bpf(out)
            out.seek(0)
            program = out.readall()
    except (OSError, ValueError) as exc:
        raise SeccompError(f"libseccomp could not build the seats' system-call filter: {exc}",
                           fix=INSTALL_FIX) from exc
    if not program or len(program) % 8:
        raise SeccompError(f"libseccomp exported a filter of {len(program)} bytes (not BPF instructions)",
                           fix=INSTALL_FIX)
    return program


def _binding() -> ModuleType:
    """The pyseccomp binding, or :class:`SeccompError` with the fix when the system's libseccomp.so.2 could not
    be loaded (:data:`_PYSECCOMP`)."""
    if isinstance(_PYSECCOMP, str):
        raise SeccompError(f"libseccomp is not available, so the seats' system-call filter cannot be built: "
                           f"{_PYSECCOMP}", fix=INSTALL_FIX)
    return _PYSECCOMP
