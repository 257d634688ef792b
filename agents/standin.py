"""Seats whose CLI is one stdlib script, run by Debian's python3 inside the real sandbox.

The council's scripted seat (agents/scripted.py) and the stand-ins the contest and the evaluation tracks put
in a vendor CLI's place (agents/contest_standin.py, agents/eval_standin.py) are the same kind of seat: the
script is copied into a fresh sandbox home, one JSON request goes to its stdin, and its output is the raw
reply. :class:`ScriptSeat` is that one sandboxed run; :class:`StandIn` adds what a stand-in does with it,
read like a vendor CLI's run (a sandbox, timeout or crash becomes a classified reply, never an exception).
A script needs the standard library alone: the project's own interpreter lives under ``/root``, which the
sandbox hides.
"""

from __future__ import annotations

import json
from abc import ABC, abstractmethod
from collections.abc import Mapping
from datetime import datetime
from typing import Any, ClassVar

from league_agents.base import Ask, FailureClass, Now, SeatReply
from league_agents.failures import classify_text
from league_agents.sandboxed import SandboxedSeat
from sandbox.interface import EndedBy, ExecResult, SandboxError
from sandbox.profiles import SANDBOX_HOME, Profile

SYSTEM_PYTHON = "/usr/bin/python3"


class ScriptSeat(SandboxedSeat, ABC):
    """One stdlib script per ask in the sandbox: :meth:`run_script`. A subclass names the script
    (:meth:`program`), the request it reads (:meth:`request`) and the profile it runs under."""

    #: The interpreter's flags (the scripted child runs isolated, without ``site``).
    flags: ClassVar[tuple[str, ...]] = ()

    @abstractmethod
    def program(self) -> tuple[str, bytes]:
        """The script's file name in the sandbox home and its content."""

    @abstractmethod
    def request(self, ask: Ask) -> dict[str, Any]:
        """The JSON object the script reads on stdin."""

    def profile(self) -> str | Profile:
        return "scripted"

    def timeout_s(self) -> float:
        return self.spec.timeout_s

    def owner(self) -> str | None:
        """Whose sandbox uid the run takes (``None``: a fresh one per run)."""
        return None

    def run_script(self, ask: Ask) -> ExecResult:
        """Run the script once on the ask's request; a sandbox that cannot run raises ``SandboxError``."""
        name, program = self.program()
        return self.sandbox.exec([SYSTEM_PYTHON, *self.flags, f"{SANDBOX_HOME}/{name}"],
                                 stdin=json.dumps(self.request(ask)).encode("utf-8"), timeout=self.timeout_s(),
                                 profile=self.profile(), files_in_home={name: program}, owner=self.owner())


class StandIn(ScriptSeat):
    """A track's stand-in for a vendor CLI, read like one: a run that cannot start is a sandbox incident, a
    run out of time a timeout, a failed run classified from its stderr as a CLI's would be. Options: the
    adapter's own model (``options_model``); ``mode`` is reported as the reply's mode."""

    hinted: ClassVar[bool] = True
    #: The version every reply reports.
    version: ClassVar[str] = ""
    #: Whether a run that timed out or failed keeps what it printed as the raw reply.
    keeps_output: ClassVar[bool] = False

    def ask(self, ask: Ask, now: Now) -> SeatReply:
        started = now()
        try:
            res = self.run_script(ask)
        except SandboxError as exc:
            return self.reply(started, now(), "", FailureClass.SANDBOX, exc.diagnostics())
        kept = res.text if self.keeps_output else ""
        if res.ended_by is EndedBy.TIMEOUT:
            return self.reply(started, now(), kept, FailureClass.TIMEOUT, res.detail)
        if not res.ok:
            return self.reply(started, now(), kept, classify_text(res.err_text),
                              f"{res.detail}: {res.err_text.strip()[-500:]}")
        return self.answered(res.text, started, now())

    def answered(self, text: str, started: datetime, finished: datetime) -> SeatReply:
        """The reply of a run that ended well: its output is the raw reply."""
        return self.reply(started, finished, text, None, "")

    def model_in(self, raw: str) -> str:
        """The model the output reports, if it names one."""
        return ""

    def reply(self, started: datetime, finished: datetime, raw: str, failure: FailureClass | None, detail: str,
              *, model: str = "", usage: Mapping[str, Any] | None = None) -> SeatReply:
        return SeatReply(seat=self.spec.name, raw=raw, model=model or self.model_in(raw) or self.spec.model,
                         version=self.version, mode=str(self.spec.options.get("mode", "normal")),
                         started_at=started, finished_at=max(finished, started), usage=dict(usage or {}),
                         failure=failure, detail=detail)
