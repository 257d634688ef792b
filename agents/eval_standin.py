"""The evaluations' stand-in for a vendor CLI (``adapter = "eval-standin"``), registered like any seat adapter.

``eval_standin_cli.py`` (stdlib only) is copied into the sandbox home as ``standin_cli.py`` and run by Debian's
python3; its JSON envelope is read like a CLI's JSON output (reply text, model, reported cost). It is the only
kind of seat whose ask carries the recorded answer (as a hint that its ``skill`` leans toward); a real seat's
ask carries nothing but the prompt text and the question.
"""

from __future__ import annotations

import json
from dataclasses import replace
from datetime import datetime
from functools import cache
from importlib import resources
from typing import Any, ClassVar

from league_agents.base import Ask, FailureClass, SeatReply, SeatSpec
from league_agents.options import EvalStandInOptions, SeatOptions
from league_agents.standin import StandIn
from sandbox.interface import Sandbox
from sandbox.profiles import Profile, get_profile


@cache
def script() -> bytes:
    return resources.files("league_agents").joinpath("eval_standin_cli.py").read_bytes()


class EvalStandInSeat(StandIn):
    """Options: seed, skill (0–1), mode (normal, silent, prose, crash, mixed), model, cost_usd, think_s
    (:class:`EvalStandInOptions`)."""

    options_model: ClassVar[type[SeatOptions] | None] = EvalStandInOptions
    #: The run's policy decides about the network (league.evals.policy), not the roster entry.
    networks: ClassVar[frozenset[str] | None] = frozenset({"none"})
    tracks: ClassVar[frozenset[str] | None] = frozenset({"eval"})
    version: ClassVar[str] = "eval-standin-1"

    def __init__(self, spec: SeatSpec, *, sandbox: Sandbox | None = None) -> None:
        super().__init__(spec, sandbox=sandbox)
        # The scripted profile's limits, but the run's policy decides about the network (none by default).
        self._profile = replace(get_profile("scripted"), name="eval-standin", allow_net=True)

    def program(self) -> tuple[str, bytes]:
        return "standin_cli.py", script()

    def profile(self) -> str | Profile:
        return self._profile

    def request(self, ask: Ask) -> dict[str, Any]:
        opts = self.spec.options
        return {"prompt": ask.text, "question": dict(ask.context.get("question", {})),
                "hint": ask.context.get("hint"), "trial": ask.attempt, "seed": int(opts.get("seed", 0)),
                "seat": self.spec.name, "skill": float(opts.get("skill", 0.0)), "mode": str(opts.get("mode", "normal")),
                "model": str(opts.get("model", self.spec.model)), "cost_usd": opts.get("cost_usd"),
                "think_s": float(opts.get("think_s", 0.0))}

    def answered(self, text: str, started: datetime, finished: datetime) -> SeatReply:
        """The envelope's reply text, model and reported cost; no output is a silence, other output a fault."""
        if not text.strip():
            return self.reply(started, finished, "", None, "no output")
        try:
            envelope = json.loads(text)
        except ValueError:
            return self.reply(started, finished, "", FailureClass.SEAT_FAULT, "the stand-in printed no JSON")
        usage = {"total_cost_usd": envelope.get("total_cost_usd"), "network": envelope.get("network"),
                 "proxy": envelope.get("proxy")}
        return self.reply(started, finished, str(envelope.get("result") or ""), None, "", usage=usage,
                          model=str(envelope.get("model") or self.spec.model))
