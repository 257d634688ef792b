"""How the contest runs its agents: any :class:`league_agents.base.Seat`, inside the sandbox, with ``bench``.

- :class:`BenchSandbox` wraps the real sandbox for one agent's round: it binds that agent's socket
  directory read-only into the sandbox, puts ``bench`` into ``~/bin`` and sets ``$BENCH_SOCKET``.
  The seat never knows; a vendor CLI seat built with this sandbox gets ``bench`` for free.
- :class:`StandInSeat` stands in for a vendor CLI (``adapter = "contest-standin"``): a stdlib
  script run by Debian's python3 in the real sandbox (see ``standin_cli.py``).
- :func:`build_contest_seat` builds either; real CLIs come from ``league_agents.registry``.
"""

from __future__ import annotations

import json
import re
from collections.abc import Callable, Mapping, Sequence
from dataclasses import replace
from datetime import datetime
from importlib import resources
from pathlib import Path
from typing import Any

from league_agents.base import Ask, FailureClass, Now, Seat, SeatBase, SeatReply, SeatSpec
from league_agents.failures import classify_text
from sandbox.interface import EndedBy, ExecResult, Sandbox, SandboxError
from sandbox.netpolicy import EgressRules
from sandbox.profiles import SANDBOX_HOME, Profile, get_profile

SYSTEM_PYTHON = "/usr/bin/python3"
STANDIN = "contest-standin"
MODEL_LINE = re.compile(r"^model:\s*(\S+)", re.M)
SeatFactory = Callable[[SeatSpec, Sandbox], Seat]


def package_file(name: str) -> bytes:
    return resources.files("league.contest").joinpath(name).read_bytes()


class BenchSandbox:
    """A :class:`sandbox.interface.Sandbox` that adds one round's ``bench`` to every run."""

    def __init__(self, inner: Sandbox, socket_dir: Path) -> None:
        self.inner = inner
        self.socket_dir = Path(socket_dir)

    def exec(self, argv: Sequence[str], *, stdin: bytes | None = None, timeout: float,
             env: Mapping[str, str] | None = None, egress: EgressRules | None = None,
             profile: str | Profile = "default",
             files_in_home: Mapping[str, bytes] | None = None, owner: str | None = None) -> ExecResult:
        prof = get_profile(profile) if isinstance(profile, str) else profile
        prof = replace(prof, ro_binds=(*prof.ro_binds, str(self.socket_dir)))
        files = {**(files_in_home or {}), "bin/bench": package_file("bench_cli.py")}
        full_env = {**(env or {}), "BENCH_SOCKET": str(self.socket_dir / "bench.sock")}
        return self.inner.exec(argv, stdin=stdin, timeout=timeout, env=full_env, egress=egress, profile=prof,
                               files_in_home=files, owner=owner)


class StandInSeat(SeatBase):
    """A scripted stand-in for a vendor CLI; options: seed, skill, mode, model, rationale, quote,
    max_price. The ask's ``context`` carries ``kind`` ("sweep"/"round"), the swept markets and, in
    the demo only, ``hint`` (the recorded winners) that ``skill`` leans toward."""

    def __init__(self, spec: SeatSpec, *, sandbox: Sandbox) -> None:
        self.spec = spec
        self.sandbox = sandbox

    def request(self, ask: Ask) -> dict[str, Any]:
        opts = dict(self.spec.options)
        return {
            **{k: opts[k] for k in ("rationale", "quote", "max_price") if k in opts},
            "prompt": ask.text,
            "kind": ask.context.get("kind", "sweep"),
            "markets": list(ask.context.get("markets", [])),
            "hint": dict(ask.context.get("hint", {})),
            "seed": int(opts.get("seed", 0)),
            "agent": self.spec.name,
            "skill": float(opts.get("skill", 0.0)),
            "mode": str(opts.get("mode", "normal")),
            "model": str(opts.get("model", self.spec.model)),
        }

    def ask(self, ask: Ask, now: Now) -> SeatReply:
        started = now()
        try:
            res = self.sandbox.exec(
                [SYSTEM_PYTHON, f"{SANDBOX_HOME}/standin_cli.py"],
                stdin=json.dumps(self.request(ask)).encode("utf-8"),
                timeout=self.spec.timeout_s,
                profile=self.spec.profile if self.spec.profile != "default" else "scripted",
                files_in_home={"standin_cli.py": package_file("standin_cli.py")},
            )
        except SandboxError as exc:
            return self._reply(started, now(), "", FailureClass.SANDBOX, exc.diagnostics())
        if res.ended_by is EndedBy.TIMEOUT:
            return self._reply(started, now(), res.text, FailureClass.TIMEOUT, res.detail)
        if not res.ok:
            failure = classify_text(res.err_text)
            return self._reply(started, now(), res.text, failure, f"{res.detail}: {res.err_text.strip()[-500:]}")
        return self._reply(started, now(), res.text, None, "")

    def _reply(self, started: datetime, finished: datetime, raw: str, failure: FailureClass | None,
               detail: str) -> SeatReply:
        found = MODEL_LINE.search(raw)
        return SeatReply(seat=self.spec.name, raw=raw, model=found.group(1) if found else self.spec.model,
                         version="contest-standin-1", mode=str(self.spec.options.get("mode", "normal")),
                         started_at=started, finished_at=max(finished, started), failure=failure, detail=detail)


def build_contest_seat(spec: SeatSpec, sandbox: Sandbox) -> Seat:
    """The stand-in, or any registered seat adapter (the vendor CLIs) built on ``sandbox``."""
    if spec.adapter == STANDIN:
        return StandInSeat(spec, sandbox=sandbox)
    from league_agents.registry import build_seat

    return build_seat(spec, sandbox=sandbox)


def default_sandbox() -> Sandbox:
    from sandbox.bwrap import BwrapSandbox

    return BwrapSandbox()
