"""How an evaluation runs a seat: any registered seat adapter, or the eval stand-in, always in the sandbox.

:class:`StandInSeat` (``adapter = "eval-standin"``) stands in for a vendor CLI: ``standin_cli.py`` is copied
into the sandbox home and run by Debian's ``/usr/bin/python3``, and its JSON envelope is read like a CLI's JSON
output (reply text, model, reported cost). It is the only seat that receives the recorded answer (as a hint
that its ``skill`` leans toward); a real seat receives nothing but the prompt text.
"""

from __future__ import annotations

import json
from collections.abc import Callable
from dataclasses import replace
from datetime import datetime
from importlib import resources
from typing import Any

from league_agents.base import Ask, FailureClass, Now, Seat, SeatBase, SeatReply, SeatSpec
from league_agents.failures import classify_text
from sandbox.interface import EndedBy, Sandbox, SandboxError
from sandbox.profiles import SANDBOX_HOME, get_profile

SYSTEM_PYTHON = "/usr/bin/python3"
STANDIN = "eval-standin"
SeatFactory = Callable[[SeatSpec, Sandbox], Seat]


def standin_source() -> bytes:
    return resources.files("league.evals").joinpath("standin_cli.py").read_bytes()


class StandInSeat(SeatBase):
    """Options: seed, skill (0–1), mode (normal, silent, prose, crash, mixed), model, cost_usd, think_s (how long
    it waits before answering, as a vendor's API would: the throughput benchmark's stand-in for a real run)."""

    def __init__(self, spec: SeatSpec, *, sandbox: Sandbox) -> None:
        self.spec = spec
        self.sandbox = sandbox
        # The scripted profile's limits, but the run's policy decides about the network (none by default).
        self.profile = replace(get_profile("scripted"), name="eval-standin", allow_net=True)

    def request(self, ask: Ask) -> dict[str, Any]:
        opts = self.spec.options
        return {"prompt": ask.text, "question": dict(ask.context.get("question", {})),
                "hint": ask.context.get("hint"), "trial": ask.attempt, "seed": int(opts.get("seed", 0)),
                "seat": self.spec.name, "skill": float(opts.get("skill", 0.0)), "mode": str(opts.get("mode", "normal")),
                "model": str(opts.get("model", self.spec.model)), "cost_usd": opts.get("cost_usd"),
                "think_s": float(opts.get("think_s", 0.0))}

    def ask(self, ask: Ask, now: Now) -> SeatReply:
        started = now()
        try:
            res = self.sandbox.exec([SYSTEM_PYTHON, f"{SANDBOX_HOME}/standin_cli.py"],
                                    stdin=json.dumps(self.request(ask)).encode("utf-8"), timeout=self.spec.timeout_s,
                                    profile=self.profile, files_in_home={"standin_cli.py": standin_source()})
        except SandboxError as exc:
            return self._reply(started, now(), "", {}, FailureClass.SANDBOX, exc.diagnostics())
        if res.ended_by is EndedBy.TIMEOUT:
            return self._reply(started, now(), "", {}, FailureClass.TIMEOUT, res.detail)
        if not res.ok:
            return self._reply(started, now(), "", {}, classify_text(res.err_text),
                               f"{res.detail}: {res.err_text.strip()[-500:]}")
        if not res.text.strip():
            return self._reply(started, now(), "", {}, None, "no output")
        try:
            envelope = json.loads(res.text)
        except ValueError:
            return self._reply(started, now(), "", {}, FailureClass.SEAT_FAULT, "the stand-in printed no JSON")
        usage = {"total_cost_usd": envelope.get("total_cost_usd"), "network": envelope.get("network"),
                 "proxy": envelope.get("proxy")}
        return self._reply(started, now(), str(envelope.get("result") or ""), usage, None, "",
                           model=str(envelope.get("model") or self.spec.model))

    def _reply(self, started: datetime, finished: datetime, raw: str, usage: dict[str, Any],
               failure: FailureClass | None, detail: str, model: str = "") -> SeatReply:
        return SeatReply(seat=self.spec.name, raw=raw, model=model or self.spec.model, version="eval-standin-1",
                         mode=str(self.spec.options.get("mode", "normal")), started_at=started,
                         finished_at=max(finished, started), usage=usage, failure=failure, detail=detail)


def build_eval_seat(spec: SeatSpec, sandbox: Sandbox) -> Seat:
    """The stand-in, or any registered seat adapter (vendor CLIs, SDK seats) built on ``sandbox``."""
    if spec.adapter == STANDIN:
        return StandInSeat(spec, sandbox=sandbox)
    from league_agents.registry import build_seat

    return build_seat(spec, sandbox=sandbox)


def default_sandbox() -> Sandbox:
    from sandbox.bwrap import BwrapSandbox

    return BwrapSandbox()


def reported_cost(usage: Any) -> float | None:
    """The cost a reply reported (``total_cost_usd`` as Claude Code prints it, or ``cost_usd``), if any."""
    if not isinstance(usage, dict):
        return None
    for key in ("total_cost_usd", "cost_usd"):
        value = usage.get(key)
        if isinstance(value, int | float) and not isinstance(value, bool) and value >= 0:
            return float(value)
    return None
