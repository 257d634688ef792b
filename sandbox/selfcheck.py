"""Self-check of the sandbox: does bubblewrap work here, and does it really hide the operator?

Run by ``league doctor`` and before each batch; each check returns a :class:`Check` rather than
raising, so one report lists everything that is broken at once.
"""

from __future__ import annotations

import shutil
from dataclasses import dataclass
from pathlib import Path

from sandbox.interface import Sandbox, SandboxError
from sandbox.profiles import DEFAULT_PATH, SANDBOX_HOME, Profile, present_credentials

# A probe run inside the sandbox; each line is "name ok|LEAK".
_PROBE = r"""
import os, socket
def line(name, ok): print(name, "ok" if ok else "LEAK")
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
    """Run the probe inside a real sandbox; any LEAK line is a failed check."""
    try:
        res = sandbox.exec(
            [python, f"{SANDBOX_HOME}/probe.py"],
            timeout=20,
            profile="scripted",
            files_in_home={"probe.py": _PROBE.encode()},
        )
    except SandboxError as exc:
        return [Check("sandbox starts", False, exc.message, exc.fix or "")]
    checks = [Check("sandbox starts", res.ok, f"{res.elapsed_s * 1000:.0f} ms, {res.detail}")]
    for raw in res.text.splitlines():
        name, _, verdict = raw.partition(" ")
        checks.append(Check(f"isolation: {name}", verdict == "ok", verdict))
    return checks


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
    import http.server
    import threading

    from sandbox.netpolicy import EgressRules, find_socat

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
    detail = f"{res.elapsed_s * 1000:.0f} ms; {out.strip().replace(chr(10), '; ')}; record {recorded}"
    fix = "check that proxy.py is installed in the league's environment (pip install -e .) and socat under /usr"
    return [Check("egress proxy (allow-list reached, other loopback port refused, both recorded)", ok, detail,
                  "" if ok else fix)]
