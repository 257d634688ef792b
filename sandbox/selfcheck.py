"""Self-check of the sandbox: does bubblewrap work here, and does it really hide the operator?

Run by ``league doctor`` and before each batch; each check returns a :class:`Check` rather than
raising, so one report lists everything that is broken at once.
"""

from __future__ import annotations

import http.server
import shutil
import threading
from dataclasses import dataclass
from pathlib import Path

from sandbox.interface import Sandbox, SandboxError
from sandbox.netpolicy import EgressRules, find_socat
from sandbox.profiles import DEFAULT_PATH, SANDBOX_HOME, Profile, present_credentials
from sandbox.seccomp import ENV, build_filter, rules, seccomp_mode

# A probe run inside the sandbox; each line is "name ok|LEAK". The last four try what the system-call filter
# and bubblewrap's --disable-userns refuse (sandbox/seccomp.py), each without side effects when refused and
# undoing itself when not: a trace of the probe's own child, a nested user namespace in a child that exits,
# a netlink and a raw socket (closed at once).
_PROBE = r"""
import ctypes, errno, os, socket, time
def line(name, ok): print(name, "ok" if ok else "LEAK", flush=True)
line("home_empty", os.listdir(os.path.expanduser("~")) == ["probe.py"])
line("root_hidden", not os.path.exists("/root"))
line("work_hidden", not os.path.exists("/work"))
line("usr_readonly", not os.access("/usr", os.W_OK))
line("env_allowlist", set(os.environ) <= {"PATH", "HOME", "LANG", "TZ", "PWD", "LC_CTYPE"})
line("pid_namespace", os.getpid() < 10)
s = socket.socket(); s.settimeout(1)
try:
    s.connect(("1.1.1.1", 443)); line("net_cut", False)
except OSError:
    line("net_cut", True)
libc = ctypes.CDLL(None, use_errno=True)
kid = os.fork()
if kid == 0:
    time.sleep(30); os._exit(0)
traced = libc.ptrace(16, kid, 0, 0) == 0  # PTRACE_ATTACH
line("filter_ptrace", not traced and ctypes.get_errno() == errno.EPERM)
os.kill(kid, 9); os.waitpid(kid, 0)
kid = os.fork()
if kid == 0:
    os._exit(0 if libc.unshare(0x10000000) == 0 else 1)  # CLONE_NEWUSER
line("nested_userns", os.waitpid(kid, 0)[1] != 0)
for name, family, kind in (("filter_netlink", socket.AF_NETLINK, socket.SOCK_RAW),
                           ("filter_raw_socket", socket.AF_INET, socket.SOCK_RAW)):
    try:
        socket.socket(family, kind).close(); line(name, False)
    except OSError:
        line(name, True)
"""


@dataclass(frozen=True)
class Check:
    """One line of a self-check report; ``fix`` says what to do when it failed."""

    name: str
    ok: bool
    detail: str = ""
    fix: str = ""


def check_bwrap_installed() -> Check:
    path = shutil.which("bwrap")
    if path:
        return Check("bwrap installed", True, path)
    return Check("bwrap installed", False, "bwrap not found", "apt-get install -y bubblewrap")


def check_isolation(sandbox: Sandbox, python: str = "/usr/bin/python3") -> list[Check]:
    """Run the probe inside a real sandbox; any LEAK line is a failed check, except the system-call filter's
    lines (``filter_*``) when the operator turned the filter off (``LEAGUE_SANDBOX_SECCOMP=off``): they then
    pass and say so, since the batch must not stop for an opt-out the operator made on purpose."""
    try:
        res = sandbox.exec(
            [python, f"{SANDBOX_HOME}/probe.py"],
            timeout=20,
            profile="scripted",
            files_in_home={"probe.py": _PROBE.encode()},
        )
    except SandboxError as exc:
        return [Check("sandbox starts", False, exc.message, exc.fix or "")]
    checks = [Check("sandbox starts", res.ok, f"{res.elapsed_s * 1000:.0f} ms, {res.detail}"), check_filter()]
    filter_off = _filter_off()
    for raw in res.text.splitlines():
        name, _, verdict = raw.partition(" ")
        checks.append(_probe_line(name, verdict, filter_off and name.startswith("filter_")))
    return checks


def check_filter() -> Check:
    """Which system-call filter the seats' runs get: the rules, or the operator's opt-out."""
    if _filter_off():
        return Check("system-call filter", True, f"off ({ENV}=off): seats may ptrace, open netlink sockets…")
    try:
        build_filter()
    except SandboxError as exc:
        return Check("system-call filter", False, exc.message, exc.fix or "")
    denied = sorted({rule.syscall for rule in rules()})
    return Check("system-call filter", True, f"on: {len(rules())} rules denying " + ", ".join(denied))


def _probe_line(name: str, verdict: str, opted_out: bool) -> Check:
    if opted_out and verdict != "ok":
        return Check(f"isolation: {name}", True, f"{verdict}: not denied, {ENV}=off (the operator's opt-out)")
    ok = verdict == "ok"
    fix = "" if ok or not name.startswith("filter_") else _FILTER_FIX
    return Check(f"isolation: {name}", ok, verdict, fix)


_FILTER_FIX = "the seats' system-call filter did not hold: check libseccomp2 and bwrap --seccomp (docs/sandbox.md)"


def _filter_off() -> bool:
    try:
        return seccomp_mode() == "off"
    except SandboxError:
        return False


def check_cli(binary: str, folder: str | None = None) -> Check:
    """Is a seat's CLI on the sandbox's PATH (the operator's own PATH does not count), or in ``folder``
    (a seat's ``options.cli_prefix`` bin folder)?"""
    found = shutil.which(binary, path=folder or DEFAULT_PATH.split(":", 1)[1])
    if found:
        return Check(f"cli {binary}", True, found)
    return Check(
        f"cli {binary}",
        False,
        "not on the sandbox PATH " + DEFAULT_PATH,
        f"install it system-wide (e.g. npm install -g <package>) so {binary} is under /usr",
    )


def check_credentials(profile: Profile, home: Path | None = None) -> Check:
    present = present_credentials(profile, home)
    name = f"credentials {profile.name}"
    if present or not (profile.credentials or profile.env_keys):
        return Check(name, True, ", ".join(present) or "none needed")
    wanted = [c.rel for c in profile.credentials] + [f"${k}" for k in profile.env_keys]
    fix = "log the CLI in as the operator or set its key variable"
    return Check(name, False, "none of: " + ", ".join(wanted), fix)


_EGRESS_PROBE = r"""
import sys, urllib.request
for name, url in (("allowed", sys.argv[1]), ("refused", sys.argv[2])):
    try:
        urllib.request.urlopen(url, timeout=5).read()
        print(name, "reached")
    except Exception as exc:
        print(name, "blocked", type(exc).__name__)
"""


def check_egress(sandbox: Sandbox, python: str = "/usr/bin/python3") -> list[Check]:
    """The egress proxy works: through it a sandbox reaches an allow-listed local server and is
    refused another loopback port, and both requests are in the fetch record."""
    try:
        find_socat()
    except SandboxError as exc:
        return [Check("egress proxy", False, exc.message, exc.fix or "")]

    class Quiet(http.server.BaseHTTPRequestHandler):
        def log_message(self, *args: object) -> None:
            return

        def do_GET(self) -> None:  # noqa: N802 - http.server's naming
            self.send_response(204)
            self.end_headers()

    server = http.server.ThreadingHTTPServer(("127.0.0.1", 0), Quiet)
    threading.Thread(target=server.serve_forever, daemon=True).start()
    port = int(server.server_address[1])
    other = port + 1 if port < 65535 else port - 1
    try:
        res = sandbox.exec([python, "-c", _EGRESS_PROBE, f"http://127.0.0.1:{port}/", f"http://127.0.0.1:{other}/"],
                           timeout=30, profile="default", egress=EgressRules.of("api", [f"127.0.0.1:{port}"]))
    except SandboxError as exc:
        return [Check("egress proxy", False, exc.message, exc.fix or "")]
    finally:
        server.shutdown()
        server.server_close()
    out = res.text
    recorded = sorted((f.port, f.allowed) for f in res.fetches)
    ok = "allowed reached" in out and "refused blocked" in out and recorded == sorted([(port, True), (other, False)])
    way = str(getattr(sandbox, "egress_mode", "") or "")  # shared service or per-run proxy (LEAGUE_SANDBOX_EGRESS)
    detail = (f"{way + ' way; ' if way else ''}{res.elapsed_s * 1000:.0f} ms; {out.strip().replace(chr(10), '; ')}; "
              f"record {recorded}")
    fix = "check that proxy.py is installed in the league's environment (pip install -e .) and socat under /usr"
    return [Check("egress proxy (allow-list reached, other loopback port refused, both recorded)", ok, detail,
                  "" if ok else fix)]
