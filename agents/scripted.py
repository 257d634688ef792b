"""The scripted seat: an offline seat that runs as a REAL child process inside the REAL sandbox.

Used by the demo and the tests so that the offline path exercises the same isolation as the
vendors' CLIs. The child (``scripted_child.py``, stdlib only) is copied into the sandbox home and
run with Debian's ``/usr/bin/python3`` (the project's own interpreter lives under ``/root``, which
the sandbox hides). Latency is SIMULATED: ``finished_at = started_at + latency_s``; nothing sleeps.
A seat always runs in the sandbox it is given (tests may pass their own); by default, bubblewrap, with the
profile ``scripted-child`` (CHILD_PROFILE): the scripted profile's uid, caps, limits, fresh home and no network,
without the mounts the child never uses (/etc, /proc, /dev, /tmp), with the child itself as the pid
namespace's pid 1 (it starts no process): about a fifth less CPU a run (docs/sandbox.md "The scripted child's
profile", docs/costs.md).
"""

from __future__ import annotations

import os
import subprocess
import threading
from datetime import timedelta
from functools import cache
from importlib import resources
from typing import Any, ClassVar

from league_agents.base import Ask, FailureClass, Now, SeatReply, SeatSpec
from league_agents.options import SCRIPTED_MODES, ScriptedOptions, SeatOptions
from league_agents.standin import SYSTEM_PYTHON, ScriptSeat
from sandbox.interface import EndedBy, Sandbox, SandboxError
from sandbox.profiles import SANDBOX_HOME, Profile

#: ``second_wave``: silent when first asked (08:30), answers when asked again at the second wave.
MODES = SCRIPTED_MODES
LATE_DEFAULT_S = 3 * 3600.0
#: The child needs the standard library alone: isolated mode (no environment variables, no user site) and no
#: ``site`` import (the system's .pth files), ~70 ms less start-up per run; its output is the same.
CHILD_FLAGS = ("-I", "-S")
#: The sandbox profile the child runs in (sandbox/profiles.py).
CHILD_PROFILE = "scripted-child"


@cache
def child_source() -> bytes:
    """The child's source, read once per process (every ask copies it into a fresh sandbox home)."""
    return resources.files("league_agents").joinpath("scripted_child.py").read_bytes()


# Run by the system python on the child's source (stdin): its code object, marshalled behind the header of a
# .pyc of that very interpreter (its magic number; an unchecked hash-based one: nothing is ever compared to a
# source, ``python file.pyc`` runs the code). Stdlib only and stand-alone, as the child.
_COMPILE = """\
import marshal, sys
from _imp import source_hash
from importlib._bootstrap_external import MAGIC_NUMBER, _RAW_MAGIC_NUMBER
src = sys.stdin.buffer.read()
code = compile(src, sys.argv[1], "exec", dont_inherit=True)
sys.stdout.buffer.write(MAGIC_NUMBER + (1).to_bytes(4, "little") + source_hash(_RAW_MAGIC_NUMBER, src)
                        + marshal.dumps(code))
"""
_compiled: dict[tuple[int, int, int], tuple[str, bytes]] = {}
_compiling = threading.Lock()


def child_program() -> tuple[str, bytes]:
    """(file name, content) of what each ask copies into the sandbox home and runs: the child compiled once by
    the system python itself (``scripted_child.pyc``: a run then skips compiling ~9 KB of source, ~2 ms of CPU
    each), or the source where that cannot be had. Compiled anew when the system python changes."""
    try:
        st = os.stat(SYSTEM_PYTHON)
    except OSError:
        return "scripted_child.py", child_source()
    key = (st.st_ino, st.st_size, st.st_mtime_ns)
    with _compiling:
        if key not in _compiled:
            _compiled[key] = _compile(child_source())
        return _compiled[key]


def _compile(source: bytes) -> tuple[str, bytes]:
    try:
        proc = subprocess.run([SYSTEM_PYTHON, *CHILD_FLAGS, "-c", _COMPILE, f"{SANDBOX_HOME}/scripted_child.py"],  # noqa: S603
                              input=source, capture_output=True, timeout=60, check=True)
    except (OSError, subprocess.SubprocessError):
        return "scripted_child.py", source
    return "scripted_child.pyc", proc.stdout


class ScriptedSeat(ScriptSeat):
    """Deterministic by (seed, seat, session, market, horizon); options: seed, skill, mode, latency_s,
    model, version, tokens (reported as ``total_tokens`` in the usage, for budget tests and demos)."""

    options_model: ClassVar[type[SeatOptions] | None] = ScriptedOptions
    #: The scripted profile forbids the network (docs/sandbox.md): no other policy can be honoured.
    networks: ClassVar[frozenset[str] | None] = frozenset({"none"})
    flags: ClassVar[tuple[str, ...]] = CHILD_FLAGS

    def __init__(self, spec: SeatSpec, *, sandbox: Sandbox | None = None) -> None:
        mode = str(spec.options.get("mode", "normal"))
        if mode not in MODES:
            raise ValueError(f"scripted seat {spec.name}: mode {mode!r} is not one of {MODES}")
        super().__init__(spec, sandbox=sandbox)
        self.mode = mode

    def program(self) -> tuple[str, bytes]:
        return child_program()

    def profile(self) -> str | Profile:
        return CHILD_PROFILE

    def timeout_s(self) -> float:
        return min(self.spec.timeout_s, 60.0)

    def owner(self) -> str | None:
        return self.spec.name

    def request(self, ask: Ask) -> dict[str, Any]:
        opts = self.spec.options
        return {
            "seed": int(opts.get("seed", 0)),
            "seat": self.spec.name,
            "session": ask.session,
            "markets": dict(ask.context.get("markets", {})),
            "hint": dict(ask.context.get("hint", {})) if float(opts.get("skill", 0)) > 0 else {},
            "skill": float(opts.get("skill", 0.0)),
            "mode": self.child_mode(ask),
            **({"variant": str(ask.context["variant"])} if ask.context.get("variant") else {}),
            **({"talk": dict(ask.context["talk"])} if ask.context.get("talk") else {}),
            **({"cite": [str(u) for u in opts["cite"]]} if opts.get("cite") else {}),
        }

    def child_mode(self, ask: Ask) -> str:
        """What the child does for this ask: a ``second_wave`` seat stays silent on its first attempt."""
        if self.mode == "second_wave":
            return "silent" if ask.attempt == 1 else "normal"
        return self.mode

    @property
    def latency_s(self) -> float:
        default = LATE_DEFAULT_S if self.mode == "late" else 0.0
        return float(self.spec.options.get("latency_s", default))

    def ask(self, ask: Ask, now: Now) -> SeatReply:
        started = now()
        finished = started + timedelta(seconds=self.latency_s)
        try:
            res = self.run_script(ask)
        except SandboxError as exc:
            return self._reply(started, finished, "", FailureClass.SANDBOX, exc.diagnostics())
        if not res.ok:
            failure = FailureClass.TIMEOUT if res.ended_by is EndedBy.TIMEOUT else FailureClass.SEAT_FAULT
            return self._reply(started, finished, "", failure, res.detail + " " + res.err_text[-500:])
        text = res.stdout.decode("utf-8", "surrogateescape")  # bytes that are not UTF-8 survive, losslessly
        return self._reply(started, finished, text, None, "" if text else "no output")

    def _reply(self, started: Any, finished: Any, raw: str, failure: FailureClass | None, detail: str) -> SeatReply:
        opts = self.spec.options
        model = str(opts.get("model", self.spec.model if self.spec.model != "unreported" else "scripted"))
        return SeatReply(
            seat=self.spec.name,
            raw=raw,
            model=model,
            version=str(opts.get("version", "scripted-1")),
            mode=self.mode,
            started_at=started,
            finished_at=finished,
            usage={"latency_s": self.latency_s,
                   **({"total_tokens": int(opts["tokens"])} if int(opts.get("tokens", 0)) > 0 else {})},
            failure=failure,
            detail=detail.strip(),
        )
