"""The seats' system-call filter and --disable-userns, in the real bubblewrap sandbox (sandbox/seccomp.py).

Each program runs as a seat runs: python3 inside a fresh sandbox, under its seat's uid. What each test says
failed on the code before the filter is in its docstring.
"""

from __future__ import annotations

import ctypes.util
import glob
import os
import platform
import shutil
import subprocess
import sys
from pathlib import Path

import pytest

from sandbox.bwrap import BwrapSandbox
from sandbox.interface import EndedBy
from sandbox.selfcheck import check_egress

pytestmark = pytest.mark.sandbox
PY = "/usr/bin/python3"
ROOT = Path(__file__).parents[3]

# The seat forks a helper that PTRACE_ATTACHes the sandbox's pid 1 (bubblewrap's reaper) and keeps it
# stopped, its own stdio closed; the seat itself prints its whole answer and exits.
PTRACE_PID_1 = r"""
import ctypes, errno, os, time
libc = ctypes.CDLL(None, use_errno=True)
r, w = os.pipe()
if os.fork() == 0:
    res = libc.ptrace(16, 1, 0, 0)  # PTRACE_ATTACH
    os.write(w, b"%d %d" % (res, ctypes.get_errno()))
    for fd in (0, 1, 2):
        os.close(fd)
    time.sleep(300)
    os._exit(0)
res, err = os.read(r, 100).split()
print("attach", res.decode(), errno.errorcode.get(int(err), "-"), flush=True)
print("ANSWER 42", flush=True)
"""


def run(sandbox: BwrapSandbox, script: str, timeout: float = 20) -> tuple[str, EndedBy]:
    res = sandbox.exec([PY, "-c", script], timeout=timeout, owner="probe")
    return res.text + res.err_text, res.ended_by


def test_ptrace_of_pid_1_is_refused_and_the_answer_ends_the_run(sandbox: BwrapSandbox) -> None:
    """Before: the attach succeeded, the stopped reaper never reported the seat's exit, and the run with its
    complete answer ended at its deadline as `timeout` (exit -9)."""
    res = sandbox.exec([PY, "-c", PTRACE_PID_1], timeout=15, owner="tracer")
    assert "attach -1 EPERM" in res.text, res.text
    assert "ANSWER 42" in res.text
    assert res.ended_by is EndedBy.EXIT and res.exit_code == 0, res.detail


READ_CHILD_MEMORY = r"""
import ctypes, errno, os, time
libc = ctypes.CDLL(None, use_errno=True)
secret = ctypes.create_string_buffer(b"child-secret")
kid = os.fork()
if kid == 0:
    time.sleep(30); os._exit(0)
class IOVec(ctypes.Structure):
    _fields_ = [("base", ctypes.c_void_p), ("len", ctypes.c_size_t)]
mine = ctypes.create_string_buffer(12)
local, remote = IOVec(ctypes.addressof(mine), 12), IOVec(ctypes.addressof(secret), 12)
n = libc.process_vm_readv(kid, ctypes.byref(local), 1, ctypes.byref(remote), 1, 0)
print("process_vm_readv", n, errno.errorcode.get(ctypes.get_errno(), "-"), mine.raw, flush=True)
traced = libc.ptrace(16, kid, 0, 0)
print("ptrace_child", traced, errno.errorcode.get(ctypes.get_errno(), "-"), flush=True)
os.kill(kid, 9)
"""


def test_reading_another_process_memory_is_refused(sandbox: BwrapSandbox) -> None:
    """Before: the seat read its own child's memory (12 bytes) and could trace it."""
    out, ended = run(sandbox, READ_CHILD_MEMORY)
    assert "process_vm_readv -1 EPERM" in out and b"child-secret" not in out.encode(), out
    assert "ptrace_child -1 EPERM" in out
    assert ended is EndedBy.EXIT


NESTED_USERNS = r"""
import ctypes, errno, os, subprocess
libc = ctypes.CDLL(None, use_errno=True)
def child(call):
    pid = os.fork()
    if pid == 0:
        res = call()  # (clone without a stack returns twice, like fork: 0 in the child, its pid here)
        os._exit(0 if res >= 0 else min(ctypes.get_errno(), 255))
    return errno.errorcode.get(os.waitstatus_to_exitcode(os.waitpid(pid, 0)[1]), "ALLOWED")
print("unshare", child(lambda: libc.unshare(0x10000000)), flush=True)  # CLONE_NEWUSER
print("clone", child(lambda: libc.syscall(56, 0x10000000 | 17, 0, 0, 0, 0)), flush=True)  # | SIGCHLD
p = subprocess.run(["unshare", "-Urn", "id", "-u"], capture_output=True, text=True)
print("unshare-cmd", p.returncode, p.stdout.strip(), p.stderr.strip(), flush=True)
"""


def test_nested_user_namespace_is_refused(sandbox: BwrapSandbox) -> None:
    """Before: `unshare -Urn id -u` printed 0 (root in a nested user namespace), and unshare(CLONE_NEWUSER)
    and clone(CLONE_NEWUSER) succeeded. Now the filter answers EPERM."""
    out, _ = run(sandbox, NESTED_USERNS)
    assert "unshare EPERM" in out and "clone EPERM" in out, out
    assert "unshare-cmd 1" in out and "Operation not permitted" in out


def test_nested_user_namespace_is_refused_without_the_filter_too() -> None:
    """With the filter turned off, bubblewrap's --disable-userns still has the kernel refuse (ENOSPC).
    Before: the nested namespace was created."""
    if not BwrapSandbox.available():
        pytest.skip("bubblewrap (bwrap) is not installed: apt-get install -y bubblewrap")
    out, _ = run(BwrapSandbox(seccomp="off"), NESTED_USERNS)
    assert "unshare ENOSPC" in out and "clone ENOSPC" in out, out
    assert "unshare-cmd 1" in out and "No space left on device" in out


SOCKETS = r"""
import errno, socket
for name, family, kind in (("netlink_raw", socket.AF_NETLINK, socket.SOCK_RAW),
                           ("netlink_dgram", socket.AF_NETLINK, socket.SOCK_DGRAM),
                           ("packet_raw", socket.AF_PACKET, socket.SOCK_RAW),
                           ("packet_dgram", socket.AF_PACKET, socket.SOCK_DGRAM),
                           ("inet_raw", socket.AF_INET, socket.SOCK_RAW | socket.SOCK_CLOEXEC),
                           ("inet6_raw", socket.AF_INET6, socket.SOCK_RAW),
                           ("inet_stream", socket.AF_INET, socket.SOCK_STREAM),
                           ("unix_stream", socket.AF_UNIX, socket.SOCK_STREAM)):
    try:
        socket.socket(family, kind).close()
        print(name, "ALLOWED", flush=True)
    except OSError as exc:
        print(name, errno.errorcode[exc.errno], flush=True)
import ctypes
libc = ctypes.CDLL(None, use_errno=True)
# the family in the low 32 bits of the register, garbage above: the kernel reads an int
res = libc.syscall(41, ctypes.c_long((1 << 32) | socket.AF_NETLINK), socket.SOCK_DGRAM, 0)
print("netlink_high_bits", "ALLOWED" if res >= 0 else errno.errorcode[ctypes.get_errno()], flush=True)
"""


def test_netlink_packet_and_raw_sockets_are_refused(sandbox: BwrapSandbox) -> None:
    """Before: both netlink sockets (and the one with garbage in the register's high half) were ALLOWED and
    the packet sockets failed with EPERM (no CAP_NET_RAW), not the filter's EAFNOSUPPORT; raw IP sockets were
    EPERM already (inside a nested user namespace they were not: see the test above)."""
    out, _ = run(sandbox, SOCKETS)
    lines = dict(line.split() for line in out.splitlines() if line)
    assert lines == {
        "netlink_raw": "EAFNOSUPPORT", "netlink_dgram": "EAFNOSUPPORT", "netlink_high_bits": "EAFNOSUPPORT",
        "packet_raw": "EAFNOSUPPORT", "packet_dgram": "EAFNOSUPPORT",
        "inet_raw": "EPERM", "inet6_raw": "EPERM",
        "inet_stream": "ALLOWED", "unix_stream": "ALLOWED",
    }, out


NEW_INTERFACES = r"""
import ctypes, errno, os, subprocess, threading
libc = ctypes.CDLL(None, use_errno=True)
def tried(res): return "ALLOWED" if res >= 0 else errno.errorcode[ctypes.get_errno()]
print("clone3", tried(libc.syscall(435, 0, 0)), flush=True)
params = ctypes.create_string_buffer(120)
print("io_uring_setup", tried(libc.syscall(425, 4, params)), flush=True)
t = threading.Thread(target=lambda: print("thread ok", flush=True)); t.start(); t.join()
print(subprocess.run(["/bin/echo", "spawn ok"], capture_output=True, text=True).stdout.strip(), flush=True)
"""


def test_clone3_and_io_uring_are_missing_and_processes_still_start(sandbox: BwrapSandbox) -> None:
    """clone3 (flags out of a filter's reach) and io_uring (opens sockets without socket()) look absent
    (ENOSYS), so glibc falls back to clone: threads and child processes still start. Before: io_uring_setup
    returned a ring (clone3 with a NULL struct failed with EFAULT/EINVAL, not ENOSYS)."""
    out, ended = run(sandbox, NEW_INTERFACES)
    assert "clone3 ENOSYS" in out and "io_uring_setup ENOSYS" in out, out
    assert "thread ok" in out and "spawn ok" in out
    assert ended is EndedBy.EXIT


INT_80 = r"""
import ctypes, mmap
code = bytes([0xB8, 0x14, 0, 0, 0, 0xCD, 0x80, 0xC3])  # mov eax, 20 (i386 getpid); int 0x80; ret
page = mmap.mmap(-1, 4096, prot=mmap.PROT_READ | mmap.PROT_WRITE | mmap.PROT_EXEC)
page.write(code)
call = ctypes.CFUNCTYPE(ctypes.c_long)(ctypes.addressof(ctypes.c_char.from_buffer(page)))
print("before", flush=True)
print("returned", call(), flush=True)
"""
X32 = r"""
import ctypes
libc = ctypes.CDLL(None, use_errno=True)
print("before", flush=True)
print("returned", libc.syscall(0x40000000 | 39), ctypes.get_errno(), flush=True)  # x32 getpid
"""


@pytest.mark.skipif(platform.machine() != "x86_64", reason="the i386 and x32 system-call ABIs exist on x86-64 only")
@pytest.mark.parametrize("program", [INT_80, X32], ids=["i386-int-0x80", "x32"])
def test_a_system_call_through_another_abi_kills_the_process(sandbox: BwrapSandbox, program: str) -> None:
    """A 32-bit (int 0x80) or x32 system call is checked against no rule: the filter kills the process
    (SIGSYS). Before: the i386 getpid returned the pid, the x32 one returned (ENOSYS where the kernel has no
    x32, the pid where it has)."""
    res = sandbox.exec([PY, "-c", program], timeout=20, owner="probe")
    assert "before" in res.text and "returned" not in res.text, res.text
    assert res.ended_by is EndedBy.SIGNAL and res.exit_code == 128 + 31, (res.exit_code, res.detail)  # SIGSYS


def test_the_scripted_childs_profile_gets_the_filter(sandbox: BwrapSandbox) -> None:
    """The lean profile (no /proc, the command is pid 1) is filtered like every other."""
    res = sandbox.exec([PY, "-c", SOCKETS], timeout=20, profile="scripted-child", owner="probe")
    assert "netlink_raw EAFNOSUPPORT" in res.text, res.text


def test_a_networked_run_works_under_the_filter(sandbox: BwrapSandbox) -> None:
    """The egress forwarder (socat inside) and getaddrinfo (which asks netlink which families exist and
    assumes both when it cannot) still work."""
    checks = check_egress(sandbox)
    assert all(c.ok for c in checks), checks


# ------------------------------------------------------------------ a host without libseccomp
HIDDEN = """
import sys
from sandbox.bwrap import BwrapSandbox
from sandbox.interface import SandboxError
try:
    res = BwrapSandbox().exec(["/bin/echo", "ran"], timeout=20)
    print("RAN", res.text.strip())
except SandboxError as exc:
    print("REFUSED", type(exc).__name__, exc.diagnostics())
"""


def _without_libseccomp(env: dict[str, str]) -> subprocess.CompletedProcess[str]:
    """Run a league process in a private mount namespace whose libseccomp.so.2 is an empty file."""
    found = glob.glob("/usr/lib/*/libseccomp.so.2*") + glob.glob("/lib/*/libseccomp.so.2*")
    libs = sorted({os.path.realpath(p) for p in found})
    if os.geteuid() != 0 or shutil.which("unshare") is None or not libs or ctypes.util.find_library("seccomp") is None:
        pytest.skip("needs root, unshare(1) and the host's libseccomp.so.2 to hide")
    binds = " && ".join(f"mount --bind /dev/null {lib}" for lib in libs)
    script = f'{binds} && exec "$0" -c "$1"'
    return subprocess.run(["unshare", "--mount", "--propagation", "private", "/bin/sh", "-c", script, sys.executable,
                           HIDDEN], capture_output=True, text=True, timeout=120, check=False, cwd=ROOT,
                          env=os.environ | env)


def test_without_libseccomp_no_seat_runs() -> None:
    """Before: the run went ahead without any filter ("RAN ran")."""
    if not BwrapSandbox.available():
        pytest.skip("bubblewrap (bwrap) is not installed: apt-get install -y bubblewrap")
    out = _without_libseccomp({})
    assert "REFUSED SeccompError" in out.stdout, out.stdout + out.stderr
    assert "fix: apt-get install -y libseccomp2" in out.stdout
    assert "RAN" not in out.stdout


def test_without_libseccomp_the_operator_may_opt_out_and_it_is_logged() -> None:
    if not BwrapSandbox.available():
        pytest.skip("bubblewrap (bwrap) is not installed: apt-get install -y bubblewrap")
    out = _without_libseccomp({"LEAGUE_SANDBOX_SECCOMP": "off"})
    assert "RAN ran" in out.stdout, out.stdout + out.stderr
    assert "sandbox.seccomp_off" in out.stdout + out.stderr
