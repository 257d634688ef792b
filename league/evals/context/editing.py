"""Running one editing program of the contextual track inside the sandbox, and reading the path it leaves.

A seat's program is untrusted code: it runs in the bubblewrap sandbox (the sandbox port), never in the league's
process, under :data:`EDIT_PROFILE`: the scripted child's profile (no network namespace exit, no /etc, /proc,
/dev or /tmp, a fresh home, the child as pid 1) with tighter limits: 256 MiB of memory, 32 tasks, files of at
most 1 MiB, a 16 MiB home, 1 MiB of stdout and 64 KiB of stderr, :data:`EDIT_TIMEOUT_S` seconds. Debian's
``/usr/bin/python3 -I -S`` (isolated: no environment, no user site, no ``site``) runs :data:`HARNESS`, which
reads ``{"path": [...], "history": [...]}`` on stdin, executes the program (``step.py`` in the home) with
``path`` and ``history`` bound, sends whatever the program prints to stderr, and writes the final ``path`` as a
JSON array on stdout. The league reads that array itself (the harness's own checks are a courtesy to the seat:
its messages are clearer): exactly H finite numbers, else the step failed and the path is kept.

The program never gets network, whatever the run's policy: a :class:`~league.evals.policy.PolicySandbox` (which
imposes the seats' policy) is unwrapped to the sandbox inside it.
"""

from __future__ import annotations

import json
import math
from collections.abc import Sequence
from dataclasses import dataclass, replace
from typing import Final

from league.evals.policy import PolicySandbox
from league.jsonvalue import Json
from sandbox.interface import EndedBy, Sandbox, SandboxError
from sandbox.profiles import MIB, SANDBOX_HOME, get_profile

SYSTEM_PYTHON: Final = "/usr/bin/python3"
EDIT_TIMEOUT_S: Final = 10.0
EDIT_PROFILE: Final = replace(
    get_profile("scripted-child"), name="ctx-edit", memory_mb=256, nproc=32, fsize_mb=1, home_mb=16,
    stdout_cap=1 * MIB, stderr_cap=64 * 1024,
)
HARNESS: Final = b'''\
import contextlib, json, math, sys
doc = json.load(sys.stdin)
path, history = list(doc["path"]), list(doc["history"])
n = len(path)
with open(sys.argv[1], encoding="utf-8") as fh:
    code = compile(fh.read(), "step.py", "exec")
scope = {"__name__": "__main__", "path": path, "history": history}
with contextlib.redirect_stdout(sys.stderr):
    exec(code, scope)
out = scope.get("path")
if not isinstance(out, (list, tuple)):
    sys.exit("path is %s, not a list" % type(out).__name__)
out = list(out)
if len(out) != n:
    sys.exit("path has %d values, not %d" % (len(out), n))
for i, v in enumerate(out):
    if isinstance(v, bool) or not isinstance(v, (int, float)) or not math.isfinite(v):
        sys.exit("path[%d] = %r is not a finite number" % (i, v))
sys.stdout.write(json.dumps([float(v) for v in out]))
'''


@dataclass(frozen=True)
class ProgramResult:
    """The path a program left (``values``) or why it left none (``error``, shown to the seat in the next ask)."""

    values: tuple[float, ...] | None
    error: str | None
    #: The sandbox could not run the program at all (not the program's fault): the loop stops there.
    incident: bool = False


def _tail(text: str, limit: int) -> str:
    text = text.strip()
    return text if len(text) <= limit else "..." + text[-limit:]


def read_path(stdout: bytes, horizon: int) -> tuple[float, ...] | None:
    """The harness's output: a JSON array of exactly ``horizon`` finite numbers, else None."""
    try:
        doc: Json = json.loads(stdout.decode("utf-8"), parse_constant=lambda _: None)
    except (UnicodeDecodeError, ValueError):
        return None
    if not isinstance(doc, list) or len(doc) != horizon:
        return None
    out: list[float] = []
    for v in doc:
        if isinstance(v, bool) or not isinstance(v, int | float) or not math.isfinite(v):
            return None
        out.append(float(v))
    return tuple(out)


def program_sandbox(sandbox: Sandbox) -> Sandbox:
    """The sandbox a program runs in: the one inside a run's policy sandbox (a program gets no network)."""
    return sandbox.inner if isinstance(sandbox, PolicySandbox) else sandbox


def run_program(sandbox: Sandbox, code: str, path: Sequence[float], history: Sequence[float],
                timeout_s: float = EDIT_TIMEOUT_S) -> ProgramResult:
    """Run one program on ``path`` in the sandbox; never raises (a sandbox that cannot run is an error too)."""
    stdin = json.dumps({"path": [float(v) for v in path], "history": [float(v) for v in history]}).encode()
    files = {"harness.py": HARNESS, "step.py": code.encode("utf-8", "surrogateescape")}
    try:
        res = program_sandbox(sandbox).exec(
            [SYSTEM_PYTHON, "-I", "-S", f"{SANDBOX_HOME}/harness.py", f"{SANDBOX_HOME}/step.py"], stdin=stdin,
            timeout=timeout_s, profile=EDIT_PROFILE, files_in_home=files)
    except SandboxError as exc:
        return ProgramResult(None, f"sandbox incident: the sandbox could not run the program: {exc.message}", True)
    except Exception as exc:  # noqa: BLE001 - never raises; the step records the failure
        return ProgramResult(None, f"sandbox incident: {type(exc).__name__}: {exc}"[:500], True)
    if res.ended_by is not EndedBy.EXIT:
        limits = {EndedBy.TIMEOUT: f"ran longer than {timeout_s:g} s", EndedBy.MEMORY: "used too much memory",
                  EndedBy.OUTPUT_CAP: "printed too much", EndedBy.FILE_SIZE: "wrote too large a file",
                  EndedBy.PROCESSES: "started too many processes"}
        why = limits.get(res.ended_by, f"was stopped ({res.ended_by.value})")
        return ProgramResult(None, f"the program {why}; the path is unchanged")
    if res.exit_code != 0:
        return ProgramResult(None, _tail(res.err_text, 1200) or f"the program exited with status {res.exit_code}")
    values = read_path(res.stdout, len(path))
    if values is None:
        return ProgramResult(None, f"the program did not leave `path` as {len(path)} finite numbers")
    return ProgramResult(values, None)
